"""The exchange: attack, reaction, the Differential Roll, Luck re-rolls and the choice of
Special Effects (CFI Ch.8 How Combat Works, Attacks and Parries, Evading)."""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import effects as fx
from combatlog.rulesets.classic_fantasy import special as sp
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.contest import contest
from combatlog.rulesets.classic_fantasy.events import AttackDeclared, DefenceDeclared, EffectsChosen
from combatlog.rulesets.classic_fantasy.rules import (
    Roller, Steps, cite, default_weapon, illegal, label, legs_problem, situation_grades, skill_target, strain,
    weapon_problem, who,
)
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, Exchange, add_condition, Condition, \
    with_combatant, with_weapon

replace = msgspec.structs.replace
RANGES = ("close", "effective", "long")
DEFENCES = ("parry", "evade", "none", "counter", "brawn")


def can_act(state: CFIState, c: Combatant, heading: str = "Running Combat") -> None:
    """CFI Ch.8 Turns and Actions in Combat: a Proactive Action needs the actor's Turn and an AP."""
    if not state.in_round:
        raise illegal("no Combat Round is running (start one with: cfi round)", "Running Combat")
    if state.exchange is not None:
        raise illegal(f"the exchange {state.exchange.attacker} -> {state.exchange.target} is still open", "Attacks and Parries")
    if state.turn != c.name:
        raise illegal(f"it is {state.turn or 'nobody'}'s Turn, not {c.name}'s", "Running Combat")
    if c.out:
        raise illegal(f"{c.name} cannot act", heading)
    if c.ap <= 0:
        raise illegal(f"{c.name} has no Action Points left", "Actions in Combat")


def apply_attack(state: CFIState, ev: AttackDeclared, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Attack / Charge / Ranged Combat: step 1 of the exchange, the attack roll."""
    att = who(state, ev.attacker)
    tgt = who(state, ev.target)
    if tgt.name == att.name:
        raise InvalidCommand(f"{att.name} cannot attack himself: name another combatant as the target")
    can_act(state, att, "Attack")
    weapon = ev.weapon or ("unarmed" if ev.leap else default_weapon(att))
    problem = weapon_problem(att, weapon)
    if problem:
        raise illegal(problem, "Combat Actions")
    w = att.weapons[weapon]
    ranged = w.ranged
    if tgt.dead:
        raise InvalidCommand(f"{tgt.name} is dead and cannot be attacked")
    if att.surprised:
        raise illegal(f"{att.name} was surprised and may not take offensive Actions this Round", "Surprise")
    if att.has("no_attack"):
        raise IllegalCommand(f"{att.name} has a Serious Wound and cannot attack for a few Turns", rule="CFI Ch.7 Serious Wounds")
    if any(c.name == "stunned" and c.location in ("chest", "abdomen") for c in att.conditions):
        raise illegal(f"{att.name} is winded by a stunned torso and may only defend", "Stun Location")
    if att.name in tgt.blocked:
        raise illegal(f"{att.name} was outmaneuvered by {tgt.name} and cannot attack them this Round", "Outmaneuvering")
    if w.shield and not w.damage:
        raise InvalidCommand(f"{att.name}'s {weapon} has no damage in the setup, so it cannot attack")
    if ranged and ev.charge:
        raise illegal("a Charge is a melee attack", "Charging")
    sp.check_special(state, ev, att, tgt, w)
    if (ev.charge or ev.moving) and att.engaged:
        raise illegal(f"{att.name} is Engaged ({', '.join(att.engaged)}) and cannot move", "Movement")
    if ev.charge or ev.moving or ev.leap:
        why = legs_problem(att)
        if why:
            raise illegal(why, "Movement")
    heroic = att.has("heroic")  # CFI Ch.7 Heroic Last Actions: reach is declared, not Engagement
    if not ranged and not (ev.charge or ev.moving or ev.leap or heroic) and tgt.name not in att.engaged:
        raise illegal(f"{att.name} is not Engaged with {tgt.name}: attack --moving (Move into contact) or --charge",
                      "Engagement")
    if ranged:
        if (ev.range or "effective") not in RANGES:
            raise InvalidCommand(f"range band: one of {', '.join(RANGES)} (beyond Long Range no shot is possible)")
        if w.reload_left > 0:
            raise illegal(f"{att.name}'s {weapon} needs {w.reload_left} more Turn(s) of loading (Ready)", "Ranged Combat")
    elif ev.range or ev.crowd or ev.bystanders:
        raise InvalidCommand("range, crowd and bystanders are for ranged attacks")
    if ev.crowd and ev.crowd not in ("edge", "through"):
        raise InvalidCommand("crowd: edge or through")
    if ev.crowd and not ev.bystanders:
        raise InvalidCommand("firing into a crowd: name the adjacent bystander(s) who may be struck (--bystander)")
    for b in ev.bystanders:
        if who(state, b).name in (att.name, tgt.name):
            raise InvalidCommand("a bystander is someone other than the attacker and the target")

    state = replace(state, action_no=state.action_no + 1)
    # CFI Ch.8 Situational Modifiers: the most severe situation applies.
    sit = situation_grades(ev.situations, "attack", ranged)
    why = [t.SITUATIONS[s][3] for s in ev.situations]
    if ev.grade:
        t.grade_index(ev.grade) if ev.grade != t.AUTOMATIC else None
        sit.append(ev.grade)
        why.append(f"Games Master: {t.GRADE_NAMES[ev.grade]}")
    if ev.charge:
        sit.append("hard")
        why.append("Charging: Hard")
    if att.has("prone"):
        sit.append("herculean" if ranged else "formidable")
        why.append("attacker prone" if ranged else "fighting while prone")
    if ranged and tgt.has("prone"):
        sit.append("formidable")
        why.append("target prone")
    crowd_grade = {"edge": "hard", "through": "formidable"}.get(ev.crowd, "")
    situational = t.hardest(sit + ([crowd_grade] if crowd_grade else []))
    aimed = ranged and att.aim == f"{tgt.name}@{state.round - 1}"
    if aimed and situational not in ("standard", t.AUTOMATIC) and t.grade_index(situational) > t.grade_index("standard"):
        situational = t.shift_grade(situational, -1)
        why.append("aimed for a Round: one grade easier")
    skill_name = "athletics" if ev.leap else ("unarmed" if w.has("unarmed") else "combat")
    extra = (1 if ev.blind_strike else 0) + (1 if ev.leap and tgt.legs >= 4 else 0)
    skill, grade, notes = skill_target(state, att, skill_name, [situational], extra, ev.cap, weapon=weapon)
    why += notes + (["striking blindly: one grade harder"] if ev.blind_strike else [])
    why += ["leaping at a quadruped: one grade harder"] if ev.leap and tgt.legs >= 4 else []
    if grade == "hopeless":
        raise illegal(f"the attack is Hopeless ({'; '.join(why)}): no attempt can be made", "Situational Modifiers")
    # Size (or Force) and Damage Modifier for this blow.
    if ranged:
        size = max(0, t.size_index(w.force or w.size) - (1 if ev.range == "long" else 0))
        dm = att.dm if w.uses_dm else "+0"
    else:
        size = min(len(t.SIZES) - 1, t.size_index(w.size) + (1 if ev.charge else 0))
        dm = att.dm
        if ev.charge:  # CFI Ch.8 Charging: DM one step, two for quadrupeds; a rider may use the mount's
            dm = t.dm_step(t.normalise_dm(ev.mount_dm), 2) if ev.mount_dm else t.dm_step(att.dm, 2 if att.legs >= 4 else 1)
    roll = 0
    if grade == t.AUTOMATIC:
        steps.add(cite("Situational Modifiers"), f"{att.name} attacks a helpless {tgt.name}: Automatic success, no roll")
        level = t.SUCCESS
    else:
        lbl = label(state, "attack")
        _f, roll = roller.roll(lbl, "1d100", f"{att.name} attacks {tgt.name} ({weapon})", att.name)
        level = t.success_level(roll, skill)
        steps.add(cite("Leaping Attacks" if ev.leap else "Attacks and Parries"),
                  f"{att.name} {'leaps at' if ev.leap else 'charges' if ev.charge else 'attacks'} {tgt.name}"
                  f"{'' if ev.leap else ' with ' + weapon}: {'Athletics' if ev.leap else 'Combat Skill'} "
                  f"{att.skills.get(skill_name, 0)}% -> {skill}% ({t.GRADE_NAMES[grade]}"
                  f"{'; ' + '; '.join(why) if why else ''}), rolls {roll:02d}: {t.LEVEL_NAMES[level]} "
                  f"(critical on {t.critical_range(skill):02d} or less)", lbl)
    roller.settle()  # whether a bystander die is rolled depends on the attack roll's face
    target = tgt.name
    redirected = False
    if crowd_grade and level < t.SUCCESS and roll:
        clean = t.hardest(sit)
        clean_skill, _g, _n = skill_target(state, att, skill_name, [clean], extra, ev.cap, weapon=weapon)
        if t.success_level(roll, clean_skill) >= t.SUCCESS:
            if len(ev.bystanders) == 1:
                target = ev.bystanders[0]
                pick = ""
            else:
                pick = label(state, "bystander")
                _f, k = roller.roll(pick, f"1d{len(ev.bystanders)}", "which bystander is struck", att.name)
                target = ev.bystanders[k - 1]
            redirected = True
            level = t.success_level(roll, clean_skill)
            skill = clean_skill
            steps.add(cite("Firing into a Crowd"), f"the shot fails only because of the crowd ({roll:02d} <= "
                      f"{clean_skill}%): it strikes {target} instead, and no Special Effect applies to them", pick)
    # consequences of the declaration
    att = replace(att, ap=att.ap - 1, aim="" if ranged else att.aim)
    att = strain(att, "attacks", steps)
    if att.ward and att.ward[0] == weapon:
        att = replace(att, ward=())
        steps.add(cite("Ward Location"), f"{att.name}'s {weapon} attacks, so it no longer wards a location")
    if ranged:
        reload_left = max(0, w.load - w.rapid)
        att = with_weapon(att, replace(w, reload_left=reload_left, rapid=0, dropped=w.thrown or w.dropped))
        if w.thrown:
            att = replace(att, held=tuple(h for h in att.held if h != weapon))
    else:
        if tgt.name not in att.engaged:
            att = replace(att, engaged=att.engaged + (tgt.name,))
            tgt = replace(tgt, engaged=tgt.engaged + (att.name,))
    if ev.charge or ev.moving or ev.leap:
        att = replace(att, conditions=tuple(c for c in att.conditions if c.name not in ("braced", "in_cover")))
    bonus = 0
    if tgt.surprise_bonus:
        bonus = 1
        tgt = replace(tgt, surprise_bonus=False)
    state = with_combatant(with_combatant(state, att), tgt)
    ex = Exchange(n=state.action_no, attacker=att.name, target=target, original_target=tgt.name, weapon=weapon,
                  mode="ranged" if ranged else ("leap" if ev.leap else "charge" if ev.charge else "melee"),
                  pass_through=ev.pass_through, range=ev.range or
                  ("effective" if ranged else ""), crowd=ev.crowd, redirected=redirected, stationary=ev.stationary,
                  blind_strike=ev.blind_strike, grade=grade, attack_skill=skill, attack_roll=roll, attack_size=size,
                  dm=dm, att_level=level, bonus=bonus)
    if ev.sweep:
        return sp.start_sweep(state, ex, ev, steps)
    return replace(state, exchange=ex, queue=())


def reaction_problem(state: CFIState, d: Combatant) -> str:
    """Why ``d`` cannot react at all, or "" (CFI Ch.8 Unable or Unwilling to Parry, Surprise)."""
    if d.out:
        return f"{d.name} cannot act"
    if d.has("heroic"):
        return f"{d.name}'s Heroic Last Action is a Proactive Action of their own"
    if d.flat_footed:
        return f"{d.name} is surprised and flat-footed until their Initiative arrives"
    if d.ap <= 0:
        return f"{d.name} has no Action Points left"
    return ""


def apply_defence(state: CFIState, ev: DefenceDeclared, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Parry / Evading / Unable or Unwilling to Parry: step 2, the reaction. Against a
    charge the recipient may counter-attack instead (Charging); against a leap he resists with
    Brawn or Evade (Leaping Attacks)."""
    ex = state.exchange
    if ex is None or ex.stage != "defence":
        raise illegal("no attack is waiting for a reaction", "Attacks and Parries")
    d = who(state, ev.defender)
    if d.name != ex.target:
        raise illegal(f"only {ex.target}, the one attacked, may react to this attack", "Reactive Actions")
    ranged = ex.mode == "ranged"
    if ev.kind not in DEFENCES:
        raise InvalidCommand(f"a reaction is one of {', '.join(DEFENCES)}")
    if ev.kind == "counter" and ex.mode != "charge":
        raise illegal("only the recipient of a charge may counter-attack instead of defending", "Charging")
    if ev.kind == "brawn" and ex.mode != "leap":
        raise illegal("Brawn resists a Leaping Attack only", "Leaping Attacks")
    if ev.kind == "parry" and ex.mode == "leap":
        raise illegal("a leap is resisted with Brawn or Evade, not parried", "Leaping Attacks")
    if (ev.back or ev.longer or ev.set_weapon) and ev.kind not in ("evade", "counter"):
        raise InvalidCommand("--back goes with evade; --longer and --set with counter")
    if ev.kind != "none":
        problem = reaction_problem(state, d)
        if problem:
            raise illegal(problem, "Unable or Unwilling to Parry")
    if ev.kind == "counter":
        return sp.counter_attack(state, ex, d, ev, roller, steps)
    if ev.kind == "none":
        why = "cannot react: " + reaction_problem(state, d) if ev.forced else "does not defend"
        steps.add(cite("Unable or Unwilling to Parry"), f"{d.name} {why}: treated as an automatic Failure")
        ex = replace(ex, defence="none", def_level=t.FAILURE)
        return with_exchange(state, contest(state, ex, steps))
    sit = situation_grades(ev.situations, "defence", ranged)
    why = [t.SITUATIONS[s][3] for s in ev.situations]
    if ev.grade:
        sit.append(ev.grade)
        why.append(f"Games Master: {t.GRADE_NAMES[ev.grade]}")
    if d.has("prone") and not ranged:
        sit.append("formidable")
        why.append("fighting while prone")
    if ev.back:
        # CFI Ch.8 Facing: evading an attack from a back square is Formidable, and only possible
        # after a Perception roll shows the attack coming. Decision: that roll is free.
        seen, text, plbl = sp.back_perception(state, ex, d, roller)
        steps.add(cite("Facing"), text, plbl)
        if not seen:
            steps.add(cite("Unable or Unwilling to Parry"), f"{d.name} never sees it coming: treated as an "
                      "automatic Failure (no Action Point spent)")
            ex = replace(ex, defence="none", def_level=t.FAILURE)
            return with_exchange(state, contest(state, ex, steps))
        sit.append("formidable")
        why.append("evading an attack from a back square")
    weapon = ""
    if ev.kind == "parry":
        weapon = ev.weapon or best_parry(d, ranged)
        problem = weapon_problem(d, weapon) if weapon else f"{d.name} holds nothing to parry with"
        if problem:
            raise illegal(problem, "Parry")
        w = d.weapons[weapon]
        if ranged and not w.shield:
            raise illegal(f"only shields parry missiles, and {d.name}'s {weapon} is not a shield (evade, or take "
                          "no defence)", "Ranged Combat")
        skill_name = "unarmed" if w.has("unarmed") else "combat"
    else:
        skill_name = ev.kind if ev.kind == "brawn" else "evade"
    skill, grade, notes = skill_target(state, d, skill_name, [t.hardest(sit)], 0, ev.cap, weapon=weapon)
    why += notes
    if grade == "hopeless":
        raise illegal(f"the {ev.kind} is Hopeless ({'; '.join(why)})", "Situational Modifiers")
    lbl = label(state, ex.prefix + ev.kind, ex.n)
    verb = {"parry": "parries", "evade": "evades", "brawn": "resists the leap with Brawn"}[ev.kind]
    _f, roll = roller.roll(lbl, "1d100", f"{d.name} {verb}", d.name)
    heading = {"parry": "Parry", "evade": "Evading"}.get(ev.kind, "Leaping Attacks")
    if ex.mode == "leap":
        heading = "Leaping Attacks"
    doing = {"parry": f"parries with {weapon}", "evade": "evades", "brawn": "braces to take the leap"}[ev.kind]
    steps.add(cite(heading), f"{d.name} {doing}: {skill_name} {d.skills.get(skill_name, 0)}%"
              f" -> {skill}% ({t.GRADE_NAMES[grade]}{'; ' + '; '.join(why) if why else ''}), rolls {roll:02d}", lbl)
    d = strain(replace(d, ap=d.ap - 1), verb, steps)
    if d.ward and d.ward[0] == weapon:
        d = replace(d, ward=())
        steps.add(cite("Ward Location"), f"{d.name}'s {weapon} parries actively, so it no longer wards a location")
    if ev.kind == "evade" and ex.mode != "leap":
        # CFI Ch.8 Evading: the gambit leaves the defender prone (CFI Ch.5 Evade: Artful Dodger
        # dodges melee without falling, and falls against ranged attacks only on a Failure).
        # Decision: sidestepping a leap leaves nobody prone (Leaping Attacks says what follows).
        dodger = "artful_dodger" in d.abilities
        if not dodger or (ranged and t.success_level(roll, skill) < t.SUCCESS):
            d = add_condition(d, Condition(name="prone", rule=cite("Evading")))
            steps.add(cite("Evading"), f"{d.name} throws themself aside to evade and is left prone, whether or not the evasion succeeds")
    state = with_combatant(state, d)
    ex = replace(ex, defence=ev.kind, defence_weapon=weapon, defence_grade=grade, defence_skill=skill, defence_roll=roll)
    return with_exchange(state, contest(state, ex, steps))


def best_parry(d: Combatant, ranged: bool) -> str:
    """Decision: without a named weapon, parry with the largest usable held item (a shield against missiles)."""
    usable = [n for n in d.held if not weapon_problem(d, n) and (d.weapons[n].shield or not ranged)]
    if not usable:
        return "" if ranged else "unarmed"
    return max(usable, key=lambda n: t.size_index(d.weapons[n].size))


def with_exchange(state: CFIState, ex: Exchange) -> CFIState:
    return replace(state, exchange=ex)


def apply_effects(state: CFIState, ev: EffectsChosen, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Special Effects: the winner picks, before damage and location are rolled."""
    ex = state.exchange
    if ex is None or ex.stage != "effects":
        raise illegal("no Special Effects are waiting to be chosen", "Special Effects")
    chooser = ex.attacker if ex.winner == "attacker" else ex.target
    if ev.by != chooser:
        raise illegal(f"{chooser} won the Special Effects, not {ev.by}", "Special Effects")
    keys = tuple(fx.effect_key(e) for e in ev.effects)
    fx.check_choice(state, ex, keys, dict(ev.params))
    names = ", ".join(fx.EFFECTS[k].title for k in keys) or "none"
    steps.add(cite("Special Effects"), f"{chooser} chooses {names} ({len(keys)} of {ex.count})")
    return with_exchange(state, replace(ex, effects=keys, params=dict(ev.params), stage="resolve"))
