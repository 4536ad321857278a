"""Views: initiative order and Action Points, a sheet per combatant, status (whose Turn,
who may react), and one-line summaries of events."""

from __future__ import annotations

from typing import Any

from combatlog.events.base import Event
from combatlog.rulesets.base import Pending
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.effects import EFFECTS, offered
from combatlog.rulesets.classic_fantasy.events import (
    ActionTaken, AttackDeclared, CombatEnded, DefenceDeclared, EffectsChosen, ExchangeResolved, LuckSpent,
    RoundStarted,
)
from combatlog.rulesets.classic_fantasy.exchange import reaction_problem
from combatlog.rulesets.classic_fantasy.rules import cite
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, Condition


def cond_text(cond: Condition) -> str:
    parts = [cond.name.replace("_", " ")]
    if cond.location:
        parts.append(cond.location)
    if cond.grade:
        parts.append(f"({t.GRADE_NAMES.get(cond.grade, cond.grade)})")
    if cond.turns > 0:
        parts.append(f"{cond.turns} Turn(s) left")
    if cond.rounds > 0:
        parts.append(f"{cond.rounds} Round(s) left")
    if cond.by:
        parts.append(f"by {cond.by}")
    return " ".join(parts)


def sheet(c: Combatant) -> dict[str, Any]:
    return {
        "name": c.name, "side": c.side, "initiative": c.initiative, "ap": c.ap, "ap_max": c.ap_max,
        "fatigue": t.FATIGUE[c.fatigue][0], "luck": c.luck, "damage_modifier": c.dm, "siz": c.siz,
        "skills": dict(sorted(c.skills.items())),
        "locations": [{"name": x.name, "d20": f"{x.lo}-{x.hi}", "hp": x.hp, "max_hp": x.max_hp, "natural": x.natural,
                       "worn": x.worn, "wound": x.wound} for x in c.locations],
        "held": list(c.held),
        "weapons": [{"name": w.name, "damage": w.damage, "size": w.size, "types": list(w.types),
                     **({"force": w.force, "range": list(w.ranges), "load": w.load, "reload_left": w.reload_left}
                        if w.ranged else {}),
                     **({"hp": w.hp, "ap": w.ap} if w.max_hp else {}),
                     "state": "broken" if w.broken else ("stuck in " + w.stuck_in if w.stuck_in else
                                                         ("dropped" if w.dropped else "")),
                     **({"stuck_in": dict(zip(("combatant", "location"), w.stuck_in.partition("/")[::2]))}
                        if w.stuck_in else {})}
                    for w in c.weapons.values()],
        "conditions": [cond_text(x) for x in c.conditions],
        "engaged": list(c.engaged), "delaying": c.delaying, "surprised": c.surprised,
        "flat_footed": c.flat_footed, "ward": list(c.ward), "scars": c.scars,
    }


def exchange_view(state: CFIState) -> dict[str, Any] | None:
    ex = state.exchange
    if ex is None:
        return None
    out: dict[str, Any] = {
        "action": ex.n, "attacker": ex.attacker, "target": ex.target, "weapon": ex.weapon, "mode": ex.mode,
        "attack_skill": ex.attack_skill, "attack_roll": ex.attack_roll, "attack": t.LEVEL_NAMES[ex.att_level],
        "stage": ex.stage,
    }
    if ex.defence:
        out.update(defence=ex.defence, defence_skill=ex.defence_skill, defence_roll=ex.defence_roll,
                   defence_level=t.LEVEL_NAMES[ex.def_level], winner=ex.winner, special_effects=ex.count)
    if ex.stage == "effects":
        out["offered"] = offered(state, ex)
    if state.queue:  # CFI Ch.8 Sweep Attacks / Charging: blows still to come this Turn
        out["queued"] = [{"attacker": q.attacker, "target": q.target, "labels": f"r{state.round}/a{q.n}/{q.prefix}"}
                         for q in state.queue]
    return out


def describe(state: CFIState, viewer: str | None = None) -> dict[str, Any]:
    return {
        "round": state.round, "in_round": state.in_round, "ended": state.ended, "outcome": state.outcome,
        "turn": state.turn, "interrupted": state.interrupted, "next_label": f"r{state.round}/a{state.action_no + 1}/",
        "options": dict(state.options),
        "initiative": [{"name": n, "initiative": state.combatants[n].initiative, "ap": state.combatants[n].ap,
                        "dex": state.combatants[n].chars.get("DEX", 0)} for n in state.order],
        "exchange": exchange_view(state),
        "last_exchange": dict(state.last_exchange),
        "combatants": [sheet(c) for c in state.combatants.values()],
        "pending": [{"who": p.who, "what": p.what, "options": list(p.options)} for p in pending(state)],
    }


def render(state: CFIState, viewer: str | None = None) -> str:
    if state.ended:
        head = f"combat ended after round {state.round}" + (f": {state.outcome}" if state.outcome else "")
    elif state.round == 0:
        head = "not started (cfi round STREAM rolls Initiative)"
    else:
        head = f"round {state.round}, " + (f"{state.turn}'s Turn" if state.turn else "no Turns left")
    lines = [head]
    if state.order:
        lines.append("initiative: " + ", ".join(
            f"{n} {state.combatants[n].initiative} ({state.combatants[n].ap} AP)" for n in state.order))
    ex = exchange_view(state)
    if ex:
        lines.append(f"open exchange: {ex['attacker']} -> {ex['target']} ({ex['weapon']}), attack {ex['attack_roll']:02d} "
                     f"{ex['attack']}, stage {ex['stage']}")
    for c in state.combatants.values():
        locs = " ".join(f"{x.name.replace('right ', 'R').replace('left ', 'L')}:{x.hp}/{x.max_hp}"
                        + (f"[{x.natural + x.worn}]" if x.natural + x.worn else "") for x in c.locations)
        conds = "; ".join(cond_text(x) for x in c.conditions)
        lines.append(f"  {c.name:<10} {c.side:<8} AP {c.ap}/{c.ap_max} {t.FATIGUE[c.fatigue][0]:<8} {locs}")
        held = ", ".join(c.held) or "empty-handed"
        lines.append(f"  {'':<10} holds {held}" + (f"; {conds}" if conds else ""))
    for p in pending(state):
        lines.append(f"waiting for {p.who}: {p.what}")
    return "\n".join(lines)


def pending(state: CFIState) -> list[Pending]:
    if state.ended:
        return []
    if state.round == 0:
        return [Pending(who="gm", what="start round 1 (rolls Initiative)", rule=cite("Initiative"))]
    ex = state.exchange
    if ex is not None:
        if ex.stage == "defence":
            d = state.combatants[ex.target]
            problem = reaction_problem(state, d)
            opts = ("none",) if problem else {"charge": ("parry", "evade", "counter", "none"),
                                              "leap": ("brawn", "evade", "none")}.get(ex.mode, ("parry", "evade", "none"))
            return [Pending(who=ex.target, what=f"react to {ex.attacker}'s "
                            f"{'leap' if ex.mode == 'leap' else 'attack'} (rolled {ex.attack_roll:02d})",
                            options=opts, rule=cite("Reactive Actions"))]
        if ex.stage == "effects":
            winner = ex.attacker if ex.winner == "attacker" else ex.target
            return [Pending(who=winner, what=f"choose up to {ex.count} Special Effect(s)",
                            options=tuple(offered(state, ex)), rule=cite("Special Effects"))]
    out = []
    if state.turn:
        c = state.combatants[state.turn]
        out.append(Pending(who=state.turn, what=f"take a Turn ({c.ap} AP left)", rule=cite("Running Combat")))
        for d in state.combatants.values():
            if d.delaying and d.ap > 0 and not d.out and d.name != state.turn and not state.interrupted:
                out.append(Pending(who=d.name, what=f"may Interrupt {state.turn}'s Turn", rule=cite("Interrupt")))
    else:
        out.append(Pending(who="gm", what=f"start round {state.round + 1} or end the combat",
                           rule=cite("Running Combat")))
    return out


def check(state: CFIState) -> list[str]:
    problems = []
    for c in state.combatants.values():
        if c.ap < 0 or c.ap > c.ap_max:
            problems.append(f"{c.name} has {c.ap} AP (max {c.ap_max})")
        if not 0 <= c.fatigue < len(t.FATIGUE):
            problems.append(f"{c.name} fatigue {c.fatigue} out of range")
        for loc in c.locations:
            if loc.hp > loc.max_hp:
                problems.append(f"{c.name} {loc.name} {loc.hp} HP over {loc.max_hp}")
        for n in c.engaged:
            if n not in state.combatants or c.name not in state.combatants[n].engaged:
                problems.append(f"{c.name} engaged with {n} one-sidedly")
        if len(c.held) != len(set(c.held)) or sum(c.weapons[h].hands for h in c.held) > 2:
            problems.append(f"{c.name} holds {c.held}")
    if state.turn and state.turn not in state.combatants:
        problems.append(f"turn of unknown {state.turn}")
    if state.turn and state.combatants[state.turn].ap <= 0 and state.exchange is None:
        problems.append(f"{state.turn} has the Turn without Action Points")
    if state.exchange is not None and not state.in_round:
        problems.append("an exchange is open outside a round")
    if state.ended and state.in_round:
        problems.append("a round is open after the end")
    return problems


def summarize(event: Event) -> str:
    match event:
        case RoundStarted():
            return f"round {event.round} begins" + (" (Initiative re-rolled)" if event.reroll and event.round > 1 else "") \
                + (f"; surprised: {', '.join(event.surprised)}" if event.surprised else "")
        case AttackDeclared():
            how = "leaps at" if event.leap else "charges" if event.charge else "sweeps at" if event.sweep else "attacks"
            return f"{event.attacker} {how} {event.target}" + (f" with {event.weapon}" if event.weapon else "")
        case DefenceDeclared():
            return f"{event.defender} " + {"parry": f"parries{' with ' + event.weapon if event.weapon else ''}",
                                           "evade": "evades" + (" (from behind)" if event.back else ""),
                                           "none": "does not defend", "counter": "counter-attacks the charge",
                                           "brawn": "resists the leap with Brawn"}.get(event.kind, event.kind)
        case LuckSpent():
            what = {"action_point": "gain an Action Point", "action-point": "gain an Action Point",
                    "mitigate": "downgrade a Major Wound", "heroic": "take a Heroic Last Action"}.get(event.roll)
            return f"{event.who} spends a Luck Point to " + (what or f"{'swap' if event.swap else 're-roll'} the {event.roll}")
        case EffectsChosen():
            names = ", ".join(EFFECTS[e].title if e in EFFECTS else e for e in event.effects) or "no effect"
            return f"{event.by} chooses {names}"
        case ExchangeResolved():
            return "exchange resolved"
        case ActionTaken():
            return f"{event.who}: {event.action.replace('_', ' ')}" + (f" -> {event.target}" if event.target else "")
        case CombatEnded():
            return f"combat ends: {event.outcome}"
    return ""
