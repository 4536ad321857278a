"""OSRIC events (tags ``osric.*``): decisions and rolls only.

Consequences (hits, damage, spells going off or lost, deaths, morale results)
are derived by ``evolve`` from these facts, so ``explain`` re-derives them.
"""

from __future__ import annotations

import msgspec

from combatlog.events.base import Event, register


class Declaration(msgspec.Struct, frozen=True, kw_only=True):
    """What one combatant declares before initiative (OSRIC Combat: Declare Spells and General Actions)."""

    who: str
    action: str
    target: str = ""
    spell: str = ""
    casting: int = 0  # casting time in segments, for a spell
    weapon: str = ""
    text: str = ""


class SurpriseChecked(Event, frozen=True, kw_only=True, tag="osric.surprise_checked"):
    rolls: dict[str, int]  # side -> d6 (sides that were alert do not roll)
    alert: tuple[str, ...] = ()


class SegmentReached(Event, frozen=True, kw_only=True, tag="osric.segment_reached"):
    """The referee moves the timeline on to a segment (surprise segments, spells going off)."""

    segment: int
    end: bool = False  # the end of that segment (after its actions): spells of the first-segment reading


class RoundStarted(Event, frozen=True, kw_only=True, tag="osric.round_started"):
    round: int


class RoundEnded(Event, frozen=True, kw_only=True, tag="osric.round_ended"):
    round: int


class Forgone(msgspec.Struct, frozen=True, kw_only=True):
    """A declared action given up: who, the action in words, and why."""

    who: str
    action: str
    why: str


class ActionsForgone(Event, frozen=True, kw_only=True, tag="osric.actions_forgone"):
    """Declared actions still due that the timeline moved past (the round ended, or a later segment was
    reached) and that can no longer be taken (OSRIC Combat: First Party Acts / Second Party Acts)."""

    round: int
    forgone: tuple[Forgone, ...]


class ActionsDeclared(Event, frozen=True, kw_only=True, tag="osric.actions_declared"):
    """One side's declarations for a round: one event per side, so they can be sealed."""

    round: int
    side: str
    declarations: tuple[Declaration, ...]


class InitiativeRolled(Event, frozen=True, kw_only=True, tag="osric.initiative_rolled"):
    round: int
    rolls: dict[str, int]  # side -> d6


class AttackRolled(Event, frozen=True, kw_only=True, tag="osric.attack_rolled"):
    """One attack roll (one weapon or one attack form of a routine) and, on a hit, its damage dice."""

    segment: int
    late: bool = False  # after the other side's actions in that segment
    attacker: str
    target: str
    kind: str  # melee | missile | charge | counter | free | grapple | overbear
    form: str  # weapon name, "unarmed", or the monster's attack name
    routine: int = 0  # which routine of the round (0: a free attack, outside the routines)
    offhand: bool = False
    roll: int
    label: str
    damage: int = 0  # the damage dice total (0 when missed)
    damage_label: str = ""
    candidates: tuple[str, ...] = ()  # when the target was chosen at random, among these
    target_roll: int = 0
    flags: tuple[str, ...] = ()  # rear, flank, higher, set, double, two-weapon, sees-invisible,
    #                              cover:50, concealment:half, range:120
    mod: int = 0  # referee's adjustment to the roll
    reason: str = ""


class CastingBegun(Event, frozen=True, kw_only=True, tag="osric.casting_begun"):
    segment: int
    who: str
    spell: str
    casting: int  # segments


class SpellDeclined(Event, frozen=True, kw_only=True, tag="osric.spell_declined"):
    who: str
    segment: int


class Charged(Event, frozen=True, kw_only=True, tag="osric.charged"):
    segment: int
    who: str
    target: str
    mounted_lance: bool = False
    overbear: bool = False
    defender_longer: bool = False


class Closed(Event, frozen=True, kw_only=True, tag="osric.closed"):
    segment: int
    who: str
    target: str


class Retreated(Event, frozen=True, kw_only=True, tag="osric.retreated"):
    segment: int
    who: str


class Fled(Event, frozen=True, kw_only=True, tag="osric.fled"):
    segment: int
    who: str


class EngagementSet(Event, frozen=True, kw_only=True, tag="osric.engagement_set"):
    """A ruling on positions: these two are (or are no longer) within 10 ft, engaged in melee."""

    a: str
    b: str
    engaged: bool = True
    reason: str = ""


class DamageApplied(Event, frozen=True, kw_only=True, tag="osric.damage_applied"):
    """Damage from a source other than an attack roll (a spell's effect, a fall, burning oil)."""

    who: str
    amount: int
    source: str = ""
    label: str = ""


class HealingApplied(Event, frozen=True, kw_only=True, tag="osric.healing_applied"):
    who: str
    amount: int
    source: str = ""
    label: str = ""


class ConditionChanged(Event, frozen=True, kw_only=True, tag="osric.condition_changed"):
    who: str
    condition: str
    present: bool = True
    reason: str = ""


class AidGiven(Event, frozen=True, kw_only=True, tag="osric.aid_given"):
    who: str
    by: str = ""


class MoraleChecked(Event, frozen=True, kw_only=True, tag="osric.morale_checked"):
    who: str
    roll: int  # d100
    modifier: int = 0  # percent, from the referee's reading of the modifier table
    label: str = ""
    reason: str = ""


class Negotiated(Event, frozen=True, kw_only=True, tag="osric.negotiated"):
    by: str
    outcome: str
    ends: bool = False


class ActionNoted(Event, frozen=True, kw_only=True, tag="osric.action_noted"):
    """A general action with no mechanics here (climbing a wall, shouting a warning)."""

    segment: int
    who: str
    text: str


class GrappleBroken(Event, frozen=True, kw_only=True, tag="osric.grapple_broken"):
    """The referee's ruling, comparing strengths, that a grappled combatant is free."""

    who: str
    reason: str = ""


class AssassinationAttempted(Event, frozen=True, kw_only=True, tag="osric.assassination_attempted"):
    segment: int
    attacker: str
    target: str
    chance: int  # percent, from the assassination table the referee reads
    roll: int
    label: str


class CombatEnded(Event, frozen=True, kw_only=True, tag="osric.combat_ended"):
    outcome: str = ""


OSRIC_EVENTS = (
    SurpriseChecked, SegmentReached, RoundStarted, RoundEnded, ActionsDeclared, InitiativeRolled, AttackRolled,
    CastingBegun, SpellDeclined, Charged, Closed, Retreated, Fled, EngagementSet, DamageApplied, HealingApplied,
    ConditionChanged, AidGiven, MoraleChecked, Negotiated, ActionNoted, GrappleBroken, AssassinationAttempted,
    CombatEnded, ActionsForgone,
)
register(*OSRIC_EVENTS)
