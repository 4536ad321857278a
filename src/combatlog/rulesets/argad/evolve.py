"""Argad ``evolve``: pure; derives every consequence from the recorded decisions and dice."""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events.base import Event
from combatlog.events.core import DiceRolled
from combatlog.rulesets.argad import derive as dv
from combatlog.rulesets.argad import melee as ml
from combatlog.rulesets.argad import shooting as sh
from combatlog.rulesets.argad.events import (
    CombatEnded, FigureAdded, FigureRemoved, Held, Moved, PhaseStarted, RecoilPolicySet, ShotFired, Struck,
    TurnEnded, TurnStarted,
)
from combatlog.rulesets.argad.figures import build_figure
from combatlog.rulesets.argad.state import ArgadState, Figure, Move, Shot, Strike, Turn

replace = msgspec.structs.replace


def evolve(state: ArgadState, event: Event, seq: int) -> ArgadState:
    match event:
        case DiceRolled():
            if state.turn is None:
                return state
            return _turn(state, faces={**state.turn.faces, event.label: event.faces})
        case FigureAdded():
            fig = build_figure(event.figure)
            return replace(state, figures={**state.figures, fig.name: fig})
        case TurnStarted():
            return replace(state, turn=Turn(number=event.turn))
        case PhaseStarted():
            return _turn(state, phase=event.phase)
        case Moved():
            state = _turn(state, moves={**_t(state).moves, event.figure: Move(
                charge=event.charge, crossing=event.crossing, stationary=event.stationary,
                out_of_command=event.out_of_command, note=event.note)})
            if event.ground:
                state = _fig(state, event.figure, ground="mineral" if event.ground == "mineral" else "")
            return state
        case ShotFired():
            return _shot(state, event, seq)
        case Struck():
            return _strike(state, event, seq)
        case Held():  # its side says these figures do not strike this turn (decide._hold)
            return _turn(state, held={**_t(state).held, **{name: seq for name in event.figures}})
        case RecoilPolicySet():
            return _fig(state, event.figure, refuse_recoil=event.refuse)
        case FigureRemoved():
            return _fig(state, event.figure, removed=event.reason or "removed")
        case TurnEnded():
            return _end_turn(state, event)
        case CombatEnded():
            return replace(state, ended=True, outcome=event.outcome)
        case _:
            return state  # other core events change nothing here


def _t(state: ArgadState) -> Turn:
    assert state.turn is not None
    return state.turn


def _turn(state: ArgadState, **changes: Any) -> ArgadState:
    return replace(state, turn=replace(_t(state), **changes))


def _fig(state: ArgadState, name: str, **changes: Any) -> ArgadState:
    return replace(state, figures={**state.figures, name: replace(state.figures[name], **changes)})


def _with_effects(state: ArgadState) -> ArgadState:
    turn = _t(state)
    return _turn(state, effects=dv.effects(state, turn))


def _shot(state: ArgadState, ev: ShotFired, seq: int) -> ArgadState:
    """Argad: Ranged weapons; Argad: Natural dice maximum rule."""
    turn = _t(state)
    plan = sh.plan_shot(state, ev.shooters, ev.targets, range_=ev.range, need=ev.need, cover=ev.cover,
                        idle=ev.idle, mod=ev.mod, why=ev.why, labels=ev.dice)
    key = sh.group_key(ev.targets)
    rerolls = [turn.faces[label] for label in ev.rerolls]
    read = dv.read_volley(state, plan, key, turn.faces, rerolls)
    hitting = [r for r in read.dice if r.total2 >= 2 * plan.need]
    if len(ev.targets) == 1:
        hits = tuple(ev.targets[0] for _ in hitting)
    else:  # successful hits distributed at random among the group
        hits = tuple(ev.targets[turn.faces[label][0] - 1] for label in ev.allocation)
    ones = sum(1 for label in ev.dice if turn.faces[label] == (1,)) if ev.into_melee else 0
    one_reroll = turn.faces.get(ev.one_reroll) if ev.one_reroll else None
    n_friends = sh.friend_hits(ones, one_reroll) if ev.friends else 0
    record = Shot(seq=seq, shooters=ev.shooters, targets=ev.targets, need=plan.need, need_source=plan.need_source,
                  dice=read.dice, rerolls=ev.rerolls, mods=plan.mods, maxima_before=turn.shoot_maxima.get(key, 0),
                  hits=hits, hit_labels=ev.allocation, into_melee=ev.into_melee,
                  friend_hits=tuple(ev.friends[:n_friends]), ones=ones, one_reroll=ev.one_reroll)
    melee_maxima = dict(turn.melee_maxima)
    if ev.into_melee and read.maxima:
        # Argad: Ranged weapons: shooting in a melee, a natural maximum counts with the melee dice
        # against the same opponent.
        for target in ev.targets:
            melee_maxima[target] = melee_maxima.get(target, 0) + read.maxima
    state = _turn(state, shots=turn.shots + (record,),
                  shoot_maxima={**turn.shoot_maxima, key: turn.shoot_maxima.get(key, 0) + read.maxima},
                  shoot_rerolls={**turn.shoot_rerolls, key: turn.shoot_rerolls.get(key, 0) + len(ev.rerolls)},
                  melee_maxima=melee_maxima)
    return _with_effects(state)


def _strike(state: ArgadState, ev: Struck, seq: int) -> ArgadState:
    """Argad: melee: one pool against one opponent, then priority when both sides roll alike."""
    turn = _t(state)
    plan = ml.plan_strike(state, ev.attackers, ev.target, mod=ev.mod, why=ev.why, split=ev.split, labels=ev.dice)
    rerolls = [turn.faces[label] for label in ev.rerolls]
    read = dv.read_strike(state, plan, ev.target, turn.faces, rerolls)
    best2 = max(r.total2 for r in read.dice)
    target = state.figures[ev.target]
    result = ml.result_of(best2, read.auto_hit, plan.defence, plan.low, target)
    refused = ml.recoil_refusal(state, ev.attackers, target) if result == "recoil" else ""
    record = Strike(
        seq=seq, attackers=ev.attackers, target=ev.target, tier=plan.tier, dice=read.dice, rerolls=ev.rerolls,
        mods=plan.mods, maxima_before=turn.melee_maxima.get(ev.target, 0), maxima=read.maxima, best2=best2,
        defence=plan.defence, low=plan.low, auto_hit=read.auto_hit, result=result, split=ev.split,
        charging_cavalry=plan.charging_cavalry, solo=len(ev.attackers) == 1, recoil_refused=refused, ranks=ev.ranks,
    )
    strikes = list(turn.strikes)
    record = _priority(state, strikes, record)
    strikes.append(record)
    state = _turn(state, strikes=tuple(strikes), tier=max(turn.tier, plan.tier),
                  melee_maxima={**turn.melee_maxima, ev.target: turn.melee_maxima.get(ev.target, 0) + read.maxima},
                  melee_rerolls={**turn.melee_rerolls, ev.target: turn.melee_rerolls.get(ev.target, 0) + len(ev.rerolls)})
    return _with_effects(state)


def _kind(result: str) -> str:
    return "kill" if result in ("kill", "wound") else result


def _priority(state: ArgadState, strikes: list[Strike], new: Strike) -> Strike:
    """Argad: Melee peculiarities: two opponents fighting one vs one who both roll a kill (or a
    recoil) at the same time: the priority by class, armour, metal, die, modifiers decides.
    It does not apply to zombies and H2 creatures, who strike last."""
    if not state.options.on("priority_1v1") or new.result == "none":
        return new
    for i, old in enumerate(strikes):
        pair = dv.mutual(old, new, state)
        if pair is None or _kind(old.result) != _kind(new.result):
            continue
        a, b = (state.figures[x] for x in pair)
        if ml.is_last_striker(a) or ml.is_last_striker(b):
            continue
        old_die = max(r.natural2 for r in old.dice if r.who == a.name)
        new_die = max(r.natural2 for r in new.dice if r.who == b.name)
        old_mods = sum(m.value for m in old.mods[a.name])
        new_mods = sum(m.value for m in new.mods[b.name])
        winner, why = ml.priority(a, b, old_die, new_die, old_mods, new_mods)
        if winner > 0:
            note = f"priority to {a.name} ({why})"
            strikes[i] = replace(old, priority_note=note)
            return replace(new, cancelled_by=old.seq, priority_note=note)
        if winner < 0:
            note = f"priority to {b.name} ({why})"
            strikes[i] = replace(old, cancelled_by=new.seq, priority_note=note)
            return replace(new, priority_note=note)
        return replace(new, priority_note="priority: all equal, both results stand")
    return new


def _end_turn(state: ArgadState, ev: TurnEnded) -> ArgadState:
    """Argad: Wounds: deaths and wounds of the turn; survival rolls; optional localisation."""
    turn = _t(state)
    n = turn.number
    figures = dict(state.figures)
    for name, eff in turn.effects.items():
        fig = figures[name]
        if eff.killed_at != -9:
            figures[name] = replace(fig, dead=True, dead_turn=n, wounds=fig.wounds + len(eff.wounds))
        elif eff.wounds:
            figures[name] = replace(fig, wounds=fig.wounds + len(eff.wounds))
    survival = []
    for label in ev.survival:
        name = label.split("/")[2]
        fig = figures[name]
        roll = dv.survival_roll(fig, turn.faces[label])
        died = roll <= fig.wounds
        survival.append((name, label, roll, fig.wounds, died))
        if died:
            figures[name] = replace(fig, dead=True, dead_turn=n)
    locations = []
    for label in ev.locations:
        name = label.split("/")[2]
        d12 = turn.faces[label][0]
        locations.append((name, label, d12))
        figures[name] = _locate(figures[name], d12, n)
    done = replace(turn, phase="ended", survival=tuple(survival), locations=tuple(locations))
    return replace(state, figures=figures, turn=None, last_turn=done, turns_done=n, history=state.history + (_line(done, figures),))


def _locate(fig: Figure, d12: int, n: int) -> Figure:
    """Argad: Wound localisation: 1 head, 2-7 trunk/arm, 8-12 stomach/underbelly/leg (cumulative)."""
    fig = replace(fig, locations=fig.locations + (d12,))
    if d12 == 1:
        return replace(fig, stunned_until=n + 1)
    if d12 <= 7:
        return replace(fig, strength_loss=fig.strength_loss + 1)
    return replace(fig, move_loss_cm=fig.move_loss_cm + 4)


def _line(turn: Turn, figures: dict[str, Figure]) -> str:
    """One summary line for a finished game turn."""
    dead = sorted(n for n, f in figures.items() if f.dead and f.dead_turn == turn.number)
    wounded = sorted(n for n, e in turn.effects.items() if e.wounds and n not in dead)
    recoiled = sorted(n for n, e in turn.effects.items() if e.recoiled_at != -9 and n not in dead)
    parts = [f"turn {turn.number}: {len(turn.shots)} volley(s), {len(turn.strikes)} strike(s)"]
    parts.append("killed " + (", ".join(dead) if dead else "nobody"))
    if wounded:
        parts.append("wounded " + ", ".join(wounded))
    if recoiled:
        parts.append("recoiled " + ", ".join(recoiled))
    if turn.held:
        parts.append("held back " + ", ".join(sorted(turn.held)))
    return "; ".join(parts)
