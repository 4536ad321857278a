"""A mutable working copy of the state used while one event is folded.

``evolve`` stays pure: it copies the state into a ``Work``, lets the rule
functions change the copy and record their steps, and freezes the result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import msgspec

from combatlog.rulesets.magic_realm.state import Character, Denizen, LedgerEntry, MRState, StepRec

replace = msgspec.structs.replace
force_setattr = msgspec.structs.force_setattr

# (label, notation, purpose, by) -> faces
Roller = Callable[[str, str, str, str], tuple[int, ...]]
# (label, notation, purpose, faces recorded or None) -> faces to fold with: set by ``dice_uses`` while it
# folds an event to learn every die the fold reads (dice_uses.py).
Observer = Callable[[str, str, str, tuple[int, ...] | None], tuple[int, ...]]
OBSERVER: ContextVar[Observer | None] = ContextVar("magic_realm_dice_observer", default=None)


class Work:
    def __init__(self, state: MRState, seq: int, roll: Roller | None = None) -> None:
        self.state = state
        self.seq = seq
        self.chars: dict[str, Character] = dict(state.characters)
        self.dens: dict[str, Denizen] = dict(state.denizens)
        self.steps: list[StepRec] = []
        self.ledger: list[LedgerEntry] = []
        self.changes: dict[str, Any] = {}
        self._roll = roll
        self._view: MRState | None = None  # the last view, until a change to ``changes``
        self._same = True  # nothing changed yet: the view is the state itself (no copy of its fields)
        self.reads: list[tuple[str, str, str, str, tuple[int, ...]]] = []  # every die read (rehearsal.py)
        self.version = 0  # counts the changes (``set``, ``char``, ``den``): what ``advance`` saw is still true?
        self.waiting: tuple[int, str, tuple[str, ...]] | None = None  # (version, step, deciders) from ``advance``

    def step(self, rule: str, text: str, dice: tuple[str, ...] = ()) -> None:
        self.steps.append(StepRec(seq=self.seq, rule=rule, text=text, dice=dice))

    def roll(self, label: str, notation: str, purpose: str, by: str = "") -> tuple[int, ...]:
        if self._roll is not None:
            faces = self._roll(label, notation, purpose, by)
        else:
            faces = self.state.rolls.get(label)  # type: ignore[assignment]
            observe = OBSERVER.get()
            if observe is not None:
                return observe(label, notation, purpose, faces)
            if faces is None:  # evolve only folds what decide rolled, so this is a broken log
                raise KeyError(f"the log lacks the roll {label!r}")
        self.reads.append((label, notation, purpose, by, faces))
        return faces

    def char(self, cid: str, **changes: Any) -> Character:
        self.chars[cid] = replace(self.chars[cid], **changes)
        self._changed()
        return self.chars[cid]

    def den(self, did: str, **changes: Any) -> Denizen:
        self.dens[did] = replace(self.dens[did], **changes)
        self._changed()
        return self.dens[did]

    def _changed(self) -> None:
        self.version += 1
        if self._same:  # the view was the state itself, whose dicts are not ``chars`` and ``dens``
            self._same, self._view = False, None

    def set(self, **changes: Any) -> None:
        self.changes.update(changes)
        self._view = None
        self._same = False
        self.version += 1

    def get(self, key: str) -> Any:
        return self.changes[key] if key in self.changes else getattr(self.state, key)

    def view(self) -> MRState:
        """The state as it stands now (for queries in the middle of a fold). Kept until ``set`` changes a field:
        it holds ``chars`` and ``dens`` themselves, so what ``char`` and ``den`` change shows in it as it is
        (a fold asks for a view tens of times an event; building each was a tenth of a long verify)."""
        if self._view is None:
            self._view = self.state if self._same else \
                replace(self.state, characters=self.chars, denizens=self.dens, **self.changes)
        return self._view

    def freeze(self) -> MRState:
        # steps: only this event's (explain reads them per event); a growing tuple copied on every event made
        # a long combat's fold quadratic (bench/bench_verify.py, 10,000 events)
        steps = tuple(self.steps)
        if self._same:  # nothing changed: a copy of the state itself
            base = self.state
            out = replace(base, steps=steps, ledger=base.ledger + tuple(self.ledger)) if self.ledger else \
                replace(base, steps=steps)
        elif self._view is None:  # one copy of the state, not a view and then a copy of it
            base = self.state  # (no rule sets ``steps`` or ``ledger`` itself: they come from ``step`` and bounty)
            out = replace(base, characters=self.chars, denizens=self.dens, steps=steps,
                          ledger=base.ledger + tuple(self.ledger) if self.ledger else base.ledger, **self.changes)
        else:
            # The view is this Work's own copy, which only the fold's queries have seen: it is finished in place
            # (msgspec.structs.force_setattr) rather than copied (some forty fields) once more, and handed out
            # once. No cache keeps a view (rehearsal.py and ``remember_deciders`` key on states a fold has frozen);
            # a future cache of views would have to respect that.
            out, self._view = self._view, None
            force_setattr(out, "steps", steps)
            if self.ledger:
                force_setattr(out, "ledger", out.ledger + tuple(self.ledger))
        if self.waiting is not None and self.waiting[0] == self.version:
            remember_deciders(out, self.waiting[1], self.waiting[2])
        return out


# -- who decides, as the fold found it ------------------------------------------------------------------------

class _Decided(threading.local):
    def __init__(self) -> None:
        # id(state) -> (state, step, deciders): the states the last folds froze, in two generations (the state is
        # held, so its id is not reused while the entry lives). When ``known`` is full it becomes ``older`` and
        # a new ``known`` begins: at least the last DECIDED_REMEMBERED are always kept, and nothing is evicted
        # one by one (deleting a dict's first entries leaves a trail every later ``iter`` walks over again).
        self.known: dict[int, tuple[MRState, str, tuple[str, ...]]] = {}
        self.older: dict[int, tuple[MRState, str, tuple[str, ...]]] = {}


_decided = _Decided()
DECIDED_REMEMBERED = 16  # verify re-decides a batch a few events after folding the state before it


def remember_deciders(state: MRState, step: str, who: tuple[str, ...]) -> None:
    """``advance`` ended the fold of ``state`` asking ``deciders(state, step)`` and got ``who`` (nothing changed
    the state since but its explanation steps and ledger, which ``deciders`` does not read)."""
    known = _decided.known
    if len(known) >= DECIDED_REMEMBERED:
        _decided.older, known = known, {}
        _decided.known = known
    known[id(state)] = (state, step, who)


def decided(state: MRState, step: str) -> tuple[str, ...] | None:
    """What ``deciders(state, step)`` returned when the fold that made ``state`` ended, if it was remembered."""
    entry = _decided.known.get(id(state)) or _decided.older.get(id(state))
    if entry is None or entry[0] is not state or entry[1] != step:
        return None
    return entry[2]


def forget_deciders() -> None:
    """For the test that compares the remembered answers with fresh ones (this thread only)."""
    _decided.known.clear()
    _decided.older.clear()
