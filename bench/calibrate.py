"""A fixed pure-Python workload that says how fast this host runs Python right now.

This project's machine is a shared host: the CPU time of the same code moves by 10-35% from minute to
minute, more than many changes move it. A benchmark that times this workload beside what it measures, runs
interleaved, can give its figure in units of it (``ratio``): a number that moves with the code, not with
the host. The workload is what a fold is made of (small calls with keyword arguments, dicts and tuples
built and dropped, sorting short lists, string formatting) and uses nothing but the standard library, so
it does not change when the project or its dependencies do.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from statistics import median

ROUNDS = 50_000  # about 0.1 s on this project's machine


def _step(state: dict[str, object], who: str, n: int) -> dict[str, object]:
    done = state["done"] + (who,)  # type: ignore[operator]
    counts = dict(state["counts"])  # type: ignore[call-overload]
    counts[who] = counts.get(who, 0) + n
    order = sorted(counts, key=counts.__getitem__)
    return {**state, "done": done[-8:], "counts": counts, "order": tuple(order), "text": f"{who} plays {n}"}


def workload(rounds: int = ROUNDS) -> int:
    """Deterministic; returns a checksum so that nothing is optimised away."""
    state: dict[str, object] = {"done": (), "counts": {}, "order": (), "text": ""}
    names = ("alice", "bob", "carol", "dave", "erin")
    total = 0
    for i in range(rounds):
        state = _step(state, names[i % 5], i % 7)
        total += len(state["text"])  # type: ignore[arg-type]
    return total


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def interleaved(fn: Callable[[], object], runs: int) -> tuple[float, float, float, float]:
    """``fn`` and the workload timed in turn, ``runs`` times each (CPU seconds): the best of ``fn``, the
    best of the workload, and ``fn`` in workload units, from the bests and as the median of each pair's
    ratio (the steadier of the two when the host's speed moves during the runs)."""
    mine, ref, ratios = [], [], []
    for _ in range(runs):
        r = cpu(workload)
        m = cpu(fn)
        mine.append(m)
        ref.append(r)
        ratios.append(m / r)
    return min(mine), min(ref), min(mine) / min(ref), median(ratios)
