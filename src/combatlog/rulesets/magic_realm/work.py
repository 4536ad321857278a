"""A mutable working copy of the state used while one event is folded.

``evolve`` stays pure: it copies the state into a ``Work``, lets the rule
functions change the copy and record their steps, and freezes the result.
"""

from __future__ import annotations

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
        if self._same:  # the view was the state itself, whose dicts are not ``chars`` and ``dens``
            self._same, self._view = False, None

    def set(self, **changes: Any) -> None:
        self.changes.update(changes)
        self._view = None
        self._same = False

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
        return out
