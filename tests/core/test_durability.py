"""Crash safety and concurrent writers on the SQLite store, with real processes."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from combatlog.wiring import verify_stream
from combatlog.store.sqlite import SQLiteStore

BATCH = 10

WRITER = r"""
import sys
from combatlog.wiring import create_combat
from combatlog.events.core import Noted
from combatlog.events.envelope import encode_envelope, seal
from combatlog.store.base import NewRow
from combatlog.store.sqlite import SQLiteStore

store = SQLiteStore(sys.argv[1])
sid = create_combat(store, "crash", "freeform", actor="gm").stream.id
print("ready", flush=True)
n = 0
while True:
    head = store.head(sid)
    prev, rows = head.hash, []
    for i in range(%d):
        env = seal(stream=sid, seq=head.seq + 1 + i, prev=prev, event=Noted(text=f"b{n}e{i}" * 20), actor="gm", command_id=f"batch-{n}")
        rows.append(NewRow(env.seq, env.type, env.hash, encode_envelope(env)))
        prev = env.hash
    store.append(sid, rows, expected_version=head.seq, command_id=f"batch-{n}")
    n += 1
""" % BATCH


@pytest.mark.slow
def test_sigkill_mid_append_leaves_whole_batches_that_verify(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    for delay in (0.4, 0.9, 1.3):
        if db.exists():
            for p in tmp_path.glob("crash.db*"):
                p.unlink()
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        store = SQLiteStore(db)
        meta = store.list_streams()[0]
        head = store.head(meta.id).seq
        assert head > 1 + BATCH, "the writer should have committed several batches"
        assert (head - 1) % BATCH == 0, f"a partial batch survived: head {head}"
        assert verify_stream(store, meta).head_seq == head
        spans = store.conn.execute("SELECT last_seq - first_seq + 1 FROM commands WHERE command_id LIKE 'batch-%'").fetchall()
        assert {s[0] for s in spans} == {BATCH}
        store.close()


def _racer(db: str, sid: str, rounds: int, barrier, results) -> None:  # type: ignore[no-untyped-def]
    from combatlog.errors import ConcurrencyConflict
    from combatlog.events.core import Noted
    from combatlog.events.envelope import encode_envelope, seal
    from combatlog.store.base import NewRow

    store = SQLiteStore(db)
    won = lost = 0
    for r in range(rounds):
        head = store.head(sid)
        env = seal(stream=sid, seq=head.seq + 1, prev=head.hash, event=Noted(text=f"{os.getpid()}-{r}"),
                   actor="gm", command_id=f"{os.getpid()}-{r}")
        barrier.wait()  # both have read the same head before either appends
        try:
            store.append(sid, [NewRow(env.seq, env.type, env.hash, encode_envelope(env))],
                         expected_version=head.seq, command_id=env.command_id)
            won += 1
        except ConcurrencyConflict as exc:
            assert exc.expected == head.seq and exc.actual == head.seq + 1
            lost += 1
        barrier.wait()
    results.put((won, lost))


@pytest.mark.slow
def test_two_processes_on_one_stream_one_wins_each_race(tmp_path: Path) -> None:
    from combatlog.wiring import create_combat

    db = tmp_path / "race.db"
    store = SQLiteStore(db)
    sid = create_combat(store, "race", "freeform", actor="gm").stream.id
    rounds = 25
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(str(db), sid, rounds, barrier, results)) for _ in range(2)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert sum(w for w, _ in outcomes) == rounds  # exactly one winner per race
    assert sum(x for _, x in outcomes) == rounds  # and one loser told of the conflict
    assert store.head(sid).seq == 1 + rounds
    seqs = [r.seq for r in store.read_stream(sid)]
    assert seqs == list(range(1, rounds + 2))  # nothing lost or duplicated
    assert verify_stream(store, store.get_stream(sid)).head_seq == 1 + rounds  # type: ignore[arg-type]
