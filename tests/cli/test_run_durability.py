"""`run FILE` commits each line as its own transaction but syncs them to disk in groups
(SQLiteStore.synced_every): each line is still all or nothing, seen at once by other readers, and kept
when the process is killed; a run killed midway and run again ends where an uninterrupted run ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from combatlog.commands.core import AddNote
from combatlog.wiring import create_combat, execute
from combatlog.errors import InvalidCommand
from combatlog.wiring import verify_stream
from combatlog.store.sqlite import SQLiteStore
from tests.conftest import CLI, REPO


def synchronous(store: SQLiteStore) -> int:
    return int(store.conn.execute("PRAGMA synchronous").fetchone()[0])


def test_inside_a_group_each_command_commits_alone_and_full_sync_returns_after(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "log.db")
    create_combat(store, "duel", "freeform", actor="gm")
    assert synchronous(store) == 2  # FULL: an fsync per commit, as every single command
    with store.synced_every(60.0):
        assert synchronous(store) == 1  # NORMAL: written at each commit, synced by the group
        execute(store, "duel", AddNote(text="first"), actor="gm")
        reader = SQLiteStore(tmp_path / "log.db")  # another process's view: committed already
        assert reader.head(store.list_streams()[0].id).seq == 2
        try:
            execute(store, "duel", AddNote(text="   "), actor="gm")  # refused: nothing of it stays
        except InvalidCommand:
            pass
        assert not store.conn.in_transaction
        execute(store, "duel", AddNote(text="second"), actor="gm")
        assert reader.head(store.list_streams()[0].id).seq == 3
    assert synchronous(store) == 2


def test_a_group_syncs_the_wal_each_time_and_its_folder_once(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The real fsyncs run; each is noted with what it synced (by inode). The WAL holds the commits and is
    synced at every group; the folder, where the WAL's name lives, only when the WAL is new to the store."""
    store = SQLiteStore(tmp_path / "log.db")
    create_combat(store, "duel", "freeform", actor="gm")
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.fstat(fd).st_ino), real_fsync(fd))[1])
    with store.synced_every(0.0):  # a sync after every commit
        for i in range(3):
            execute(store, "duel", AddNote(text=f"note {i}"), actor="gm")
    wal, folder = os.stat(tmp_path / "log.db-wal").st_ino, os.stat(tmp_path).st_ino
    assert synced.count(folder) == 1
    assert synced.count(wal) == 4  # three commits and the group's end
    assert reader_sees(tmp_path / "log.db") == 4


def reader_sees(path: Path) -> int:
    reader = SQLiteStore(path)
    return reader.head(reader.list_streams()[0].id).seq


def brawl_file(lines: int) -> str:
    out = ["new brawl --ruleset freeform --dice local", "freeform join brawl Aldo --side a --hp 1000000",
           "freeform join brawl Bo --side b --hp 1000000"]
    while len(out) < lines:
        out += ["freeform round brawl", 'freeform act brawl Aldo "swings" --roll 1d20',
                "freeform damage brawl Bo 2 --reason sword", 'note brawl "a round"']
    return "\n".join(out[:lines]) + "\n"


def test_a_run_killed_midway_keeps_every_line_it_reported_and_a_second_run_finishes_it(tmp_path: Path) -> None:
    script = tmp_path / "brawl.cmds"
    script.write_text(brawl_file(400))
    env = {**os.environ, "COMBATLOG_HOME": str(tmp_path / "keys"), "PYTHONPATH": str(REPO / "src")}
    db = tmp_path / "killed.db"
    proc = subprocess.Popen([*CLI, "--db", str(db), "run", str(script)], stdout=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path)
    assert proc.stdout is not None
    reported = 0
    for line in proc.stdout:  # wait until 120 events were reported, then kill without warning
        if line.startswith("brawl #"):
            reported = int(line.split()[1][1:])
            if reported >= 120:
                break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = SQLiteStore(db)
    meta = store.list_streams()[0]
    assert store.head(meta.id).seq >= reported  # nothing it printed was lost (commits survive the process)
    assert verify_stream(store, meta).ok
    subprocess.run([*CLI, "--db", str(db), "run", "-q", str(script)], env=env, cwd=tmp_path, check=True,
                   capture_output=True)
    whole = tmp_path / "whole.db"
    subprocess.run([*CLI, "--db", str(whole), "run", "-q", str(script)], env=env, cwd=tmp_path, check=True,
                   capture_output=True)
    other = SQLiteStore(whole)
    assert store.head(meta.id).seq == other.head(other.list_streams()[0].id).seq  # same lines, none twice
    assert verify_stream(store, meta).ok


def test_a_line_with_its_own_root_options_keeps_them(tmp_path: Path) -> None:
    """Most lines run under the run's root options without parsing them again (runner._invoke); a line
    that gives its own (--as, --db) is parsed whole, as before."""
    script = tmp_path / "mixed.cmds"
    other = tmp_path / "other.db"
    script.write_text("new duel --ruleset freeform\nfreeform join duel Aldo --side a --hp 10\n"
                      "note duel 'the referee speaks'\nnote duel 'bob objects' --as bob\n"
                      f"new elsewhere --ruleset freeform --db {other}\nnote duel 'back here'\n")
    env = {**os.environ, "COMBATLOG_HOME": str(tmp_path / "keys"), "PYTHONPATH": str(REPO / "src")}
    db = tmp_path / "log.db"
    subprocess.run([*CLI, "--db", str(db), "run", "-q", str(script)], env=env, cwd=tmp_path, check=True,
                   capture_output=True)
    log = json.loads(subprocess.run([*CLI, "--db", str(db), "log", "duel", "--json"], env=env, cwd=tmp_path,
                                    check=True, capture_output=True, text=True).stdout)
    events = log["events"] if isinstance(log, dict) else log
    assert [e["actor"] for e in events] == ["gm", "gm", "gm", "bob", "gm"]
    assert [m.name for m in SQLiteStore(other).list_streams()] == ["elsewhere"]
    assert [m.name for m in SQLiteStore(db).list_streams()] == ["duel"]
