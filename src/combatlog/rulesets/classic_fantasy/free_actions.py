"""Reactive and Free Combat Actions (CFI Ch.8 Reactive Actions, Free Actions)."""

from __future__ import annotations

import msgspec

from combatlog.errors import InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.events import ActionTaken
from combatlog.rulesets.classic_fantasy.rules import Roller, Steps, cite, illegal, skill_target, weapon_problem
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, with_combatant, with_weapon

replace = msgspec.structs.replace


def _note(steps: Steps, heading: str, text: str, *dice: str) -> None:
    steps.add(cite(heading), text, *dice)


def _unengaged(c: Combatant, heading: str) -> None:
    if c.engaged:
        raise illegal(f"{c.name} is Engaged with {', '.join(c.engaged)}", heading)


# -- Reactive ---------------------------------------------------------------------------------

def r_interrupt(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Interrupt: a delaying character halts another's Turn to take a delayed Action now."""
    if not c.delaying:
        raise illegal(f"{c.name} is not delaying", "Interrupt")
    if c.ap <= 0 or c.out:  # the held Action Points may have gone on Reactions (CFI Ch.8 Delay)
        raise illegal(f"{c.name} {'has no Action Points left to act with' if c.ap <= 0 else 'cannot act'}",
                      "Interrupt")
    if not state.turn or state.turn == c.name or state.exchange is not None or state.interrupted:
        raise illegal("an Interrupt halts someone else's Turn before they act", "Interrupt")
    _note(steps, "Interrupt", f"{c.name} interrupts {state.turn}'s Turn")
    state = with_combatant(state, replace(c, delaying=False))
    return replace(state, interrupted=state.turn, turn=c.name)


def r_counter_spell(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Counter Spell: a Reaction costing an Action Point; the magic itself is not modelled."""
    if not state.in_round or c.out or c.ap <= 0:
        raise illegal(f"{c.name} cannot react now", "Counter Spell")
    _note(steps, "Counter Spell", f"{c.name} tries to counter {ev.target or 'a spell'} (the spell contest is the "
          "Games Master's)")
    return with_combatant(state, replace(c, ap=c.ap - 1))


REACTIVE_HANDLERS = {"interrupt": r_interrupt, "counter_spell": r_counter_spell}


# -- Free ------------------------------------------------------------------------------------

def f_assess(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Assess Situation: unengaged, a Perception roll (Hard running, Formidable sprinting)."""
    _unengaged(c, "Assess Situation")
    gait = ev.detail.get("gait", "")
    grade = {"run": "hard", "sprint": "formidable"}.get(gait, "standard")
    value, g, _n = skill_target(state, c, "perception", [grade])
    state = replace(state, free_no=state.free_no + 1)
    lbl = f"r{state.round}/f{state.free_no}/{c.name}/perception"
    _f, r = roller.roll(lbl, "1d100", f"{c.name} assesses the situation", c.name)
    ok = g != "hopeless" and t.success_level(r, value) >= t.SUCCESS
    steps.add(cite("Assess Situation"), f"{c.name} Perception {value}% ({t.GRADE_NAMES[g]}) rolls {r:02d}: "
              f"{'spots the relevant changes' if ok else 'notices nothing new'}", lbl)
    return state


def f_drop(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    what = ev.detail.get("weapon", "")
    w = c.weapons.get(what)
    if w is None or (what not in c.held and not w.stuck_in):
        raise InvalidCommand(f"{c.name} holds no {what!r}")
    c = replace(with_weapon(c, replace(w, dropped=True)), held=tuple(h for h in c.held if h != what))
    _note(steps, "Drop Item", f"{c.name} drops the {what}" + (" (it stays in the wound)" if w.stuck_in else ""))
    return with_combatant(state, c)


def f_signal(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    _unengaged(c, "Signal")
    _note(steps, "Signal", f"{c.name} signals: {ev.detail.get('text', '')}".rstrip(": "))
    return state


def f_speak(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    _note(steps, "Speak", f"{c.name}: \"{ev.detail.get('text', '')}\"")
    return state


def f_ward(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.8 Ward Location / Passive Blocking: a weapon covers one location, a shield its
    listed number (doubled when crouching); set before the opponent rolls to attack."""
    if state.exchange is not None and state.exchange.target == c.name:
        raise illegal("a ward must be set before the opponent rolls to attack", "Ward Location")
    what = ev.detail.get("weapon", "")
    problem = weapon_problem(c, what) if what else "name the warding weapon"
    if problem:
        raise illegal(problem, "Ward Location")
    w = c.weapons[what]
    locs = [x.strip() for x in ev.detail.get("locations", "").split(",") if x.strip()]
    limit = (w.covers or 2) * (2 if ev.detail.get("crouch") == "yes" else 1) if w.shield else 1
    if not locs or len(locs) > limit:
        raise illegal(f"the {what} covers up to {limit} location(s)", "Passive Blocking")
    for loc in locs:
        if c.loc(loc) is None:
            raise InvalidCommand(f"{c.name} has no location {loc!r}")
    _note(steps, "Ward Location", f"{c.name} wards {', '.join(locs)} with the {what}")
    return with_combatant(state, replace(c, ward=(what, *locs)))


FREE_HANDLERS = {"assess_situation": f_assess, "drop_item": f_drop, "signal": f_signal, "speak": f_speak,
                 "ward_location": f_ward}
