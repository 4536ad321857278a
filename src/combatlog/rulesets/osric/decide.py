"""``decide`` for everything but attack routines: phases, surprise, declarations, initiative,
spells, movement, damage, conditions, morale, negotiation. Attacks are in ``attacks.py``.

Every refusal names its rule; nothing is appended on error.
"""

from __future__ import annotations

import re

from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.rulesets.osric import attacks as atk
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric import declare as dc
from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric.evolve import describe_declaration
from combatlog.rulesets.osric.evolve import DECLARE, MORALE, ROUND, SURPRISE, TABLE
from combatlog.rulesets.osric.state import END, OsricState, segment_of, tick

_NO_ROUND = "OSRIC Combat: Determine Initiative"
# A typed amount of damage or healing: hit points run from -10 to 9999 (setup.MAX_HP), so no more is ever
# needed; the bound keeps every number in the log within what verify accepts (+-2**53).
MAX_AMOUNT = 99_999
_PLAIN = re.compile(r"^\+?[0-9]+$")


def decide(s: OsricState, cmd: object, dice: DicePort) -> list[Event]:  # noqa: C901 - one dispatch
    if s.ended:
        raise IllegalCommand("the combat has ended", rule=ROUND)
    match cmd:
        case c.CheckSurprise():
            return _surprise(s, cmd, dice)
        case c.ReachSegment():
            reached = _reach(s, cmd)
            until = tick(s.round, cmd.segment, END if cmd.end else 0)
            where = f"the end of segment {cmd.segment}" if cmd.end else f"segment {cmd.segment}"
            return forgone(s, until, f"the timeline moved on to {where} before it was taken") + reached
        case c.StartRound():
            if s.phase == "round" and not s.initiative:
                raise IllegalCommand(f"round {s.round} has not been played (no initiative yet)", rule=ROUND)
            out: list[Event] = [e.RoundEnded(round=s.round)] if s.phase in ("round", "surprise") else []
            return forgone(s, None, f"round {s.round} ended before it was taken") + out + [
                e.RoundStarted(round=s.round + 1)]
        case c.EndRound():
            if s.phase not in ("round", "surprise"):
                raise IllegalCommand("no round is open", rule=ROUND)
            return forgone(s, None, f"round {s.round} ended before it was taken") + [e.RoundEnded(round=s.round)]
        case c.Declare():
            return [_declare(s, cmd)]
        case c.RollInitiative():
            return _initiative(s, dice)
        case c.Attack() | c.Shoot() | c.Charge() | c.Flee() | c.Grapple() | c.Assassinate():
            return atk.decide_attack(s, cmd, dice)
        case c.Cast():
            return _cast(s, cmd)
        case c.Decline():
            return _decline(s, cmd)
        case c.Close():
            who = atk.acting(s, cmd.who, "move")
            target = atk.opponent(s, cmd.who, cmd.target)
            if s.is_engaged(cmd.who, target):
                raise IllegalCommand(f"{cmd.who} is already engaged with {target}", rule="OSRIC Combat: Closing into "
                                     "Combat")
            at = atk.action_tick(s, who, 1, cmd.segment)
            return [e.Closed(segment=segment_of(at, s.round), who=who, target=target)]
        case c.Retreat():
            who = atk.acting(s, cmd.who, "move")
            if not s.opponents_engaged(who):
                raise IllegalCommand(f"{who} is not in melee", rule="OSRIC Combat: Fighting Retreat")
            at = atk.action_tick(s, who, 1, cmd.segment)
            return [e.Retreated(segment=segment_of(at, s.round), who=who)]
        case c.Engage():
            for n in (cmd.a, cmd.b):
                atk.known(s, n)
            if s.roster[cmd.a].side == s.roster[cmd.b].side:
                raise InvalidCommand(f"{cmd.a} and {cmd.b} are on the same side")
            if s.is_engaged(cmd.a, cmd.b) != cmd.off:
                raise InvalidCommand(f"{cmd.a} and {cmd.b} are {'not ' if cmd.off else 'already '}engaged")
            return [e.EngagementSet(a=cmd.a, b=cmd.b, engaged=not cmd.off, reason=cmd.reason)]
        case c.Damage() | c.Heal():
            return [_hp(s, cmd, dice)]
        case c.SetCondition():
            atk.known(s, cmd.who)
            if cmd.condition not in c.CONDITIONS:
                raise InvalidCommand(f"condition must be one of {', '.join(c.CONDITIONS)}")
            if cmd.present == (cmd.condition in s.live[cmd.who].conditions):
                raise InvalidCommand(f"{cmd.who} {'already is' if cmd.present else 'is not'} {cmd.condition}")
            return [e.ConditionChanged(who=cmd.who, condition=cmd.condition, present=cmd.present, reason=cmd.reason)]
        case c.Aid():
            atk.known(s, cmd.who)
            live = s.live[cmd.who]
            if live.dead or live.hp > 0 or live.aided:
                raise IllegalCommand(f"{cmd.who} is not bleeding (hp {live.hp}{', dead' if live.dead else ''})",
                                     rule="OSRIC Combat: Damage and Death")
            return [e.AidGiven(who=cmd.who, by=cmd.by)]
        case c.Morale():
            return _morale(s, cmd, dice)
        case c.Negotiate():
            atk.known(s, cmd.by)
            if not cmd.outcome.strip():
                raise InvalidCommand("say what the negotiation achieved (--outcome)")
            return [e.Negotiated(by=cmd.by, outcome=cmd.outcome, ends=cmd.ends)]
        case c.NoteAction():
            who = atk.acting(s, cmd.who, "other")
            at = atk.action_tick(s, who, 1, cmd.segment)
            return [e.ActionNoted(segment=segment_of(at, s.round), who=who, text=cmd.text)]
        case c.BreakGrapple():
            atk.known(s, cmd.who)
            if not s.live[cmd.who].restrained_by:
                raise InvalidCommand(f"{cmd.who} is not grappled")
            return [e.GrappleBroken(who=cmd.who, reason=cmd.reason)]
        case c.EndCombat():
            out = [e.RoundEnded(round=s.round)] if s.phase in ("round", "surprise") else []
            return out + [e.CombatEnded(outcome=cmd.outcome)]
    raise InvalidCommand(f"osric does not know the command {type(cmd).__name__}")


def forgone(s: OsricState, until: int | None, why: str) -> list[Event]:
    """OSRIC Combat: First Party Acts / Second Party Acts: the declared actions still due that moving the
    timeline to ``until`` (None: the round's end) passes, recorded as given up (``rules.passed_by``), so the
    log says what was not done and why rather than only that the round ended. Not in a log begun under
    version 1 of these rules, which recorded none (``OsricState.forgone_events``)."""
    if not s.forgone_events or s.phase != "round":
        return []
    out = []
    for who in r.passed_by(s, until):
        d = s.declaration(who)
        if d is not None:
            out.append(e.Forgone(who=who, action=describe_declaration(d).split(" ", 1)[1], why=why))
    return [e.ActionsForgone(round=s.round, forgone=tuple(out))] if out else []


def _surprise(s: OsricState, cmd: c.CheckSurprise, dice: DicePort) -> list[Event]:
    """OSRIC Combat: Determine Surprise: once, at the very beginning of the encounter."""
    if s.surprise_checked or s.round > 0 or s.phase != "setup":
        raise IllegalCommand("surprise is checked once, at the very beginning of an encounter", rule=SURPRISE)
    for side in cmd.alert:
        if side not in s.sides:
            raise InvalidCommand(f"no side {side!r} (sides: {', '.join(s.sides)})")
    rolls = {}
    for side in s.sides:
        if side not in cmd.alert:
            rolls[side] = dice.roll(f"surprise/{side}", "1d6", purpose=f"surprise: {side}").total
    return [e.SurpriseChecked(rolls=rolls, alert=tuple(cmd.alert))]


def _reach(s: OsricState, cmd: c.ReachSegment) -> list[Event]:
    if s.phase == "surprise":
        if not 1 <= cmd.segment <= s.surprise_len:
            raise InvalidCommand(f"the surprise lasts segments 1-{s.surprise_len}; start round 1 after them")
    elif s.phase == "round" and s.initiative:
        if not 1 <= cmd.segment <= 10:
            raise InvalidCommand("a round has segments 1 to 10")
    else:
        raise IllegalCommand("the segment timeline runs once initiative is rolled (or in surprise segments)",
                             rule=_NO_ROUND)
    if tick(s.round, cmd.segment, END if cmd.end else 0) <= s.cursor:
        raise IllegalCommand(f"the timeline is already at segment {segment_of(s.cursor, s.round)}", rule=_NO_ROUND)
    if cmd.end and s.phase == "surprise":
        raise InvalidCommand("surprise segments have no separate end; move to the next segment")
    return [e.SegmentReached(segment=cmd.segment, end=cmd.end)]


def _declare(s: OsricState, cmd: c.Declare) -> e.ActionsDeclared:
    """OSRIC Combat: Declare Spells and General Actions: before initiative, one declaration per able member."""
    dc.check_open(s, cmd.side)
    if s.pinned:
        who = dc.caller(s, cmd.side) or f"the caller of {cmd.side}"
        raise IllegalCommand(f"this combat pins its players, so declarations are sealed: {who} runs osric declare "
                             f"STREAM {cmd.side} WHO=ACTION ... --seal, then osric reveal STREAM", rule=dc.SEALED)
    step = s.sealed.get(dc.step_name(s.round))
    if step is not None and dc.caller(s, cmd.side) in step.committed:
        raise IllegalCommand(f"{cmd.side}'s declarations are sealed in step {step.step}: its caller reveals them "
                             "(osric reveal STREAM)", rule=dc.SEALED)
    decls = dc.resolve_declarations(s, cmd.side, cmd.declarations, cmd.rest)
    return e.ActionsDeclared(round=s.round, side=cmd.side, declarations=decls)


def _initiative(s: OsricState, dice: DicePort) -> list[Event]:
    """OSRIC Combat: Determine Initiative: d6 per side once both sides have declared."""
    if s.phase != "round":
        raise IllegalCommand("initiative opens a round: start one first (osric round)", rule=_NO_ROUND)
    if s.initiative:
        raise IllegalCommand(f"initiative for round {s.round} is already rolled", rule=_NO_ROUND)
    missing = [x for x in s.sides if dc.must_declare(s, x)]
    if missing:
        raise IllegalCommand(f"{', '.join(missing)} must declare first (spells and general actions come before "
                             "initiative)", rule=DECLARE)
    rolls = {x: dice.roll(f"r{s.round}/initiative/{x}", "1d6", purpose=f"initiative: {x}").total for x in s.sides}
    return [e.InitiativeRolled(round=s.round, rolls=rolls)]


def _cast(s: OsricState, cmd: c.Cast) -> list[Event]:
    """OSRIC Combat: Spells: casting begins in the caster's initiative segment; only the declared spell."""
    who = atk.acting(s, cmd.who, "spell")
    live = s.live[who]
    if live.casting is not None and live.casting.status == "casting":
        raise IllegalCommand(f"{who} is already casting {live.casting.spell}", rule=r.SPELLS)
    if s.round == 0:
        if not cmd.spell or cmd.casting != 1:
            raise IllegalCommand("in a surprise segment only a spell of one segment can be begun; give --spell and "
                                 "--segments 1", rule="OSRIC Combat: Determine Surprise (surprise segments)")
        spell, casting = cmd.spell, 1
    else:
        d = s.declaration(who)
        if d is None or d.action != "spell":
            raise IllegalCommand(f"{who} did not declare a spell this round", rule=DECLARE)
        if cmd.spell and cmd.spell != d.spell:
            raise IllegalCommand(f"{who} declared {d.spell}: a caster may decline but not switch spells", rule=DECLARE)
        if live.casting is not None and live.casting.round == s.round:
            raise IllegalCommand(f"{who} already cast this round", rule=r.SPELLS)
        spell, casting = d.spell, d.casting
    at = atk.action_tick(s, who, 1, cmd.segment)
    return [e.CastingBegun(segment=segment_of(at, s.round), who=who, spell=spell, casting=casting)]


def _decline(s: OsricState, cmd: c.Decline) -> list[Event]:
    """OSRIC Combat: Declare Spells and General Actions: a caster may decline to complete the spell."""
    atk.known(s, cmd.who)
    live = s.live[cmd.who]
    casting = live.casting is not None and live.casting.status == "casting"
    d = s.declaration(cmd.who) if s.round else None
    declared = d is not None and d.action == "spell" and (live.casting is None or live.casting.round != s.round)
    if not casting and not declared:
        raise IllegalCommand(f"{cmd.who} has no spell to decline", rule=DECLARE)
    if s.phase != "round":
        raise IllegalCommand("spells are declined during a round", rule=DECLARE)
    seg = max(1, segment_of(s.cursor, s.round)) if s.initiative else 1
    return [e.SpellDeclined(who=cmd.who, segment=min(seg, 10))]


def _hp(s: OsricState, cmd: c.Damage | c.Heal, dice: DicePort) -> Event:
    atk.known(s, cmd.who)
    heal = isinstance(cmd, c.Heal)
    text = cmd.amount.strip()
    label = ""
    if _PLAIN.match(text):
        amount = plain_amount(text)
    else:
        kind = "heal" if heal else "damage"
        label = dice.rule_label(f"r{s.round}/{kind}/{cmd.who}", cmd.label)
        amount = max(0, dice.roll(label, text, purpose=cmd.source or kind).total)
    if amount <= 0 and not label:
        raise InvalidCommand("give a positive amount")
    if s.live[cmd.who].dead:
        raise IllegalCommand(f"{cmd.who} is dead", rule="OSRIC Combat: Damage and Death")
    if heal:
        return e.HealingApplied(who=cmd.who, amount=amount, source=cmd.source, label=label)
    return e.DamageApplied(who=cmd.who, amount=amount, source=cmd.source, label=label)


def plain_amount(text: str) -> int:
    """A typed number of hit points, 1 to MAX_AMOUNT (refused up front: a larger one would be logged)."""
    digits = text.lstrip("+").lstrip("0") or "0"
    if len(digits) > len(str(MAX_AMOUNT)) or not 1 <= int(digits) <= MAX_AMOUNT:
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise InvalidCommand(f"amount {shown}: give a whole number from 1 to {MAX_AMOUNT} (hit points run from -10 "
                             "to 9999), or dice such as 2d6")
    return int(digits)


def _morale(s: OsricState, cmd: c.Morale, dice: DicePort) -> list[Event]:
    """OSRIC Combat: Morale: monsters (never player characters), at most two checks a battle."""
    if not cmd.who:
        raise InvalidCommand("name who checks morale")
    if len(set(cmd.who)) != len(cmd.who):
        raise InvalidCommand("name each combatant once (one morale check each)")
    if not -100 <= cmd.modifier <= 100:
        raise InvalidCommand(f"--modifier {cmd.modifier}: a percent from -100 to 100 (the morale chance is a d100)")
    out: list[Event] = []
    for who in cmd.who:
        atk.known(s, who)
        x, live = s.roster[who], s.live[who]
        if x.kind == "character" and x.pc:
            raise IllegalCommand(f"{who} is a player character: PCs never check morale", rule=MORALE)
        if not s.standing(who):
            raise IllegalCommand(f"{who} is out of the fight", rule=MORALE)
        if live.morale == "to_death" or live.morale_checks >= 2:
            raise IllegalCommand(f"{who} has made its two morale checks this battle", rule=MORALE)
        label = dice.next_label(f"r{s.round}/morale/{who}")
        roll = dice.roll(label, "1d100", purpose=f"morale: {who}").total
        out.append(e.MoraleChecked(who=who, roll=roll, modifier=cmd.modifier, label=label, reason=cmd.reason))
    return out


able = dc.able

__all__ = ["decide", "able", "TABLE"]
