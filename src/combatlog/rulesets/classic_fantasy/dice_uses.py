"""The dice each Classic Fantasy event depends on, for ``verify`` (``Ruleset.dice_uses``).

The fold never takes a die from an event: it derives every label itself from the state
(``r<R>/a<K>/<roll>``, ``r<R>/init/<name>``...) and reads the faces drawn under it. So the
dice an event depends on are exactly the reads of its apply function, and they are found
the same way: by applying the event to the state before it with a roller that reads the
recorded faces, as ``evolve`` does, and notes each label with the notation the rules roll
(1d100 skill rolls, 1d10 Initiative, the weapon's damage dice less the maximized ones, the
Damage Modifier's terms, 1d20 hit location, 1d3 Turns, 1dN bystander...).

An event's ``dice`` tuple must then name those dice, in that order: an event naming another
die, the same dice in another order, or more or fewer dice than its rules read is refused
(``DiceMismatch``), whatever the scheme. Each die read is declared with the rules' own label
as ``expected_label`` and the rules' notation, so ``verify`` also refuses a die of the wrong
notation under the right label (a d100 roll drawn as 1d20), a die drawn after the event and a
die read by two events.

One die is legitimately read by two events (``reuse=True``): a Luck Point spent on the blow
just resolved (CFI Ch.7 Cheat Fate, Mitigate Damage) re-derives that blow from the state before
it "with the same dice except the one changed", so ``cfi.luck_spent`` reads again the dice
the ``cfi.exchange_resolved`` (or an earlier Luck Point on the same blow) read, and a digit
swap reads the die whose digits it swaps. Those reads are declared without a notation: the die
was bound to its notation by the event that first read it, under the same label and rules.

No Classic Fantasy command takes a dice label: ``decide`` draws every die under the rules' own
label, so there is no player-chosen label for ``DicePort.rule_label`` to refuse. The price of
the check is one more application of each event while verifying.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

import msgspec

from combatlog.events.base import Event
from combatlog.rulesets.base import DiceUse
from combatlog.rulesets.classic_fantasy.apply import APPLY, apply_event
from combatlog.rulesets.classic_fantasy.rules import Replaying, Steps
from combatlog.rulesets.classic_fantasy.state import CFIState

replace = msgspec.structs.replace


class DiceMismatch(ValueError):
    """An event's ``dice`` tuple does not name the dice its rules read, in their order."""


class _Reading(Replaying):
    """``evolve``'s roller (the recorded faces by label), noting each label asked for and its
    notation, the last one included when its die is missing (the fold then stops there too)."""

    def __init__(self, dice: dict[str, tuple[int, ...]]) -> None:
        super().__init__(dice)
        self.asked: list[tuple[str, str]] = []

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]:
        self.asked.append((label, notation))
        return super().roll(label, notation, purpose, by)


class _Watched(dict[str, tuple[int, ...]]):
    """The dice of the blow just resolved, noting which labels a Luck Point's re-derivation reads."""

    def __init__(self, data: dict[str, tuple[int, ...]]) -> None:
        super().__init__(data)
        self.read: list[str] = []

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key in self:
            self.read.append(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> tuple[int, ...]:
        self.read.append(key)
        return super().__getitem__(key)


def dice_uses(state: CFIState, event: Event) -> Sequence[DiceUse]:
    """Every die ``event`` reads, given the state before it (see the module docstring)."""
    if type(event) not in APPLY:
        return ()
    reading = _Reading(state.dice)
    watched: _Watched | None = None
    probe = state
    if state.undo is not None:
        watched = _Watched(state.undo.dice)
        probe = replace(state, undo=replace(state.undo, dice=watched))
    try:
        apply_event(probe, event, reading, Steps())
        complete = True
    except Exception:  # noqa: BLE001 - the fold raises the same on this event and verify reports it
        complete = False
    rules = reading.asked
    named: tuple[str, ...] | None = getattr(event, "dice", None)
    if named is not None:
        check_named(tuple(named), rules, complete, state.dice)
    field = "dice[{}]" if named is not None else "rules' die {}"
    uses = [DiceUse(label=lb, field=field.format(i), expected_label=lb, notation=notation)
            for i, (lb, notation) in enumerate(rules)]
    again = list(dict.fromkeys(watched.read)) if watched is not None else []
    uses += [DiceUse(label=lb, field=f"re-derived blow: {lb}", expected_label=lb, reuse=True) for lb in again]
    return uses


def check_named(named: tuple[str, ...], rules: list[tuple[str, str]], complete: bool,
                fresh: Container[str]) -> None:
    """``named`` must be the labels the rules read, in order (a prefix of them when the event
    cannot be applied: the fold then refuses it with its own reason). ``fresh``: the labels
    drawn since the event before (the only dice an event can read of its own)."""
    for i, (lb, notation) in enumerate(rules):
        if i >= len(named):
            raise DiceMismatch(f"its rules read die {lb!r} ({notation}) as die {i + 1}, but its dice name only "
                               f"{len(named)}: {list(named)}")
        if named[i] != lb:
            order = f"; {lb!r} is named at dice[{named.index(lb)}], out of order" if lb in named else ""
            if named[i] not in fresh:
                order += f"; no die {named[i]!r} was drawn for this event (it is another event's, or none)"
            raise DiceMismatch(f"dice[{i}] names {named[i]!r}, but the rules draw {lb!r} ({notation}) there{order} "
                               "(an event reads only the dice its rules draw, in their order)")
    if complete and len(named) > len(rules):
        raise DiceMismatch(f"its dice name {list(named[len(rules):])} besides the {len(rules)} its rules read "
                           f"{[lb for lb, _ in rules]}: the rules draw no other die here")
