"""Closing an exchange: the chosen Special Effects that need no blow, the blow itself,
Prepare Counter substitutions, then the Turn passes (CFI Ch.8 Special Effect Descriptions)."""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.effects import EFFECTS, disarm_weapons
from combatlog.rulesets.classic_fantasy.events import ExchangeResolved
from combatlog.rulesets.classic_fantasy.resolve import Blow, damage_weapon, roll_damage, roll_dm, strike
from combatlog.rulesets.classic_fantasy.rounds import end_turn
from combatlog.rulesets.classic_fantasy.rules import Roller, Steps, cite, label, resist
from combatlog.rulesets.classic_fantasy.special import next_in_queue
from combatlog.rulesets.classic_fantasy.state import (
    CFIState, Combatant, Condition, Exchange, Resolution, add_condition, counted_from_next_turn, drop_condition,
    with_combatant, with_weapon,
)

replace = msgspec.structs.replace


def disengage(state: CFIState, a: str, b: str) -> CFIState:
    ca, cb = state.combatants[a], state.combatants[b]
    ca = replace(ca, engaged=tuple(x for x in ca.engaged if x != b))
    cb = replace(cb, engaged=tuple(x for x in cb.engaged if x != a))
    return with_combatant(with_combatant(state, ca), cb)


class Recording:
    """Wraps a roller and notes every label's faces and roller, so that a Luck Point spent right
    after the blow can re-derive it with one roll changed (CFI Ch.7 Cheat Fate)."""

    def __init__(self, inner: Roller) -> None:
        self.inner = inner
        self.labels = inner.labels
        self.faces: dict[str, tuple[int, ...]] = {}
        self.by: dict[str, str] = {}

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]:
        faces, total = self.inner.roll(label, notation, purpose, by)
        self.faces[label], self.by[label] = tuple(faces), by
        return faces, total

    def settle(self) -> None:
        self.inner.settle()


def apply_resolved(state: CFIState, ev: ExchangeResolved, roller: Roller, steps: Steps,
                   rerolled: dict[str, int] | None = None) -> CFIState:
    """CFI Ch.8 Attacks and Parries steps 5-7 for the open exchange; then the next queued exchange
    of this Turn opens (sweep, counter-attack), or the Turn passes."""
    ex = state.exchange
    if ex is None or ex.stage != "resolve":
        raise IllegalCommand("no exchange is ready to resolve", rule=cite("Attacks and Parries"))
    before = replace(state, undo=None)
    rec = Recording(roller)
    state = resolve_exchange(state, ex, rec, steps)
    if ex.pass_through and ex.mode == "charge" and ex.target in state.combatants[ex.attacker].engaged:
        if state.combatants[ex.attacker].out or state.combatants[ex.attacker].has("gripped"):
            steps.add(cite("Charging"), f"{ex.attacker} cannot sweep past")
        else:
            state = disengage(state, ex.attacker, ex.target)
            steps.add(cite("Charging"), f"{ex.attacker} continues sweeping past {ex.target}, breaking engagement")
    summary = {"n": ex.n, "attacker": ex.attacker, "target": ex.target, "weapon": ex.weapon,
               "attack": t.LEVEL_NAMES[ex.att_level], "defence": ex.defence or "none",
               "defence_level": t.LEVEL_NAMES[ex.def_level], "winner": ex.winner, "effects": list(ex.effects)}
    state = replace(state, exchange=None, last_exchange=summary,
                    undo=Resolution(before=before, dice=rec.faces, by=rec.by, rerolled=dict(rerolled or {})))
    if state.queue:
        state = next_in_queue(state, steps)
        if state.exchange is not None:
            return state
    return end_turn(state, state.turn or ex.attacker, steps)


def resolve_exchange(state: CFIState, ex: Exchange, roller: Roller, steps: Steps) -> CFIState:
    effects = list(ex.effects)
    attacking = ex.winner == "attacker"
    chooser = ex.attacker if attacking else ex.target
    opponent = ex.target if attacking else ex.attacker
    # CFI Ch.8 Prepare Counter: a prepared defender replaces the chosen effect with his own.
    subs: list[str] = []
    opp = state.combatants[opponent]
    for counter in opp.counters:
        eff, _, sub = counter.partition(">")
        if eff in effects:
            effects.remove(eff)
            subs.append(sub)
            opp = replace(opp, counters=tuple(c for c in opp.counters if c != counter))
            steps.add(cite("Prepare Counter"), f"{opponent} had prepared a counter to {EFFECTS[eff].title}: "
                      f"it is replaced by {opponent}'s {EFFECTS[sub].title}, which succeeds automatically")
    state = with_combatant(state, opp)
    force = "force_failure" in effects
    my_roll = ex.attack_roll if attacking else ex.defence_roll
    my_skill = ex.attack_skill if attacking else ex.defence_skill
    lb = lambda kind: label(state, ex.prefix + kind, ex.n)  # noqa: E731
    att = state.combatants[ex.attacker]
    # -- effects that need no blow --------------------------------------------------------
    if "accidental_injury" in effects:
        w = att.weapons[ex.weapon]
        blow = Blow(attacker=ex.attacker, victim=ex.attacker, weapon=ex.weapon, dm=att.dm, size=ex.attack_size,
                    ranged=ex.mode == "ranged", long_range=False, prefix=ex.prefix + "accident-",
                    ignore_armour=w.has("unarmed"), orig_roll=ex.attack_roll, orig_skill=ex.attack_skill)
        steps.add(cite("Accidental Injury"), f"{ex.attacker} fumbles and strikes himself with the {ex.weapon}"
                  + (" (unarmed: internal injury, armour ignored)" if w.has("unarmed") else ""))
        state, _where = strike(state, blow, roller, steps, ex)
    if "trip_opponent" in effects:
        state = trip(state, chooser, opponent, my_roll, my_skill, force, lb("trip"), roller, steps)
    if "disarm_opponent" in effects:
        state = disarm(state, ex, chooser, opponent, attacking, my_roll, my_skill, force, roller, steps)
    if "blind_opponent" in effects:
        a = state.combatants[ex.attacker]
        skill = "combat" if any(a.weapons[h].shield for h in a.held) else "evade"
        ok, text = resist(state, roller, a, (skill,), lb("blind"), ex.defence_roll, ex.defence_skill, forced_fail=force)
        steps.add(cite("Blind Opponent"), f"{a.name} resists with {skill}: {text}", lb("blind") if not force else "")
        if not ok:
            grade = ex.params.get("blind", "hard")
            _f, turns = roller.roll(lb("blind-turns"), "1d3", f"Turns {a.name} is blinded", ex.target)
            state = with_combatant(state, add_condition(a, counted_from_next_turn(state, a.name, Condition(
                name="blinded", grade=grade, turns=turns, by=ex.target, rule=cite("Blind Opponent")))))
            steps.add(cite("Blind Opponent"), f"{a.name} fights at {t.GRADE_NAMES[grade]} for {turns} Turn(s)",
                      lb("blind-turns"))
    if "damage_weapon" in effects and not attacking:
        d = state.combatants[ex.target]
        pw = d.weapons[ex.defence_weapon]
        dmg, shown = roll_damage(state, roller, pw.damage or "1d2", 0, lb("weapon-damage"), d.name)
        dmv, _s, _l = roll_dm(roller, d.dm, lb("weapon-dm"), d.name)
        steps.add(cite("Damage Weapon"), f"{d.name}'s parry strikes the {ex.weapon}: {max(0, dmg + dmv)}",
                  lb("weapon-damage"))
        state = damage_weapon(state, state.combatants[ex.attacker], ex.weapon, max(0, dmg + dmv), steps)
    if "entangle" in effects and not attacking:
        where = ex.params.get("entangle", "right arm")
        a = state.combatants[ex.attacker]
        state = with_combatant(state, add_condition(a, Condition(name="entangled", location=where, by=ex.target,
                                                                 rule=cite("Entangle"))))
        steps.add(cite("Entangle"), f"{ex.target} entangles {ex.attacker}'s {where}")
    if "withdraw" in effects:
        state = disengage(state, ex.attacker, ex.target)
        steps.add(cite("Withdraw"), f"{ex.target} withdraws out of {ex.attacker}'s reach")
    if "arise" in effects:
        state = with_combatant(state, drop_condition(drop_condition(state.combatants[chooser], "prone"), "pinned"))
        steps.add(cite("Arise"), f"{chooser} rolls back up to their feet")
    if "slip_free" in effects:
        c = state.combatants[chooser]
        state = with_combatant(state, drop_condition(drop_condition(drop_condition(c, "entangled"), "gripped"),
                                                     "pinned"))
        steps.add(cite("Slip Free"), f"{chooser} slips free")
    if "scar_foe" in effects:
        o = state.combatants[opponent]
        state = with_combatant(state, replace(o, scars=o.scars + 1))
        steps.add(cite("Scar Foe"), f"{chooser} leaves {opponent} a scar to be talked about for life")
    if "prepare_counter" in effects:
        c = state.combatants[chooser]
        spec = ex.params["counter"]
        state = with_combatant(state, replace(c, counters=c.counters + (spec,) * effects.count("prepare_counter")))
        steps.add(cite("Prepare Counter"), f"{chooser} prepares a counter (noted in secret)")
    if "rapid_reload" in effects:
        a = state.combatants[ex.attacker]
        w = a.weapons[ex.weapon]
        n = effects.count("rapid_reload")
        left = max(0, w.reload_left - n)
        state = with_combatant(state, with_weapon(a, replace(w, reload_left=left)))
        steps.add(cite("Rapid Reload"), f"the {w.name}'s reload time drops by {n}: {w.reload_left} -> {left} Turn(s)")
    if "grip" in effects:
        o = state.combatants[opponent]
        state = with_combatant(state, add_condition(o, Condition(name="gripped", by=chooser, rule=cite("Grip"))))
        steps.add(cite("Grip"), f"{chooser} grips {opponent}, who cannot disengage")
    for sub in subs:
        state = substitute(state, opponent, chooser, sub, steps)
    # -- the blow --------------------------------------------------------------------------
    if "select_target" in effects:
        bystander = ex.params["bystander"]
        steps.add(cite("Select Target"), f"{ex.target} deflects the fumbled blow onto {bystander}, who is taken "
                  "by surprise: it hits automatically and carries no Special Effect")
        a = state.combatants[ex.attacker]
        blow = Blow(attacker=ex.attacker, victim=bystander, weapon=ex.weapon, dm=ex.dm, size=ex.attack_size,
                    ranged=ex.mode == "ranged", long_range=ex.range == "long", prefix=ex.prefix + "bystander-",
                    orig_roll=ex.attack_roll, orig_skill=ex.attack_skill)
        if not a.weapons[ex.weapon].broken or ex.sweep:
            state, _where = strike(state, blow, roller, steps, ex)
        return state
    if ex.mode == "leap":
        return leap_landed(state, ex, steps)
    hit = ex.att_level >= t.SUCCESS and (ex.defence != "evade" or ex.evade_winner == "attacker")
    if not hit:
        if ex.att_level >= t.SUCCESS:
            steps.add(cite("Evading"), f"{ex.target} evades: damage is completely avoided")
        else:
            steps.add(cite("Unsuccessful Rolls and Fumbles"), f"{ex.attacker}'s attack misses")
        return state
    if state.combatants[ex.attacker].weapons[ex.weapon].broken and not ex.sweep:
        steps.add(cite("Damage Weapon"), f"{ex.attacker}'s {ex.weapon} broke: the blow lands no damage")
        return state
    parried = ex.defence == "parry" and ex.def_level >= t.SUCCESS
    offensive = tuple(e for e in effects if attacking and EFFECTS[e].off)
    blow = Blow(attacker=ex.attacker, victim=ex.target, weapon=ex.weapon, dm=ex.dm, size=ex.attack_size,
                ranged=ex.mode == "ranged", long_range=ex.range == "long", prefix=ex.prefix, effects=offensive,
                params=dict(ex.params), parry_weapon=ex.defence_weapon if parried or
                ("damage_weapon" in offensive and ex.defence == "parry") else "",
                orig_roll=ex.attack_roll, orig_skill=ex.attack_skill)
    # Decision: Damage Weapon aims at the parrying weapon even when the parry itself failed.
    state, where = strike(state, blow, roller, steps, ex)
    if attacking and "entangle" in offensive:
        state = entangle_struck(state, ex, where, steps)
    return state


def leap_landed(state: CFIState, ex: Exchange, steps: Steps) -> CFIState:
    """CFI Ch.8 Leaping Attacks: no damage; if the leaper wins the Opposed Roll the defender is
    knocked prone with the attacker astride, and cannot regain his footing until the attacker
    leaves or he wins Arise."""
    if ex.evade_winner != "attacker":
        steps.add(cite("Leaping Attacks"), f"{ex.target} has weathered or sidestepped the impact")
        return state
    victim = state.combatants[ex.target]
    victim = add_condition(victim, Condition(name="prone", rule=cite("Leaping Attacks")))
    victim = add_condition(victim, Condition(name="pinned", by=ex.attacker, rule=cite("Leaping Attacks")))
    steps.add(cite("Leaping Attacks"), f"{ex.target} is knocked prone with {ex.attacker} astride them")
    return with_combatant(state, victim)


def entangle_struck(state: CFIState, ex: Exchange, where: str, steps: Steps) -> CFIState:
    """CFI Ch.8 Entangle: the location struck is immobilised."""
    victim = state.combatants[ex.target]
    state = with_combatant(state, add_condition(victim, Condition(name="entangled", location=where, by=ex.attacker,
                                                                  rule=cite("Entangle"))))
    what = {"right arm": "cannot use what it holds", "left arm": "cannot use what it holds",
            "right leg": "cannot move", "left leg": "cannot move"}.get(where, "all skill rolls one grade harder")
    steps.add(cite("Entangle"), f"{ex.attacker} entangles {ex.target}'s {where}: {what}")
    return state


def trip(state: CFIState, chooser: str, opponent: str, roll: int, skill: int, force: bool, lbl: str,
         roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Trip Opponent: Brawn, Evade or Acrobatics against the original roll, or prone.
    Quadrupeds may use Athletics one grade easier (Decision: they always do)."""
    o = state.combatants[opponent]
    if o.legs >= 4:
        ok, text = resist(state, roller, o, ("athletics",), lbl, roll, skill, grade_steps=-1, forced_fail=force)
    else:
        ok, text = resist(state, roller, o, ("brawn", "evade", "acrobatics"), lbl, roll, skill, forced_fail=force)
    steps.add(cite("Trip Opponent"), text, lbl if not force else "")
    if not ok:
        state = with_combatant(state, add_condition(o, Condition(name="prone", rule=cite("Trip Opponent"))))
        steps.add(cite("Trip Opponent"), f"{opponent} falls prone")
    return state


def disarm(state: CFIState, ex: Exchange, chooser: str, opponent: str, attacking: bool, roll: int, skill: int,
           force: bool, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Disarm Opponent: Combat Skill against the original roll, one grade per Size step.
    The weapons compared are those of ``effects.disarm_weapons`` (no parry is needed)."""
    c, o = state.combatants[chooser], state.combatants[opponent]
    mine_name, theirs_name = disarm_weapons(state, ex, ex.params)
    mine = c.weapons[mine_name]
    theirs = o.weapons[theirs_name]
    gap = t.size_index(mine.size) - t.size_index(theirs.size)
    lbl = label(state, ex.prefix + "disarm", ex.n)
    ok, text = resist(state, roller, o, ("combat",), lbl, roll, skill, grade_steps=gap, forced_fail=force)
    steps.add(cite("Disarm Opponent"), f"{text}" + (f" (weapon Size gap {gap:+d} grade(s))" if gap else ""),
              lbl if not force else "")
    if ok:
        return state
    return fling(state, c, o, theirs_name, roller, label(state, ex.prefix + "disarm-distance", ex.n), steps)


def fling(state: CFIState, c: Combatant, o: Combatant, weapon: str, roller: Roller, lbl: str, steps: Steps) -> CFIState:
    w = o.weapons[weapon]
    o = with_weapon(o, replace(w, dropped=True))
    o = replace(o, held=tuple(h for h in o.held if h != weapon))
    sign, terms = t.dm_terms(c.dm)
    if terms and sign > 0:
        dist, _s, _l = roll_dm(roller, c.dm, lbl, c.name)
        steps.add(cite("Disarm Opponent"), f"{o.name}'s {weapon} is flung {dist * 3} ft (Damage Modifier x3)", *_l)
    else:
        steps.add(cite("Disarm Opponent"), f"{o.name}'s {weapon} drops at their feet (no Damage Modifier)")
    return with_combatant(state, o)


def substitute(state: CFIState, by: str, on: str, sub: str, steps: Steps) -> CFIState:
    """CFI Ch.8 Prepare Counter: the substitute effect succeeds automatically."""
    c, o = state.combatants[by], state.combatants[on]
    if sub == "trip_opponent":
        state = with_combatant(state, add_condition(o, Condition(name="prone", rule=cite("Prepare Counter"))))
        steps.add(cite("Trip Opponent"), f"{on} falls prone")
    elif sub == "disarm_opponent":
        weapon = next((h for h in o.held if not o.weapons[h].shield), "")
        if weapon:
            o = with_weapon(o, replace(o.weapons[weapon], dropped=True))
            state = with_combatant(state, replace(o, held=tuple(h for h in o.held if h != weapon)))
            steps.add(cite("Disarm Opponent"), f"{on} drops the {weapon} at their feet")
    elif sub == "withdraw":
        state = disengage(state, by, on)
        steps.add(cite("Withdraw"), f"{by} withdraws from {on}")
    elif sub == "arise":
        state = with_combatant(state, drop_condition(drop_condition(c, "prone"), "pinned"))
        steps.add(cite("Arise"), f"{by} regains their feet")
    elif sub == "scar_foe":
        state = with_combatant(state, replace(o, scars=o.scars + 1))
        steps.add(cite("Scar Foe"), f"{by} scars {on}")
    elif sub == "slip_free":
        state = with_combatant(state, drop_condition(drop_condition(c, "entangled"), "gripped"))
        steps.add(cite("Slip Free"), f"{by} slips free")
    return state
