"""Magic Realm commands (user input; unknown fields are refused)."""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Lure(_Command, frozen=True, kw_only=True):
    character: str
    denizens: tuple[str, ...] = ()  # lured onto the character himself
    hirelings: dict[str, str] = {}  # denizen -> hireling that lures it (one per hireling)


class Assign(_Command, frozen=True, kw_only=True):
    """Random assignment (rolls dice)."""


class Deploy(_Command, frozen=True, kw_only=True):
    character: str
    hirelings: dict[str, str] = {}
    charge: str = ""
    chit: str = ""


class Act(_Command, frozen=True, kw_only=True):
    character: str
    kind: str  # none, alert, run, fly, cast, activate, deactivate, abandon
    chit: str = ""
    items: tuple[str, ...] = ()
    spell: str = ""
    horse: str = ""


class StartMelee(_Command, frozen=True, kw_only=True):
    """Start the Melee Step (rolls the Attention-chit order)."""


class Target(_Command, frozen=True, kw_only=True):
    character: str
    target: str = ""
    hirelings: dict[str, str] = {}
    positions: dict[str, int] = {}
    spell_targets: tuple[str, ...] = ()


class Play(_Command, frozen=True, kw_only=True):
    character: str
    attack: int = 0
    fight: str = ""
    alert_only: str = ""
    maneuver: int = 0
    move: str = ""
    horse: str = ""
    shield: int = 0
    place: dict[str, int] = {}
    hirelings: dict[str, int] = {}
    part_attack: int = 0
    part_side: str = ""


class Resolve(_Command, frozen=True, kw_only=True):
    """Roll repositioning, change tactics and missile dice and resolve the Melee Step."""


class Fatigue(_Command, frozen=True, kw_only=True):
    character: str
    fatigue: tuple[str, ...] = ()
    change: str = ""
    wounds: tuple[str, ...] = ()


class Concede(_Command, frozen=True, kw_only=True):
    """A table ruling: the held character cannot be freed, so he is killed (MR 8.4.7 Elusive Cloak)."""

    character: str
    reason: str = "no_chance"  # no_chance | declined


class Pass(_Command, frozen=True, kw_only=True):
    """Every character passes the rest of the round (nobody uncontrolled is left to fight): the same events,
    step by step, as passing with each step's own command (docs/magic_realm.md, "A round with nothing to
    decide"). Where players are pinned each votes for his own ``characters``, and the vote that completes them
    passes the round; once it is passed, ``mr pass`` with no character takes its next steps."""

    characters: tuple[str, ...] = ()
