"""Append and replay figures for PostgreSQL beside SQLite (issue 8, item 5).

    .venv/bin/python bench/bench_postgres.py            # durable settings on both (the default)
    .venv/bin/python bench/bench_postgres.py --fast     # PostgreSQL without fsync, SQLite synchronous=NORMAL

It starts its own throwaway PostgreSQL server in a temp directory (Unix socket,
``combatlog.store.pgtemp``) and a SQLite file beside it, and prints one table:

- command: ``execute`` of a note, the whole write path (load, fold from the
  nearest snapshot, decide, seal, append with the expected version);
- append: a one-event ``store.append`` alone;
- append xN: N writer processes appending to N different combats at once
  (aggregate events/s: shows what the global commit order costs);
- replay: folding a combat of E events from scratch (no snapshot);
- read_all: following the whole log in global order, 1000 rows a page.

Not a test: figures depend on the machine (2 cores here) and its disk.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from combatlog.commands.core import AddNote
from combatlog.commands.handler import new_command_id
from combatlog.wiring import create_combat, execute
from combatlog.events.core import Noted
from combatlog.events.envelope import encode_envelope, seal
from combatlog.projections.fold import state_at
from combatlog.store import open_store
from combatlog.store.base import EventStore, ImportBatch, NewRow


def _open(url: str) -> EventStore:
    store = open_store(url)
    if os.environ.get("COMBATLOG_BENCH_FAST") and not url.startswith("postgres"):
        store.conn.execute("PRAGMA synchronous=NORMAL")  # type: ignore[attr-defined]
    return store


def _rows(stream: str, start: int, count: int, prev: str, cid: str = "") -> list[NewRow]:
    out = []
    for seq in range(start, start + count):
        env = seal(stream=stream, seq=seq, prev=prev, event=Noted(text=f"note {seq} " + "x" * 60), actor="bench",
                   command_id=cid or new_command_id())
        out.append(NewRow(env.seq, env.type, env.hash, encode_envelope(env), env.command_id))
        prev = env.hash
    return out


def bench_command(store: EventStore, n: int) -> float:
    meta = create_combat(store, f"cmd-{new_command_id()[:6]}", "freeform", actor="gm").stream
    t = time.perf_counter()
    for i in range(n):
        execute(store, meta.id, AddNote(text=f"note {i}"), actor="gm")
    return n / (time.perf_counter() - t)


def bench_append(store: EventStore, n: int) -> float:
    meta = create_combat(store, f"app-{new_command_id()[:6]}", "freeform", actor="gm").stream
    head = store.head(meta.id)
    batches = []
    prev = head.hash
    for seq in range(2, n + 2):
        row = _rows(meta.id, seq, 1, prev)
        batches.append(row)
        prev = row[0].hash
    t = time.perf_counter()
    for expected, rows in enumerate(batches, start=1):
        store.append(meta.id, rows, expected_version=expected, command_id=rows[0].command_id)
    return n / (time.perf_counter() - t)


def worker(url: str, name: str, n: int) -> None:
    """One of the concurrent writers: prints its own elapsed seconds."""
    store = _open(url)
    meta = create_combat(store, name, "freeform", actor="gm").stream
    prev = store.head(meta.id).hash
    batches = []
    for seq in range(2, n + 2):
        row = _rows(meta.id, seq, 1, prev)
        batches.append(row)
        prev = row[0].hash
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    t = time.perf_counter()
    for expected, rows in enumerate(batches, start=1):
        store.append(meta.id, rows, expected_version=expected, command_id=rows[0].command_id)
    print(f"{time.perf_counter() - t:.6f}", flush=True)
    store.close()


def bench_concurrent(url: str, writers: int, n: int, env: dict[str, str]) -> float:
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", url, f"conc-{i}-{new_command_id()[:6]}", str(n)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
             for i in range(writers)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    t = time.perf_counter()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        p.wait(600)
        assert p.returncode == 0
    return writers * n / (time.perf_counter() - t)


def bench_replay(store: EventStore, events: int) -> tuple[float, float]:
    meta = create_combat(store, f"replay-{new_command_id()[:6]}", "freeform", actor="gm").stream
    head = store.head(meta.id)
    rows = _rows(meta.id, 2, events - 1, head.hash, cid="bulk")
    store.import_batches([ImportBatch(stream_id=meta.id, expected_version=1, rows=rows)])
    t = time.perf_counter()
    folded = state_at(store, meta, use_snapshots=False)
    replay = events / (time.perf_counter() - t)
    assert folded.core.head_seq == events
    t = time.perf_counter()
    after, seen = 0, 0
    while page := store.read_all(after, 1000):
        after = page[-1].position
        seen += len(page)
    return replay, seen / (time.perf_counter() - t)


def run_backend(url: str, args: argparse.Namespace, env: dict[str, str]) -> dict[str, float]:
    """Each figure is the best of ``--repeat`` runs: the machine is shared, noise only slows things down."""
    best: dict[str, float] = {}

    def keep(name: str, value: float) -> None:
        best[name] = max(best.get(name, 0.0), value)

    for _ in range(args.repeat):
        store = _open(url)
        keep("command", bench_command(store, args.commands))
        keep("append", bench_append(store, args.appends))
        replay, read_all = bench_replay(store, args.events)
        keep("replay", replay)
        keep("read_all", read_all)
        store.close()
        keep("concurrent", bench_concurrent(url, args.writers, args.appends // args.writers, env))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=200, help="commands executed (default 200)")
    parser.add_argument("--appends", type=int, default=600, help="one-event appends (default 600)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, best kept (default 3)")
    parser.add_argument("--events", type=int, default=5000, help="events in the replayed combat (default 5000)")
    parser.add_argument("--writers", type=int, default=4, help="concurrent writer processes (default 4)")
    parser.add_argument("--fast", action="store_true", help="no fsync on PostgreSQL, synchronous=NORMAL on SQLite")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]))
        return

    from combatlog.store.pgtemp import TempPostgres, unavailable_reason

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_url = str(Path(tmp) / "bench.db")
        if args.fast:
            env["COMBATLOG_BENCH_FAST"] = os.environ["COMBATLOG_BENCH_FAST"] = "1"
        results["sqlite"] = run_backend(sqlite_url, args, env)
        reason = unavailable_reason()
        if reason:
            print(f"PostgreSQL not measured: {reason}", file=sys.stderr)
        else:
            with TempPostgres(durable=not args.fast) as pg:
                results["postgresql"] = run_backend(pg.url(), args, env)

    mode = "fast (no fsync)" if args.fast else "durable (fsync on commit)"
    print(f"combatlog store benchmark, {mode}; {os.cpu_count()} cores; best of {args.repeat} runs; "
          f"{args.commands} commands, {args.appends} appends")
    print(f"{'backend':<12}{'command/s':>11}{'append/s':>10}{f'append x{args.writers} ev/s':>18}"
          f"{f'replay {args.events} ev/s':>19}{'read_all ev/s':>15}")
    for name, r in results.items():
        print(f"{name:<12}{r['command']:>11.0f}{r['append']:>10.0f}{r['concurrent']:>18.0f}"
              f"{r['replay']:>19.0f}{r['read_all']:>15.0f}")


if __name__ == "__main__":
    main()
