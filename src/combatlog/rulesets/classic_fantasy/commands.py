"""Classic Fantasy Imperative commands (user input: unknown fields are refused)."""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class StartRound(_Command, frozen=True, kw_only=True):
    reroll: bool = False  # force a new initiative roll (CFI Ch.8 Initiative)
    surprised: tuple[str, ...] = ()
    force: bool = False  # end the open round although someone could still act (table decision)


class Attack(_Command, frozen=True, kw_only=True):
    attacker: str
    target: str
    weapon: str = ""
    charge: bool = False
    moving: bool = False
    situations: tuple[str, ...] = ()
    grade: str = ""
    cap: str = ""
    range: str = ""
    crowd: str = ""
    bystanders: tuple[str, ...] = ()
    stationary: bool = False
    blind_strike: bool = False
    mount_dm: str = ""
    sweep: tuple[str, ...] = ()
    leap: bool = False
    pass_through: bool = False


class Defend(_Command, frozen=True, kw_only=True):
    defender: str
    kind: str  # parry | evade | none | counter | brawn
    weapon: str = ""
    situations: tuple[str, ...] = ()
    grade: str = ""
    cap: str = ""
    back: bool = False
    longer: str = ""
    set_weapon: bool = False


class UseLuck(_Command, frozen=True, kw_only=True):
    who: str
    roll: str  # attack | defence | damage | location | endurance | ... | action_point | mitigate | heroic
    swap: bool = False
    location: str = ""


class ChooseEffects(_Command, frozen=True, kw_only=True):
    who: str
    effects: tuple[str, ...] = ()
    params: dict[str, str] = {}


class Act(_Command, frozen=True, kw_only=True):
    who: str
    action: str
    target: str = ""
    detail: dict[str, str] = {}


class EndCombat(_Command, frozen=True, kw_only=True):
    outcome: str = ""
