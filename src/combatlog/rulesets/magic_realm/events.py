"""Magic Realm events (tags ``mr.*``): decisions and the dice-driven steps, facts only.

Consequences (positions, hits, harm, kills, fame) are derived by ``evolve``
from these and the ``core.dice_rolled`` events before them. Each side's
Melee Step plays are a separate ``mr.plays_made`` event so that a later
commit-reveal layer can seal them one by one.
"""

from __future__ import annotations

from combatlog.events.base import Event, register


class Lured(Event, frozen=True, kw_only=True, tag="mr.lured"):
    """A character's luring: denizen -> the character or hireling it now attacks (MR 001 luring)."""

    character: str
    lures: dict[str, str] = {}


class DenizensAssigned(Event, frozen=True, kw_only=True, tag="mr.denizens_assigned"):
    """Random assignment of the unassigned denizens, driven by the dice before it (MR 001)."""

    round: int


class Deployed(Event, frozen=True, kw_only=True, tag="mr.deployed"):
    """A character's deployment: hireling -> denizen it attacks; an optional charge (MR 001 deployment)."""

    character: str
    hirelings: dict[str, str] = {}
    charge: str = ""
    chit: str = ""


class ActionDeclared(Event, frozen=True, kw_only=True, tag="mr.action_declared"):
    """A character's Encounter Step action (MR 001 actions)."""

    character: str
    kind: str
    chit: str = ""
    items: tuple[str, ...] = ()
    spell: str = ""
    horse: str = ""


class MeleeStarted(Event, frozen=True, kw_only=True, tag="mr.melee_started"):
    """Start of the Melee Step; the Attention-chit order comes from the dice before it (MR 8.4.1-8.4.2)."""

    round: int


class TargetsChosen(Event, frozen=True, kw_only=True, tag="mr.targets_chosen"):
    """A character's turn at target selection (MR 8.4.2)."""

    character: str
    target: str = ""
    hirelings: dict[str, str] = {}
    positions: dict[str, int] = {}
    spell_targets: tuple[str, ...] = ()


class PlaysMade(Event, frozen=True, kw_only=True, tag="mr.plays_made"):
    """One side's secret attack, maneuver and armor plays and counter placement (MR 8.4.5)."""

    character: str
    round: int = 0
    attack: int = 0
    fight: str = ""
    alert_only: str = ""
    maneuver: int = 0
    move: str = ""
    horse: str = ""
    shield: int = 0
    place: dict[str, int] = {}
    hirelings: dict[str, int] = {}
    part_attack: int = 0  # transmorphized characters: the head's or club's attack circle (MR 8.4.7)
    part_side: str = ""


class MeleeResolved(Event, frozen=True, kw_only=True, tag="mr.melee_resolved"):
    """Repositioning, change tactics and the attacks, driven by the dice before it (MR 8.4.6-8.4.9)."""

    round: int


class FatiguePaid(Event, frozen=True, kw_only=True, tag="mr.fatigue_paid"):
    """A character's Fatigue Step choices: chits fatigued, change made, chits wounded (MR 001 fatigue)."""

    character: str
    fatigue: tuple[str, ...] = ()
    change: str = ""
    wounds: tuple[str, ...] = ()


class Conceded(Event, frozen=True, kw_only=True, tag="mr.conceded"):
    """The table rules that nobody can (or will) kill the Tremendous monster holding a character who uses
    the Elusive Cloak; ``evolve`` derives his death (MR 8.4.7). ``reason``: no_chance | declined."""

    character: str
    reason: str = "no_chance"


class PassVoted(Event, frozen=True, kw_only=True, tag="mr.pass_voted"):
    """Where players are pinned, their characters pass the rest of ``round``, each by its own player (version 3,
    docs/magic_realm.md "A round with nothing to decide"). ``all_in``: with these, every character in the fight
    has voted, so the round is passed: the events of its steps follow, decided as ``mr pass`` decides them."""

    round: int
    characters: tuple[str, ...]
    all_in: bool = False


MR_EVENTS: tuple[type[Event], ...] = (
    Lured, DenizensAssigned, Deployed, ActionDeclared, MeleeStarted, TargetsChosen, PlaysMade, MeleeResolved,
    FatiguePaid, Conceded, PassVoted,
)
register(*MR_EVENTS)
