"""The dice each OSRIC event depends on (``Ruleset.dice_uses``), so that ``verify`` binds them.

``evolve`` folds the numbers an event carries (an attack's d20 and damage, a random target's die, each
side's surprise and initiative d6, a morale or assassination d100, rolled damage or healing). Each is
declared here with the die it came from, the label the rules draw at that point (computed from the
state before the event exactly as ``decide`` computes it), the dice the rules roll there, and the
number read from the die; ``verify`` refuses any event whose numbers are not its dice, and any joint
die under a label the roller chose.
"""

from __future__ import annotations

import re

from combatlog.events.base import Event
from combatlog.rulesets import drawn
from combatlog.rulesets.base import DiceUse
from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric.evolve import advance
from combatlog.rulesets.osric.state import OsricState

# Every label the rules draw: ``surprise/<side>``, ``r<N>/initiative|morale|damage|heal/...`` (decide.py) and an
# attack's ``r<N>/<who>/atk<k>`` or ``.../assassinate``, with its ``/target`` and ``/dmg`` (attacks.py), then
# ``#2``, ``#3``...: no player may name a die so (``Ruleset.owns_label``).
RULE_LABELS = re.compile(r"surprise/|r[0-9]+/(?:(?:initiative|morale|damage|heal)/|[^/]+/(?:atk[0-9]+|assassinate)(?:[/#]|\Z))")


def dice_uses(s: OsricState, ev: Event) -> list[DiceUse]:
    match ev:
        case e.AttackRolled():
            return _attack(s, ev)
        case e.SurpriseChecked():
            # OSRIC Combat: Determine Surprise: a d6 for each side that is not alert
            sides = dict.fromkeys([x for x in s.sides if x not in ev.alert] + list(ev.rolls))
            return [DiceUse(label=f"surprise/{x}", field=f"rolls.{x}", expected_label=f"surprise/{x}",
                            notation="1d6", copied=ev.rolls.get(x)) for x in sides]
        case e.InitiativeRolled():
            # OSRIC Combat: Determine Initiative: a d6 for each side
            sides = dict.fromkeys(list(s.sides) + list(ev.rolls))
            return [DiceUse(label=f"r{ev.round}/initiative/{x}", field=f"rolls.{x}",
                            expected_label=f"r{s.round}/initiative/{x}", notation="1d6", copied=ev.rolls.get(x))
                    for x in sides]
        case e.MoraleChecked():
            rule = _next(s, f"r{s.round}/morale/{ev.who}")
            return [DiceUse(label=ev.label or rule, field="roll", expected_label=rule, notation="1d100",
                            copied=ev.roll)]
        case e.AssassinationAttempted():
            rule = f"r{s.round}/{ev.attacker}/assassinate"
            return [DiceUse(label=ev.label or rule, field="roll", expected_label=rule, notation="1d100",
                            copied=ev.roll)]
        case e.DamageApplied() | e.HealingApplied():
            if not ev.label:
                return []  # a fixed amount: the referee's ruling, no die
            kind = "heal" if isinstance(ev, e.HealingApplied) else "damage"
            # the dice are the referee's (a spell's 1d4+1); the amount is their total, never below 0
            return [DiceUse(label=ev.label, field="amount", expected_label=_next(s, f"r{s.round}/{kind}/{ev.who}"),
                            copied=ev.amount, derive="max0")]
    return []


def _next(s: OsricState, base: str) -> str:
    """The label ``dice.next_label(base)`` gave; unknown ("") when the state lost track of the round's dice."""
    return drawn.rule_label(s.dice_drawn, base) if s.dice_from == s.round else ""


def _attack(s: OsricState, ev: e.AttackRolled) -> list[DiceUse]:
    """The d20 (``attacks.routine``), a random target's die (``choose_target``, ``_shoot``) and, on a hit,
    the weapon's damage dice by the target's size."""
    rule = f"r{s.round}/{ev.attacker}/atk{s.live[ev.attacker].rolls + 1}"
    uses = [DiceUse(label=ev.label or rule, field="roll", expected_label=rule, notation="1d20", copied=ev.roll)]
    uses += _target(s, ev, rule)
    calc = r.calc_attack(advance(s, r.attack_tick(s, ev), 0), ev)  # as evolve computes it
    if calc.hit or ev.damage_label:
        dmg = rule + "/dmg"
        uses.append(DiceUse(label=ev.damage_label or dmg, field="damage", expected_label=dmg,
                            notation=calc.notation, copied=ev.damage))
    else:  # a miss rolls no damage: the event must say 0
        uses.append(DiceUse(label="", field="damage", copied=ev.damage))
    return uses


def _target(s: OsricState, ev: e.AttackRolled, rule: str) -> list[DiceUse]:
    """OSRIC Combat: Melee Attack / Missile Attacks: among several opponents (a melee fired into), the
    target of a routine's first attack is random: a die 1dN over the candidates, in the rules' order."""
    who = ev.attacker
    first = ev.routine > 0 and s.live[who].routines < ev.routine
    if ev.kind in ("melee", "grapple") and first:
        opps = [o for o in s.opponents_engaged(who) if (who, o) not in s.no_attack]
        random = len(opps) > 1 and s.options["melee_target"] == "random"
    elif ev.kind == "missile" and first:
        opps = [n for n in s.melee_group(ev.target) if n != who]
        random = len(opps) > 1
    else:
        opps, random = [], False
    if not random:
        if ev.candidates or ev.target_roll:
            raise ValueError(f"{who}'s target was not chosen at random here, but the event names candidates "
                             f"{list(ev.candidates)} and target_roll {ev.target_roll}")
        return []
    if ev.candidates and list(ev.candidates) != opps:
        raise ValueError(f"candidates {list(ev.candidates)} are not the opponents the rules choose among ({opps})")
    if ev.target not in opps:
        raise ValueError(f"target {ev.target} is not among the opponents the rules choose among ({opps})")
    label, n, index = (ev.label or rule) + "/target", f"1d{len(opps)}", opps.index(ev.target) + 1
    return [DiceUse(label=label, field="target_roll", expected_label=rule + "/target", notation=n,
                    copied=ev.target_roll),
            DiceUse(label=label, field=f"target ({ev.target}, candidate {index} of {', '.join(opps)})",
                    expected_label=rule + "/target", notation=n, copied=index)]
