"""Classic Fantasy Imperative events (tags ``cfi.*``): decisions and the dice they drew.

Every consequence (hits, wounds, conditions, fatigue, the next Turn) is derived
by the fold from these facts and the ``core.dice_rolled`` events they name.
"""

from __future__ import annotations

from combatlog.events.base import Event, register


class RoundStarted(Event, frozen=True, kw_only=True, tag="cfi.round_started"):
    """A new Combat Round; initiative is (re-)rolled when first needed or when forced."""

    round: int
    reroll: bool = False
    surprised: tuple[str, ...] = ()
    dice: tuple[str, ...] = ()


class AttackDeclared(Event, frozen=True, kw_only=True, tag="cfi.attack_declared"):
    """An Attack (or Charge) with the attack roll."""

    attacker: str
    target: str
    weapon: str
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
    sweep: tuple[str, ...] = ()  # further targets of a Sweep Attack (CFI Ch.8 Sweep Attacks)
    leap: bool = False  # a Leaping Attack: Athletics, no damage (CFI Ch.8 Leaping Attacks)
    pass_through: bool = False  # a charger sweeping past (CFI Ch.8 Charging)
    dice: tuple[str, ...] = ()


class DefenceDeclared(Event, frozen=True, kw_only=True, tag="cfi.defence_declared"):
    """The target's Reaction: parry, evade, or none (an automatic Failure)."""

    defender: str
    kind: str  # parry | evade | none | counter (a charge) | brawn (a leap)
    weapon: str = ""
    situations: tuple[str, ...] = ()
    grade: str = ""
    cap: str = ""
    forced: bool = False  # no reaction was possible
    back: bool = False  # evading an attack from a back square (CFI Ch.8 Facing)
    longer: str = ""  # counter-attack: whose weapon is longer: recipient | charger | same
    set_weapon: bool = False  # counter-attack with a weapon set against the charge
    dice: tuple[str, ...] = ()


class LuckSpent(Event, frozen=True, kw_only=True, tag="cfi.luck_spent"):
    """A Luck Point re-rolls the spender's own roll in the open exchange."""

    who: str
    roll: str  # attack | defence | a roll of the last blow | action_point | mitigate | heroic
    swap: bool = False  # swap the d100's digits instead of re-rolling (CFI Ch.7 Cheat Fate)
    location: str = ""  # Mitigate Damage: the Major-wounded location
    dice: tuple[str, ...] = ()


class EffectsChosen(Event, frozen=True, kw_only=True, tag="cfi.effects_chosen"):
    """The winner's Special Effects, chosen after seeing the dice (a decision point)."""

    by: str
    effects: tuple[str, ...] = ()
    params: dict[str, str] = {}


class ExchangeResolved(Event, frozen=True, kw_only=True, tag="cfi.exchange_resolved"):
    """Closes the exchange; the dice named here are the damage, location and resistance rolls."""

    dice: tuple[str, ...] = ()


class ActionTaken(Event, frozen=True, kw_only=True, tag="cfi.action_taken"):
    """A Proactive, Reactive or Free Combat Action other than Attack/Parry/Evade."""

    who: str
    action: str
    target: str = ""
    detail: dict[str, str] = {}
    dice: tuple[str, ...] = ()


class CombatEnded(Event, frozen=True, kw_only=True, tag="cfi.combat_ended"):
    outcome: str = ""


CFI_EVENTS = (RoundStarted, AttackDeclared, DefenceDeclared, LuckSpent, EffectsChosen, ExchangeResolved,
              ActionTaken, CombatEnded)
register(*CFI_EVENTS)
