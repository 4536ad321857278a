"""Argad events (tags ``argad.*``): decisions and the labels of the dice behind them.

Outcomes (kills, wounds, recoils, deaths) are never stored: ``evolve`` derives
them from these facts and the ``core.dice_rolled`` faces.
"""

from __future__ import annotations

from typing import Any

from combatlog.events.base import Event, register


class FigureAdded(Event, frozen=True, kw_only=True, tag="argad.figure_added"):
    """A figure joins after the set-up (reinforcements); ``figure`` is a set-up entry."""

    figure: dict[str, Any]


class TurnStarted(Event, frozen=True, kw_only=True, tag="argad.turn_started"):
    turn: int


class PhaseStarted(Event, frozen=True, kw_only=True, tag="argad.phase_started"):
    turn: int
    phase: str  # shooting | melee


class Moved(Event, frozen=True, kw_only=True, tag="argad.moved"):
    """What a figure's simultaneous move means for the rules this turn."""

    turn: int
    figure: str
    charge: bool = False
    crossing: bool = False  # crosses an obstacle (enemies strike it at +1)
    stationary: bool = False
    out_of_command: bool = False
    ground: str = ""  # "mineral", "other", or "" (unchanged)
    note: str = ""


class ShotFired(Event, frozen=True, kw_only=True, tag="argad.shot"):
    turn: int
    shooters: tuple[str, ...]
    targets: tuple[str, ...]
    range: str = "short"
    need: int = 0  # 0: from the seed's cells
    cover: int = 0
    idle: bool = False
    into_melee: bool = False
    range_cm: int = 0
    friends: tuple[str, ...] = ()
    mod: int = 0
    why: str = ""
    dice: tuple[str, ...] = ()
    rerolls: tuple[str, ...] = ()
    one_reroll: str = ""
    allocation: tuple[str, ...] = ()


class Struck(Event, frozen=True, kw_only=True, tag="argad.struck"):
    turn: int
    attackers: tuple[str, ...]
    target: str
    ranks: tuple[int, ...] = ()  # per attacker; empty: all rank 1
    over: str = ""
    mod: int = 0
    why: str = ""
    split: bool = False
    dice: tuple[str, ...] = ()
    rerolls: tuple[str, ...] = ()


class Held(Event, frozen=True, kw_only=True, tag="argad.held"):
    """Figures whose side declares they will not strike in this game turn (``decide._hold``)."""

    turn: int
    figures: tuple[str, ...]


class RecoilPolicySet(Event, frozen=True, kw_only=True, tag="argad.recoil_policy_set"):
    figure: str
    refuse: bool


class FigureRemoved(Event, frozen=True, kw_only=True, tag="argad.figure_removed"):
    figure: str
    reason: str = ""


class TurnEnded(Event, frozen=True, kw_only=True, tag="argad.turn_ended"):
    turn: int
    survival: tuple[str, ...] = ()
    locations: tuple[str, ...] = ()


class CombatEnded(Event, frozen=True, kw_only=True, tag="argad.combat_ended"):
    outcome: str = ""


ARGAD_EVENTS = (
    FigureAdded, TurnStarted, PhaseStarted, Moved, ShotFired, Struck, Held, RecoilPolicySet, FigureRemoved,
    TurnEnded, CombatEnded,
)
register(*ARGAD_EVENTS)
