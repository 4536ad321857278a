"""Argad commands (user input: unknown fields are refused)."""

from __future__ import annotations

from typing import Any

import msgspec


class _Command(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class AddFigure(_Command, frozen=True, kw_only=True):
    figure: dict[str, Any]


class StartTurn(_Command, frozen=True, kw_only=True):
    pass


class Move(_Command, frozen=True, kw_only=True):
    figure: str
    charge: bool = False
    crossing: bool = False
    stationary: bool = False
    out_of_command: bool = False
    ground: str = ""
    note: str = ""


class Shoot(_Command, frozen=True, kw_only=True):
    shooters: tuple[str, ...]
    targets: tuple[str, ...]
    range: str = "short"
    need: int = 0
    cover: int = 0
    idle: bool = False
    into_melee: bool = False
    range_cm: int = 0
    friends: tuple[str, ...] = ()
    mod: int = 0
    why: str = ""


class Strike(_Command, frozen=True, kw_only=True):
    attackers: tuple[str, ...]
    targets: tuple[str, ...]
    ranks: tuple[int, ...] = ()  # per attacker; empty: all in contact (rank 1)
    over: str = ""
    mod: int = 0
    why: str = ""


class Hold(_Command, frozen=True, kw_only=True):
    """Figures of one side that will not strike this game turn: the named ones, or (``side``) every
    figure of that side that may still strike."""

    figures: tuple[str, ...] = ()
    side: str = ""


class SetRecoilPolicy(_Command, frozen=True, kw_only=True):
    figure: str
    refuse: bool


class Remove(_Command, frozen=True, kw_only=True):
    figure: str
    reason: str = ""


class EndTurn(_Command, frozen=True, kw_only=True):
    pass


class EndCombat(_Command, frozen=True, kw_only=True):
    outcome: str = ""
