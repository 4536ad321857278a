"""OSRIC state: the roster, each combatant's condition, the round and its segment timeline.

Time is counted in *ticks*: ``tick = (round * 10 + segment) * 4 + phase`` where
phase 0 is a segment's simultaneous actions, 1 is "after the other side's
actions in this segment" (extra routines, held actions), 2 is the end of the
segment (spells completing under the first-segment reading) and 3 the end of a
round. Round 0 holds the surprise segments. A spell may run into the next
round because the tick count simply continues.
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.rulesets.foresight import Foresight
from combatlog.rulesets.osric.events import Declaration
from combatlog.trust.api import SealedStep
from combatlog.rulesets.osric.setup import Combatant

NORMAL, LATE, END, ROUND_END = 0, 1, 2, 3


def tick(round_no: int, segment: int, phase: int = NORMAL) -> int:
    return (round_no * 10 + segment) * 4 + phase


def segment_of(t: int, round_no: int) -> int:
    return t // 4 - round_no * 10


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One derived line of the timeline, with its rule and dice (what ``explain`` prints)."""

    seq: int
    round: int
    segment: int  # 0: outside the segments (declarations, initiative, round end)
    text: str
    rule: str
    dice: tuple[str, ...] = ()
    late: bool = False
    side: str = ""  # a side's declaration: secret to that side until every side has declared
    # What the line decided, as data (an attack roll: roll, bonus, need, hit, damage...); {} for most.
    data: dict[str, Any] = {}


class Casting(msgspec.Struct, frozen=True, kw_only=True):
    spell: str
    casting: int
    start: int  # tick casting began
    complete: int  # tick the spell goes off
    status: str = "casting"  # casting | done | lost | declined
    round: int = 0


class Live(msgspec.Struct, frozen=True, kw_only=True):
    """What changes about a combatant during the fight."""

    hp: int
    conditions: tuple[str, ...] = ()
    restrained_by: str = ""
    out: str = ""  # fled | surrendered
    dead: bool = False
    disabled_at: int = -1  # tick at which it last became unable to act (simultaneity)
    down_round: int = -1  # round it fell to 0 hp or below
    aided: bool = False
    scarred: bool = False
    morale: str = ""  # withdraw | flee | surrender | to_death
    morale_checks: int = 0
    last_charge: int = -100  # round of the last charge (once per 10 rounds)
    charged_round: int = -1  # round in which it charged (AC worse that round)
    routines: int = 0  # attack routines used this round (or this surprise segment)
    rolls: int = 0  # attack rolls made this round (numbers the dice labels)
    first_routine_tick: int = -1
    shield_vs: tuple[str, ...] = ()  # front attackers its shield counted against this round
    casting: Casting | None = None
    acted_tick: int = -1  # last tick it took an action


class OsricState(msgspec.Struct, frozen=True, kw_only=True):
    roster: dict[str, Combatant] = {}
    live: dict[str, Live] = {}
    sides: tuple[str, ...] = ()
    options: dict[str, str] = {}
    title: str = ""
    round: int = 0
    phase: str = "setup"  # setup | surprise | round | between | ended
    surprise_rolls: dict[str, int] = {}
    surprise_alert: tuple[str, ...] = ()
    surprised: dict[str, int] = {}  # combatant -> surprised segments (after Dex)
    surprise_len: int = 0
    surprise_checked: bool = False
    declared: dict[str, tuple[Declaration, ...]] = {}  # side -> this round's declarations
    initiative: dict[str, int] = {}
    cursor: int = 0  # the tick the timeline has reached
    engaged: tuple[tuple[str, str], ...] = ()
    no_attack: tuple[tuple[str, str], ...] = ()  # (attacker, target) barred this round by closing
    log: tuple[Entry, ...] = ()
    ended: bool = False
    outcome: str = ""
    players: dict[str, tuple[str, ...]] = {}  # side -> its players; the first is its caller (declare.py)
    pinned: tuple[str, ...] = ()  # the genesis's pinned players: declarations are then sealed
    joint: bool = False  # the combat's dice scheme is joint (its seed steps include r<N>/declare)
    sealed: dict[str, SealedStep] = {}  # this round's sealed declaration step
    # Labels of the dice drawn for this round or a later one, in order (combatlog.rulesets.drawn), so that
    # dice_uses knows the label next_label gave a die; complete from round ``dice_from`` on (-1: a state
    # decoded from a snapshot older than this field, which knows nothing of the round's dice).
    # Version 2 on: moving the timeline past a declared action still due records it forgone
    # (osric.actions_forgone); a log begun under version 1 re-decides as it was recorded (False).
    forgone_events: bool = False
    dice_drawn: tuple[str, ...] = ()
    dice_from: int = -1
    foresight: Foresight = Foresight()  # choices protected from foreseen joint dice (rulesets/foresight.py)
    # the kept earlier version whose rules a log of it is read under (``Osric.kept_revisions``: "1"), so that it
    # replays as it was played; "" for the current version. Not in the state digest (``Osric.canonical_state``).
    revision: str = ""

    # -- small queries used everywhere -------------------------------------------------
    def other_side(self, side: str) -> str:
        return self.sides[1] if side == self.sides[0] else self.sides[0]

    def declaration(self, name: str) -> Declaration | None:
        for d in self.declared.get(self.roster[name].side, ()):
            if d.who == name:
                return d
        return None

    def standing(self, name: str) -> bool:
        """In the fight and on its feet: not dead, not below 1 hp, not fled or surrendered."""
        live = self.live[name]
        return not live.dead and live.hp > 0 and not live.out

    def opponents_engaged(self, name: str) -> list[str]:
        out = []
        for a, b in self.engaged:
            other = b if a == name else a if b == name else None
            if other is not None and self.standing(other):
                out.append(other)
        return sorted(out)

    def is_engaged(self, a: str, b: str) -> bool:
        return tuple(sorted((a, b))) in self.engaged

    def melee_group(self, name: str) -> list[str]:
        """Every standing participant of the melee ``name`` is in (its engagement component)."""
        seen, todo = {name}, [name]
        while todo:
            cur = todo.pop()
            for other in self.opponents_engaged(cur):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return sorted(n for n in seen if self.standing(n))
