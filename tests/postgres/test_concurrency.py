"""Concurrent writers and a follower against a real PostgreSQL server (issue 8, item 2).

The trap: with positions from a sequence, a transaction can take position 7,
another takes 8 and commits first; a follower that has read up to 8 never
looks below it again and silently loses 7 when it commits. The store hands
out positions under the ``log_head`` row lock instead, so committed positions
are always a gap-free prefix. These tests show the trap is real on this
server, that the store does not fall into it, and that four writer processes
(several on one stream) and a follower process agree on every event.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from combatlog.wiring import create_combat
from combatlog.errors import ConcurrencyConflict
from combatlog.wiring import verify_stream
from combatlog.store.postgres import PostgresStore
from tests.contracts.test_store_contract import meta, rows

psycopg = pytest.importorskip("psycopg")  # a dependency, but skip cleanly if it is absent
pytestmark = pytest.mark.postgres
WORKERS = Path(__file__).with_name("workers.py")
REPO = Path(__file__).resolve().parents[2]


def _wait_for_lock_waiter(url: str, timeout: float = 10.0) -> None:
    """Until some combatlog session on the server is waiting for a lock."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            n = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'combatlog' "
                             "AND wait_event_type = 'Lock'").fetchone()[0]
            if n:
                return
            time.sleep(0.01)
    raise AssertionError("no writer ever waited for a lock")


def _paused(store: PostgresStore) -> tuple[threading.Event, threading.Event]:
    """Make ``store``'s next append stop after its statement and before its commit, until released."""
    entered, release = threading.Event(), threading.Event()

    def hold(_cur: object) -> None:
        entered.set()
        assert release.wait(20), "never released"

    store.hold_before_commit = hold
    return entered, release


def _run(target, *args):  # type: ignore[no-untyped-def]
    out: dict[str, object] = {}

    def body() -> None:
        try:
            out["result"] = target(*args)
        except Exception as exc:  # handed to the test thread
            out["error"] = exc

    thread = threading.Thread(target=body)
    thread.start()
    return thread, out


def _append_positional(store: PostgresStore, stream: str, batch: list, expected: int, cid: str):  # type: ignore[no-untyped-def]
    return store.append(stream, batch, expected_version=expected, command_id=cid)


def test_the_sequence_trap_is_real_on_this_server(pg_url: str) -> None:
    # The naive design, by hand: two transactions take 1 and 2 from a sequence, 2 commits first.
    with psycopg.connect(pg_url, autocommit=True) as setup:
        setup.execute("CREATE TABLE naive (position bigserial PRIMARY KEY, what text)")
    slow, fast, reader = (psycopg.connect(pg_url) for _ in range(3))
    try:
        slow.execute("INSERT INTO naive (what) VALUES ('slow')")  # position 1, not committed
        fast.execute("INSERT INTO naive (what) VALUES ('fast')")  # position 2
        fast.commit()
        page = reader.execute("SELECT position FROM naive WHERE position > 0 ORDER BY position").fetchall()
        reader.commit()
        assert page == [(2,)]  # the follower now believes it is at 2
        slow.commit()
        later = reader.execute("SELECT position FROM naive WHERE position > 2 ORDER BY position").fetchall()
        assert later == []  # ... and never sees position 1
    finally:
        for c in (slow, fast, reader):
            c.close()


def test_a_late_commit_holds_back_later_positions(pg_url: str) -> None:
    a, b, follower = PostgresStore(pg_url), PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        ra, rb = rows("a", 1, 1), rows("b", 1, 1)
        a.create_stream(meta("a"), ra, command_id="c0")
        b.create_stream(meta("b"), rb, command_id="c0")
        assert [r.position for r in follower.read_all()] == [1, 2]
        entered, release = _paused(a)
        slow, slow_out = _run(_append_positional, a, "a", rows("a", 2, 2, ra[-1].hash), 1, "slow")
        assert entered.wait(10)  # a holds positions 3-4 and has not committed
        fast, fast_out = _run(_append_positional, b, "b", rows("b", 2, 1, rb[-1].hash), 1, "fast")
        _wait_for_lock_waiter(pg_url)  # b queues behind a for the log head
        assert follower.read_all(2) == []  # nothing past 2 is visible: no gap can open
        release.set()
        slow.join(10)
        fast.join(10)
        assert "error" not in slow_out and "error" not in fast_out, (slow_out, fast_out)
        seen = [(r.position, r.stream, r.seq) for r in follower.read_all(2)]
        assert seen == [(3, "a", 2), (4, "a", 3), (5, "b", 2)]
    finally:
        for s in (a, b, follower):
            s.close()


def test_a_writer_queued_on_the_same_stream_gets_the_sqlite_conflict(pg_url: str) -> None:
    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        first = rows("s", 1, 1)
        a.create_stream(meta("s"), first, command_id="c0")
        entered, release = _paused(a)
        t_a, out_a = _run(_append_positional, a, "s", rows("s", 2, 1, first[-1].hash), 1, "from-a")
        assert entered.wait(10)
        t_b, out_b = _run(_append_positional, b, "s", rows("s", 2, 1, first[-1].hash), 1, "from-b")
        _wait_for_lock_waiter(pg_url)  # b waits for a's stream lock, having read nothing yet
        release.set()
        t_a.join(10)
        t_b.join(10)
        assert out_a["result"].last_seq == 2  # type: ignore[union-attr]
        err = out_b["error"]
        assert isinstance(err, ConcurrencyConflict) and (err.stream, err.expected, err.actual) == ("s", 1, 2)
        assert str(err) == "stream s moved on: expected version 1, actual 2; reload and try again"
        assert b.head("s").seq == 2
    finally:
        a.close()
        b.close()


def test_a_retry_racing_its_first_attempt_is_recognised(pg_url: str) -> None:
    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        first = rows("s", 1, 1)
        a.create_stream(meta("s"), first, command_id="c0")
        batch = rows("s", 2, 2, first[-1].hash)
        entered, release = _paused(a)
        t_a, out_a = _run(_append_positional, a, "s", batch, 1, "same")
        assert entered.wait(10)
        t_b, out_b = _run(_append_positional, b, "s", batch, 1, "same")
        _wait_for_lock_waiter(pg_url)
        release.set()
        t_a.join(10)
        t_b.join(10)
        assert out_a["result"].duplicate is False  # type: ignore[union-attr]
        again = out_b["result"]
        assert (again.first_seq, again.last_seq, again.duplicate) == (2, 3, True)  # type: ignore[union-attr]
        assert b.head("s").seq == 3
    finally:
        a.close()
        b.close()


def test_four_writer_processes_and_a_follower_see_one_gap_free_order(pg_url: str, tmp_path: Path) -> None:
    store = PostgresStore(pg_url)
    arena = create_combat(store, "arena", "freeform", actor="gm").stream
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = tmp_path / "done"
    follower = subprocess.Popen([sys.executable, str(WORKERS), "follower", pg_url, str(done),
                                 str(tmp_path / "follower.json")], env=env)
    writers = [
        subprocess.Popen([sys.executable, str(WORKERS), "writer", pg_url, f"w{i}", "40", str(tmp_path / f"w{i}.json"),
                          *(["--slow"] if i % 2 else [])], env=env)
        for i in range(4)
    ]
    try:
        for w in writers:
            assert w.wait(60) == 0
        done.touch()
        assert follower.wait(60) == 0
    finally:
        for p in (*writers, follower):
            if p.poll() is None:
                p.kill()

    seen = json.loads((tmp_path / "follower.json").read_text())
    results = [json.loads((tmp_path / f"w{i}.json").read_text()) for i in range(4)]
    everything = []
    after = 0
    while page := store.read_all(after, 500):
        everything += [[r.position, r.stream, r.seq, r.hash] for r in page]
        after = page[-1].position

    positions = [row[0] for row in seen["seen"]]
    assert positions == list(range(1, len(positions) + 1)), "the follower saw a gap or a repeat"
    assert seen["seen"] == everything, "the follower's view differs from the final log"
    assert len({(row[1], row[2]) for row in everything}) == len(everything)  # each event once
    assert seen["pages_while_writing"] >= 3, "the follower did not run alongside the writers"

    # Every append a writer was told succeeded is in the log, and nothing else is.
    expected = {(arena.id, 1)}
    for r in results:
        expected |= {(r["own"], 1)}
        for stream, first, last in r["appended"]:
            expected |= {(stream, seq) for seq in range(first, last + 1)}
    assert {(row[1], row[2]) for row in everything} == expected
    # The arena took 4 x 20 single notes from four processes; its chain is whole.
    assert store.head(arena.id).seq == 1 + 4 * 20
    for meta_ in store.list_streams():
        assert verify_stream(store, meta_).ok
    conflicts = sum(r["conflicts"] for r in results)
    print(f"\n{len(everything)} events, {conflicts} optimistic conflicts retried")
    store.close()
