"""`combatlog run` and start-up: figures, not pass/fail. Run: make bench (or python bench/bench_run.py --quick).

Prints, in one run: `combatlog run -q` of a freeform command file at two sizes (each line its own durable
command), lines per second and the growth between the sizes; and the wall time of `status`, `list` and
`--help` against `python -c pass`, each the median of several runs in fresh processes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARTICIPANTS = ("Aldo", "Bo", "Grimsby", "Knuckles")


def freeform_file(lines: int) -> str:
    """A freeform fight of exactly ``lines`` commands: a combat, four joins, then rounds of an act with
    local dice, a damage and a condition per participant, and a note now and then."""
    out = ["new brawl --ruleset freeform --dice local"]
    out += [f"freeform join brawl {who} --side {'ab'[i % 2]} --hp 1000000000" for i, who in enumerate(PARTICIPANTS)]
    rnd, dazed = 0, set()
    while len(out) < lines:
        rnd += 1
        out.append("freeform round brawl")
        for i, who in enumerate(PARTICIPANTS):
            target = PARTICIPANTS[(i + 1) % len(PARTICIPANTS)]
            out.append(f'freeform act brawl {who} "swings at {target}" --roll 1d20+2')
            out.append(f"freeform damage brawl {target} {1 + (rnd + i) % 6} --reason sword")
            if (rnd + i) % 3 == 0:  # dazed by one blow, shaken off at the next
                off = " --off" if target in dazed else ""
                dazed ^= {target}
                out.append(f"freeform condition brawl {target} dazed{off} --reason blow")
        if rnd % 5 == 0:
            out.append(f'note brawl "round {rnd}: the crowd cheers"')
    return "\n".join(out[:lines]) + "\n"


def combatlog() -> list[str]:
    return [sys.executable, "-m", "combatlog.cli.app"]


SRC = [REPO / "src"]  # --src: the sources measured (another checkout's, for a before figure)


def env_for(db: Path, home: Path) -> dict[str, str]:
    return {**os.environ, "COMBATLOG_DB": str(db), "COMBATLOG_HOME": str(home),
            "PYTHONPATH": str(SRC[0]) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def time_run(lines: int, folder: Path) -> float:
    """Seconds for `combatlog run -q` of a ``lines``-line freeform file on a fresh log."""
    path = folder / f"fight-{lines}.cmds"
    path.write_text(freeform_file(lines))
    env = env_for(folder / f"run-{lines}.db", folder / "home")
    start = time.perf_counter()
    subprocess.run([*combatlog(), "run", "-q", str(path)], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def wall_ms(args: list[str], env: dict[str, str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="250 and 1,000 lines, 5 start-up runs")
    parser.add_argument("--sizes", type=int, nargs=2, metavar=("SMALL", "LARGE"))
    parser.add_argument("--src", type=Path, help="measure the combatlog sources in this folder (default: ours)")
    args = parser.parse_args()
    if args.src:
        SRC[0] = args.src.resolve()
    small, large = args.sizes or ((250, 1000) if args.quick else (2500, 10000))
    runs = 5 if args.quick else 15
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"combatlog run -q of a freeform file ({os.cpu_count()} cores, sources {SRC[0]})")
        print("| lines | seconds | lines/s |")
        print("|---|---|---|")
        seconds = {}
        for lines in (small, large):
            seconds[lines] = time_run(lines, folder)
            print(f"| {lines:,} | {seconds[lines]:.2f} | {lines / seconds[lines]:,.0f} |")
        print(f"growth: {large / small:.0f}x the lines took {seconds[large] / seconds[small]:.2f}x the time")
        env = env_for(folder / f"run-{small}.db", folder / "home")
        bare = wall_ms([sys.executable, "-c", "pass"], env, runs)
        print(f"\nstart-up, wall time, median of {runs} (on the {small:,}-line log)")
        print("| command | ms | x python -c pass |")
        print("|---|---|---|")
        print(f"| python -c pass | {bare:.0f} | 1.0 |")
        for command in (["status", "brawl"], ["list"], ["--help"]):
            ms = wall_ms([*combatlog(), *command], env, runs)
            print(f"| combatlog {' '.join(command)} | {ms:.0f} | {ms / bare:.1f} |")


if __name__ == "__main__":
    main()
