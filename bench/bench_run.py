"""`combatlog run` and start-up: figures, not pass/fail. Run: make bench (or python bench/bench_run.py --quick).

Prints, in one run: `combatlog run -q` of a freeform command file at two sizes (each line its own
command), lines per second and the growth between the sizes; and the wall and CPU time of `status`,
`list` and `--help` against `python -c pass`, each the median and the best of several fresh processes
(bytecode compiled once before, as an installed package has it). `status brawl --json --json` is a line
the fast path of `status` (cli/fast.py) leaves to click: the same command through typer, for comparison.
With ``--before DIR`` (another checkout's src/), the same for those sources in the same run;
``--startup-only`` skips the two long runs (the status combat is then a 250-line one).
"""

from __future__ import annotations

import argparse
import os
import resource
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


def env_for(src: Path, db: Path, home: Path, pycache: Path) -> dict[str, str]:
    env = {**os.environ, "COMBATLOG_DB": str(db), "COMBATLOG_HOME": str(home), "PYTHONPATH": str(src),
           "PYTHONPYCACHEPREFIX": str(pycache)}  # compiled once, as an installed package is
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_COMPILED: set[Path] = set()


def time_run(src: Path, lines: int, folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `combatlog run -q` of a ``lines``-line freeform file on a fresh log."""
    path = folder / f"fight-{lines}.cmds"
    path.write_text(freeform_file(lines))
    db = folder / f"run-{lines}-{abs(hash(str(src)))}.db"
    env = env_for(src, db, folder / "home", folder / "pycache")
    if src not in _COMPILED:  # a first run compiles the sources (as installing a package does): not timed
        warm = folder / "warm-up.cmds"
        warm.write_text(freeform_file(20))
        subprocess.run([*combatlog(), "--db", str(folder / f"warm-{len(_COMPILED)}.db"), "run", "-q", str(warm)],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        _COMPILED.add(src)
    cpu, start = children_cpu(), time.perf_counter()
    subprocess.run([*combatlog(), "run", "-q", str(path)], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, children_cpu() - cpu


def startup(lines: dict[str, tuple[list[str], dict[str, str]]], runs: int) -> dict[str, tuple[float, ...]]:
    """Median wall, median CPU, best wall and best CPU milliseconds of a fresh process, for each command line
    (name -> (argv, environment)). The lines take turns, run after run, so that a change in the machine's
    load during the measurement falls on all of them alike."""
    wall: dict[str, list[float]] = {name: [] for name in lines}
    cpu: dict[str, list[float]] = {name: [] for name in lines}
    for _ in range(runs):
        for name, (args, env) in lines.items():
            c, start = children_cpu(), time.perf_counter()
            subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
            wall[name].append((time.perf_counter() - start) * 1000)
            cpu[name].append((children_cpu() - c) * 1000)
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name]), min(wall[name]), min(cpu[name]))
            for name in lines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="250 and 1,000 lines, 5 start-up runs")
    parser.add_argument("--sizes", type=int, nargs=2, metavar=("SMALL", "LARGE"))
    parser.add_argument("--before", type=Path, help="also measure the combatlog sources in this folder (the "
                        "src/ of an earlier checkout), in the same run")
    parser.add_argument("--startup-only", action="store_true", help="only start-up (on a 250-line combat)")
    args = parser.parse_args()
    small, large = args.sizes or ((250, 1000) if args.quick or args.startup_only else (2500, 10000))
    runs = 5 if args.quick else 15
    sources = {"ours": REPO / "src"}
    if args.before:
        sources = {"before": args.before.resolve(), **sources}
    print(f"{os.cpu_count()} cores; load average at the start {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if not args.startup_only:
            print("\ncombatlog run -q of a freeform file (each line its own command)")
            print("| sources | lines | wall s | lines/s | CPU s |")
            print("|---|---|---|---|---|")
        for label, src in sources.items():
            seconds = {}
            if args.startup_only:  # the combat status reads, without compiling and timing
                time_run(src, small, folder)
                continue
            for lines in (small, large):
                wall, cpu = time_run(src, lines, folder)
                seconds[lines] = wall
                print(f"| {label} | {lines:,} | {wall:.2f} | {lines / wall:,.0f} | {cpu:.2f} |", flush=True)
            print(f"| {label} | growth | {seconds[large] / seconds[small]:.2f}x for {large / small:.0f}x the lines | "
                  "| |", flush=True)
        print(f"\nstart-up: median and best of {runs} fresh processes, `status` on the {small:,}-line combat "
              f"(load average now {os.getloadavg()[0]:.1f})")
        print("| sources | command | median wall ms | x pass | median CPU ms | x pass | best wall ms | x pass | "
              "best CPU ms | x pass |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        env = env_for(REPO / "src", folder / f"run-{small}-{abs(hash(str(REPO / 'src')))}.db", folder / "home",
                      folder / "pycache")
        lines: dict[str, tuple[list[str], dict[str, str]]] = {"| | python -c pass": ([sys.executable, "-c", "pass"], env)}
        for label, src in sources.items():
            env = {**env, "PYTHONPATH": str(src)}
            for command in (["status", "brawl"], ["status", "brawl", "--json", "--json"], ["list"], ["--help"]):
                subprocess.run([*combatlog(), *command], env=env, stdout=subprocess.DEVNULL)  # compile once
                lines[f"| {label} | {' '.join(command)}"] = ([*combatlog(), *command], env)
        figures = startup(lines, runs)
        bare = figures["| | python -c pass"]
        for name, row in figures.items():
            print(name + " | " + " | ".join(f"{ms:.0f} | {ms / base:.1f}" for ms, base in zip(row, bare)) + " |")
        print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
