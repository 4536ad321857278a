"""Attacks beyond the plain exchange: Sweep Attacks, Leaping Attacks, counter-attacking a charge
(with a weapon set against it), evading from a back square, and the queue of exchanges a single
Turn can hold (CFI Ch.8 Sweep Attacks, Leaping Attacks, Charging, Facing).

Positions are not tracked: who stands in a sweep's path, whose weapon is longer and which square
an attack comes from are declared by the players, and the log records the declaration.
"""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.contest import contest
from combatlog.rulesets.classic_fantasy.events import AttackDeclared, DefenceDeclared
from combatlog.rulesets.classic_fantasy.rules import (
    Roller, Steps, cite, default_weapon, illegal, label, situation_grades, skill_target, strain, weapon_problem, who,
)
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, Exchange, Weapon, with_combatant

replace = msgspec.structs.replace
LONGER = ("recipient", "charger", "same")


def effective_siz(c: Combatant) -> int:
    """CFI Ch.8 Brace: against Knockback and Leaping Attacks SIZ counts 50% bigger."""
    return t.ceil_div(c.siz * 3, 2) if c.has("braced") else c.siz


def check_special(state: CFIState, ev: AttackDeclared, att: Combatant, tgt: Combatant, w: Weapon) -> None:
    """Declaration checks for sweeps, leaps and a charge sweeping past."""
    if ev.pass_through and not ev.charge:
        raise InvalidCommand("--pass-through goes with --charge (CFI Ch.8 Charging: continue sweeping past)")
    if ev.leap:
        if ev.charge or ev.range or ev.crowd or ev.sweep or ev.blind_strike:
            raise InvalidCommand("a leap is its own attack: no --charge, --range, --crowd, --sweep or --blind-strike "
                                 "(a leap at the end of a charge is declared as a leap)")
        if w.ranged:
            raise illegal("a Leaping Attack is made in person, not with a missile", "Leaping Attacks")
        # CFI Ch.8 Leaping Attacks: only against opponents up to twice the attacker's SIZ; a braced
        # target (aware of the leap) counts its SIZ half as big again (CFI Ch.8 Brace).
        siz = effective_siz(tgt)
        if siz > 2 * att.siz:
            raise illegal(f"{tgt.name}'s SIZ {siz}{' (braced)' if tgt.has('braced') else ''} is more than twice "
                          f"{att.name}'s SIZ {att.siz}: the leap cannot knock them down", "Leaping Attacks")
    if ev.sweep and w.ranged:
        raise illegal("a Sweep Attack is a close-combat attack", "Sweep Attacks")


def start_sweep(state: CFIState, ex: Exchange, ev: AttackDeclared, steps: Steps) -> CFIState:
    """CFI Ch.8 Sweep Attacks: a single attack roll applies to every target in the path; each
    defender resolves it separately, and effects imposed on the attacker count as concurrent
    (Decision: so a later target is still struck even if an earlier one broke or knocked the
    weapon away). The targets beyond the first wait in the queue, labelled ``<name>/``."""
    att = state.combatants[ex.attacker]
    names: list[str] = []
    for raw in ev.sweep:
        o = who(state, raw)
        if o.name in (ex.attacker, ex.target) or o.name in names:
            raise InvalidCommand("a sweep's further targets are others than the attacker, the first target and each other")
        if o.dead:
            raise InvalidCommand(f"{o.name} is dead and cannot be attacked")
        if not (ev.moving or ev.charge) and o.name not in att.engaged:
            raise illegal(f"{att.name} is not Engaged with {o.name}", "Engagement")
        if att.name in o.blocked:
            raise illegal(f"{att.name} was outmaneuvered by {o.name} and cannot attack them this Round",
                          "Outmaneuvering")
        names.append(o.name)
    queue = []
    for n in names:
        o = state.combatants[n]
        bonus = 1 if o.surprise_bonus else 0
        if n not in att.engaged:
            att = replace(att, engaged=att.engaged + (n,))
            o = replace(o, engaged=o.engaged + (att.name,))
        state = with_combatant(state, replace(o, surprise_bonus=False))
        queue.append(replace(ex, target=n, original_target=n, prefix=f"{n}/", sweep=True, follows="together",
                             bonus=bonus))
    state = with_combatant(state, att)
    steps.add(cite("Sweep Attacks"), f"{att.name}'s sweep applies one attack roll to {', '.join([ex.target] + names)}: "
              "each defender resolves it separately")
    return replace(state, exchange=replace(ex, sweep=True), queue=tuple(queue))


def counter_attack(state: CFIState, ex: Exchange, d: Combatant, ev: DefenceDeclared, roller: Roller,
                   steps: Steps) -> CFIState:
    """CFI Ch.8 Charging: rather than Parrying or Evading, the recipient of a charge counter-attacks
    at the same time; the wielder of the longer weapon strikes first; a weapon that can be set
    against a charge may use the charger's Damage Modifier.

    Decisions: the counter-attack is a Reaction costing one Action Point; neither blow is parried,
    so each is an attack against an automatic Failure; with equal lengths both blows land, but a
    blow that strikes second is lost if its striker can no longer attack (dead, unconscious,
    incapacitated, a Serious Wound, or the weapon gone); a set weapon uses the charger's Damage
    Modifier as raised by the charge."""
    if ev.longer not in LONGER:
        raise InvalidCommand("counter: declare whose weapon is longer with --longer recipient|charger|same "
                             "(reach is declared, not measured)")
    if d.surprised:
        raise illegal(f"{d.name} was surprised and may not take offensive Actions this Round", "Surprise")
    if d.has("no_attack"):
        raise IllegalCommand(f"{d.name} has a Serious Wound and cannot attack", rule="CFI Ch.7 Serious Wounds")
    if any(c.name == "stunned" and c.location in ("chest", "abdomen") for c in d.conditions):
        raise illegal(f"{d.name} is winded by a stunned torso and may only defend", "Stun Location")
    weapon = ev.weapon or default_weapon(d)
    problem = weapon_problem(d, weapon)
    if problem:
        raise illegal(problem, "Charging")
    w = d.weapons[weapon]
    if w.ranged or (w.shield and not w.damage):
        raise illegal(f"the {weapon} cannot counter-attack in close combat", "Charging")
    if ev.set_weapon and not w.can_set:
        raise illegal(f"the {weapon} cannot be set to receive a charge (CFI Ch.6 trait Set)", "Charging")
    sit = situation_grades(ev.situations, "attack", False)
    why = [t.SITUATIONS[s][3] for s in ev.situations]
    if ev.grade:
        sit.append(ev.grade)
        why.append(f"Games Master: {t.GRADE_NAMES[ev.grade]}")
    if d.has("prone"):
        sit.append("formidable")
        why.append("fighting while prone")
    skill_name = "unarmed" if w.has("unarmed") else "combat"
    skill, grade, notes = skill_target(state, d, skill_name, [t.hardest(sit)], 0, ev.cap, weapon=weapon)
    why += notes
    if grade == "hopeless":
        raise illegal(f"the counter-attack is Hopeless ({'; '.join(why)})", "Situational Modifiers")
    lbl = label(state, ex.prefix + "counter", ex.n)
    _f, roll = roller.roll(lbl, "1d100", f"{d.name} counter-attacks the charge", d.name)
    steps.add(cite("Charging"), f"{d.name} counter-attacks {ex.attacker} with {weapon} instead of defending: "
              f"{skill_name} {d.skills.get(skill_name, 0)}% -> {skill}% ({t.GRADE_NAMES[grade]}"
              f"{'; ' + '; '.join(why) if why else ''}), rolls {roll:02d}: "
              f"{t.LEVEL_NAMES[t.success_level(roll, skill)]}", lbl)
    d = strain(replace(d, ap=d.ap - 1), "counter-attacks", steps)
    if d.ward and d.ward[0] == weapon:
        d = replace(d, ward=())
    state = with_combatant(state, d)
    dm = ex.dm if ev.set_weapon else d.dm
    if ev.set_weapon:
        steps.add(cite("Charging"), f"the {weapon} is set against the charge: it uses {ex.attacker}'s Damage "
                  f"Modifier {ex.dm} instead of {d.dm}")
    steps.add(cite("Charging"), f"{ex.attacker}'s charge meets no parry: an automatic Failure")
    charge = contest(state, replace(ex, defence="none", def_level=t.FAILURE), steps)
    steps.add(cite("Charging"), f"{d.name}'s counter-attack meets no parry: an automatic Failure")
    counter = contest(state, Exchange(
        n=ex.n, attacker=d.name, target=ex.attacker, original_target=ex.attacker, weapon=weapon, mode="melee",
        grade=grade, attack_skill=skill, attack_roll=roll, attack_size=t.size_index(w.size), dm=dm,
        defence="none", def_level=t.FAILURE, prefix=ex.prefix + "counter/"), steps)
    if ev.longer == "recipient":
        first, second = counter, replace(charge, follows="strike")
        order = f"{d.name}'s {weapon} is longer and strikes first"
    elif ev.longer == "charger":
        first, second = charge, replace(counter, follows="strike")
        order = f"{ex.attacker}'s {ex.weapon} is longer and strikes first"
    else:
        first, second = charge, replace(counter, follows="together")
        order = "the weapons are of a length: both blows land together"
    steps.add(cite("Charging"), order)
    return replace(state, exchange=first, queue=(second,) + state.queue)


def back_perception(state: CFIState, ex: Exchange, d: Combatant, roller: Roller) -> tuple[bool, str, str]:
    """CFI Ch.8 Facing: a Perception roll "to even know the attack is coming" from a back square."""
    value, grade, _n = skill_target(state, d, "perception")
    lbl = label(state, ex.prefix + "perception", ex.n)
    _f, r = roller.roll(lbl, "1d100", f"{d.name} notices the attack from behind", d.name)
    seen = grade != "hopeless" and t.success_level(r, value) >= t.SUCCESS
    return seen, (f"the attack comes from a back square: {d.name} Perception {value}% rolls {r:02d}: "
                  f"{'sees it coming' if seen else 'does not see it coming'}"), lbl


def strike_problem(c: Combatant, weapon: str) -> str:
    """Why a queued blow can no longer be struck (CFI Ch.8 Charging: the longer weapon strikes first)."""
    if c.out or c.fallen:
        return f"{c.name} can no longer act"
    if c.has("no_attack"):
        return f"{c.name} has a Serious Wound and cannot attack"
    return weapon_problem(c, weapon)


def next_in_queue(state: CFIState, steps: Steps) -> CFIState:
    """Open the next queued exchange of this Turn, dropping blows their striker can no longer make."""
    queue = list(state.queue)
    while queue:
        ex = queue.pop(0)
        if ex.follows == "strike":
            why = strike_problem(state.combatants[ex.attacker], ex.weapon)
            if why:
                steps.add(cite("Charging"), f"{ex.attacker}'s blow comes second and is lost: {why}")
                continue
        target = state.combatants[ex.target]
        if target.dead and ex.stage == "defence":
            steps.add(cite("Sweep Attacks"), f"{ex.target} is already dead: the sweep passes over them")
            continue
        return replace(state, exchange=ex, queue=tuple(queue))
    return replace(state, exchange=None, queue=())
