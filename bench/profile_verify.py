"""Where verify's time goes, by sampling: figures, not pass/fail.

Builds the long Magic Realm combat (``mr_long.py``, ``--events N``, 10,000 by default) and verifies it
``--runs`` times while a CPU-time timer interrupts it every half millisecond (or at the kernel's tick, if
coarser: 4 ms on this project's machine, so use runs enough for a few thousand samples); each interruption counts the
function running (exclusive) and every function on the stack (inclusive). Unlike cProfile, which adds a
fixed cost to every call and so inflates code made of many small calls (the rules' folds), sampling
charges each function the CPU time it really took, allocation and cache misses included.

Run it under a checkout: ``PYTHONPATH=<checkout>/src python bench/profile_verify.py [--db FILE]``. With
``--db`` the combat is built once into FILE and read back from it on later runs.
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).parent))


def _where(frame: FrameType) -> str:
    code = frame.f_code
    return f"{os.path.basename(code.co_filename)}:{code.co_name}"


def main() -> None:
    import mr_long

    from combatlog.projections.streams import resolve_stream
    from combatlog.store import open_store

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--db", help="build the combat into this file once, and read it from there later")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.db) if args.db else Path(tmp) / "mr.db"
        fresh = not db.exists()
        store = open_store(str(db))
        if fresh:
            print(f"building a Magic Realm combat of {args.events:,} events into {db} ...", flush=True)
            mr_long.build(store, "long-mr", args.events)
        meta = resolve_stream(store, "long-mr")
        verify_stream = mr_long.api()[2]
        verify_stream(store, meta)  # the first run imports and warms what later runs reuse

        inclusive: collections.Counter[str] = collections.Counter()
        exclusive: collections.Counter[str] = collections.Counter()
        samples = 0

        def sample(_signum: int, frame: FrameType | None) -> None:
            nonlocal samples
            if frame is None:
                return
            samples += 1
            exclusive[_where(frame)] += 1
            seen = set()
            while frame is not None:
                name = _where(frame)
                if name not in seen:  # a recursive function counts once per sample
                    seen.add(name)
                    inclusive[name] += 1
                frame = frame.f_back

        signal.signal(signal.SIGPROF, sample)
        signal.setitimer(signal.ITIMER_PROF, 0.0005, 0.0005)
        start = time.process_time()
        for _ in range(args.runs):
            report = verify_stream(store, meta)
        cpu = (time.process_time() - start) / args.runs
        signal.setitimer(signal.ITIMER_PROF, 0, 0)

    print(f"verify_stream of {report.events:,} events: {cpu * 1000:.0f} ms CPU a run (mean of {args.runs}, "
          f"sampling on), {samples:,} samples")
    for title, counts in (("inclusive (the function and what it calls)", inclusive),
                          ("exclusive (the function's own code, and the C it calls directly)", exclusive)):
        print(f"\n{title}:")
        for name, count in counts.most_common(args.top):
            print(f"  {count * 100 / samples:5.1f}%  {name}")


if __name__ == "__main__":
    main()
