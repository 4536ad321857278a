"""Resolving an exchange: Special Effects, hit location, damage, parry, armour, wounds
(CFI Ch.8 How Combat Works steps 5-7, Special Effect Descriptions, Knockback;
CFI Ch.7 wounds as summarised in reference 1.8)."""

from __future__ import annotations

import msgspec

from combatlog.dice.notation import parse_dice
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.effects import EFFECTS
from combatlog.rulesets.classic_fantasy.rules import Roller, Steps, cite, label, resist, skill_target
from combatlog.rulesets.classic_fantasy.state import (
    CFIState, Combatant, Condition, Exchange, Location, add_condition, counted_from_next_turn, with_combatant,
    with_location, with_weapon,
)

replace = msgspec.structs.replace
CH7 = "CFI Ch.7 Wounds"
ROUNDS_PER_MINUTE = 12  # CFI Ch.8 Running Combat: a Combat Round is five seconds


class Blow(msgspec.Struct, kw_only=True):
    """What one strike needs to know besides the state."""

    attacker: str
    victim: str
    weapon: str
    dm: str
    size: int  # Size/Force index against parries
    ranged: bool
    long_range: bool
    prefix: str  # label prefix: "" for the main blow, "bystander-", "accident-"
    effects: tuple[str, ...] = ()
    params: dict[str, str] = {}
    parry_weapon: str = ""  # the victim's successful parry, if any
    ignore_armour: bool = False
    orig_roll: int = 0  # the original attack roll that wound rolls oppose
    orig_skill: int = 0


def roll_damage(state: CFIState, roller: Roller, damage: str, maximize: int, lbl: str, who: str) -> tuple[int, str]:
    """CFI Ch.8 Maximize Damage: each stacked effect turns one weapon die into its full value
    (1d6 -> 6; 2d6 -> 1d6+6); the Damage Modifier is never maximized."""
    dice = parse_dice(damage)
    fixed = min(maximize, dice.count)
    left = dice.count - fixed
    total = fixed * dice.sides + dice.modifier
    shown = f"{damage}"
    if left:
        _f, rolled = roller.roll(lbl, f"{left}d{dice.sides}", f"{who}'s weapon damage", who)
        total += rolled
        shown = f"{left}d{dice.sides}={rolled}"
    else:
        shown = ""
    if fixed:
        shown += f"{'+' if shown else ''}{fixed * dice.sides} (maximized)"
    if dice.modifier:
        shown += f"{dice.modifier:+d}"
    return total, shown


def roll_dm(roller: Roller, dm: str, lbl: str, who: str) -> tuple[int, str, list[str]]:
    sign, terms = t.dm_terms(dm)
    total, labels = 0, []
    for i, term in enumerate(terms):
        lb = lbl if i == 0 else f"{lbl}-{i + 1}"
        _f, v = roller.roll(lb, term, f"{who}'s Damage Modifier", who)
        total += v
        labels.append(lb)
    return sign * total, (f"DM {dm}={sign * total:+d}" if terms else ""), labels


def location_by_roll(c: Combatant, roll: int) -> Location:
    for loc in c.locations:
        if loc.lo <= roll <= loc.hi:
            return loc
    return c.locations[0]


def strike(state: CFIState, b: Blow, roller: Roller, steps: Steps, ex: Exchange) -> tuple[CFIState, str]:
    """One blow from weapon dice to wounds (CFI Ch.8 How Combat Works, steps 5-7)."""
    att, victim = state.combatants[b.attacker], state.combatants[b.victim]
    w = att.weapons[b.weapon]
    lb = lambda kind: label(state, b.prefix + kind, ex.n)  # noqa: E731
    eff = b.effects
    # -- hit location (CFI Ch.8 Choose Location, Sharpshooter; reference 1.6) --
    if "choose_location" in eff:
        loc = victim.loc(b.params["location"]) or victim.locations[0]
        steps.add(cite("Choose Location"), f"{att.name} places the blow on the {loc.name}")
    else:
        _f, r = roller.roll(lb("location"), "1d20", f"hit location on {victim.name}", att.name)
        loc = location_by_roll(victim, r)
        steps.add("CFI Ch.8 Attacks and Parries (hit location)", f"hit location 1d20={r}: {loc.name}", lb("location"))
        if "sharpshooter" in eff:
            # Decision (CFI Ch.8 Sharpshooter; Special Effects: chosen "before Damage and Hit Location
            # ... are rolled"): the shooter names the location aimed for when choosing the effect; the
            # shot moves there one step if the rolled location adjoins it (docs/classic_fantasy.md).
            new = b.params.get("sharpshooter", "")
            if new == loc.name:
                steps.add(cite("Sharpshooter"), f"the shot already strikes the {loc.name}, the location named "
                          "before the roll: nothing to move")
            elif new in loc.adjacent and victim.loc(new):
                loc = victim.loc(new) or loc
                steps.add(cite("Sharpshooter"), f"{att.name} moves the shot one step to the {loc.name} (named "
                          "before the roll)")
            else:
                steps.add(cite("Sharpshooter"), f"the {new or '?'} (named before the roll) does not adjoin the "
                          f"{loc.name}: the effect is wasted")
    # -- damage roll (CFI Ch.8 How Combat Works step 5; Maximize Damage; Impale) --
    maximize = eff.count("maximize_damage")
    total, shown = roll_damage(state, roller, w.damage, maximize, lb("damage"), att.name)
    if "impale" in eff:
        second, shown2 = roll_damage(state, roller, w.damage, maximize, lb("damage-2"), att.name)
        steps.add(cite("Impale"), f"weapon damage rolled twice: {total} ({shown}) and {second} ({shown2}); "
                  f"Decision: the attacker keeps the higher", lb("damage"), lb("damage-2"))
        total, shown = max(total, second), (shown if total >= second else shown2)
    dmv, dm_shown, dm_labels = roll_dm(roller, b.dm, lb("dm"), att.name)
    raw = max(0, total + dmv)
    steps.add(cite("Attacks and Parries"), f"damage: {w.name} {shown or w.damage}"
              f"{' ' + dm_shown if dm_shown else ''} = {raw}",
              *([lb("damage")] if parse_dice(w.damage).count > maximize else []),
              *dm_labels)
    # Knockback, wound rolls and injuring effects depend on the location and damage faces: a manual
    # die missing so far is asked for alone, not with dice its placeholder face would call for.
    roller.settle()
    if b.long_range:
        raw_half = t.half_up(raw)
        steps.add(cite("Ranged Combat"), f"Long Range: damage halved {raw} -> {raw_half}")
        raw = raw_half
    state = knockback_and_bash(state, b, raw, roller, steps, ex)
    att, victim = state.combatants[b.attacker], state.combatants[b.victim]
    # -- Damage Weapon aimed at the parrying weapon (CFI Ch.8 Damage Weapon) --
    if "damage_weapon" in eff and b.parry_weapon:
        return damage_weapon(state, victim, b.parry_weapon, raw, steps), loc.name
    # -- parry by comparative Size (CFI Ch.8 Damage Reduction) or Passive Blocking --
    dmg = raw
    block = ""
    if b.parry_weapon:
        pw = victim.weapons[b.parry_weapon]
        if "circumvent_parry" in eff:
            steps.add(cite("Circumvent Parry"), f"{att.name} bypasses the successful Parry entirely")
        elif "enhance_parry" in ex.effects and ex.winner == "defender":
            block = "all"
            steps.add(cite("Enhance Parry"), f"{victim.name} deflects the entire force, whatever the Size")
        else:
            block = t.parry_fraction(b.size, t.size_index(pw.size))
            what = "Force" if b.ranged else "Size"
            steps.add(cite("Damage Reduction"), f"parry with {pw.name} ({t.SIZE_NAMES[pw.size]}) against "
                      f"{what} {t.SIZE_NAMES[t.SIZES[b.size]]}: blocks {block}")
    if victim.ward and loc.name in victim.ward[1:] and block != "all":
        ww = victim.weapons.get(victim.ward[0])
        if ww is not None and not ww.dropped and not ww.broken:
            ward_block = t.parry_fraction(b.size, t.size_index(ww.size))
            order = ("none", "half", "all")
            if order.index(ward_block) > order.index(block or "none"):
                block = ward_block
                steps.add(cite("Passive Blocking"), f"the {loc.name} is warded by the {ww.name}: blocks {block}")
    if block == "all":
        dmg = 0
    elif block == "half":
        dmg = t.half_up(raw)
    # -- armour (CFI Ch.8 Armor; Bypass Armor; Sunder) --
    natural, worn = loc.natural, loc.worn
    bypass = eff.count("bypass_armor")
    if b.ignore_armour:
        natural = worn = 0
    elif bypass >= 2:
        steps.add(cite("Bypass Armor"), "both natural and worn armour are bypassed")
        natural = worn = 0
    elif bypass == 1:
        which = b.params.get("bypass", "worn")
        steps.add(cite("Bypass Armor"), f"the {which} armour is bypassed")
        natural, worn = (0, worn) if which == "natural" else (natural, 0)
    armour = natural + worn
    if "sunder" in eff and armour and dmg:
        surplus = max(0, dmg - armour)
        cut = min(surplus, armour)
        carry = max(0, surplus - armour)
        new_worn = max(0, loc.worn - cut)
        new_nat = max(0, loc.natural - max(0, cut - loc.worn))
        steps.add(cite("Sunder"), f"{dmg} against {armour} AP: the {loc.name} armour loses {cut} AP "
                  f"({loc.worn + loc.natural} -> {new_worn + new_nat}); {carry} carries to Hit Points")
        loc = replace(loc, worn=new_worn, natural=new_nat)
        victim = with_location(victim, loc)
        final = carry
    else:
        final = max(0, dmg - armour)
        if dmg:
            steps.add(cite("Armor"), f"{dmg} less {armour} AP ({loc.name}: natural {natural}, worn {worn}) = {final}")
    if final <= 0:
        if dmg or raw:
            steps.add(cite("Attacks and Parries"), f"no damage reaches {victim.name}'s {loc.name}")
        return with_combatant(state, victim), loc.name
    old = loc.wound
    if f"{victim.name}/{loc.name}" in ex.mitigate and loc.hp - final <= -loc.max_hp:
        # CFI Ch.7 Mitigate Damage: a Luck Point downgrades a Major Wound to Serious, the damage
        # becoming one Hit Point less than a Major Wound would need.
        less = max(0, loc.hp - (1 - loc.max_hp))
        steps.add("CFI Ch.7 Mitigate Damage", f"{victim.name} spends a Luck Point: {final} damage becomes {less}, "
                  f"one short of a Major Wound")
        final = less
        if final <= 0:
            return with_combatant(state, victim), loc.name
    state, loc, level = take_damage(state, victim, loc, final, steps)
    # Special Effects that need the blow to injure, applied before the wound's Endurance rolls.
    state = injuring_effects(state, b, loc, final, roller, steps, ex)
    return wound(state, b, loc.name, final, level, old, roller, steps, ex), loc.name


def take_damage(state: CFIState, victim: Combatant, loc: Location, final: int,
                steps: Steps) -> tuple[CFIState, Location, str]:
    """CFI Ch.7 Wounds (reference 1.8): the location loses ``final`` HP; its wound level is read
    again (HP above 0 minor, 0 or less serious, minus its starting HP or less major) and never
    drops. Returns the state, the location and its wound level; ``wound`` applies the effects."""
    old = loc.wound
    hp = loc.hp - final
    level = "major" if hp <= -loc.max_hp else ("serious" if hp <= 0 else "minor")
    rank = ("", "minor", "serious", "major")
    level = level if rank.index(level) >= rank.index(old) else old
    loc = replace(loc, hp=hp, wound=level, aided=False)  # a new injury: First Aid may treat it again
    victim = with_location(victim, loc)
    steps.add(CH7, f"{victim.name}'s {loc.name} takes {final}: {loc.hp + final} -> {hp} HP, a {level} wound")
    return with_combatant(state, victim), loc, level


def knockback_and_bash(state: CFIState, b: Blow, raw: int, roller: Roller, steps: Steps, ex: Exchange) -> CFIState:
    """CFI Ch.8 Knockback (damage before parry and armour over SIZ: 5 ft per 8 points or fraction;
    Brace makes SIZ half as big again) and Bash (5 ft per 3 points with a shield, per 5 with a bludgeon)."""
    victim = state.combatants[b.victim]
    att = state.combatants[b.attacker]
    if "bash" in b.effects:
        per = 3 if att.weapons[b.weapon].shield else 5
        feet = 5 * (raw // per)
        steps.add(cite("Bash"), f"{victim.name} is bashed back {feet} ft ({raw} damage, 5 ft per {per})")
        if b.params.get("obstacle") == "yes":
            state = bash_obstacle(state, victim, feet, label(state, b.prefix + "obstacle", ex.n), roller, steps)
            victim = state.combatants[b.victim]
    if state.options.get("knockback", "on") != "on":
        return state
    siz = victim.siz
    if victim.has("braced"):
        siz = t.ceil_div(siz * 3, 2)
    if raw <= siz:
        return state
    feet = knockback_feet(raw, siz)
    lbl = label(state, b.prefix + "knockback", ex.n)
    skills = [("athletics", "standard")] + ([("acrobatics", "easy")] if "acrobatics" in victim.skills else [])
    best = max(skills, key=lambda s: t.apply_grade(victim.skills.get(s[0], 0), s[1], state.options.get("difficulty_grades", "multiply")))
    value, grade, _n = skill_target(state, victim, best[0], [best[1]])
    _f, r = roller.roll(lbl, "1d100", f"{victim.name} keeps their feet against knockback", victim.name)
    ok = grade != "hopeless" and t.success_level(r, value) >= t.SUCCESS
    steps.add(cite("Knockback"), f"{raw} damage against SIZ {siz}: {victim.name} is thrust back {feet} ft; "
              f"{best[0]} {value}% ({t.GRADE_NAMES[grade]}) rolls {r:02d}: "
              f"{'stays standing' if ok else 'falls prone'}", lbl)
    if not ok:
        state = with_combatant(state, add_condition(victim, Condition(name="prone", rule=cite("Knockback"))))
    return state


def bash_obstacle(state: CFIState, victim: Combatant, feet: int, lbl: str, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Bash: "If the recipient is forced backward into an obstacle, then they must make an
    Acrobatics skill roll or Athletics roll at Hard difficulty to avoid falling or tripping over."
    The obstacle is declared (``obstacle=yes``): positions are not tracked. Decisions: Hard applies
    to either skill (the better is used); a Bash of 0 ft drives nobody into anything."""
    if feet <= 0:
        steps.add(cite("Bash"), f"{victim.name} is not moved, so the obstacle behind does not trip them")
        return state
    method = state.options.get("difficulty_grades", "multiply")
    skill = max([s for s in ("acrobatics", "athletics") if s in victim.skills],
                key=lambda s: t.apply_grade(victim.skills[s], "hard", method))
    value, grade, _n = skill_target(state, victim, skill, ["hard"])
    _f, r = roller.roll(lbl, "1d100", f"{victim.name} keeps their feet against the obstacle", victim.name)
    ok = grade != "hopeless" and t.success_level(r, value) >= t.SUCCESS
    steps.add(cite("Bash"), f"{victim.name} is driven into an obstacle: {skill} {value}% ({t.GRADE_NAMES[grade]}) "
              f"rolls {r:02d}: {'keeps their feet' if ok else 'falls over'}", lbl)
    if not ok:
        state = with_combatant(state, add_condition(victim, Condition(name="prone", rule=cite("Bash"))))
    return state


def knockback_feet(damage: int, siz: int) -> int:
    """CFI Ch.8 Knockback: 5 feet for each 8 points (or fraction thereof) over SIZ."""
    over = damage - siz
    return 5 * t.ceil_div(over, 8) if over > 0 else 0


def damage_weapon(state: CFIState, owner: Combatant, weapon: str, dmg: int, steps: Steps) -> CFIState:
    """CFI Ch.8 Damage Weapon: the weapon's own Armor Points resist; at 0 Hit Points it breaks."""
    w = owner.weapons[weapon]
    through = max(0, dmg - w.ap)
    hp = w.hp - through
    broken = hp <= 0
    steps.add(cite("Damage Weapon"), f"{dmg} against {owner.name}'s {weapon} (AP {w.ap}): {through} through, "
              f"HP {w.hp} -> {max(hp, 0)}{' - it breaks' if broken else ''}")
    w = replace(w, hp=max(hp, 0), broken=broken)
    owner = with_weapon(owner, w)
    if broken:
        owner = replace(owner, held=tuple(h for h in owner.held if h != weapon))
    return with_combatant(state, owner)


def injuring_effects(state: CFIState, b: Blow, loc: Location, final: int, roller: Roller, steps: Steps,
                     ex: Exchange) -> CFIState:
    """CFI Ch.8 Bleed, Stun Location, Impale: effects that need the blow to overcome armour."""
    att, victim = state.combatants[b.attacker], state.combatants[b.victim]
    force = "force_failure" in b.effects
    lb = lambda kind: label(state, b.prefix + kind, ex.n)  # noqa: E731
    if "bleed" in b.effects:
        ok, text = resist(state, roller, victim, ("endurance",), lb("bleed"), b.orig_roll, b.orig_skill,
                          forced_fail=force)
        steps.add(cite("Bleed"), f"Endurance against the attack roll: {text}", lb("bleed") if not force else "")
        if not ok:
            victim = add_condition(victim, Condition(name="bleeding", location=loc.name, by=att.name,
                                                     rule=cite("Bleed")))
            steps.add(cite("Bleed"), f"{victim.name} bleeds: one Fatigue level at the start of each Round until staunched")
    if "stun_location" in b.effects:
        ok, text = resist(state, roller, victim, ("endurance",), lb("stun"), b.orig_roll, b.orig_skill,
                          forced_fail=force)
        steps.add(cite("Stun Location"), f"Endurance against the attack roll: {text}", lb("stun") if not force else "")
        if not ok:
            victim = add_condition(victim, counted_from_next_turn(state, victim.name, Condition(
                name="stunned", location=loc.name, turns=final, by=att.name, rule=cite("Stun Location"))))
            what = {"head": "insensible, unable to act", "chest": "winded, only able to defend",
                    "abdomen": "winded, only able to defend"}.get(loc.name, "Incapacitated")
            steps.add(cite("Stun Location"), f"the {loc.name} is stunned for {final} Turn(s): {what}")
    if "impale" in b.effects:
        w = att.weapons[b.weapon]
        wsize = t.size_index(w.impale_size or w.size) if b.ranged else t.size_index(w.size)
        grade = t.impale_effect(victim.siz, wsize)
        steps.add(cite("Impale"), f"the {w.name} is lodged in the {loc.name}: "
                  f"{t.GRADE_NAMES.get(grade, grade) or 'no effect'} for SIZ {victim.siz} (Impale Effects Table)")
        if grade == "incapacitated":
            victim = add_condition(victim, Condition(name="incapacitated", location=loc.name, note="impaled",
                                                     rule=cite("Impale")))
        elif grade:
            old = victim.cond("impaled")
            if old is None or t.grade_index(grade) > t.grade_index(old.grade or "standard"):
                victim = add_condition(victim, Condition(name="impaled", location=loc.name, grade=grade,
                                                         by=att.name, rule=cite("Impale")))
        if not b.ranged:
            att = with_weapon(att, replace(w, stuck_in=f"{victim.name}/{loc.name}"))
            steps.add(cite("Impale"), f"{att.name}'s {w.name} stays in the wound: it cannot parry until pulled free (Ready)")
    state = with_combatant(state, victim)
    if att.name != victim.name:
        state = with_combatant(state, att)
    return state


def wound(state: CFIState, b: Blow, where: str, final: int, level: str, old: str, roller: Roller, steps: Steps,
          ex: Exchange) -> CFIState:
    """CFI Ch.7 Serious and Major Wounds (reference 1.8): opposed Endurance against the original
    attack roll, not repeated unless the location is wounded again."""
    victim = state.combatants[b.victim]
    loc = victim.loc(where)
    assert loc is not None
    if level == "minor" or (level == old and level != "minor" and old):
        if level != "minor":
            steps.add(CH7, f"the {where} was already {old}: no new Endurance roll")
        return state
    lbl = label(state, b.prefix + "endurance", ex.n)
    limb = loc.kind in ("arm", "leg", "other")
    if level == "serious":
        t_lbl = label(state, b.prefix + "serious-turns", ex.n)
        _f, turns = roller.roll(t_lbl, "1d3", f"{victim.name}'s Serious Wound: Turns unable to attack", victim.name)
        victim = add_condition(victim, counted_from_next_turn(state, victim.name, Condition(
            name="no_attack", turns=turns, rule="CFI Ch.7 Serious Wounds",
            note="cannot attack or start a spell; may still parry or evade")))
        steps.add("CFI Ch.7 Serious Wounds", f"{victim.name} cannot attack or cast for {turns} Turn(s) (1d3)", t_lbl)
        ok, text = resist(state, roller, victim, ("endurance",), lbl, b.orig_roll, b.orig_skill)
        steps.add("CFI Ch.7 Serious Wounds", f"Endurance against the attack roll: {text}", lbl)
        if not ok:
            if loc.kind == "leg":
                victim = add_condition(victim, Condition(name="useless", location=where, rule="CFI Ch.7 Serious Wounds"))
                victim = add_condition(victim, Condition(name="prone", rule="CFI Ch.7 Serious Wounds"))
                steps.add("CFI Ch.7 Serious Wounds", f"the {where} is useless: {victim.name} falls prone")
            elif limb:
                victim = add_condition(victim, Condition(name="useless", location=where, rule="CFI Ch.7 Serious Wounds"))
                victim = drop_from_arm(victim, where, steps)
            else:
                victim = add_condition(victim, Condition(name="unconscious", rounds=final * ROUNDS_PER_MINUTE,
                                                         note=f"{final} minute(s)", rule="CFI Ch.7 Serious Wounds"))
                steps.add("CFI Ch.7 Serious Wounds", f"{victim.name} is knocked unconscious for {final} minute(s)")
        return with_combatant(state, victim)
    # major
    victim = add_condition(victim, Condition(name="incapacitated", location=where, rule="CFI Ch.7 Major Wounds"))
    victim = add_condition(victim, Condition(name="prone", rule="CFI Ch.7 Major Wounds"))
    steps.add("CFI Ch.7 Major Wounds", f"{victim.name} is Incapacitated and prone")
    ok, text = resist(state, roller, victim, ("endurance",), lbl, b.orig_roll, b.orig_skill)
    steps.add("CFI Ch.7 Major Wounds", f"Endurance against the attack roll: {text}", lbl)
    if limb:
        victim = add_condition(victim, Condition(name="maimed", location=where, rule="CFI Ch.7 Major Wounds"))
        if loc.kind == "arm":
            victim = drop_from_arm(victim, where, steps)
        rounds = 5 * victim.healing_rate * ROUNDS_PER_MINUTE
        victim = add_condition(victim, Condition(name="dying", rounds=rounds, rule="CFI Ch.7 Major Wounds",
                                                 note=f"untreated: dies in {5 * victim.healing_rate} minutes"))
        if not ok:
            victim = add_condition(victim, Condition(name="unconscious", rule="CFI Ch.7 Major Wounds"))
            steps.add("CFI Ch.7 Major Wounds", f"the {where} is maimed and {victim.name} passes out")
        else:
            steps.add("CFI Ch.7 Major Wounds", f"the {where} is maimed; {victim.name} stays conscious")
    else:
        if not ok:
            victim = add_condition(victim, Condition(name="dead", rule="CFI Ch.7 Major Wounds"))
            victim = replace(victim, ap=0)
            steps.add("CFI Ch.7 Major Wounds", f"{victim.name} dies instantly")
        else:
            rounds = 2 * victim.healing_rate
            victim = add_condition(victim, Condition(name="unconscious", rule="CFI Ch.7 Major Wounds"))
            victim = add_condition(victim, Condition(name="dying", rounds=rounds, rule="CFI Ch.7 Major Wounds",
                                                     note=f"untreated: dies in {rounds} Rounds"))
            steps.add("CFI Ch.7 Major Wounds", f"{victim.name} falls unconscious and dies in {rounds} Rounds untreated")
    return with_combatant(state, victim)


def drop_from_arm(c: Combatant, arm: str, steps: Steps) -> Combatant:
    """CFI Ch.7 Serious Wounds: an arm that fails drops what it holds."""
    idx = 0 if arm == "right arm" else 1
    if idx < len(c.held):
        item = c.held[idx]
        w = c.weapons[item]
        c = with_weapon(c, replace(w, dropped=True))
        c = replace(c, held=tuple(h for h in c.held if h != item))
        steps.add("CFI Ch.7 Serious Wounds", f"{c.name} drops the {item}")
    return c


def effect_title(key: str) -> str:
    return EFFECTS[key].title
