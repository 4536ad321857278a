"""`combatlog report` at two sizes in one run: figures, not pass/fail. Run: make bench (or
python bench/bench_report.py --sizes 2500,10000).

A long freeform fight (six fighters, rounds of attacks with dice, damage, now and then a condition or
a healer) is written in-process through the command handler, as `combatlog run` would, then reported
the way `combatlog report` does. Printed: wall and CPU seconds (CPU time is what a shared machine
disturbs least), bytes, pictures drawn, and the growth between the sizes (linear: 4x for 4x the events);
then the same log reported by the CLI, `combatlog report NAME -o FILE` in a fresh process (its bytecode
compiled by an untimed first run), wall and CPU time (user + system of the process).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

FIGHTERS = (("Aldo", "red"), ("Bo", "red"), ("Cass", "red"), ("Grimsby", "blue"), ("Knuckles", "blue"),
            ("Mags", "blue"))


def long_fight(store, name: str, events: int) -> None:  # type: ignore[no-untyped-def]
    """A freeform combat of at least ``events`` events with dice entered by hand (the same log every time)."""
    from combatlog.wiring import create_combat, execute
    from combatlog.rulesets.freeform import commands as c

    create_combat(store, name, "freeform", actor="gm", dice="manual")
    for who, side in FIGHTERS:
        execute(store, name, c.Join(name=who, side=side, hp=10**6), actor="gm")
    rnd, seq = 0, len(FIGHTERS) + 1
    while seq < events:
        rnd += 1
        last = execute(store, name, c.StartRound(), actor="gm")
        for k, (who, _side) in enumerate(FIGHTERS):
            foe = FIGHTERS[(k + 3) % len(FIGHTERS)][0]
            label = f"r{rnd}/{who}/act"
            execute(store, name, c.Act(who=who, action=f"swings at {foe}", roll="1d20"),  # (the rules label it)
                    actor="gm", manual_faces={label: ((rnd * 7 + k * 3) % 20 + 1,)})
            last = execute(store, name, c.ChangeHp(who=foe, amount=str((rnd + k) % 6 + 1), reason=f"{who}'s blow"),
                           actor="gm")
        if rnd % 5 == 0:
            cycle = rnd // 5  # odd: someone falls prone; even: the same one gets up
            who = FIGHTERS[(cycle - 1) // 2 % len(FIGHTERS)][0]
            execute(store, name, c.SetCondition(who=who, condition="prone", present=cycle % 2 == 1,
                                                reason="a slip on the wet floor"), actor="gm")
            last = execute(store, name, c.ChangeHp(who=who, amount="3", heal=True, reason="a healer's draught"),
                           actor="gm")
        seq = last.last_seq


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2500,10000", help="event counts, comma-separated")
    parser.add_argument("--keep", action="store_true", help="keep the logs and reports")
    opts = parser.parse_args()
    sizes = [int(s) for s in opts.sizes.split(",")]

    from combatlog.pictures.report import report_html
    from combatlog.store.sqlite import SQLiteStore

    tmp = Path(tempfile.mkdtemp(prefix="combatlog-bench-report-"))
    figures = []
    for n in sizes:
        store = SQLiteStore(tmp / f"fight{n}.db")
        store.conn.execute("PRAGMA synchronous=OFF")  # writing the fight is not what is measured
        start = time.perf_counter()
        long_fight(store, f"fight{n}", n)
        made = time.perf_counter() - start
        meta = store.get_stream(store.list_streams()[0].id)
        events = store.head(meta.id).seq
        start, cpu = time.perf_counter(), time.process_time()
        text = report_html(store, meta, None)
        secs, cpu = time.perf_counter() - start, time.process_time() - cpu
        size = len(text.encode())
        (tmp / f"fight{n}.html").write_text(text)
        figures.append((events, secs, size, cpu))
        print(f"{events:>7,} events (written in {made:.1f} s): report {secs:6.2f} s wall, {cpu:6.2f} s CPU, "
              f"{size / 1e6:6.2f} MB, {text.count('<svg')} pictures", flush=True)
        store.close()
    if len(figures) > 1:
        (n0, t0, b0, c0), (n1, t1, b1, c1) = figures[0], figures[-1]
        print(f"growth for {n1 / n0:.1f}x the events: wall {t1 / t0:.2f}x, CPU {c1 / c0:.2f}x, size {b1 / b0:.2f}x "
              f"(linear: {n1 / n0:.1f}x)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p.endswith("src")) or str(REPO / "src"),
           "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for i, n in enumerate(sizes):
        command = [sys.executable, "-m", "combatlog.cli.app", "--db", str(tmp / f"fight{n}.db"), "report", f"fight{n}",
                   "-o", str(tmp / f"cli{n}.html")]
        if i == 0:
            subprocess.run(command, env=env, check=True, capture_output=True)  # compiles: not timed
        usage, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
        print(f"the CLI, {n:,} events: combatlog report -o: {time.perf_counter() - start:.2f} s wall, {cpu:.2f} s CPU",
              flush=True)
    if opts.keep:
        print(f"(data in {tmp})")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
