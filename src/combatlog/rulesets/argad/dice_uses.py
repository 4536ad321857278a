"""Argad ``dice_uses``: every die the fold reads, bound to the label, place and dice the rules give it.

For each event, from the state before it, this module replays what ``decide`` drew: the
labels (``labels.py``), their order, how many re-rolls the faces called for, the notation
of each die. ``verify`` then checks each declared use against the dice in the log (drawn
before the event, the notation, never read by two events).

Argad names every die itself; no command takes a label from the player. So a label other
than the rules' one is refused here whatever the dice scheme, not only for joint dice: a
referee die can be recomputed by anyone once its seed is revealed, and with manual dice a
swap of two labels in a pool would move a good face to a better modified attacker.
The event cannot name fewer or more dice than the rules draw either (a dropped re-roll,
survival roll or localisation die would change the outcome), and its ``turn`` must be the
game turn the rules are in, since the turn number is part of every label.

No Argad die is read by two events (``reuse`` is never set): the maxima counted across
strikes and volleys, and the priority between two strikes, read the derived records of
earlier events, not their dice again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from combatlog.events.base import Event
from combatlog.rulesets.argad import derive as dv
from combatlog.rulesets.argad import labels as lb
from combatlog.rulesets.argad import melee as ml
from combatlog.rulesets.argad import shooting as sh
from combatlog.rulesets.argad.events import ShotFired, Struck, TurnEnded, TurnStarted
from combatlog.rulesets.argad.maxima import PoolRead
from combatlog.rulesets.argad.melee import DieSpec
from combatlog.rulesets.argad.state import ArgadState, Turn
from combatlog.rulesets.base import DiceUse


class DiceBindingError(ValueError):
    """An event names dice the Argad rules would not draw there."""


def dice_uses(state: ArgadState, event: Event) -> list[DiceUse]:
    match event:
        case TurnStarted():
            if event.turn != state.turns_done + 1:
                raise DiceBindingError(f"game turn {event.turn} cannot begin: the rules are at turn "
                                       f"{state.turns_done + 1} (the turn number is part of every die's label)")
            return []
        case ShotFired():
            return _shot(state, event)
        case Struck():
            return _strike(state, event)
        case TurnEnded():
            return _turn_end(state, event)
    return []


# -- helpers ---------------------------------------------------------------------------------


class _Uses:
    """The uses of one event, built in the rules' order; refuses a label out of place."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.out: list[DiceUse] = []

    def add(self, field: str, label: str, expected: str, notation: str) -> tuple[int, ...]:
        """Declare ``label`` at ``field``; the faces it shows (for the dice that depend on them)."""
        if label != expected:
            raise DiceBindingError(
                f"{field} names die {label!r}, but the rules draw {expected!r} there (Argad names every die "
                "by its purpose and place: another label is another die)")
        self.out.append(DiceUse(label=label, field=field, expected_label=expected, notation=notation))
        faces = self.turn.faces.get(label)
        if faces is None:
            raise DiceBindingError(f"{field} names die {label!r}, which was not drawn in game turn "
                                   f"{self.turn.number} before this event")
        return faces


def _open_turn(state: ArgadState, event: ShotFired | Struck | TurnEnded) -> Turn:
    turn = state.turn
    if turn is None:
        raise DiceBindingError(f"no game turn is open (the last was turn {state.turns_done})")
    if event.turn != turn.number:
        raise DiceBindingError(f"the event says turn {event.turn}, the rules are in game turn {turn.number}")
    return turn


def _count(field: str, named: Sequence[str], due: int, what: str) -> None:
    if len(named) != due:
        raise DiceBindingError(f"{field} names {len(named)} dice where the rules draw {due} ({what})")


def _rerolls(uses: _Uses, named: tuple[str, ...], plan_dice: Sequence[DieSpec],
             read: Callable[[list[tuple[int, ...]]], PoolRead], label_of: Callable[[int], str]) -> PoolRead:
    """Argad: Natural dice maximum rule: the re-rolls the faces call for, in order, as ``decide`` draws
    them (the die re-rolled keeps its notation); the pool read with all of them."""
    faces: list[tuple[int, ...]] = []
    for j in range(lb.MAX_REROLLS + 1):
        result = read(faces)
        if j == lb.MAX_REROLLS or not result.reroll_due:
            if len(named) != j:
                raise DiceBindingError(
                    f"rerolls names {len(named)} re-roll(s) of a natural maximum where the faces call for {j}")
            return result
        if j >= len(named):
            raise DiceBindingError(f"rerolls lacks {label_of(j)!r}: the faces call for at least {j + 1} re-roll(s) "
                                   f"of the lone natural maximum, the event names {len(named)}")
        spec = next(d for d in plan_dice if d.label == result.reroll_die)
        faces.append(uses.add(f"rerolls[{j}]", named[j], label_of(j), spec.notation))
    raise AssertionError("unreachable")


def _pool(uses: _Uses, named: tuple[str, ...], expected: tuple[str, ...],
          plan_dice: Sequence[DieSpec]) -> Mapping[str, tuple[int, ...]]:
    _count("dice", named, len(expected), "one per figure")
    return {spec.label: uses.add(f"dice[{i}]", label, spec.label, spec.notation)
            for i, (label, spec) in enumerate(zip(named, plan_dice))}


# -- the events ------------------------------------------------------------------------------


def _shot(state: ArgadState, ev: ShotFired) -> list[DiceUse]:
    """Argad: Ranged weapons: one die per shooter, re-rolls of a lone maximum, the re-roll of a lone
    natural 1 shooting into a melee, the 1dN that says which member of a group each hit strikes."""
    turn = _open_turn(state, ev)
    if ev.targets != lb.group(ev.targets):
        raise DiceBindingError(f"targets {' + '.join(ev.targets)}: the rules name a group in name order "
                               f"({' + '.join(lb.group(ev.targets))}), since the order is part of the labels")
    key = sh.group_key(ev.targets)
    expected = lb.shot_dice(turn.number, key, ev.shooters)
    plan = sh.plan_shot(state, ev.shooters, ev.targets, range_=ev.range, need=ev.need, cover=ev.cover,
                        idle=ev.idle, mod=ev.mod, why=ev.why, labels=expected)
    uses = _Uses(turn)
    faces = _pool(uses, ev.dice, expected, plan.dice)
    read = _rerolls(uses, ev.rerolls, plan.dice,
                    lambda rerolls: dv.read_volley(state, plan, key, faces, rerolls),
                    lambda j: lb.shot_reroll(turn, key, j))
    ones = sum(1 for d in plan.dice if faces[d.label] == (1,))
    if ev.into_melee and ev.friends and ones % 2:
        if not ev.one_reroll:
            raise DiceBindingError(f"one_reroll is missing: a single natural 1 shooting into a melee is re-rolled "
                                   f"({lb.one_reroll(turn, key)!r})")
        uses.add("one_reroll", ev.one_reroll, lb.one_reroll(turn, key), sh.one_reroll_notation(plan, faces))
    elif ev.one_reroll:
        raise DiceBindingError(f"one_reroll names {ev.one_reroll!r}, but the rules re-roll no natural 1 here")
    hits = sum(1 for r in read.dice if r.total2 >= 2 * plan.need) if len(ev.targets) > 1 else 0
    _count("allocation", ev.allocation, hits, "one 1dN per hit on a group of targets")
    for j, label in enumerate(ev.allocation):
        uses.add(f"allocation[{j}]", label, lb.hit(turn, key, j), f"1d{len(ev.targets)}")
    return uses.out


def _strike(state: ArgadState, ev: Struck) -> list[DiceUse]:
    """Argad: melee: one die per attacker (its strength's die, 1D6 each for an H2 splitting 2D6 on two
    enemies) and the re-rolls of a lone natural maximum."""
    turn = _open_turn(state, ev)
    if ev.split and (len(ev.attackers) != 1 or state.figures[ev.attackers[0]].strength != "H2"):
        raise DiceBindingError("only a lone H2 creature splits its 2D6 (1D6 against each of two enemies)")
    expected = lb.melee_dice(turn.number, ev.target, ev.attackers)
    plan = ml.plan_strike(state, ev.attackers, ev.target, mod=ev.mod, why=ev.why, split=ev.split, labels=expected)
    uses = _Uses(turn)
    faces = _pool(uses, ev.dice, expected, plan.dice)
    _rerolls(uses, ev.rerolls, plan.dice, lambda rerolls: dv.read_strike(state, plan, ev.target, faces, rerolls),
             lambda j: lb.melee_reroll(turn, ev.target, j))
    return uses.out


def _turn_end(state: ArgadState, ev: TurnEnded) -> list[DiceUse]:
    """Argad: Wounds: a survival roll for every creature wounded this turn and not yet killed, in
    the order of their names; Argad: Wound localisation (option): a D12 per wound of a survivor."""
    turn = _open_turn(state, ev)
    n = turn.number
    uses = _Uses(turn)
    due: list[tuple[str, int, int]] = []  # (figure, wounds in total, wounds this turn)
    for name in sorted(turn.effects):
        e = turn.effects[name]
        if e.wounds and e.killed_at == -9:
            fig = state.figures[name]
            due.append((name, fig.wounds + len(e.wounds), len(e.wounds)))
    _count("survival", ev.survival, len(due), "one per creature wounded this turn and still standing")
    locations: list[tuple[str, int]] = []
    for i, ((name, total, new), label) in enumerate(zip(due, ev.survival)):
        fig = state.figures[name]
        faces = uses.add(f"survival[{i}]", label, lb.survival(n, name), dv.survival_notation(fig))
        if dv.survival_roll(fig, faces) > total and state.options.on("wound_location"):
            locations += [(name, k) for k in range(1, new + 1)]
    _count("locations", ev.locations, len(locations), "one D12 per wound of a creature that survives")
    for i, ((name, k), label) in enumerate(zip(locations, ev.locations)):
        uses.add(f"locations[{i}]", label, lb.location(n, name, k), "1d12")
    return uses.out
