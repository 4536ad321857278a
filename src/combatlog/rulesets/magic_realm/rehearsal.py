"""The dice-driven steps computed once per command instead of twice.

Random assignment, the start of the Melee Step and the resolution are computed twice for one command:
``decide`` rehearses the step on a working copy to draw its dice, and ``evolve`` computes it again when it
folds the event that records the step. On the write path decide comes first; ``verify`` folds a batch
before it re-decides it. Either way the second computation has the same inputs as the first, so this
module keeps the last computation of each step (per thread) and hands it to the second.

It is a cache of a pure function, keyed by everything the step reads:

- every field of the state but ``rolls`` and ``last_round``, compared by identity (states are frozen, and
  folding a die between the two computations replaces ``rolls`` and ``last_round`` only). No step reads
  ``last_round``, and it reads ``rolls`` only through ``Work.roll``;
- the faces of every die the step read, label by label, in order (``Work.reads``): ``evolve`` takes the
  kept computation only when the state holds those faces under those labels, ``decide`` only when its dice
  port holds them (``DicePort.recorded``: the replaying port of ``verify``; a port that draws fresh dice
  holds none, and the step is rehearsed);
- ``Work.seq``, which only stamps the explanation steps: they are stamped again.

A fold that watches the dice it reads (``dice_uses``, through ``work.OBSERVER``) neither takes nor keeps a
computation. A state that differs in any other field, or a die with other faces, computes the step afresh,
so a miss costs nothing but the time saved. tests/rulesets/magic_realm/test_rehearsal.py folds every
example combat and a long one with and without it and compares the states.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from operator import attrgetter, is_
from typing import Any

import msgspec

from combatlog.rulesets.magic_realm.state import MRState
from combatlog.rulesets.magic_realm.work import OBSERVER, Work

Step = Callable[[Work], None]
Read = tuple[str, str, str, str, tuple[int, ...]]  # label, notation, purpose, by, faces
_INPUTS = attrgetter(*(f for f in MRState.__struct_fields__ if f not in ("rolls", "last_round")))
_replace = msgspec.structs.replace


class _Kept:
    """A step computed on ``state``: the dice it read, and (from ``decide`` only) its working copy. A fold's
    working copy goes on changing after the step (``advance``), so a fold keeps only what it read."""

    __slots__ = ("step", "state", "reads", "work")

    def __init__(self, step: Step, state: MRState, reads: list[Read], work: Work | None) -> None:
        self.step, self.state, self.reads, self.work = step, state, reads, work


FOLDS_REMEMBERED = 8  # verify asks about the events of the batch it just re-decided


class _Slots(threading.local):
    kept: _Kept | None = None
    enabled: bool = True  # off only in the test that compares the two ways

    def __init__(self) -> None:
        # the dice the last few folds read: (state before, event, reads), newest last (``reads_of``)
        self.folded: deque[tuple[MRState, Any, list[Read]]] = deque(maxlen=FOLDS_REMEMBERED)


_slots = _Slots()


def _same_inputs(a: MRState, b: MRState) -> bool:
    # (every field at once, compared in C: a loop of getattr over some forty fields was a percent of a verify)
    return a is b or all(map(is_, _INPUTS(a), _INPUTS(b)))


def _take(step: Step, state: MRState) -> _Kept | None:
    kept = _slots.kept
    if kept is None or kept.step is not step or not _same_inputs(kept.state, state):
        return None
    return kept


def _keep(step: Step, state: MRState, reads: list[Read], work: Work | None) -> None:
    _slots.kept = _Kept(step, state, list(reads), work) if _slots.enabled else None


def rehearse(step: Step, state: MRState, dice: Any, roller: Any) -> None:
    """``decide``'s rehearsal of ``step`` on ``state``: draws its dice from ``dice`` (through ``roller``).
    Replays the dice of a kept computation of the same step on the same inputs when the port holds the
    same faces for them; otherwise runs the step and keeps it for the fold."""
    kept = _take(step, state)
    recorded = getattr(dice, "recorded", None)
    if kept is not None and recorded is not None and all(
            recorded(label) == faces for label, _notation, _purpose, _by, faces in kept.reads):
        for label, notation, purpose, by, _faces in kept.reads:
            roller(label, notation, purpose, by)  # drawn as the step draws them: the same events
        _slots.kept = None
        return
    work = Work(state, 0, roller)
    step(work)
    _keep(step, state, work.reads, work)


def fold(step: Step, w: Work) -> None:
    """``evolve``'s computation of ``step`` into ``w`` (fresh but for ``last_round``): the kept one when its
    inputs are this state's and the state holds the faces it read, else computed here (and kept)."""
    if OBSERVER.get() is not None:
        step(w)  # dice_uses is watching what the fold reads: it must read them all
        return
    state = w.state
    kept = _take(step, state)
    if kept is not None and kept.work is not None and all(
            state.rolls.get(label) == faces for label, _n, _p, _b, faces in kept.reads):
        _slots.kept = None
        done = kept.work
        w.chars, w.dens = done.chars, done.dens
        w.set(**done.changes)
        w.steps.extend(_replace(s, seq=w.seq) for s in done.steps)
        w.ledger.extend(done.ledger)
        w.reads = done.reads
        return
    step(w)
    _keep(step, state, w.reads, None)


def remember_reads(state: MRState, event: Any, reads: list[Read]) -> None:
    """``evolve`` folded ``event`` on ``state`` to its end, reading these dice (in order)."""
    if OBSERVER.get() is not None or not _slots.enabled:
        return
    _slots.folded.append((state, event, reads))


def reads_of(state: MRState, event: Any) -> list[Read] | None:
    """The dice a fold of ``event`` on ``state`` read, when one of the last folds was that fold (the same
    objects, compared by identity: frozen, and held here); None when it was not remembered.
    ``dice_uses`` answers from it instead of folding the event once more: a fold that ended read exactly
    what a dry run would (it read every die it needed, with the faces recorded; a die that did not fit the
    rules' notation is refused by the first check that meets it, in both)."""
    for before, folded, reads in reversed(_slots.folded):
        if folded is event and before is state:
            return reads
    return None


def set_enabled(enabled: bool) -> None:
    """For the test that folds with and without kept computations (this thread only)."""
    _slots.enabled = enabled
    _slots.kept = None
    _slots.folded.clear()
