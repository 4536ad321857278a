"""Random playouts through `combatlog moves`: figures, not pass/fail. Run: make bench (or python bench/bench_playouts.py).

For every ruleset's playout set-ups (tests/playout_setups/), plays N seeded random combats through the offered
moves (tests/playouts.py) in this process, and a few through the CLI (a process per command), and prints per
set-up: the playouts' median wall time, the median number of commands, the share that reached the combat's
end within the bound, and the time per command. ``--n`` playouts in-process (default 10), ``--cli`` through the
CLI (default 2), ``--ruleset`` to time one ruleset.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "src"))

from tests.playouts import SETUPS, play  # noqa: E402


def timed(setup, seeds, subprocess: bool) -> tuple[list[float], list[int], int]:
    walls, commands, finished = [], [], 0
    for seed in seeds:
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            played = play(Path(d), setup, seed, subprocess=subprocess, max_moves=300)
            walls.append(time.perf_counter() - t0)
            commands.append(len(played.commands))
            finished += played.finished
    return walls, commands, finished


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--cli", type=int, default=2)
    parser.add_argument("--ruleset", default="")
    args = parser.parse_args()
    print(f"{'set-up':<36} {'how':<11} {'runs':>4} {'median s':>9} {'commands':>9} {'ms/command':>11} {'ended':>6}")
    for ruleset, setups in SETUPS.items():
        if args.ruleset and ruleset != args.ruleset:
            continue
        for setup in setups:
            for how, n, sub in (("in-process", args.n, False), ("CLI", args.cli, True)):
                if n <= 0:
                    continue
                walls, commands, finished = timed(setup, range(n), sub)
                med, cmds = statistics.median(walls), statistics.median(commands)
                per = 1000 * sum(walls) / max(1, sum(commands))
                print(f"{ruleset + '/' + setup.name:<36} {how:<11} {n:>4} {med:>9.2f} {cmds:>9.0f} {per:>11.1f} "
                      f"{finished:>3}/{n}", flush=True)


if __name__ == "__main__":
    main()
