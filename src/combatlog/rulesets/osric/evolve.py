"""The OSRIC fold: every consequence of the facts in the log, with its rule.

``evolve`` never rolls and never raises on an event ``decide`` produced. Each
derived step is appended to ``state.log`` as an ``Entry`` (text, citation,
dice), which is both the segment timeline and what ``explain`` prints.
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events.base import Event
from combatlog.events.core import TRUST_OPTIONS, CombatStarted, DiceRolled, OrdersCommitted, OrdersRevealed
from combatlog.rulesets.drawn import note_drawn, prune
from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric import tables as t
from combatlog.rulesets.osric.declare import DRAWN, RANDOM_TARGET, evolve_sealed, record
from combatlog.rulesets.osric.entries import (
    CLOSING, DEATH, DECLARE, DEX_SURPRISE, MONSTER_SURPRISE, MORALE, NEGOTIATION, RETREAT, ROUND, SLEEPING, SURPRISE,
    TABLE, describe_declaration,
)
from combatlog.rulesets.osric.entries import log_entry as _log
from combatlog.rulesets.osric.setup import build_combatant, normalise_options
from combatlog.rulesets.osric.state import END, NORMAL, ROUND_END, Casting, Live, OsricState, segment_of, tick

replace = msgspec.structs.replace

DISABLING = ("sleeping", "held")  # conditions that stop a combatant from acting


# The rules digest of OSRIC version 1 (before osric.actions_forgone): its logs re-decide without that event.
VERSION_1_DIGESTS = ("ed20f39b76b3bb2b5f874e5e083c4493a6414a470ebc31996b4b5563b5226248",)
FORGONE = "OSRIC Combat: First Party Acts / Second Party Acts (a declared action the timeline passes is forgone)"


def initial_state(genesis: CombatStarted) -> OsricState:
    setup = genesis.setup
    # the trust layer's genesis options (joint_dice, sequencer) are not OSRIC's
    ours = {k: v for k, v in genesis.options.items() if k not in TRUST_OPTIONS}
    options = normalise_options({**setup.get("options", {}), **ours})
    roster = {d["name"]: build_combatant(d) for d in setup["combatants"]}
    live = {n: Live(hp=c.hp) for n, c in roster.items()}
    sides = tuple(dict.fromkeys(c.side for c in roster.values()))
    engaged = tuple(sorted(tuple(sorted(p)) for p in setup.get("engaged", [])))  # type: ignore[misc]
    # Decision: without set-up "players", a player named like a side plays it (osric/declare.py)
    players = {side: tuple(setup.get("players", {}).get(side, ()) if "players" in setup else (side,))
               for side in sides}
    return OsricState(roster=roster, live=live, sides=sides, options=options, engaged=engaged,
                      title=setup.get("title", ""), players=players, pinned=tuple(p.name for p in genesis.players),
                      joint=genesis.dice == "joint", dice_from=0,
                      forgone_events=genesis.rules_digest not in VERSION_1_DIGESTS)


# -- helpers ---------------------------------------------------------------------------------


def _live(s: OsricState, name: str, **changes: Any) -> OsricState:
    return replace(s, live={**s.live, name: replace(s.live[name], **changes)})


def _bleeds(s: OsricState, name: str) -> bool:
    c = s.roster[name]
    return c.kind == "character" or s.options.get("monster_death") == "bleed"


def advance(s: OsricState, to: int, seq: int) -> OsricState:
    """Move the timeline to tick ``to``: spells whose casting time has run go off (OSRIC Combat: Spells)."""
    if to <= s.cursor:
        return s
    s = replace(s, cursor=to)
    for name in sorted(s.live):
        cast = s.live[name].casting
        if cast is not None and cast.status == "casting" and cast.complete <= to:
            s = _live(s, name, casting=replace(cast, status="done"))
            s = _log(s, seq, f"{name}'s {cast.spell} goes off (begun segment {segment_of(cast.start, cast.round)}, "
                             f"{cast.casting} segment(s), {s.options['spell_timing']} timing)", r.SPELLS,
                     t_=cast.complete)
    return s


def hurt(s: OsricState, name: str, amount: int, at: int, seq: int, why: str, dice: tuple[str, ...] = ()) -> OsricState:
    """OSRIC Combat: Damage and Death: hp loss, 0 hp and below, death at -10, spells lost."""
    live = s.live[name]
    if amount <= 0 or live.dead:
        return s
    old = live.hp
    hp = old - amount
    s = _live(s, name, hp=hp)
    s = _log(s, seq, f"{name} takes {amount} ({why}): hp {old} -> {hp}", DEATH, dice, t_=at)
    cast = live.casting
    if cast is not None and cast.status == "casting" and cast.start <= at < cast.complete:
        s = _live(s, name, casting=replace(cast, status="lost"))
        s = _log(s, seq, f"{name} is damaged while casting: {cast.spell} is lost", r.SPELLS, t_=at)
    if not _bleeds(s, name):
        if hp <= 0:
            s = _live(s, name, dead=True, disabled_at=at if old > 0 else live.disabled_at, down_round=s.round)
            s = _log(s, seq, f"{name} is slain (a monster dies at 0 hp; option monster_death=zero)", DEATH, t_=at)
        return s
    if old <= 0:
        s = _live(s, name, dead=True)
        return _log(s, seq, f"{name}, already at {old} hp, takes further damage and dies", DEATH, t_=at)
    if hp <= -10:
        s = _live(s, name, dead=True, disabled_at=at, down_round=s.round)
        return _log(s, seq, f"{name} is dead (-10 hp or below)", DEATH, t_=at)
    if hp <= 0:
        s = _live(s, name, disabled_at=at, down_round=s.round, aided=False, scarred=hp <= -6)
        s = _log(s, seq, f"{name} falls unconscious at {hp} hp and will lose 1 hp a round until aided or "
                         "dead at -10" + (" (scarred: -6 or below)" if hp <= -6 else ""), DEATH, t_=at)
    return s


# -- the fold ----------------------------------------------------------------------------------


def evolve(s: OsricState, ev: Event, seq: int) -> OsricState:  # noqa: C901 - one match over the union
    match ev:
        case e.SurpriseChecked():
            return _surprise(s, ev, seq)
        case e.SegmentReached():
            to = tick(s.round, ev.segment, END if ev.end else NORMAL)
            if s.round == 0:
                s = replace(s, live={n: replace(v, routines=0) for n, v in s.live.items()})
            s = advance(s, to, seq)
            return _log(s, seq, f"the timeline reaches {'the end of ' if ev.end else ''}segment {ev.segment}",
                        SURPRISE if s.round == 0 else r.INITIATIVE)
        case e.RoundStarted():
            live = {n: replace(v, routines=0, rolls=0, first_routine_tick=-1, shield_vs=(), acted_tick=-1)
                    for n, v in s.live.items()}
            s = replace(s, round=ev.round, phase="round", declared={}, initiative={}, live=live, no_attack=(),
                        sealed={}, dice_drawn=prune(s.dice_drawn, ev.round), dice_from=ev.round)
            return _log(s, seq, f"round {ev.round} begins: declare spells and general actions, then roll "
                                "initiative", DECLARE)
        case e.RoundEnded():
            return _end_round(s, ev, seq)
        case e.ActionsForgone():
            for f in ev.forgone:
                s = _log(s, seq, f"{f.who} forgoes the declared {f.action}: {f.why}", FORGONE)
            return s
        case e.ActionsDeclared():
            return record(s, ev.side, ev.declarations, seq)
        case e.InitiativeRolled():
            return _initiative(s, ev, seq)
        case e.AttackRolled():
            return _attack(s, ev, seq)
        case e.CastingBegun():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            cast = Casting(spell=ev.spell, casting=ev.casting, start=at, complete=r.spell_ticks(s, at, ev.casting),
                           round=s.round)
            s = _live(s, ev.who, casting=cast, acted_tick=at)
            goes = segment_of(cast.complete, s.round)
            when = f"the end of segment {goes}" if cast.complete % 4 == 2 else f"segment {goes}"
            return _log(s, seq, f"{ev.who} begins casting {ev.spell} ({ev.casting} segment(s)); it goes off at "
                                f"{when} unless {ev.who} is damaged first", r.SPELLS, t_=at)
        case e.SpellDeclined():
            cast = s.live[ev.who].casting
            s = advance(s, tick(s.round, ev.segment), seq)
            spell = cast.spell if cast and cast.status == "casting" else (
                s.declaration(ev.who) or e.Declaration(who="", action="")).spell
            if cast is not None and cast.status == "casting":
                s = _live(s, ev.who, casting=replace(cast, status="declined"))
            else:
                s = _live(s, ev.who, casting=Casting(spell=spell, casting=0, start=s.cursor, complete=s.cursor,
                                                     status="declined", round=s.round))
            return _log(s, seq, f"{ev.who} declines to cast {spell} (and takes no other action this round)", DECLARE)
        case e.Charged():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            s = _engage(s, ev.who, ev.target)
            s = _live(s, ev.who, last_charge=s.round, charged_round=s.round, acted_tick=at)
            extra = " with a lance from a warhorse (weapon dice doubled)" if ev.mounted_lance else ""
            extra += " to overbear" if ev.overbear else ""
            return _log(s, seq, f"{ev.who} charges {ev.target}{extra}: double move, +2 to hit, no Dex AC bonus "
                                "this round", r.CHARGE)
        case e.Closed():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            s = _engage(s, ev.who, ev.target)
            s = replace(s, no_attack=s.no_attack + ((ev.who, "*"), (ev.target, ev.who)))
            s = _live(s, ev.who, acted_tick=at)
            return _log(s, seq, f"{ev.who} closes with {ev.target}: neither may attack the other until next round",
                        CLOSING)
        case e.Retreated():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            s = replace(s, engaged=tuple(p for p in s.engaged if ev.who not in p))
            s = _live(s, ev.who, acted_tick=at)  # its segment's action is done (rules.unresolved_segment)
            return _log(s, seq, f"{ev.who} makes a fighting retreat out of melee (may parry, not attack)", RETREAT)
        case e.Fled():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            s = replace(s, engaged=tuple(p for p in s.engaged if ev.who not in p))
            s = _live(s, ev.who, out="fled", disabled_at=at)
            return _log(s, seq, f"{ev.who} flees the combat", r.FLEE)
        case e.EngagementSet():
            if ev.engaged:
                s = _engage(s, ev.a, ev.b)
            else:
                s = replace(s, engaged=tuple(p for p in s.engaged if p != tuple(sorted((ev.a, ev.b)))))
            verb = "engaged (within 10 ft)" if ev.engaged else "no longer engaged"
            return _log(s, seq, f"{ev.a} and {ev.b} are {verb}" + (f": {ev.reason}" if ev.reason else ""), TABLE)
        case e.DamageApplied():
            return hurt(s, ev.who, ev.amount, s.cursor, seq, ev.source or "damage", (ev.label,) if ev.label else ())
        case e.HealingApplied():
            live = s.live[ev.who]
            hp = min(s.roster[ev.who].max_hp, live.hp + ev.amount)
            s = _live(s, ev.who, hp=hp)
            return _log(s, seq, f"{ev.who} regains {hp - live.hp} hp ({ev.source or 'healing'}): {live.hp} -> {hp}",
                        DEATH, (ev.label,) if ev.label else ())
        case e.ConditionChanged():
            return _condition(s, ev, seq)
        case e.AidGiven():
            s = _live(s, ev.who, aided=True)
            return _log(s, seq, f"{ev.who} is aided" + (f" by {ev.by}" if ev.by else "") + ": the bleeding stops",
                        DEATH)
        case e.MoraleChecked():
            return _morale(s, ev, seq)
        case e.Negotiated():
            s = _log(s, seq, f"{ev.by} negotiates: {ev.outcome}", NEGOTIATION)
            decl = s.declaration(ev.by) if s.phase == "round" and s.initiative and ev.by in s.roster else None
            if decl is not None and decl.action == "negotiate":
                # the ruling is the negotiator's declared action for the round: he is no longer waited for
                # (the negotiation stands outside the segment timeline: the cursor does not move)
                at = tick(s.round, r.own_segment(s, ev.by))
                s = _live(s, ev.by, acted_tick=max(s.live[ev.by].acted_tick, at))
            if ev.ends:
                s = replace(s, ended=True, phase="ended", outcome=ev.outcome)
                s = _log(s, seq, "the combat ends by negotiation", NEGOTIATION)
            return s
        case e.ActionNoted():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            s = _live(s, ev.who, acted_tick=at)
            return _log(s, seq, f"{ev.who}: {ev.text}", DECLARE)
        case e.GrappleBroken():
            holder = s.live[ev.who].restrained_by
            s = _live(s, ev.who, restrained_by="")
            return _log(s, seq, f"{ev.who} breaks free of {holder or 'the grapple'}"
                        + (f" ({ev.reason})" if ev.reason else ""), r.GRAPPLE)
        case e.AssassinationAttempted():
            at = tick(s.round, ev.segment)
            s = advance(s, at, seq)
            ok = ev.roll <= ev.chance
            s = _log(s, seq, f"{ev.attacker} strikes the sleeping {ev.target}: d100 {ev.roll} vs {ev.chance}%: "
                             + ("killed" if ok else "no kill"), SLEEPING, (ev.label,), t_=at)
            if ok:
                s = _live(s, ev.target, dead=True, disabled_at=at, down_round=s.round)
            return s
        case e.CombatEnded():
            s = replace(s, ended=True, phase="ended", outcome=ev.outcome)
            return _log(s, seq, "the combat ends" + (f": {ev.outcome}" if ev.outcome else ""), ROUND)
        case DiceRolled():
            drawn = note_drawn(s.dice_drawn, ev.label, s.round)
            return s if drawn is s.dice_drawn else replace(s, dice_drawn=drawn)
        case OrdersCommitted() | OrdersRevealed():
            return evolve_sealed(s, ev, seq)  # sealed declarations (trust layer)
        case _:
            return s  # other core events change nothing here


def _engage(s: OsricState, a: str, b: str) -> OsricState:
    pair = tuple(sorted((a, b)))
    return s if pair in s.engaged else replace(s, engaged=tuple(sorted(s.engaged + (pair,))))  # type: ignore[arg-type]


def _surprise(s: OsricState, ev: e.SurpriseChecked, seq: int) -> OsricState:
    """OSRIC Combat: Determine Surprise: d6 per side, 1-2 surprised that many segments.

    A side is surprised when its roll is within the other side's surprise range
    (2 normally; a monster that surprises on 1-3 widens it, giving up to 3
    segments). Each individual's Dex surprise bonus takes segments off (or, if
    negative, adds them) but never creates surprise. Alert sides do not roll.
    """
    surprised: dict[str, int] = {}
    for side in s.sides:
        members = [c for c in s.roster.values() if c.side == side]
        other = [c for c in s.roster.values() if c.side != side]
        if side in ev.alert:
            s = _log(s, seq, f"{side} is alert and does not roll for surprise", SURPRISE)
            segs = 0
        else:
            roll = ev.rolls[side]
            reach = max(c.surprises_on for c in other)
            segs = roll if roll <= reach else 0
            rule = MONSTER_SURPRISE if reach != 2 else SURPRISE
            s = _log(s, seq, f"{side} rolls {roll} against surprise on 1-{reach}: "
                             + (f"surprised for {segs} segment(s)" if segs else "not surprised"), rule,
                     (f"surprise/{side}",))
        for c in members:
            own = 0 if c.never_surprised or segs == 0 else max(0, segs - c.dex_surprise)
            if c.never_surprised and segs:
                s = _log(s, seq, f"{c.name} cannot be surprised", SURPRISE)
            elif segs and own != segs:
                s = _log(s, seq, f"{c.name}'s Dex surprise bonus {c.dex_surprise:+d}: surprised for {own} "
                                 "segment(s)", DEX_SURPRISE)
            surprised[c.name] = own
    length = max(surprised.values(), default=0)
    s = replace(s, surprise_rolls=dict(ev.rolls), surprise_alert=ev.alert, surprised=surprised,
                surprise_len=length, surprise_checked=True)
    if length == 0:
        return _log(s, seq, "nobody is surprised: combat goes straight to round 1", SURPRISE)
    s = replace(s, phase="surprise", round=0, cursor=tick(0, 1))
    return _log(s, seq, f"{length} surprise segment(s): in each, whoever is not surprised in it may act", SURPRISE)


def _initiative(s: OsricState, ev: e.InitiativeRolled, seq: int) -> OsricState:
    """OSRIC Combat: Determine Initiative: each side's d6 is the segment the OTHER side acts in."""
    s = replace(s, initiative=dict(ev.rolls))
    a, b = s.sides
    labels = tuple(f"r{ev.round}/initiative/{x}" for x in s.sides)
    s = _log(s, seq, f"initiative: {a} {ev.rolls[a]}, {b} {ev.rolls[b]}: {a} acts in segment {ev.rolls[b]}, "
                     f"{b} in segment {ev.rolls[a]}", r.INITIATIVE, labels)
    if ev.rolls[a] == ev.rolls[b]:
        s = _log(s, seq, f"tie: both sides act simultaneously in segment {ev.rolls[a]}; all damage lands, "
                         "mutual destruction is possible", r.INITIATIVE)
    for side in s.sides:
        for d in s.declared.get(side, ()):
            if d.action == "missile" and r.missile_bonus(s, s.roster[d.who]):
                seg = r.own_segment(s, d.who)
                s = _log(s, seq, f"{d.who} has a missile weapon in hand: missile bonus "
                                 f"{r.missile_bonus(s, s.roster[d.who]):+d} to initiative, acts in segment {seg}",
                         r.MISSILE_INIT)
    return s


def _attack(s: OsricState, ev: e.AttackRolled, seq: int) -> OsricState:
    at = r.attack_tick(s, ev)
    s = advance(s, at, seq)
    calc = r.calc_attack(s, ev)
    live = s.live[ev.attacker]
    changes: dict[str, Any] = {"rolls": live.rolls + 1, "acted_tick": at}
    if ev.routine:
        changes["routines"] = max(live.routines, ev.routine)
        if live.first_routine_tick < 0:
            changes["first_routine_tick"] = at
    s = _live(s, ev.attacker, **changes)
    if calc.shield_counts and ev.attacker not in s.live[ev.target].shield_vs:
        s = _live(s, ev.target, shield_vs=s.live[ev.target].shield_vs + (ev.attacker,))
    head = {"free": "free attack", "counter": "strikes first", "charge": "charge attack"}.get(ev.kind, ev.kind)
    if ev.kind in ("melee", "grapple") and ev.routine > live.routines and s.options.get("melee_target") == "random":
        # A declared target accepted while the declarer faced it alone (declare.drawn_target) and no longer
        # what the attack strikes: the situation changed since; say so rather than drop it silently.
        d = s.declaration(ev.attacker) if s.round else None
        if d is not None and d.action in DRAWN and d.target and d.target != ev.target:
            how = "it is drawn" if ev.candidates else f"{ev.target} is the one opponent engaged"
            s = _log(s, seq, f"{ev.attacker} declared {d.target}, but under the option melee_target=random the "
                             f"target is not chosen: {how}", RANDOM_TARGET, t_=at)
    if ev.candidates:
        s = _log(s, seq, f"{ev.attacker}'s target is chosen at random among {', '.join(ev.candidates)}: "
                         f"d{len(ev.candidates)} {ev.target_roll} -> {ev.target}",
                 r.MISSILES if ev.kind == "missile" else r.MELEE, (ev.label + "/target",), t_=at)
    s = _log(s, seq, f"{ev.attacker} {head} at {ev.target} with {ev.form}" + (" (off hand)" if ev.offhand else ""),
             r.MELEE if ev.kind != "missile" else r.MISSILES, t_=at)
    roll_line = -1
    for text, rule in calc.parts:
        dice = (ev.label,) if text.startswith("d20 ") else (ev.damage_label,) if text.startswith("damage ") else ()
        if text.startswith("d20 "):
            roll_line = len(s.log)
        s = _log(s, seq, text, rule, dice, t_=at)
    hp_before = s.live[ev.target].hp
    if calc.hit:
        s = hurt(s, ev.target, calc.damage, at, seq, f"{ev.attacker}'s {ev.form}", (ev.damage_label,))
    s = _attack_data(s, roll_line, ev, calc, hp_before)
    if not calc.hit:
        return s
    if ev.kind == "grapple" or (ev.kind == "overbear" and "as-grapple" in ev.flags):
        if s.standing(ev.target):
            s = _live(s, ev.target, restrained_by=ev.attacker, disabled_at=at)
            s = _log(s, seq, f"{ev.target} is grappled and restrained by {ev.attacker}", r.GRAPPLE, t_=at)
    elif ev.kind == "overbear":
        conds = s.live[ev.target].conditions
        if "prone" not in conds:
            s = _live(s, ev.target, conditions=conds + ("prone",))
        s = _log(s, seq, f"{ev.target} is knocked prone", r.OVERBEAR, t_=at)
    return s


def _attack_data(s: OsricState, line: int, ev: e.AttackRolled, calc: r.Calc, hp_before: int) -> OsricState:
    """The attack roll as data on its "d20 ..." line of the timeline (``show --json`` attacks,
    ``explain --json`` step data): nobody has to parse the line to know what happened."""
    if line < 0:
        return s
    tl = s.live[ev.target]
    data = {"type": "attack_roll", "attacker": ev.attacker, "target": ev.target, "kind": ev.kind, "weapon": ev.form,
            "routine": ev.routine, "offhand": ev.offhand, "roll": ev.roll, "bonus": calc.bonus, "total": calc.total,
            "ac": calc.ac, "need": calc.needed, "hit": calc.hit, "damage": calc.damage if calc.hit else 0,
            "target_hp_before": hp_before, "target_hp_after": tl.hp, "target_dead": tl.dead,
            "target_down": tl.hp <= 0}
    log = list(s.log)
    log[line] = replace(log[line], data=data)
    return replace(s, log=tuple(log))


def _condition(s: OsricState, ev: e.ConditionChanged, seq: int) -> OsricState:
    conds = s.live[ev.who].conditions
    if ev.present:
        s = _live(s, ev.who, conditions=conds + (ev.condition,))
        if ev.condition in DISABLING:
            s = _live(s, ev.who, disabled_at=s.cursor)
    else:
        s = _live(s, ev.who, conditions=tuple(c for c in conds if c != ev.condition))
    rule = {"prone": r.PRONE, "stunned": r.STUNNED, "invisible": r.INVISIBLE, "sleeping": SLEEPING,
            "hasted": r.ROUTINES}.get(ev.condition, TABLE)
    verb = "is now" if ev.present else "is no longer"
    return _log(s, seq, f"{ev.who} {verb} {ev.condition}" + (f" ({ev.reason})" if ev.reason else ""), rule)


def _morale(s: OsricState, ev: e.MoraleChecked, seq: int) -> OsricState:
    """OSRIC Combat: Morale: 50% + 5% per HD, adjusted; failing by up to 25 withdraws, 26-50 flees, more surrenders.

    At most two checks a battle; passing the second means fighting to the death.
    """
    c = s.roster[ev.who]
    hd = t.hd_for_morale(c.hd) if c.kind == "monster" else c.level
    chance = 50 + 5 * hd + c.morale_mod + ev.modifier
    live = s.live[ev.who]
    checks = live.morale_checks + 1
    label = (ev.label,) if ev.label else ()
    base = f"{ev.who} checks morale: 50% + 5% x {hd} HD"
    base += f" {c.morale_mod:+d}% (monster)" if c.morale_mod else ""
    base += f" {ev.modifier:+d}%" + (f" ({ev.reason})" if ev.reason else "") if ev.modifier else ""
    s = _log(s, seq, f"{base} = {chance}%; d100 {ev.roll}", MORALE, label)
    if ev.roll <= chance:
        result = "to_death" if checks >= 2 else ""
        s = _live(s, ev.who, morale_checks=checks, morale=result)
        return _log(s, seq, f"{ev.who} passes" + (": second check passed, it fights to the death" if result else ""),
                    MORALE)
    margin = ev.roll - chance
    if margin <= 25:
        s = _live(s, ev.who, morale_checks=checks, morale="withdraw")
        return _log(s, seq, f"{ev.who} fails by {margin}: fighting withdrawal (may parry, not attack)", MORALE)
    if margin <= 50:
        s = _live(s, ev.who, morale_checks=checks, morale="flee")
        return _log(s, seq, f"{ev.who} fails by {margin}: it flees (its next action is to flee)", MORALE)
    s = _live(s, ev.who, morale_checks=checks, morale="surrender", out="surrendered", disabled_at=s.cursor)
    s = replace(s, engaged=tuple(p for p in s.engaged if ev.who not in p))
    return _log(s, seq, f"{ev.who} fails by {margin}: it surrenders", MORALE)


def _end_round(s: OsricState, ev: e.RoundEnded, seq: int) -> OsricState:
    """OSRIC Combat: Round Completion, with bleeding (OSRIC Combat: Damage and Death).

    Decision: a combatant at 0 hp or below loses 1 hp at the end of each round
    after the one in which it fell, until aided or dead at -10.
    """
    s = advance(s, tick(ev.round, 10, ROUND_END), seq)
    for name in sorted(s.live):
        live = s.live[name]
        if live.dead or live.hp > 0 or live.aided or live.out or not _bleeds(s, name) or live.down_round >= ev.round:
            continue
        hp = live.hp - 1
        s = _live(s, name, hp=hp, scarred=live.scarred or hp <= -6)
        s = _log(s, seq, f"{name} bleeds: hp {live.hp} -> {hp}", DEATH)
        if hp <= -10:
            s = _live(s, name, dead=True)
            s = _log(s, seq, f"{name} bleeds to death at -10", DEATH)
    for name in sorted(s.live):
        cast = s.live[name].casting
        if cast is not None and cast.status == "casting":
            s = _log(s, seq, f"{name} is still casting {cast.spell} into the next round", r.SPELLS)
    s = _log(s, seq, f"round {ev.round} ends", ROUND)
    return replace(s, phase="between")


__all__ = ["initial_state", "evolve", "advance", "hurt", "describe_declaration", "NORMAL"]
