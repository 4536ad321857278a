"""Combat Rounds, Initiative, Action Points and Turns (CFI Ch.8 Running Combat,
Initiative, Actions in Combat, Surprise; CFI Ch.7 Fatigue and blood loss)."""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.events import RoundStarted
from combatlog.rulesets.classic_fantasy.rules import Roller, Steps, cite, who
from combatlog.rulesets.classic_fantasy.state import (
    CFIState, Combatant, Condition, add_condition, drop_condition, with_combatant,
)

replace = msgspec.structs.replace


def worn_penalty(c: Combatant) -> int:
    """CFI Ch.8 Armor: the highest worn Armor Points on any location penalise Initiative."""
    return max((loc.worn for loc in c.locations), default=0)


def initiative_total(c: Combatant, roll: int, surprised: bool) -> tuple[int, str]:
    """CFI Ch.8 Initiative: 1d10 + Initiative Modifier, less worn armour (Armor), the fatigue
    penalty (CFI Ch.7 Fatigue) and 10 when surprised (Surprise)."""
    armour = worn_penalty(c)
    fatigue = t.FATIGUE[c.fatigue][2]
    total = roll + c.init_mod - armour - fatigue - (10 if surprised else 0)
    parts = [f"1d10={roll}", f"{c.init_mod:+d} modifier"]
    if armour:
        parts.append(f"-{armour} worn armour")
    if fatigue:
        parts.append(f"-{fatigue} {t.FATIGUE[c.fatigue][0]}")
    if surprised:
        parts.append("-10 surprised")
    return total, " ".join(parts) + f" = {total}"


def apply_round_start(state: CFIState, ev: RoundStarted, roller: Roller, steps: Steps) -> CFIState:
    if state.ended:
        raise IllegalCommand("the combat has ended", rule=cite("Running Combat"))
    if ev.round != state.round + 1:
        raise InvalidCommand(f"the next round is {state.round + 1}")
    if state.exchange is not None:
        raise IllegalCommand("finish the open exchange first", rule=cite("Attacks and Parries"))
    first = state.round == 0
    reroll = first or ev.reroll
    for name in ev.surprised:
        who(state, name)
    if ev.surprised and not reroll:
        raise IllegalCommand("surprise takes effect when Initiative is rolled (first Round or --reroll)",
                             rule=cite("Surprise"))
    state = replace(state, round=ev.round, in_round=True, action_no=0, free_no=0, interrupted="", turn="")
    if not first:
        steps.add(cite("Actions in Combat"), "unused Action Points of the last Round are lost")
    # Round-long timers: bleeding, dying, unconsciousness (CFI Ch.8 Bleed; CFI Ch.7 wounds).
    for c in list(state.combatants.values()):
        state = with_combatant(state, tick_rounds(c, steps))
    # Initiative (rolled at the start of the fight; kept until something forces a re-roll).
    combatants = dict(state.combatants)
    if reroll:
        for name, c in combatants.items():
            if c.dead:
                combatants[name] = replace(c, initiative=None)
                continue
            lbl = f"r{ev.round}/init/{name}"
            _f, r = roller.roll(lbl, "1d10", f"{name}'s Initiative", name)
            total, text = initiative_total(c, r, name in ev.surprised)
            combatants[name] = replace(c, initiative=total, tiebreak=())
            steps.add(cite("Initiative"), f"{name}: {text}", lbl)
        combatants = roll_offs(combatants, ev.round, roller, steps)
    order = tuple(sorted((n for n, c in combatants.items() if c.initiative is not None and not c.dead),
                         key=lambda n: (-(combatants[n].initiative or 0), -combatants[n].chars.get("DEX", 0),
                                        tuple(-x for x in combatants[n].tiebreak))))
    for name, c in combatants.items():
        surprised = name in ev.surprised
        ap = 0 if (c.out and not c.has("stunned", "head")) else max(0, c.ap_max - t.FATIGUE[c.fatigue][3])
        combatants[name] = replace(c, ap=ap, delaying=False, blocked=(), surprised=surprised, flat_footed=surprised,
                                   surprise_bonus=surprised if reroll else c.surprise_bonus, turns_taken=0)
        if t.FATIGUE[c.fatigue][3] and ap:
            steps.add("CFI Ch.7 Fatigue", f"{name} is {t.FATIGUE[c.fatigue][0]}: {ap} Action Points this Round")
    state = replace(state, combatants=combatants, order=order)
    steps.add(cite("Initiative"), "order: " + ", ".join(f"{n} ({combatants[n].initiative})" for n in order))
    return advance(state, "", steps)


def roll_offs(combatants: dict[str, Combatant], rnd: int, roller: Roller, steps: Steps) -> dict[str, Combatant]:
    """CFI Ch.8 Initiative: ties go to the higher DEX, then to a roll-off (1d10, again while tied)."""
    for attempt in range(1, 20):
        groups: dict[tuple[int, int, tuple[int, ...]], list[str]] = {}
        for n, c in combatants.items():
            if c.initiative is not None and not c.dead:
                groups.setdefault((c.initiative, c.chars.get("DEX", 0), c.tiebreak), []).append(n)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            break
        for group in tied:
            for n in sorted(group):
                lbl = f"r{rnd}/init/{n}/tie" + (str(attempt) if attempt > 1 else "")
                _f, r = roller.roll(lbl, "1d10", f"{n}'s Initiative roll-off", n)
                combatants[n] = replace(combatants[n], tiebreak=combatants[n].tiebreak + (r,))
                steps.add(cite("Initiative"), f"{n} ties on Initiative and DEX: roll-off 1d10={r}", lbl)
    return combatants


def tick_rounds(c: Combatant, steps: Steps) -> Combatant:
    """Start-of-Round timers: CFI Ch.8 Bleed (one Fatigue level per Round), dying and unconscious
    counts (CFI Ch.7 Major/Serious Wounds)."""
    if c.dead:
        return c
    if c.has("bleeding"):
        level = min(c.fatigue + 1, t.DEAD_FATIGUE)
        steps.add(cite("Bleed"), f"{c.name} bleeds: Fatigue {t.FATIGUE[c.fatigue][0]} -> {t.FATIGUE[level][0]}")
        c = replace(c, fatigue=level)
        if level == t.DEAD_FATIGUE:
            c = add_condition(c, Condition(name="dead", rule=cite("Bleed")))
            steps.add(cite("Bleed"), f"{c.name} bleeds to death")
            return c
    kept = []
    for cond in c.conditions:
        if cond.rounds > 0:
            left = cond.rounds - 1
            if left == 0:
                if cond.name == "dying":
                    kept.append(Condition(name="dead", rule=cond.rule))
                    steps.add(cond.rule, f"{c.name} dies of the untreated wound")
                else:
                    steps.add(cond.rule or "CFI Ch.8 Running Combat", f"{c.name} is no longer {cond.name}")
                continue
            cond = replace(cond, rounds=left)
        kept.append(cond)
    return replace(c, conditions=tuple(kept))


def can_take_turn(c: Combatant) -> bool:
    return c.ap > 0 and not c.delaying and not c.dead


def start_turn(c: Combatant, steps: Steps) -> Combatant:
    """Turn-start upkeep: Brace and Take Cover last until the bearer's next Turn."""
    gone = [x for x in c.conditions if x.name in ("braced", "running", "sprinting")]
    if gone:
        c = replace(c, conditions=tuple(x for x in c.conditions if x not in gone))
    return c


def tick_turns(c: Combatant, steps: Steps) -> Combatant:
    """Conditions counted in the bearer's Turns (Serious Wound 1d3, Blind Opponent 1d3, Stun Location)."""
    kept = []
    for cond in c.conditions:
        if cond.turns > 0 and cond.own_turn:
            # applied in the Turn now ending: the count starts with the bearer's next Turn
            kept.append(replace(cond, own_turn=False))
            continue
        if cond.turns > 0:
            left = cond.turns - 1
            if left == 0:
                what = f"{cond.name} {cond.location}".strip()
                steps.add(cond.rule or cite("Running Combat"), f"{c.name}: {what} ends")
                continue
            cond = replace(cond, turns=left)
        kept.append(cond)
    return replace(c, conditions=tuple(kept), turns_taken=c.turns_taken + 1)


def end_turn(state: CFIState, actor: str, steps: Steps) -> CFIState:
    """CFI Ch.8 Turns: after a Turn, the next participant with Action Points acts, in Initiative
    order, cycling until no Action Points remain or all are held (Delay)."""
    c = state.combatants.get(actor)
    if c is not None:
        if not state.interrupted:
            # CFI Ch.8 Interrupt takes "a delayed Turn Action": that Turn was counted when the character
            # delayed (actions.state_after_delay). A Heroic Last Action halting another's Turn ends in
            # collapse, so its count does not matter.
            c = tick_turns(c, steps)
        if c.has("heroic"):
            # CFI Ch.7 Heroic Last Actions: after the single last Action, the hero collapses.
            c = drop_condition(c, "heroic")
            if not c.dead and not c.has("unconscious"):
                c = add_condition(c, Condition(name="unconscious", rule="CFI Ch.7 Heroic Last Actions"))
            c = replace(c, ap=0)
            steps.add("CFI Ch.7 Heroic Last Actions", f"{c.name} collapses into unconsciousness")
        state = with_combatant(state, c)
    if state.interrupted:
        back = state.interrupted
        state = replace(state, interrupted="")
        b = state.combatants[back]
        if can_take_turn(b) and not b.out:
            steps.add(cite("Interrupt"), f"{back}'s interrupted Turn continues")
            return replace(state, turn=back)
        # CFI Ch.8 Turns: with no Action Point left (spent on a Reaction to the Interrupt), or unable to
        # act, the interrupted character's Turn is over; the next participant with Action Points acts.
        steps.add(cite("Interrupt"), f"{back}'s interrupted Turn is over ({'no Action Points left' if b.ap <= 0 else 'cannot act'})")
        state = with_combatant(state, tick_turns(b, steps))
        return advance(state, back, steps)
    return advance(state, actor, steps)


def advance(state: CFIState, after: str, steps: Steps) -> CFIState:
    order = state.order
    if not order:
        return replace(state, turn="")
    start = (order.index(after) + 1) if after in order else 0
    seen_full = 0
    i = start
    guard = 0
    while guard < 1000:
        guard += 1
        name = order[i % len(order)]
        c = state.combatants[name]
        if c.flat_footed:
            c = replace(c, flat_footed=False)
            steps.add(cite("Surprise"), f"{name}'s Initiative arrives: no longer flat-footed")
            state = with_combatant(state, c)
        if can_take_turn(c):
            seen_full = 0
            if c.out:
                # CFI Ch.8 Dither: someone unable to act wastes the Turn.
                c = tick_turns(replace(c, ap=c.ap - 1), steps)
                steps.add(cite("Dither"), f"{name} cannot act and wastes the Turn")
                state = with_combatant(state, c)
            else:
                return replace(state, turn=name, combatants={**state.combatants, name: start_turn(c, steps)})
        else:
            seen_full += 1
            if seen_full >= len(order):
                break
        i += 1
    steps.add(cite("Running Combat"), "no Action Points remain (or all are held): the Round is over")
    return replace(state, turn="")
