"""OSRIC commands (user input; unknown fields are refused) and the declaration syntax."""

from __future__ import annotations

import re

import msgspec

from combatlog.errors import InvalidCommand
from combatlog.rulesets.osric.events import Declaration

ACTIONS = ("melee", "missile", "charge", "close", "retreat", "flee", "parry", "hold", "set", "unarmed", "grapple",
           "overbear", "spell", "negotiate", "continue", "none", "other")
CONDITIONS = ("prone", "stunned", "sleeping", "invisible", "hasted", "held")


class _Command(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class CheckSurprise(_Command, frozen=True, kw_only=True):
    alert: tuple[str, ...] = ()  # sides already alerted: they do not roll


class ReachSegment(_Command, frozen=True, kw_only=True):
    segment: int
    end: bool = False


class StartRound(_Command, frozen=True, kw_only=True):
    """Start the next round (ending the open one)."""


class EndRound(_Command, frozen=True, kw_only=True):
    pass


class Declare(_Command, frozen=True, kw_only=True):
    side: str
    declarations: tuple[Declaration, ...]
    rest: str = ""  # an action for every able member not listed (e.g. "melee")


class RollInitiative(_Command, frozen=True, kw_only=True):
    pass


class Attack(_Command, frozen=True, kw_only=True):
    """A melee routine (or an unarmed one with weapon="unarmed")."""

    who: str
    target: str = ""
    weapon: str = ""
    offhand: str = ""  # two-weapon fighting: the off-hand dagger or hand axe
    flags: tuple[str, ...] = ()
    mod: int = 0
    reason: str = ""
    segment: int = 0  # 0: the earliest segment allowed


class Shoot(_Command, frozen=True, kw_only=True):
    who: str
    target: str
    weapon: str = ""
    range: int = 0  # feet
    flags: tuple[str, ...] = ()
    mod: int = 0
    reason: str = ""
    segment: int = 0


class Cast(_Command, frozen=True, kw_only=True):
    who: str
    spell: str = ""  # the declared spell; in a surprise segment name it here
    casting: int = 0
    segment: int = 0


class Decline(_Command, frozen=True, kw_only=True):
    who: str


class Charge(_Command, frozen=True, kw_only=True):
    who: str
    target: str
    weapon: str = ""
    mounted_lance: bool = False
    overbear: bool = False
    as_grapple: bool = False  # the referee rules the overbear fails: resolved as a grapple
    defender_longer: bool = False
    flags: tuple[str, ...] = ()
    mod: int = 0
    segment: int = 0


class Close(_Command, frozen=True, kw_only=True):
    who: str
    target: str
    segment: int = 0


class Retreat(_Command, frozen=True, kw_only=True):
    who: str
    segment: int = 0


class Flee(_Command, frozen=True, kw_only=True):
    who: str
    skip: tuple[str, ...] = ()  # opponents who forgo their free attack
    segment: int = 0


class Grapple(_Command, frozen=True, kw_only=True):
    who: str
    target: str = ""
    flags: tuple[str, ...] = ()
    mod: int = 0
    segment: int = 0


class Engage(_Command, frozen=True, kw_only=True):
    a: str
    b: str
    off: bool = False
    reason: str = ""


class Damage(_Command, frozen=True, kw_only=True):
    who: str
    amount: str  # a number or dice
    source: str = ""
    label: str = ""


class Heal(_Command, frozen=True, kw_only=True):
    who: str
    amount: str
    source: str = ""
    label: str = ""


class SetCondition(_Command, frozen=True, kw_only=True):
    who: str
    condition: str
    present: bool = True
    reason: str = ""


class Aid(_Command, frozen=True, kw_only=True):
    who: str
    by: str = ""


class Morale(_Command, frozen=True, kw_only=True):
    who: tuple[str, ...]
    modifier: int = 0
    reason: str = ""


class Negotiate(_Command, frozen=True, kw_only=True):
    by: str
    outcome: str
    ends: bool = False


class NoteAction(_Command, frozen=True, kw_only=True):
    who: str
    text: str
    segment: int = 0


class BreakGrapple(_Command, frozen=True, kw_only=True):
    who: str
    reason: str = ""


class Assassinate(_Command, frozen=True, kw_only=True):
    who: str
    target: str
    chance: int
    segment: int = 0


class EndCombat(_Command, frozen=True, kw_only=True):
    outcome: str = ""


_DECL = re.compile(r"^\s*([A-Za-z*][A-Za-z0-9_.-]*)\s*=\s*([a-z]+)(?::([^@]*))?(?:@\s*([A-Za-z][A-Za-z0-9_.-]*))?\s*$")


def parse_declaration(text: str) -> Declaration:
    """``WHO=ACTION[:ARG][@TARGET]``: ``Brom=melee@orc1``, ``Ael=missile:long bow``,
    ``Halvaine=spell:sleep:1``, ``Tam=other:climbs the wall``, ``*=melee`` (everyone else)."""
    m = _DECL.match(text)
    if not m:
        raise InvalidCommand(f"declaration {text!r}: write WHO=ACTION[:ARG][@TARGET], e.g. Brom=melee@orc1, "
                             "Halvaine=spell:sleep:1, Ael=missile:long bow")
    who, action, arg, target = m.group(1), m.group(2), (m.group(3) or "").strip(), m.group(4) or ""
    if action not in ACTIONS:
        raise InvalidCommand(f"declaration {text!r}: action must be one of {', '.join(ACTIONS)}")
    if action == "spell":
        spell, _, seg = arg.rpartition(":")
        if not spell or not (seg.strip().isascii() and seg.strip().isdigit()) or int(seg) < 1:
            raise InvalidCommand(f"declaration {text!r}: a spell is spell:NAME:SEGMENTS (casting time), "
                                 "e.g. spell:sleep:1; a round is 10 segments")
        return Declaration(who=who, action=action, spell=spell.strip(), casting=int(seg), target=target)
    if action == "other":
        if not arg:
            raise InvalidCommand(f"declaration {text!r}: say what, e.g. other:climbs the wall")
        return Declaration(who=who, action=action, text=arg, target=target)
    if action in ("melee", "missile", "charge", "set", "hold") and arg:
        return Declaration(who=who, action=action, weapon=arg, target=target)
    if arg:
        raise InvalidCommand(f"declaration {text!r}: {action} takes no ':' argument")
    return Declaration(who=who, action=action, target=target)
