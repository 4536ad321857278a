"""verify's cost in simulated instructions, cache misses and mispredicted branches: figures that do not move
with the machine's load (valgrind's callgrind), to compare two checkouts on a shared host.

    python bench/verify_cycles.py [--events 2500] SRC_DIR [SRC_DIR ...]

For each ``src`` folder (e.g. ``src`` and ``/tmp/before/src``) it builds the long Magic Realm combat of
``mr_long.py`` once (in a temporary file, by this checkout), then runs one and two ``verify_stream`` of it
under callgrind and prints the difference: one verify, without the start-up. A CPU time on this project's
shared machine moves by 10-40% between runs; these counts are the same from run to run (to a few tenths of
a percent: hash seeds). Instructions alone miss what allocation costs in cache misses and what branchy
code costs in mispredictions, so an estimate of cycles is printed beside them (Ir + 10 per L1 miss + 100
per last-level miss + 15 per mispredicted branch: a rough, common weighting). Needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
VERIFY_N_TIMES = """
import sys
sys.path.insert(0, {bench!r})
import mr_long
from combatlog.projections.streams import resolve_stream
from combatlog.store import open_store
store = open_store({db!r})
meta = resolve_stream(store, "long-mr")
for _ in range({times}):
    mr_long.api()[2](store, meta)
"""
EVENTS = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim".split()


def _counts(src: str, db: str, times: int) -> dict[str, int]:
    env = {**os.environ, "PYTHONPATH": src}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, in the run that is not counted
    code = VERIFY_N_TIMES.format(bench=str(HERE), db=db, times=times)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
                          "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
                         env=env, capture_output=True, text=True, check=True).stderr
    found = re.search(r"Collected :((?: \d+)+)", out)
    if found is None:
        raise SystemExit(f"callgrind printed no totals:\n{out[-2000:]}")
    return dict(zip(EVENTS, map(int, found.group(1).split())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", nargs="+", help="src folders of the checkouts to compare")
    parser.add_argument("--events", type=int, default=2_500)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    sys.path.insert(0, str(HERE))
    import mr_long

    from combatlog.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "mr.db")
        mr_long.build(open_store(db), "long-mr", args.events)
        print(f"one verify_stream of a Magic Realm combat of {args.events:,} events (two runs minus one):")
        for src in args.sources:
            _counts(src, db, 1)  # compiles the checkout's modules
            one, two = _counts(src, db, 1), _counts(src, db, 2)
            d = {k: two[k] - one[k] for k in EVENTS}
            l1 = d["I1mr"] + d["D1mr"] + d["D1mw"]
            last = d["ILmr"] + d["DLmr"] + d["DLmw"]
            mispredicted = d["Bcm"] + d["Bim"]
            cycles = d["Ir"] + 10 * l1 + 100 * last + 15 * mispredicted
            print(f"  {src}: {d['Ir'] / 1e6:,.0f} M instructions, {l1 / 1e6:.1f} M L1 misses, "
                  f"{last / 1e6:.2f} M last-level misses, {mispredicted / 1e6:.1f} M mispredicted branches; "
                  f"about {cycles / 1e6:,.0f} M cycles", flush=True)


if __name__ == "__main__":
    main()
