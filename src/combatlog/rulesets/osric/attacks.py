# Over 500 lines on purpose: the attack routines share the timeline checks and the scratch fold of each roll; split, a routine would be read apart from the rules that gate it.
"""``decide`` for attack routines: melee, missiles, charges (with set weapons and longer
weapons striking first), fleeing (free attacks at +4), grapples, overbearing, and
attacks on sleepers.

Each attack roll is one ``osric.attack_rolled`` event; ``decide`` folds each onto a
scratch state with the real ``evolve`` so that the next roll of a routine (or the
charger's attack after a set spear) sees exactly what a replay will see.
"""

from __future__ import annotations

import msgspec

from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric import declare as dc
from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric import tables as t
from combatlog.rulesets.osric.evolve import DECLARE, SLEEPING, evolve
from combatlog.rulesets.osric.setup import Combatant
from combatlog.rulesets.osric.state import LATE, NORMAL, OsricState, segment_of, tick

replace = msgspec.structs.replace
SURPRISED = "OSRIC Combat: Determine Surprise (surprise segments)"
DEATH = r.DEATH
MORALE = r.MORALE

# declared action -> the kinds of command still open to that combatant this round
_OPEN = {
    "spell": {"spell"}, "continue": {"spell"},
    "parry": {"move", "flee", "other"}, "retreat": {"move", "flee", "other"}, "close": {"move", "flee", "other"},
    "set": {"flee", "other"}, "flee": {"flee", "other"},
}
_ALL_BUT_SPELL = {"attack", "charge", "move", "flee", "other"}


def known(s: OsricState, name: str) -> Combatant:
    x = s.roster.get(name)
    if x is None:
        raise InvalidCommand(f"no combatant {name!r} (combatants: {', '.join(s.roster)})")
    return x


def acting(s: OsricState, name: str, kind: str) -> str:
    """May ``name`` take an action of this kind now? (phase, surprise, declaration, morale)."""
    known(s, name)
    live = s.live[name]
    if s.phase == "surprise":
        seg = segment_of(s.cursor, 0)
        if s.surprised.get(name, 0) >= seg:
            raise IllegalCommand(f"{name} is surprised in segment {seg}", rule=SURPRISED)
    elif s.phase == "between":
        raise IllegalCommand(f"round {s.round} has ended: actions wait for the next round (osric round)",
                             rule=r.INITIATIVE)
    elif s.phase != "round" or not s.initiative:
        raise IllegalCommand("actions are taken once initiative is rolled (or in surprise segments)",
                             rule=r.INITIATIVE)
    if live.out:
        raise IllegalCommand(f"{name} has {live.out}", rule=DEATH)
    if live.morale == "flee" and kind not in ("flee", "other"):
        raise IllegalCommand(f"{name} failed morale and must flee", rule=MORALE)
    if live.morale == "withdraw" and kind in ("attack", "charge"):
        raise IllegalCommand(f"{name} is making a fighting withdrawal (morale): it may parry, not attack", rule=MORALE)
    if s.round > 0:
        d = s.declaration(name)
        if d is None:
            raise IllegalCommand(f"{name} declared nothing this round (it could not act then)", rule=DECLARE)
        allowed = _OPEN.get(d.action, _ALL_BUT_SPELL)
        if kind not in allowed:
            raise IllegalCommand(f"{name} declared {d.action}: {kind} is not open to it this round"
                                 + (" (a caster may decline but not switch)" if d.action in ("spell", "continue")
                                    else ""), rule=DECLARE)
        cast = live.casting
        if kind != "spell" and cast is not None and cast.round == s.round and cast.status != "declined":
            raise IllegalCommand(f"{name} is casting this round", rule=r.SPELLS)
    return name


def can_act_at(s: OsricState, name: str, at: int) -> None:
    """Down, restrained or asleep combatants do not act, except simultaneously (same segment)."""
    live = s.live[name]
    why = ("dead" if live.dead else f"at {live.hp} hp" if live.hp <= 0 else
           f"restrained by {live.restrained_by}" if live.restrained_by else
           next((x for x in ("sleeping", "held") if x in live.conditions), ""))
    if why and live.disabled_at != at:
        raise IllegalCommand(f"{name} cannot act ({why})", rule=DEATH)


def action_tick(s: OsricState, name: str, routine: int, segment: int = 0, *, late: bool = False) -> int:
    """The tick of an action: its earliest allowed segment unless a later one is named; never in the past."""
    if s.phase == "surprise":
        now = segment_of(s.cursor, 0)
        if segment and segment != now:
            raise IllegalCommand(f"the surprise timeline is at segment {now}; move it on with osric segment",
                                 rule=SURPRISED)
        at = s.cursor
    else:
        decl = s.declaration(name)
        holds = decl is not None and decl.action == "hold"
        waits = routine >= 2 or holds
        if waits:
            # OSRIC Combat: Determine Initiative (multiple attack routines) and Hold Initiative ("waits
            # until the other side's initiative segment has been resolved"): refused, and the timeline
            # left alone, until the opposing side's segment is resolved, so its members still act in it.
            seg, waiting = r.unresolved_segment(s, name)
            if waiting:
                other = s.other_side(s.roster[name].side)
                what = f"{name}'s extra attack routine cannot be used" if routine >= 2 else \
                    f"{name} holds initiative and cannot act"
                raise IllegalCommand(
                    f"{what} until the opposing side's initiative segment "
                    f"({other}, segment {seg}) has been resolved: {', '.join(waiting)} still to act there (record "
                    f"their actions first; if they take none, move the timeline on: osric segment STREAM {seg} "
                    "--end)", rule=r.ROUTINES if routine >= 2 else r.HOLD)
        earliest = r.earliest_tick(s, name, routine)
        at = earliest
        if waits and not segment and at < s.cursor:
            # Decision: an extra routine or a held action may come at any time after that segment; once
            # the timeline has passed its earliest moment it falls at the timeline's present (the next
            # segment after an end-of-segment).
            at = s.cursor if s.cursor % 4 in (NORMAL, LATE) else tick(s.round, segment_of(s.cursor, s.round) + 1)
            if segment_of(at, s.round) > 10:
                raise IllegalCommand(f"the timeline has reached the end of round {s.round}", rule=r.INITIATIVE)
        if segment:
            if not 1 <= segment <= 10:
                raise InvalidCommand("a round has segments 1 to 10")
            at = earliest if segment == segment_of(earliest, s.round) else tick(s.round, segment)
            if at < earliest:
                why = r.HOLD if routine < 2 else r.ROUTINES
                raise IllegalCommand(f"{name} acts in segment {segment_of(earliest, s.round)} at the earliest",
                                     rule=why)
        if at < s.cursor:
            raise IllegalCommand(f"{name}'s action falls in segment {segment_of(at, s.round)}, but the timeline has "
                                 f"reached segment {segment_of(s.cursor, s.round)}", rule=r.INITIATIVE)
        if s.revision != "1":  # (version 1, OsricState.revision: an action did not wait for an earlier segment)
            earlier_first(s, name, at)
    can_act_at(s, name, at)
    return at


def earlier_first(s: OsricState, name: str, at: int) -> None:
    """OSRIC Combat: First Party Acts, then Second Party Acts: refused, and the timeline left alone,
    while an earlier segment's declared actions are still due; logging this one would move the
    timeline past them and they could then no longer be taken."""
    seg, waiting = r.due_before(s, at, but=name)
    if not waiting:
        return
    mine = s.roster[name].side
    sides = sorted({s.roster[n].side for n in waiting})
    late = "+" if at % 4 == LATE else ""
    raise IllegalCommand(
        f"{name}'s action falls in segment {segment_of(at, s.round)}{late}, but {', '.join(waiting)} "
        f"({', '.join(sides)}) must act first, in segment {seg} (their actions are recorded first; if they take "
        f"none, their players or the referee move the timeline on: osric segment STREAM {seg} --end)",
        rule=r.INITIATIVE if sides == [mine] else r.FIRST_ACTS)


def opponent(s: OsricState, who: str, target: str) -> str:
    x = known(s, target)
    if x.side == s.roster[who].side:
        raise IllegalCommand(f"{target} is on {who}'s side", rule=r.MELEE)
    if not s.standing(target):
        raise IllegalCommand(f"{target} is out of the fight", rule=DEATH)
    return target


def routines_allowed(s: OsricState, who: str, kind: str, form: str, target: str) -> int:
    """OSRIC Combat: Attacks per Round: routines this round (rate of fire for missiles)."""
    x, live = s.roster[who], s.live[who]
    rnd = max(1, s.round)
    if kind == "missile":
        w = t.weapon(form)
        m = w.missile or w.thrown
        n = t.rate_per_round(m.rate, rnd) if m else 1
    elif x.is_fighter:
        n = t.attacks_this_round(t.fighter_half_attacks(x.level, x.specialised == form), s.round,
                                 s.options["half_attack_round"])
        tgt = s.roster[target]
        if tgt.kind == "monster" and t.below_one_hd(tgt.hd):
            n = max(n, x.level)
    else:
        n = 1
    return n + (1 if "hasted" in live.conditions else 0)


def last_attack(s: OsricState, who: str) -> dict[str, object] | None:
    """The data of ``who``'s latest attack roll in a routine this round (or surprise segment)."""
    for entry in reversed(s.log):
        if entry.round != s.round:
            return None
        if entry.data.get("type") == "attack_roll" and entry.data["attacker"] == who and entry.data["routine"]:
            return entry.data
    return None


def routines_left(s: OsricState, who: str) -> int:
    """How many more routines ``who`` may use this round (or surprise segment), after a first one.

    Judged by the kind and weapon of its latest routine and, for melee, the best case among the
    opponents it stands engaged with (a fighter's attacks equal his level only against creatures
    below 1 HD: OSRIC Combat: Attacks per Round). 0 before any routine: that one is its declared action.
    """
    used = s.live[who].routines
    last = last_attack(s, who) if used else None
    if last is None:
        return 0
    try:
        acting(s, who, "attack")  # e.g. a set spear that struck a charger may not attack on its own
    except IllegalCommand:
        return 0
    kind, form = ("missile" if last["kind"] == "missile" else "melee"), str(last["weapon"])
    if kind == "missile":
        return max(0, routines_allowed(s, who, kind, form, str(last["target"])) - used)
    best = max((routines_allowed(s, who, kind, form, o) for o in s.opponents_engaged(who)), default=0)
    return max(0, best - used)


def forms_for(s: OsricState, who: str, weapon: str, kind: str) -> list[str]:
    """The attack forms of one routine: a monster's claw/claw/bite, or one weapon."""
    x = s.roster[who]
    if weapon:
        if weapon == "unarmed" or any(a.name == weapon for a in x.attacks):
            return [weapon]
        name = t.canonical_weapon(weapon)
        if name not in [w.name for w in x.weapons]:
            raise InvalidCommand(f"{who} does not carry a {name}")
        return [name]
    d = s.declaration(who) if s.round else None
    if d is not None and d.weapon and d.weapon != "unarmed":
        name = t.canonical_weapon(d.weapon)
        data = t.weapon(name)
        if (kind == "missile" and (data.missile or data.thrown)) or (kind != "missile" and data.melee):
            return [name]
    if x.attacks and kind != "missile":
        return [a.name for a in x.attacks]
    for w in x.weapons:
        data = t.weapon(w.name)
        if (kind == "missile" and data.missile) or (kind != "missile" and data.melee):
            return [w.name]
    if kind == "missile":
        raise IllegalCommand(f"{who} has no missile weapon", rule=r.MISSILES)
    return ["unarmed"]


def check_flags(s: OsricState, who: str, target: str, flags: tuple[str, ...]) -> tuple[str, ...]:
    for f in flags:
        key, _, value = f.partition(":")
        if f in ("rear", "flank", "higher", "sees-invisible"):
            continue
        if key == "cover" and value in r.COVER_AC:
            continue
        if key == "concealment" and value in r.CONCEALMENT_AC:
            continue
        raise InvalidCommand(f"unknown modifier {f!r}: rear, flank, higher, sees-invisible, cover:25|50|75|90, "
                             "concealment:quarter|half|three-quarters|nine-tenths")
    if "higher" in flags and s.roster[who].kind != "monster":
        raise InvalidCommand("higher (+1 attack level for position) applies to monsters' matrix level")
    if "invisible" in s.live[target].conditions and ("rear" in flags or "flank" in flags):
        raise IllegalCommand(f"{target} is invisible: it cannot be attacked from behind or the flank", rule=r.INVISIBLE)
    if "rear" in flags and "flank" in flags:
        raise InvalidCommand("an attack is from the rear or the flank, not both")
    return tuple(flags)


def within_reach(s: OsricState, who: str) -> list[str]:
    """The opponents ``who`` may strike in melee now: engaged (within 10 ft; OSRIC Combat: Melee Attack)
    and not barred by a closing this round (OSRIC Combat: Closing into Combat). Empty: no melee attack
    (``choose_target`` refuses one)."""
    if (who, "*") in s.no_attack:
        return []
    return [o for o in s.opponents_engaged(who) if (who, o) not in s.no_attack]


def choose_target(s: OsricState, who: str, target: str, dice: DicePort, label: str
                  ) -> tuple[str, tuple[str, ...], int]:
    """OSRIC Combat: Melee Attack: against several opponents the target is random."""
    opps = [o for o in s.opponents_engaged(who) if (who, o) not in s.no_attack]
    if (who, "*") in s.no_attack:
        raise IllegalCommand(f"{who} closed this round and cannot attack until next round",
                             rule="OSRIC Combat: Closing into Combat")
    if not opps:
        barred = [o for o in s.opponents_engaged(who)]
        if barred:
            raise IllegalCommand(f"{', '.join(barred)} closed with {who} this round: no attack until next round",
                                 rule="OSRIC Combat: Closing into Combat")
        raise IllegalCommand(f"{who} is not engaged in melee (within 10 ft): close, charge, or record the positions "
                             "with osric engage", rule=r.MELEE)
    chosen = s.options["melee_target"] == "declared"
    if not target and chosen:
        target = declared_target(s, who, opps)
    if target:
        opponent(s, who, target)
        if target not in opps:
            raise IllegalCommand(f"{who} is not engaged with {target} (engaged: {', '.join(opps)})", rule=r.MELEE)
        if len(opps) > 1 and not chosen:
            raise IllegalCommand(f"{who} faces {len(opps)} opponents ({', '.join(opps)}): the target is random; "
                                 "leave out --target", rule=r.MELEE)
        return target, (), 0
    if len(opps) == 1:
        return opps[0], (), 0
    if chosen:
        d = s.declaration(who) if s.round else None
        why = f" (the declared {d.target} is not among them)" if d is not None and d.target else ""
        raise InvalidCommand(f"{who} faces {', '.join(opps)}{why}: name the target with --target "
                             "(option melee_target=declared)")
    roll = dice.roll(label + "/target", f"1d{len(opps)}", purpose=f"{who}'s target").total
    return opps[roll - 1], tuple(opps), roll


def declared_target(s: OsricState, who: str, opps: list[str]) -> str:
    """Option melee_target=declared: the target named in the round's declaration (``WHO=melee@orc1``),
    if it is still an opponent to attack; else none."""
    d = s.declaration(who) if s.round else None
    return d.target if d is not None and d.target in opps else ""


def routine(s: OsricState, dice: DicePort, *, who: str, target: str, forms: list[tuple[str, bool]], kind: str,
            number: int, at: int, flags: tuple[str, ...] = (), mod: int = 0, reason: str = "",
            candidates: tuple[str, ...] = (), target_roll: int = 0) -> tuple[list[Event], OsricState]:
    """Roll one routine's attacks at one target; damage dice only for hits."""
    out: list[Event] = []
    for i, (form, off) in enumerate(forms):
        if out and not s.standing(target):
            break  # the rest of the routine goes to the same, fallen, target: not rolled
        label = f"r{s.round}/{who}/atk{s.live[who].rolls + 1}"
        roll = dice.roll(label, "1d20", purpose=f"{who}: {kind} with {form} at {target}").total
        ev = e.AttackRolled(segment=segment_of(at, s.round), late=at % 4 == LATE, attacker=who, target=target,
                            kind=kind, form=form, routine=number, offhand=off, roll=roll, label=label, flags=flags,
                            mod=mod, reason=reason, candidates=candidates if i == 0 else (),
                            target_roll=target_roll if i == 0 else 0)
        calc = r.calc_attack(s, ev)
        if calc.hit:
            dl = label + "/dmg"
            ev = replace(ev, damage=dice.roll(dl, calc.notation, purpose=f"{who}'s {form} damage").total,
                         damage_label=dl)
        out.append(ev)
        s = evolve(s, ev, 0)
    return out, s


# The referee's adjustment to a d20 attack roll: beyond +-100 nothing changes (the number needed runs
# from below 1 to 26), and the bound keeps the logged number sane.
MAX_MOD = 100
MAX_RANGE = 9_999  # feet: far beyond any missile's reach


def check_numbers(cmd: object) -> None:
    """Refuse a roll adjustment or a range outside its bound up front, naming the bound."""
    mod = getattr(cmd, "mod", 0)
    if not -MAX_MOD <= mod <= MAX_MOD:
        raise InvalidCommand(f"--mod {mod}: the referee's adjustment runs from -{MAX_MOD} to {MAX_MOD}")
    feet = getattr(cmd, "range", 0)
    if not 0 <= feet <= MAX_RANGE:
        raise InvalidCommand(f"--range {feet}: a distance in feet from 0 to {MAX_RANGE}")


def decide_attack(s: OsricState, cmd: object, dice: DicePort) -> list[Event]:
    check_numbers(cmd)
    match cmd:
        case c.Attack() | c.Grapple():
            grapple = isinstance(cmd, c.Grapple)
            who = acting(s, cmd.who, "attack")
            number = s.live[who].routines + 1
            at = action_tick(s, who, number, cmd.segment)
            label = f"r{s.round}/{who}/atk{s.live[who].rolls + 1}"
            target, cands, troll = choose_target(s, who, cmd.target, dice, label)
            flags = check_flags(s, who, target, cmd.flags)
            if grapple:
                forms, kind = [("grapple", False)], "grapple"
            else:
                kind = "melee"
                forms = [(f, False) for f in forms_for(s, who, cmd.weapon, kind)]
                if cmd.offhand:
                    forms, flags = _two_weapons(s, who, forms, cmd.offhand), flags + ("two-weapon",)
            allowed = routines_allowed(s, who, kind, forms[0][0], target)
            if number > allowed:
                raise IllegalCommand(f"{who} has used its {allowed} attack routine(s) this "
                                     f"{'segment' if s.round == 0 else 'round'}", rule=t.ATTACKS)
            return routine(s, dice, who=who, target=target, forms=forms, kind=kind, number=number, at=at,
                           flags=flags, mod=cmd.mod, reason=getattr(cmd, "reason", ""), candidates=cands,
                           target_roll=troll)[0]
        case c.Shoot():
            return _shoot(s, cmd, dice)
        case c.Charge():
            return _charge(s, cmd, dice)
        case c.Flee():
            return _flee(s, cmd, dice)
        case c.Assassinate():
            who = acting(s, cmd.who, "attack")
            opponent(s, who, cmd.target)
            if "sleeping" not in s.live[cmd.target].conditions:
                raise IllegalCommand(f"{cmd.target} is not sleeping", rule=SLEEPING)
            if not 1 <= cmd.chance <= 100:
                raise InvalidCommand("the chance to kill is a percentage from 1 to 100")
            at = action_tick(s, who, s.live[who].routines + 1, cmd.segment)
            label = f"r{s.round}/{who}/assassinate"
            roll = dice.roll(label, "1d100", purpose=f"{who} kills the sleeping {cmd.target}?").total
            return [e.AssassinationAttempted(segment=segment_of(at, s.round), attacker=who, target=cmd.target,
                                             chance=cmd.chance, roll=roll, label=label)]
    raise InvalidCommand(f"not an attack: {type(cmd).__name__}")


def _two_weapons(s: OsricState, who: str, forms: list[tuple[str, bool]], offhand: str) -> list[tuple[str, bool]]:
    """OSRIC Combat: Two-Weapon Fighting: the off-hand weapon is a dagger or a hand axe."""
    if s.roster[who].kind != "character":
        raise InvalidCommand("two-weapon fighting is for characters; give a monster its attack forms")
    name = t.canonical_weapon(offhand)
    if not t.weapon(name).offhand:
        raise IllegalCommand(f"the off-hand weapon must be a dagger or a hand axe, not a {name}", rule=r.TWO)
    if name not in [w.name for w in s.roster[who].weapons]:
        raise InvalidCommand(f"{who} does not carry a {name}")
    if len(forms) != 1 or forms[0][0] == "unarmed":
        raise InvalidCommand("two-weapon fighting needs a main weapon")
    return forms + [(name, True)]


def _shoot(s: OsricState, cmd: c.Shoot, dice: DicePort) -> list[Event]:
    """OSRIC Combat: Missile Attacks: Dex bonus, range, rate of fire; into a melee the target is random."""
    who = acting(s, cmd.who, "attack")
    opponent(s, who, cmd.target)
    number = s.live[who].routines + 1
    forms = forms_for(s, who, cmd.weapon, "missile")
    w = t.weapon(forms[0])
    if not (w.missile or w.thrown):
        raise IllegalCommand(f"a {forms[0]} is not a missile or throwing weapon", rule=r.MISSILES)
    allowed = routines_allowed(s, who, "missile", forms[0], cmd.target)
    if number > allowed:
        raise IllegalCommand(f"{who} has fired its {allowed} shot(s) with the {forms[0]} this "
                             f"{'segment' if s.round == 0 else 'round'}", rule=r.MISSILES)
    at = action_tick(s, who, number, cmd.segment)
    flags = check_flags(s, who, cmd.target, cmd.flags) + ((f"range:{cmd.range}",) if cmd.range else ())
    label = f"r{s.round}/{who}/atk{s.live[who].rolls + 1}"
    target, cands, troll = cmd.target, (), 0
    group = [n for n in s.melee_group(cmd.target) if n != who]
    if len(group) > 1:
        troll = dice.roll(label + "/target", f"1d{len(group)}", purpose=f"{who} fires into the melee").total
        target, cands = group[troll - 1], tuple(group)
    return routine(s, dice, who=who, target=target, forms=[(forms[0], False)], kind="missile", number=number, at=at,
                   flags=flags, mod=cmd.mod, reason=cmd.reason, candidates=cands, target_roll=troll)[0]


def _charge(s: OsricState, cmd: c.Charge, dice: DicePort) -> list[Event]:
    """OSRIC Combat: Charge: a set weapon, or a longer one, strikes the charger first; +2 if it survives."""
    who = acting(s, cmd.who, "charge")
    target = opponent(s, who, cmd.target)
    live = s.live[who]
    dc.check_charge(s, who, target)  # the same impossibilities as at the declaration
    if live.routines:
        raise IllegalCommand(f"{who} has already attacked this round", rule=r.CHARGE)
    flags = check_flags(s, who, target, cmd.flags)
    forms = [("overbear", False)] if cmd.overbear else [(f, False) for f in forms_for(s, who, cmd.weapon, "melee")]
    if cmd.mounted_lance:
        if cmd.overbear or not t.weapon(forms[0][0]).lance:
            raise IllegalCommand("the mounted charge bonus is for a lance", rule=r.CHARGE)
        flags += ("double",)
    if cmd.as_grapple:
        if not cmd.overbear:
            raise InvalidCommand("--as-grapple qualifies an overbearing charge")
        flags += ("as-grapple",)
    at = action_tick(s, who, 1, cmd.segment)
    out: list[Event] = [e.Charged(segment=segment_of(at, s.round), who=who, target=target,
                                  mounted_lance=cmd.mounted_lance, overbear=cmd.overbear,
                                  defender_longer=cmd.defender_longer)]
    scratch = evolve(s, out[0], 0)
    counter = _counter(scratch, target, cmd.defender_longer, at)
    if counter is not None:
        forms_d, cflags = counter
        evs, scratch = routine(scratch, dice, who=target, target=who, forms=forms_d, kind="counter",
                               number=scratch.live[target].routines + 1, at=at, flags=cflags)
        out += evs
    if scratch.standing(who):
        evs, scratch = routine(scratch, dice, who=who, target=target, forms=forms,
                               kind="overbear" if cmd.overbear else "charge", number=1, at=at, flags=flags,
                               mod=cmd.mod)
        out += evs
    return out


def _counter(s: OsricState, defender: str, longer: bool, at: int) -> tuple[list[tuple[str, bool]], tuple[str, ...]] | None:
    """Who strikes the charger first: a weapon set against the charge, or a longer weapon not yet used."""
    live = s.live[defender]
    try:
        can_act_at(s, defender, at)
    except IllegalCommand:
        return None
    if s.phase == "surprise" and s.surprised.get(defender, 0) >= segment_of(at, 0):
        return None
    d = s.declaration(defender) if s.round else None
    if d is not None and d.action == "set":
        name = t.canonical_weapon(d.weapon) if d.weapon else next(
            w.name for w in s.roster[defender].weapons if t.weapon(w.name).set)
        return [(name, False)], ("set",)
    if longer and live.routines == 0 and (d is None or d.action not in ("spell", "continue", "flee")):
        return [(f, False) for f in forms_for(s, defender, "", "melee")], ()
    return None


def _flee(s: OsricState, cmd: c.Flee, dice: DicePort) -> list[Event]:
    """OSRIC Combat: Fleeing from Combat: every opponent in melee gets an immediate attack at +4."""
    who = acting(s, cmd.who, "flee")
    if not s.standing(who):
        # struck down in this segment, a simultaneous blow still lands, but a flight is a move: one who is
        # down does not run (rules.still_due: a flight does not survive its fleer's fall)
        raise IllegalCommand(f"{who} is down (at {s.live[who].hp} hp) and cannot flee",
                             rule="OSRIC Combat: Fleeing from Combat")
    at = action_tick(s, who, 1, cmd.segment)
    for n in cmd.skip:
        known(s, n)
    out: list[Event] = []
    scratch = s
    for opp in s.opponents_engaged(who):
        if opp in cmd.skip or not scratch.standing(who):
            continue
        try:
            can_act_at(scratch, opp, at)
        except IllegalCommand:
            continue
        if s.phase == "surprise" and s.surprised.get(opp, 0) >= segment_of(at, 0):
            continue
        form = forms_for(scratch, opp, "", "melee")[0]
        evs, scratch = routine(scratch, dice, who=opp, target=who, forms=[(form, False)], kind="free", number=0,
                               at=at)
        out += evs
    if not scratch.standing(who):
        return out  # cut down while turning to run
    return out + [e.Fled(segment=segment_of(at, s.round), who=who)]
