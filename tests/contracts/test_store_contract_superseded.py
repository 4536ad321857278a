"""The store contract for a deterministic merge: a stream's tail is replaced, the old tail kept as evidence.

``exchange/merge.py`` calls ``replace_tail`` when the branch it received wins over the one here; the
events it replaces are never lost (``superseded``), and ``keep_superseded`` keeps a losing branch that
arrived by mail. Every backend behaves like this.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from combatlog.errors import ConcurrencyConflict
from combatlog.events.core import Noted
from combatlog.events.envelope import encode_envelope, seal
from combatlog.store.base import EventStore, NewRow, SupersededRow
from tests.contracts.test_store_contract import meta, rows

Factory = Callable[[], EventStore]
AT = "2026-11-24T08:00:00Z"


def branch(stream: str, start: int, count: int, prev: str, text: str, cid: str) -> list[NewRow]:
    out = []
    for seq in range(start, start + count):
        env = seal(stream=stream, seq=seq, prev=prev, event=Noted(text=f"{text}{seq}"), actor="t", command_id=cid)
        out.append(NewRow(seq, env.type, env.hash, encode_envelope(env), env.command_id))
        prev = env.hash
    return out


def test_replace_tail_keeps_the_old_tail_and_puts_the_new_one_in_its_place(store_factory: Factory) -> None:
    store = store_factory()
    base = rows("s1", 1, 3)
    store.create_stream(meta("s1"), base, command_id="c0")
    ours = branch("s1", 4, 2, base[-1].hash, "ours", "mine")
    store.append("s1", ours, expected_version=3, command_id="mine")
    store.save_snapshot("s1", 3, "e", b"at-3")
    store.save_snapshot("s1", 5, "e", b"at-5")
    theirs = branch("s1", 4, 3, base[-1].hash, "theirs", "yours")
    moved = store.replace_tail("s1", fork_seq=3, expected_version=5, rows=theirs, superseded_at=AT)
    assert [(m.seq, m.hash, m.body) for m in moved] == [(r.seq, r.hash, r.body) for r in ours]
    assert [m.by for m in moved] == [theirs[0].hash, theirs[1].hash]  # what holds that seq now
    assert [r.body for r in store.read_stream("s1")] == [r.body for r in base + theirs]
    assert store.head("s1").hash == theirs[-1].hash
    assert store.superseded("s1") == moved
    # the replaced command id is free again (a rebase re-applies it), the new one is known
    assert store.command_result("s1", "mine") is None
    assert store.command_result("s1", "yours") is not None
    # a snapshot past the fork point described the old tail: gone; one before it stays
    assert store.load_snapshot("s1", 10, "e") == (3, b"at-3")
    # positions stay unique and increasing in the global order
    positions = [r.position for r in store.read_all()]
    assert positions == sorted(set(positions)) and len(positions) == 6


def test_replace_tail_checks_the_head_and_changes_nothing_on_conflict(store_factory: Factory) -> None:
    store = store_factory()
    base = rows("s1", 1, 3)
    store.create_stream(meta("s1"), base, command_id="c0")
    with pytest.raises(ConcurrencyConflict):
        store.replace_tail("s1", fork_seq=2, expected_version=2, rows=branch("s1", 3, 1, base[1].hash, "x", "x"),
                           superseded_at=AT)
    assert [r.hash for r in store.read_stream("s1")] == [r.hash for r in base]
    assert store.superseded("s1") == []


def test_a_losing_branch_received_is_kept_once(store_factory: Factory) -> None:
    store = store_factory()
    base = rows("s1", 1, 2)
    store.create_stream(meta("s1"), base, command_id="c0")
    lost = [SupersededRow(stream="s1", seq=r.seq, hash=r.hash, body=r.body, by=base[-1].hash, superseded_at=AT)
            for r in branch("s1", 2, 2, base[0].hash, "lost", "l")]
    assert store.keep_superseded(lost) == 2
    assert store.keep_superseded(lost) == 0  # the same mail twice
    assert store.superseded("s1") == lost
    assert [r.hash for r in store.read_stream("s1")] == [r.hash for r in base]  # the log is untouched


def test_superseded_events_survive_reopening_a_sqlite_log_and_an_old_log_gains_the_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    from combatlog.store.sqlite import SCHEMA_VERSION, SQLiteStore

    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    base = rows("s1", 1, 2)
    store.create_stream(meta("s1"), base, command_id="c0")
    store.replace_tail("s1", fork_seq=1, expected_version=2, rows=branch("s1", 2, 1, base[0].hash, "n", "n"),
                       superseded_at=AT)
    store.close()
    assert [r.hash for r in SQLiteStore(path).superseded("s1")] == [base[1].hash]
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE superseded")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.superseded("s1") == []
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.close()
