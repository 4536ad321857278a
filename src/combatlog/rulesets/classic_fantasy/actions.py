# Over 500 lines on purpose: a table of small Combat Actions, one function each (CFI Ch.8), in the book's order.
"""Combat Actions other than Attack, Parry and Evade (CFI Ch.8 Proactive Actions,
Reactive Actions, Free Actions), each with its cost and conditions."""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.events import ActionTaken
from combatlog.rulesets.classic_fantasy.exchange import can_act
from combatlog.rulesets.classic_fantasy.free_actions import FREE_HANDLERS, REACTIVE_HANDLERS
from combatlog.rulesets.classic_fantasy.outcome import disengage, trip
from combatlog.rulesets.classic_fantasy.resolve import Blow, roll_damage, take_damage, wound
from combatlog.rulesets.classic_fantasy.rounds import advance, end_turn, tick_turns
from combatlog.rulesets.classic_fantasy.rules import (
    Roller, Steps, cite, illegal, label, legs_problem, oppose, skill_target, strain, who,
)
from combatlog.rulesets.classic_fantasy.state import (
    CFIState, Combatant, Condition, Exchange, add_condition, drop_condition, with_combatant, with_location,
    with_weapon,
)

replace = msgspec.structs.replace

PROACTIVE = ("aim", "brace", "cast_magic", "change_range", "delay", "dither", "first_aid", "hold_magic", "hustle",
             "mount", "move", "outmaneuver", "ready", "regain_footing", "struggle", "take_cover", "trip_entangled")
REACTIVE = ("interrupt", "counter_spell")
FREE = ("assess_situation", "drop_item", "signal", "speak", "ward_location")
ACTIONS = PROACTIVE + REACTIVE + FREE
HEADINGS = {"aim": "Aiming", "trip_entangled": "Entangle", "first_aid": "Bleed", "outmaneuver": "Outmaneuvering",
            "ward_location": "Ward Location"}


def heading(action: str) -> str:
    return HEADINGS.get(action, action.replace("_", " ").title())


def action_key(name: str) -> str:
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key not in ACTIONS:
        raise InvalidCommand(f"unknown Combat Action {name!r}; known: {', '.join(ACTIONS)} "
                             "(attack, charge, parry and evade have their own commands)")
    return key


def apply_action(state: CFIState, ev: ActionTaken, roller: Roller, steps: Steps) -> CFIState:
    key = action_key(ev.action)
    c = who(state, ev.who)
    if key in PROACTIVE:
        can_act(state, c, heading(key))
        state = replace(state, action_no=state.action_no + 1)
        state, spent = PROACTIVE_HANDLERS[key](state, c, ev, roller, steps)
        c = state.combatants[ev.who]
        if spent:
            state = with_combatant(state, replace(c, ap=max(0, c.ap - spent)))
        if key == "delay":
            return state_after_delay(state, ev.who, steps)
        return end_turn(state, ev.who, steps)
    if key in REACTIVE:
        return REACTIVE_HANDLERS[key](state, c, ev, roller, steps)
    return FREE_HANDLERS[key](state, c, ev, roller, steps)


def state_after_delay(state: CFIState, name: str, steps: Steps) -> CFIState:
    """CFI Ch.8 Turns and Delay: delaying is how the character spends this Turn, so the Turn counts
    for conditions measured in the bearer's Turns (CFI Ch.7 Serious Wounds: "cannot attack ... for
    1d3 Turns"; Blind Opponent, Stun Location). The Interrupt that later uses the held Action Points
    takes this same delayed Turn, so it is not counted again (``rounds.end_turn``)."""
    if state.interrupted:
        return end_turn(state, name, steps)
    state = with_combatant(state, tick_turns(state.combatants[name], steps))
    return advance(state, name, steps)


# -- Proactive -------------------------------------------------------------------------------
Result = tuple[CFIState, int]


def _note(steps: Steps, key: str, text: str, *dice: str) -> None:
    steps.add(cite(heading(key)), text, *dice)


def p_brace(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Brace: SIZ x1.5 against Knockback and Leaping Attacks, x2 against Bash, until the next Turn."""
    _note(steps, "brace", f"{c.name} braces (SIZ counts 50% bigger against knockback, double against Bash)")
    return with_combatant(state, add_condition(c, Condition(name="braced", rule=cite("Brace")))), 1


def p_cast(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Cast Magic: each Turn of casting costs an Action Point; spell effects are not modelled."""
    if c.casting == 0 and c.has("no_attack"):
        raise IllegalCommand(f"{c.name} has a Serious Wound and cannot start a spell", rule="CFI Ch.7 Serious Wounds")
    turns = int(ev.detail.get("turns", "1") or 1)
    done = c.casting + 1
    spell = ev.detail.get("spell", "a spell")
    if done >= turns:
        _note(steps, "cast_magic", f"{c.name} completes casting {spell}: it may be released until their next Turn")
        c = replace(c, casting=0, held_magic=True)
    else:
        _note(steps, "cast_magic", f"{c.name} casts {spell}: Turn {done} of {turns}")
        c = replace(c, casting=done)
    return with_combatant(state, c), 1


def p_hold(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    if not c.held_magic:
        raise illegal(f"{c.name} has no completed spell to hold", "Hold Magic")
    _note(steps, "hold_magic", f"{c.name} holds the spell in check (enemies may Counter Spell freely)")
    return state, 1


def p_change_range(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Change Range / Engagement: closing engages; an Engaged character cannot simply step away."""
    direction = ev.detail.get("direction", "close")
    o = who(state, ev.target)
    if direction == "close":
        if o.name not in c.engaged:
            state = with_combatant(state, replace(c, engaged=c.engaged + (o.name,)))
            state = with_combatant(state, replace(o, engaged=o.engaged + (c.name,)))
        _note(steps, "change_range", f"{c.name} closes with {o.name}: Engaged")
    else:
        if o.name in c.engaged:
            raise illegal(f"{c.name} is Engaged with {o.name}: break off with Outmaneuver or the Withdraw "
                          "Special Effect", "Engagement")
        _note(steps, "change_range", f"{c.name} keeps away from {o.name}")
    return state, 1


def p_delay(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Delay: hold Action Points for Reactions or an Interrupt; lost if unused.
    Decision: they are lost at the end of this Round (unused points never carry over)."""
    _note(steps, "delay", f"{c.name} delays, holding {c.ap} Action Point(s)")
    return with_combatant(state, replace(c, delaying=True)), 0


def p_dither(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    _note(steps, "dither", f"{c.name} does nothing useful")
    return state, 1


def p_hustle(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Hustle: Run (3x Movement) or Sprint (5x) when not Engaged."""
    gait = ev.detail.get("gait", "run")
    if gait not in ("run", "sprint"):
        raise InvalidCommand("hustle: gait run or sprint")
    _unengaged(c, "hustle")
    why = legs_problem(c)
    if why:
        raise illegal(why, "Movement")
    feet = (3 if gait == "run" else 5) * _movement(c)
    c = strain(c, "hustles", steps)
    _note(steps, "hustle", f"{c.name} {'runs' if gait == 'run' else 'sprints'} up to {feet} ft")
    c = add_condition(drop_condition(c, "in_cover"), Condition(name="running" if gait == "run" else "sprinting",
                                                               rule=cite("Hustle")))
    return with_combatant(state, c), 1


def _movement(c: Combatant) -> int:
    """CFI Ch.7 Fatigue: Tired and Wearied -5 ft, Exhausted and worse halved."""
    name = t.FATIGUE[c.fatigue][0]
    if name in ("Tired", "Wearied"):
        return max(0, c.movement - 5)
    if name in ("Exhausted", "Debilitated"):
        return c.movement // 2
    return 0 if c.fatigue >= 6 else c.movement


def _unengaged(c: Combatant, key: str) -> None:
    if c.engaged:
        raise illegal(f"{c.name} is Engaged with {', '.join(c.engaged)}", heading(key))


def p_move(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Move: up to Base Movement when not Engaged (a prone character crawls 5 ft)."""
    _unengaged(c, "move")
    if c.has("prone"):
        _note(steps, "move", f"{c.name} crawls 5 ft (Crawl)")
        return state, 1
    why = legs_problem(c)
    if why:
        raise illegal(why, "Movement")
    c = drop_condition(c, "in_cover")
    text = f"{c.name} moves up to {_movement(c)} ft"
    if ev.target:
        o = who(state, ev.target)
        c = replace(c, engaged=c.engaged + (o.name,))
        state = with_combatant(state, replace(o, engaged=o.engaged + (c.name,)))
        text += f" into contact with {o.name}: Engaged"
    _note(steps, "move", text)
    return with_combatant(state, c), 1


def p_mount(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    if c.has("mounted"):
        _note(steps, "mount", f"{c.name} dismounts")
        return with_combatant(state, drop_condition(c, "mounted")), 1
    _note(steps, "mount", f"{c.name} mounts {ev.detail.get('mount', 'their steed')}")
    return with_combatant(state, add_condition(c, Condition(name="mounted", note=ev.detail.get("mount", ""),
                                                            rule=cite("Mount")))), 1


def p_outmaneuver(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Outmaneuvering: a group Opposed Roll of Evade; every participant spends an
    Action Point; "those who fail to beat the maneuvering character's roll cannot attack him"
    this Round, so a foe keeps up only by winning the Opposed Roll: a tie (same level, same roll)
    does not beat it. Decisions: when both fail, the failed maneuver blocks nobody; a foe without
    Action Points cannot oppose and is beaten. CFI Ch.8 Grip: a gripped fighter cannot disengage,
    so he can neither withdraw nor engage a single foe other than the one gripping him."""
    foes = [who(state, n) for n in ev.detail.get("against", "").split(",") if n.strip()]
    if not foes:
        raise InvalidCommand("outmaneuver: name the opponents (--against A,B)")
    then = ev.detail.get("then", "")
    gripper = _gripped_by(state, c)
    if gripper and (then == "withdraw" or (then.startswith("engage:") and then.split(":", 1)[1] != gripper)):
        raise illegal(f"{gripper} grips {c.name}, who cannot disengage: no withdrawal"
                      + (f" and no engaging {then.split(':', 1)[1]} alone" if then != "withdraw" else "")
                      + " (outmaneuver without then=, or struggle free first)", "Grip")
    state = with_combatant(state, strain(c, "outmaneuvers", steps))
    mine, grade, _n = skill_target(state, c, "evade")
    lbl = label(state, "outmaneuver")
    _f, r = roller.roll(lbl, "1d100", f"{c.name} outmaneuvers", c.name)
    my_level = t.success_level(r, mine)
    steps.add(cite("Outmaneuvering"), f"{c.name} Evade {mine}% rolls {r:02d}: {t.LEVEL_NAMES[my_level]}", lbl)
    beaten = []
    for o in foes:
        if o.ap <= 0 or o.out:
            beaten.append(o.name)
            steps.add(cite("Outmaneuvering"), f"{o.name} has no Action Point to oppose: outmaneuvered")
            continue
        theirs, _g, _n = skill_target(state, o, "evade")
        excess = t.over_hundred(mine, theirs)
        ol = label(state, f"outmaneuver-{o.name}")
        _f, orr = roller.roll(ol, "1d100", f"{o.name} opposes the outmaneuver", o.name)
        me = t.success_level(r, mine - excess)
        them = t.success_level(orr, theirs - excess)
        winner = t.opposed_winner(me, r, them, orr)
        win = winner == "a" or (winner == "" and me >= t.SUCCESS)  # a tie does not beat his roll
        steps.add(cite("Outmaneuvering"), f"{o.name} Evade {theirs - excess}% rolls {orr:02d}: "
                  f"{t.LEVEL_NAMES[them]} -> {'outmaneuvered' if win else 'keeps up'}", ol)
        state = with_combatant(state, strain(replace(o, ap=o.ap - 1), "keeps up", steps))
        if win:
            beaten.append(o.name)
    c = state.combatants[c.name]
    c = replace(c, blocked=tuple(dict.fromkeys(c.blocked + tuple(beaten))))
    state = with_combatant(state, c)
    if len(beaten) == len(foes) and then:
        if then == "withdraw":
            for n in list(c.engaged):
                state = disengage(state, c.name, n)
            steps.add(cite("Outmaneuvering"), f"{c.name} beat them all and withdraws from the fight")
        elif then.startswith("engage:"):
            single = who(state, then.split(":", 1)[1]).name
            for n in list(c.engaged):
                if n != single:
                    state = disengage(state, c.name, n)
            steps.add(cite("Outmaneuvering"), f"{c.name} beat them all and engages {single} alone")
    elif then:
        steps.add(cite("Outmaneuvering"), f"{c.name} did not beat every opponent: no withdrawal or single engagement")
    return state, 1


def _gripped_by(state: CFIState, c: Combatant) -> str:
    """Who holds ``c`` in a Grip (CFI Ch.8 Grip), if that gripper is still able to hold on."""
    grip = c.cond("gripped")
    holder = state.combatants.get(grip.by) if grip is not None else None
    return holder.name if holder is not None and not holder.out else ""


def p_ready(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Ready: draw, sheathe, reload, retrieve (two Actions), or pull an impaled weapon free."""
    what = ev.detail.get("weapon", "")
    mode = ev.detail.get("mode", "draw")
    w = c.weapons.get(what)
    if w is None:
        raise InvalidCommand(f"ready: {c.name} has no weapon {what!r} (has: {', '.join(c.weapons)})")
    if mode == "draw":
        if w.broken or w.dropped or w.stuck_in:
            raise illegal(f"the {what} is {'broken' if w.broken else 'on the ground' if w.dropped else 'stuck'}", "Ready")
        hands = sum(c.weapons[h].hands for h in c.held if h != what) + w.hands
        if what in c.held:
            raise InvalidCommand(f"{c.name} already holds the {what}")
        if hands > 2:
            raise illegal(f"{c.name}'s hands are full ({', '.join(c.held)}); sheathe or drop something", "Ready")
        c = replace(c, held=c.held + (what,))
        _note(steps, "ready", f"{c.name} readies the {what}")
    elif mode == "sheathe":
        if what not in c.held:
            raise InvalidCommand(f"{c.name} does not hold the {what}")
        c = replace(c, held=tuple(h for h in c.held if h != what))
        _note(steps, "ready", f"{c.name} puts away the {what}")
    elif mode == "reload":
        if not w.load or w.reload_left <= 0:
            raise illegal(f"the {what} needs no loading", "Ranged Combat")
        left = w.reload_left - 1
        c = with_weapon(c, replace(w, reload_left=left))
        _note(steps, "ready", f"{c.name} reloads the {what}: {'loaded' if not left else f'{left} Turn(s) to go'}")
    elif mode == "retrieve":
        if not w.dropped or w.broken:
            raise InvalidCommand(f"the {what} is not lying nearby")
        if c.has("retrieving", None) and c.cond("retrieving").note == what:  # type: ignore[union-attr]
            hands = sum(c.weapons[h].hands for h in c.held) + w.hands
            if hands > 2:
                raise illegal(f"{c.name}'s hands are full", "Ready")
            c = drop_condition(with_weapon(c, replace(w, dropped=False)), "retrieving")
            c = replace(c, held=c.held + (what,))
            _note(steps, "ready", f"{c.name} comes back to a ready stance with the {what}")
        else:
            c = add_condition(c, Condition(name="retrieving", note=what, rule=cite("Ready")))
            _note(steps, "ready", f"{c.name} reaches down for the {what} (a second Ready completes it)")
    elif mode == "withdraw":
        return _withdraw_impaled(state, c, w, ev, roller, steps)
    else:
        raise InvalidCommand("ready mode: draw, sheathe, reload, retrieve or withdraw")
    return with_combatant(state, c), 1


def _withdraw_impaled(state: CFIState, c: Combatant, w, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:  # type: ignore[no-untyped-def]
    """CFI Ch.8 Impale: Brawn (opposed if the victim resists) pulls the weapon free for half
    the weapon's damage, no Damage Modifier, armour no help; failure leaves it stuck."""
    if not w.stuck_in:
        raise InvalidCommand(f"the {w.name} is not stuck in anyone")
    vname, _, where = w.stuck_in.partition("/")
    c = strain(c, "wrenches the weapon", steps)
    state = with_combatant(state, c)
    victim = state.combatants[vname]
    lbl = label(state, "pull-free")
    value, grade, _n = skill_target(state, c, "brawn")
    if ev.detail.get("resisted", "no") == "yes" and not victim.out:
        v_lbl = label(state, "pull-resist")
        _f, r = roller.roll(lbl, "1d100", f"{c.name} pulls the {w.name} free", c.name)
        res, text = oppose(state, roller, victim, ("brawn",), v_lbl, r, value)
        mine = res == "b"
        steps.add(cite("Impale"), f"{c.name} Brawn rolls {r:02d}; {text}", lbl, v_lbl)
    else:
        _f, r = roller.roll(lbl, "1d100", f"{c.name} pulls the {w.name} free", c.name)
        mine = t.success_level(r, value) >= t.SUCCESS
        steps.add(cite("Impale"), f"{c.name} Brawn {value}% rolls {r:02d}: {'pulls free' if mine else 'stuck'}", lbl)
    if not mine:
        return state, 1
    c = with_weapon(c, replace(w, stuck_in=""))
    state = with_combatant(state, c)
    pl = label(state, "pull-damage")
    rolled, shown = roll_damage(state, roller, w.damage, 0, pl, c.name)
    # CFI Ch.8 Impale: half the weapon's damage roll, no Damage Modifier (barbed weapons: normal
    # damage). Decision: halving rounds up, as every halving does here (tables.half_up: 7 -> 4).
    dmg = rolled if w.barbed else t.half_up(rolled)
    victim = drop_condition(victim, "impaled", where)
    victim = replace(victim, conditions=tuple(x for x in victim.conditions if not (
        x.name == "incapacitated" and x.location == where and x.note == "impaled")))
    steps.add(cite("Impale"), f"the {w.name} comes free for {'full (barbed)' if w.barbed else 'half'} damage "
              f"({shown}{'' if w.barbed else ' halved, rounding up'} -> {dmg}) to the {where}, armour no help", pl)
    state = with_combatant(state, victim)
    loc = victim.loc(where)
    if loc is None or dmg <= 0:
        return state, 1
    # CFI Ch.7 Wounds: the pull is further injury, so the location's wound level is read again and a
    # new Serious or Major Wound has its effects. Decision: its Endurance rolls oppose the Brawn roll
    # that pulled the weapon free (the roll that inflicted the injury).
    old = loc.wound
    state, loc, level = take_damage(state, victim, loc, dmg, steps)
    blow = Blow(attacker=c.name, victim=vname, weapon=w.name, dm="+0", size=0, ranged=False, long_range=False,
                prefix="pull-", orig_roll=r, orig_skill=value)
    ex = Exchange(n=state.action_no, attacker=c.name, target=vname, original_target=vname, weapon=w.name,
                  mode="melee")
    return wound(state, blow, where, dmg, level, old, roller, steps, ex), 1


def p_regain(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Regain Footing: automatic when unengaged, else an Opposed Brawn or Athletics."""
    if not c.has("prone"):
        raise InvalidCommand(f"{c.name} is not prone")
    for loc in c.locations:
        if loc.kind == "leg" and (c.has("useless", loc.name) or c.has("maimed", loc.name)):
            raise illegal(f"{c.name}'s {loc.name} cannot bear weight", "Regain Footing")
    pin = c.cond("pinned")
    if pin is not None:
        holder = state.combatants.get(pin.by)
        if holder is not None and c.name in holder.engaged and not holder.fallen:
            raise illegal(f"{pin.by} is astride {c.name}: no getting up until they leave or {c.name} wins Arise",
                          "Leaping Attacks")
        c = drop_condition(c, "pinned")
    if not c.engaged:
        _note(steps, "regain_footing", f"{c.name} gets up")
        return with_combatant(state, drop_condition(c, "prone")), 1
    foe = who(state, ev.target or c.engaged[0])
    state = with_combatant(state, strain(c, "struggles to its feet", steps))
    skill = max(("brawn", "athletics"), key=lambda s: c.skills.get(s, 0))
    value, _g, _n = skill_target(state, c, skill)
    lbl = label(state, "regain")
    _f, r = roller.roll(lbl, "1d100", f"{c.name} regains footing", c.name)
    res, text = oppose(state, roller, foe, ("brawn", "athletics"), label(state, "regain-oppose"), r, value)
    steps.add(cite("Regain Footing"), f"{c.name} {skill} {value}% rolls {r:02d}; {text}", lbl,
              label(state, "regain-oppose"))
    if res == "b":
        c = drop_condition(state.combatants[c.name], "prone")
        _note(steps, "regain_footing", f"{c.name} is back on their feet")
        return with_combatant(state, c), 1
    _note(steps, "regain_footing", f"{c.name} stays down")
    return state, 1


def p_struggle(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Struggle / Grip / Entangle: an Opposed Brawn (or Unarmed against a Grip) to break free."""
    hold = c.cond("gripped") or c.cond("entangled")
    if hold is None:
        raise InvalidCommand(f"{c.name} is neither gripped nor entangled")
    state = with_combatant(state, strain(c, "struggles", steps))
    holder = state.combatants.get(hold.by)
    skills = ("brawn", "unarmed") if hold.name == "gripped" else ("brawn",)
    skill = max(skills, key=lambda s: c.skills.get(s, 0))
    value, _g, _n = skill_target(state, c, skill)
    lbl = label(state, "struggle")
    _f, r = roller.roll(lbl, "1d100", f"{c.name} struggles free", c.name)
    if holder is None or holder.out:
        res = "b"
        text = f"{hold.by} no longer holds on"
    else:
        res, text = oppose(state, roller, holder, skills, label(state, "struggle-hold"), r, value)
    steps.add(cite("Struggle"), f"{c.name} {skill} {value}% rolls {r:02d}; {text}", lbl,
              label(state, "struggle-hold") if holder is not None and not holder.out else "")
    if res == "b":
        c = drop_condition(state.combatants[c.name], hold.name, hold.location)
        _note(steps, "struggle", f"{c.name} breaks free of the {hold.name.replace('ed', '')}")
        return with_combatant(state, c), 1
    return state, 1


def p_take_cover(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    _note(steps, "take_cover", f"{c.name} takes cover" + (f" behind {ev.detail['behind']}" if ev.detail.get("behind") else "")
          + " (the Games Master grades shots at them)")
    return with_combatant(state, add_condition(c, Condition(name="in_cover", note=ev.detail.get("behind", ""),
                                                            rule=cite("Take Cover")))), 1


def p_aim(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Aiming: a whole Round steadying the weapon (Decision: all remaining Action Points of
    this Round); the first shot at that target next Round is one grade easier on the situational grade."""
    o = who(state, ev.target)
    weapon = ev.detail.get("weapon") or next((h for h in c.held if c.weapons[h].ranged), "")
    if not weapon or not c.weapons[weapon].ranged:
        raise illegal(f"{c.name} holds no Ranged weapon to aim", "Aiming")
    if c.weapons[weapon].reload_left:
        raise illegal(f"the {weapon} is not loaded", "Aiming")
    _note(steps, "aim", f"{c.name} spends the rest of the Round aiming the {weapon} at {o.name}")
    return with_combatant(state, replace(c, aim=f"{o.name}@{state.round}")), c.ap


def p_first_aid(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.5 First Aid: treats one injury, "may be applied only once per specific injury" and
    heals 1d3 (on a Minor or Serious Wound); CFI Ch.8 Bleed: a success staunches the bleeding, but
    strenuous or violent action re-opens it. Decisions: an injury is the wound of one location,
    new again whenever that location is damaged; by default (option ``first_aid_once``) only a
    successful treatment uses it up; treating a Major-wounded location stabilises the dying."""
    patient = who(state, ev.target or c.name)
    where = ev.detail.get("location", "") or _injury(patient)
    loc = patient.loc(where)
    if loc is None:
        raise InvalidCommand(f"first_aid: give -d location=<one of {', '.join(x.name for x in patient.locations)}>")
    if not loc.wound and not patient.has("bleeding", where):
        raise InvalidCommand(f"{patient.name}'s {where} has no injury to treat")
    if loc.aided:
        raise illegal(f"{patient.name}'s {where} injury has already had First Aid (once per injury)", "Bleed")
    value, grade, _n = skill_target(state, c, "first_aid")
    lbl = label(state, "first-aid")
    _f, r = roller.roll(lbl, "1d100", f"{c.name} gives First Aid to {patient.name}", c.name)
    ok = grade != "hopeless" and t.success_level(r, value) >= t.SUCCESS
    steps.add("CFI Ch.5 First Aid", f"{c.name} treats {patient.name}'s {where}: First Aid {value}% rolls {r:02d}: "
              f"{'success' if ok else 'failure'}", lbl)
    if not ok:
        if state.options.get("first_aid_once", "success") == "attempt":
            patient = with_location(patient, replace(loc, aided=True))
            steps.add("CFI Ch.5 First Aid", "the attempt uses up First Aid for this injury (option first_aid_once)")
            return with_combatant(state, patient), 1
        return state, 1
    if patient.has("bleeding", where):
        patient = drop_condition(patient, "bleeding", where)
        bleeder = state.combatants[patient.name].cond("bleeding", where)
        patient = add_condition(patient, Condition(name="staunched", location=where, by=bleeder.by if bleeder else "",
                                                   rule=cite("Bleed")))
        steps.add(cite("Bleed"), f"{patient.name}'s bleeding is staunched: any strenuous or violent action "
                  "re-opens it")
    if loc.wound == "major" and patient.has("dying"):
        patient = drop_condition(patient, "dying")
        steps.add("CFI Ch.7 Major Wounds", f"{patient.name} is stabilised")
    loc = patient.loc(where) or loc
    if loc.wound in ("minor", "serious") and loc.hp < loc.max_hp:
        hl = label(state, "first-aid-heal")
        _f, h = roller.roll(hl, "1d3", "First Aid healing", c.name)
        new = min(loc.max_hp, loc.hp + h)
        steps.add("CFI Ch.5 First Aid", f"the {where} heals {h}: {loc.hp} -> {new} HP", hl)
        loc = replace(loc, hp=new)
    patient = with_location(patient, replace(loc, aided=True))
    return with_combatant(state, patient), 1


def _injury(p: Combatant) -> str:
    """The injury First Aid treats when none is named: the bleeding one, else a Major Wound."""
    for cond in p.conditions:
        if cond.name == "bleeding" and cond.location:
            return cond.location
    return next((x.name for x in p.locations if x.wound == "major"), "")


def p_trip_entangled(state: CFIState, c: Combatant, ev: ActionTaken, roller: Roller, steps: Steps) -> Result:
    """CFI Ch.8 Entangle: on his following turn the wielder may spend an Action Point for an automatic
    Trip Opponent attempt. Decision: the victim resists the wielder's fresh Combat Skill roll."""
    o = who(state, ev.target)
    if not o.has("entangled") or o.cond("entangled").by != c.name:  # type: ignore[union-attr]
        raise illegal(f"{o.name} is not entangled by {c.name}", "Entangle")
    state = with_combatant(state, strain(c, "yanks the entangling weapon", steps))
    value, _g, _n = skill_target(state, c, "combat")
    lbl = label(state, "trip-pull")
    _f, r = roller.roll(lbl, "1d100", f"{c.name} yanks the entangling weapon", c.name)
    steps.add(cite("Entangle"), f"{c.name} pulls to trip {o.name}: Combat Skill {value}% rolls {r:02d}", lbl)
    return trip(state, c.name, o.name, r, value, False, label(state, "trip"), roller, steps), 1


PROACTIVE_HANDLERS = {
    "aim": p_aim, "brace": p_brace, "cast_magic": p_cast, "change_range": p_change_range, "delay": p_delay,
    "dither": p_dither, "first_aid": p_first_aid, "hold_magic": p_hold, "hustle": p_hustle, "mount": p_mount,
    "move": p_move, "outmaneuver": p_outmaneuver, "ready": p_ready, "regain_footing": p_regain,
    "struggle": p_struggle, "take_cover": p_take_cover, "trip_entangled": p_trip_entangled,
}


