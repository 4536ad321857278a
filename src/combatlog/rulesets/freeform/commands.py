"""Freeform commands (user input: unknown fields are refused)."""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Join(_Command, frozen=True, kw_only=True):
    name: str
    side: str
    hp: int | None = None
    note: str = ""
    player: str = ""


class Leave(_Command, frozen=True, kw_only=True):
    name: str
    reason: str = ""


class StartRound(_Command, frozen=True, kw_only=True):
    """Start the next round (closing the open one, if any)."""


class EndRound(_Command, frozen=True, kw_only=True):
    pass


class Act(_Command, frozen=True, kw_only=True):
    who: str
    action: str
    roll: str = ""  # optional dice notation rolled with the action
    label: str = ""  # defaults to r<round>/<who>/act<n>


class ChangeHp(_Command, frozen=True, kw_only=True):
    who: str
    amount: str  # a whole number or dice notation
    heal: bool = False
    reason: str = ""
    label: str = ""


class SetCondition(_Command, frozen=True, kw_only=True):
    who: str
    condition: str
    present: bool = True
    reason: str = ""


class EndCombat(_Command, frozen=True, kw_only=True):
    outcome: str = ""
