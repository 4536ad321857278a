"""Core benchmarks: figures, not pass/fail. Run: make bench (or python bench/bench.py --quick).

Prints one table: appends at 1/100/1000 events per durable transaction (and raw
sqlite3 with the same pragmas for comparison), replay (decode + fold), state at
the end of a 1M-event stream with snapshots, and CLI start-up (verify: bench_verify.py).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from combatlog.wiring import create_combat
from combatlog.events.envelope import decode_recorded, encode_envelope, now_iso, seal
from combatlog.projections.fold import fold, save_snapshot, state_at
from combatlog.rulesets import load_ruleset
from combatlog.rulesets.freeform.events import HpChanged, ParticipantJoined, RoundEnded, RoundStarted
from combatlog.store.base import NewRow
from combatlog.store.sqlite import SQLiteStore

REPO = Path(__file__).resolve().parents[1]


def events_for(n: int):  # type: ignore[no-untyped-def]
    """A freeform fight: two joins, then rounds of hit point changes."""
    yield ParticipantJoined(name="Aldo", side="red", hp=10**9)
    yield ParticipantJoined(name="Bo", side="blue", hp=10**9)
    rnd = 0
    for i in range(n - 2):
        if i % 50 == 0:
            if rnd:
                yield RoundEnded(round=rnd)
                continue
            rnd += 1
            yield RoundStarted(round=rnd)
            continue
        if i % 50 == 1 and rnd > 1:
            rnd += 1
            yield RoundStarted(round=rnd)
            continue
        yield HpChanged(who="Aldo" if i % 2 else "Bo", delta=-(i % 7), reason="hit")


def fill(store: SQLiteStore, name: str, n: int, per_tx: int) -> tuple[str, float]:
    """Append n events (after the genesis) in transactions of per_tx; return (stream id, seconds)."""
    sid = create_combat(store, name, "freeform", actor="bench").stream.id
    head = store.head(sid)
    seq, prev = head.seq, head.hash
    batch: list[NewRow] = []
    # one time for every event, after the genesis's: verify refuses a time that goes backwards
    recorded_at = now_iso()
    start = time.perf_counter()
    for i, ev in enumerate(events_for(n)):
        seq += 1
        env = seal(stream=sid, seq=seq, prev=prev, event=ev, actor="bench", command_id=f"b{seq // per_tx}",
                   recorded_at=recorded_at)
        prev = env.hash
        batch.append(NewRow(seq, env.type, env.hash, encode_envelope(env)))
        if len(batch) == per_tx:
            store.append(sid, batch, expected_version=seq - per_tx, command_id=f"tx{seq}")
            batch = []
    if batch:
        store.append(sid, batch, expected_version=seq - len(batch), command_id=f"tx{seq}")
    return sid, time.perf_counter() - start


def raw_sqlite_single_commits(path: Path, n: int) -> float:
    """The floor: plain sqlite3, same pragmas, one INSERT of a similar row per transaction."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (position INTEGER PRIMARY KEY, stream TEXT, seq INT, type TEXT, hash TEXT, body BLOB)")
    conn.execute("CREATE UNIQUE INDEX ts ON t(stream, seq)")
    body = b"x" * 400
    start = time.perf_counter()
    for i in range(n):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (stream, seq, type, hash, body) VALUES (?,?,?,?,?)", ("s", i, "ff.x", "h" * 64, body))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return n / elapsed


def cli_wall(args: list[str], env: dict[str, str], runs: int = 10) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a minute instead of several)")
    opts = parser.parse_args()
    big = 100_000 if opts.quick else 1_000_000
    replay_n = 20_000 if opts.quick else 100_000
    single_n = 500 if opts.quick else 2000
    rows: list[tuple[str, str, str]] = []
    tmp = Path(tempfile.mkdtemp(prefix="combatlog-bench-"))
    ruleset = load_ruleset("freeform")

    for per_tx, n in ((1, single_n), (100, 50_000 // (5 if opts.quick else 1)), (1000, 100_000 // (5 if opts.quick else 1))):
        store = SQLiteStore(tmp / f"append{per_tx}.db")
        _, secs = fill(store, "a", n, per_tx)
        target = "single durable commits >= 90% of raw sqlite3" if per_tx == 1 else ">= 150k/s"
        rows.append((f"append, {per_tx} event(s)/transaction (seal+hash+insert)", f"{n / secs:,.0f} events/s", target))
        store.close()
    raw = raw_sqlite_single_commits(tmp / "raw.db", single_n)
    rows.append(("raw sqlite3, 1 row/transaction (same pragmas)", f"{raw:,.0f} rows/s", "reference"))

    store = SQLiteStore(tmp / "replay.db")
    sid, _ = fill(store, "r", replay_n, 1000)
    meta = store.get_stream(sid)
    assert meta is not None
    bodies = [r.body for r in store.read_stream(sid)]
    start = time.perf_counter()
    fold(ruleset, (decode_recorded(b) for b in bodies))
    secs = time.perf_counter() - start
    rows.append((f"replay {replay_n:,} events from bytes (decode + fold)", f"{len(bodies) / secs:,.0f} events/s", ">= 1M/s"))
    start = time.perf_counter()
    state_at(store, meta, use_snapshots=False)
    secs = time.perf_counter() - start
    rows.append((f"replay {replay_n:,} events from SQLite (read + decode + fold)", f"{len(bodies) / secs:,.0f} events/s", ""))
    # verify is timed by bench_verify.py, on combats played through their commands: these events are
    # written without them, which verify refuses since commands are re-decided (engine 0.2)
    store.close()

    store = SQLiteStore(tmp / "big.db")
    sid, secs = fill(store, "big", big, 1000)
    meta = store.get_stream(sid)
    assert meta is not None
    # The writer snapshots every SNAPSHOT_EVERY (500) events; the worst case is a
    # snapshot 499 events behind the head. Write one there, as the handler would.
    head = store.head(sid).seq
    behind = state_at(store, meta, head - 499, use_snapshots=False)
    save_snapshot(store, meta, behind)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        state_at(store, meta)
        times.append((time.perf_counter() - start) * 1000)
    rows.append((f"state at the last of {big:,} events (snapshot 499 behind)", f"{statistics.median(times):.1f} ms", "< 50 ms"))

    env = {**os.environ, "COMBATLOG_DB": str(tmp / "big.db")}
    status = cli_wall([str(REPO / ".venv" / "bin" / "combatlog"), "status", "big"], env)
    bare = cli_wall([sys.executable, "-c", "pass"], env)
    rows.append(("`combatlog status` on that log (wall, median of 10)", f"{status:.0f} ms", "<= 150 ms"))
    rows.append(("`python -c pass` (wall, median of 10)", f"{bare:.0f} ms", "reference"))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'figure':>18}  target")
    print("-" * (width + 40))
    for what, figure, target in rows:
        print(f"{what:<{width}}  {figure:>18}  {target}")
    print(f"\n(data in {tmp}; delete it when done)")


if __name__ == "__main__":
    main()
