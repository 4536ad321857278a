"""verify of the example combats and of long combats: figures, not pass/fail.

Each example of docs/examples/*/*.cmds is played by the CLI (``run``) into its own log; then
``verify_stream`` is timed, best of twenty (wall and CPU time), for each. A long freeform combat and one long Magic Realm
combat are verified at two sizes in one run, so their growth shows.

The long Magic Realm combat is also verified from the CLI in fresh processes (``combatlog verify NAME``).
``--mr-only`` times only the long Magic Realm combat; ``--signed`` only a long freeform combat whose every event
is signed by one of its two pinned players (2,500 and 10,000 actions), the same ways. ``--calibrated`` also gives each long combat's verify in
units of a fixed pure-Python workload timed in turn with it (``calibrate.py``), a figure that moves with the
code rather than with this shared host's speed. ``--examples-only`` stops after the examples (a minute instead of several: the long combats are
built command by command). Run it under two checkouts to compare: ``PYTHONPATH=<checkout>/src python bench/bench_verify.py``.
The examples are those of the checkout that ``combatlog`` is imported from (their command files
differ only in how they name their set-up files), so the same combats are timed under each.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MR_SIZES = (2_500, 10_000)  # events of the long Magic Realm combat
EXAMPLE_RUNS = 20


def _checkout() -> Path:
    """The checkout whose sources are imported (its examples match its command syntax)."""
    import combatlog

    return Path(combatlog.__file__).resolve().parents[2]


def _name(cmds: Path) -> str:
    for line in cmds.read_text().splitlines():
        args = shlex.split(line, comments=True)
        if args and args[0] == "new":
            return args[1]
    raise SystemExit(f"{cmds} creates no combat")


def _best(fn, runs: int = 5) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """The best wall time and the best CPU time of this process over ``runs`` runs (seconds). On a
    shared machine the CPU time is the steadier figure: waiting for a core does not count in it."""
    wall = cpu = float("inf")
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start)
    return wall, cpu


def _long_freeform(store, name: str, actions: int) -> None:  # type: ignore[no-untyped-def]
    from mr_long import api

    from combatlog.rulesets.freeform import commands as ff

    create_combat, execute, _verify = api()

    create_combat(store, name, "freeform", actor="gm")
    execute(store, name, ff.Join(name="Aldo", side="red", hp=10**6), actor="gm")
    execute(store, name, ff.Join(name="Bo", side="blue", hp=10**6), actor="gm")
    execute(store, name, ff.StartRound(), actor="gm")
    for i in range(actions):
        if i % 20 == 19:
            execute(store, name, ff.StartRound(), actor="gm")
        execute(store, name, ff.Act(who="Aldo" if i % 2 else "Bo", action="swings", roll="1d20"), actor="gm")


def _signed_freeform(store, name: str, actions: int) -> None:  # type: ignore[no-untyped-def]
    """A freeform combat pinning alice and bob (their keys in COMBATLOG_HOME, which the caller sets), each event
    signed by its player: Aldo (alice's) and Bo (bob's) take turns to act, a round every 20 actions."""
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players
    from combatlog.wiring import create_combat, execute

    for player in ("alice", "bob"):
        new_key(player)
    players, sign_alice = pin_players(["alice", "bob"], "alice")
    signers = {"alice": sign_alice, "bob": make_signer("bob")}
    create_combat(store, name, "freeform", actor="alice", players=players, signer=sign_alice, dice="manual")

    def do(actor: str, command) -> None:  # type: ignore[no-untyped-def]
        execute(store, name, command, actor=actor, signer=signers[actor])

    do("alice", ff.Join(name="Aldo", side="red", hp=10**6, player="alice"))
    do("bob", ff.Join(name="Bo", side="blue", hp=10**6, player="bob"))
    do("alice", ff.StartRound())
    for i in range(actions):
        if i % 20 == 19:
            do("alice", ff.StartRound())
        do("bob" if i % 2 else "alice", ff.Act(who="Bo" if i % 2 else "Aldo", action="swings"))


def _time_verify(store, name: str, label: str, runs: int) -> None:  # type: ignore[no-untyped-def]
    from mr_long import api

    from combatlog.projections.streams import resolve_stream

    verify_stream = api()[2]
    meta = resolve_stream(store, name)
    events = store.head(meta.id).seq
    wall, cpu = _best(lambda: verify_stream(store, meta), runs=runs)
    print(f"  {label}, {events} events: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU "
          f"({events / cpu:,.0f} events per CPU second)", flush=True)
    if "--calibrated" in sys.argv:  # the same in units of a fixed workload timed in turn (calibrate.py)
        import calibrate

        best, ref, ratio, median_ratio = calibrate.interleaved(lambda: verify_stream(store, meta), runs=max(runs, 8))
        print(f"    calibrated: {best * 1000:.0f} ms CPU beside the workload's {ref * 1000:.1f} ms: "
              f"{ratio:.2f} workloads (best over best), {median_ratio:.2f} (median of pairs)", flush=True)


def main() -> None:
    import mr_long

    from combatlog.projections.streams import resolve_stream
    from combatlog.store import open_store

    verify_stream = mr_long.api()[2]

    repo = _checkout()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"verify_stream of {repo}: best of {EXAMPLE_RUNS} (examples), of 3 (long combats)", flush=True)
        only = "--mr-only" in sys.argv or "--signed" in sys.argv
        for cmds in [] if only else sorted(repo.glob("docs/examples/*/*.cmds")):
            db = Path(tmp) / f"{cmds.parent.name}-{cmds.stem}.db"
            subprocess.run([sys.executable, "-m", "combatlog.cli.app", "--db", str(db), "run", str(cmds), "--quiet"],
                           cwd=repo, check=True, capture_output=True)
            store = open_store(str(db))
            meta = resolve_stream(store, _name(cmds))
            events = store.head(meta.id).seq
            verify_stream(store, meta)  # the first run imports the ruleset
            wall, cpu = _best(lambda: verify_stream(store, meta), runs=EXAMPLE_RUNS)
            print(f"  {cmds.parent.name}/{cmds.stem}: {events} events, {wall * 1000:.1f} ms wall, "
                  f"{cpu * 1000:.1f} ms CPU", flush=True)
        if "--examples-only" in sys.argv:
            return
        for actions in () if only else (1_000, 4_000):
            store = open_store(str(Path(tmp) / f"long-{actions}.db"))
            _long_freeform(store, "long", actions)
            _time_verify(store, "long", "freeform", runs=3)
        if "--signed" in sys.argv:  # a signed log: every event's signature checked
            import os

            for actions in (2_500, 10_000):
                os.environ["COMBATLOG_HOME"] = str(Path(tmp) / f"keys-{actions}")  # (keys are never overwritten)
                db = Path(tmp) / f"signed-{actions}.db"
                store = open_store(str(db))
                _signed_freeform(store, "signed", actions)
                _time_verify(store, "signed", "freeform, every event signed", runs=3)
                _time_cli_verify(db, "signed", runs=5)
            return
        for size in MR_SIZES:
            db = Path(tmp) / f"mr-{size}.db"
            store = open_store(str(db))
            mr_long.build(store, "long-mr", size)
            _time_verify(store, "long-mr", "magic_realm, one combat", runs=3)
            _time_cli_verify(db, "long-mr", runs=5)


def _time_cli_verify(db: Path, name: str, runs: int) -> None:
    """``combatlog verify NAME`` as a user runs it, in fresh processes: the median and the best wall time."""
    import os
    import statistics

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode as installed
    times: list[float] = []
    command = [sys.executable, "-m", "combatlog.cli.app", "--db", str(db), "verify", name]
    subprocess.run(command, check=True, capture_output=True, env=env)  # bytecode compiled once
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    print(f"    `combatlog verify` from the CLI: median {statistics.median(times) * 1000:.0f} ms, "
          f"best {min(times) * 1000:.0f} ms wall ({runs} fresh processes)", flush=True)


if __name__ == "__main__":
    main()
