"""The OSRIC moves worth proposing (``Ruleset.candidates``); commands/legal.py keeps those that the write
path's authority check and ``decide`` accept, so nothing here judges legality: it proposes.

What is proposed, each with every argument filled in and its argv exactly as ``combatlog osric ...``
parses it (cli/rulesets/osric.py):

- the procedure: check surprise (no side alert, or each side alert), start a round, the next surprise
  segment, roll initiative, the next segment of a round and the end of the current one (and the end of
  segment 10), end the round, end the combat (each side holding the field, or the fight broken off);
- declarations, per side: ``--rest ACTION`` for every simple action, and each able member's every action
  (melee, unarmed, each missile weapon at each opponent, charge/close/grapple/overbear each opponent, set,
  a spell by class, parry, hold, retreat, flee, negotiate, other, none) with ``--rest melee`` for the
  others. The cross product of every member's actions is far too large, so each proposal varies one
  member; every action of every member is still proposed. With pinned players the declarations are sealed
  (``osric declare ... --seal`` is ``CommitOrders``), the nonce (``osric seed``) and the reveal
  (``osric reveal``) are proposed too (the ruleset's ``seals_orders``);
- each combatant's actions at the earliest segment allowed (``--segment`` left out): attack (default
  target, each opponent, each carried weapon, unarmed, from the rear or the flank, two-weapon with a
  carried dagger or hand axe), shoot each missile or throwing weapon at each opponent at its short and its
  long range, cast (a surprise segment: a one-segment spell by class), decline, charge (and overbear) each
  opponent, close with each, retreat, flee, grapple (default target and each opponent), a general action in
  words, assassinate each opponent at 50%, break free;
- the referee's rulings: 1d6 damage, 1d4 healing, each condition on or off, each cross-side engagement
  made or broken, each monster's morale at -10, 0 and +10% (and each side's monsters together at 0), aid
  to each combatant by each standing ally, a negotiation by each combatant (not ending the fight: ``osric end`` is
  proposed for that).

Not enumerated: the referee's free numbers beyond those samples (``--mod`` -100..100 on an attack, other
damage dice, morale modifiers, an assassination chance other than 50), a named ``--segment`` later than the
earliest, cover and concealment, free texts (a general action, a negotiation's outcome) beyond one example,
and ``--skip`` of a fleeing combatant's free attacks: each is a number or a text the player types, whose
every value decide treats alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.base import Candidate
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric import tables as t
from combatlog.rulesets.osric.declare import able, must_declare, orders_for, raw_orders, step_name
from combatlog.rulesets.osric.state import OsricState, segment_of, tick

# A spell for each casting class (name, casting segments): one short, one longer where the class has both.
SPELLS = {"magic-user": (("sleep", 1), ("magic missile", 1)), "illusionist": (("colour spray", 1),),
          "cleric": (("command", 1), ("cure light wounds", 5)), "druid": (("entangle", 4),)}
_REST = ("melee", "parry", "hold", "none", "retreat", "flee", "unarmed", "negotiate")
_CONDITIONS = c.CONDITIONS


def candidates(s: OsricState, stream: str) -> Iterator[Candidate]:
    if s.ended:
        return
    yield from _procedure(s, stream)
    if s.phase == "round" and not s.initiative:
        yield from _declarations(s, stream)
    if s.phase == "surprise" or (s.phase == "round" and s.initiative):
        for name in s.roster:
            yield from _actions(s, stream, name)
    yield from _rulings(s, stream)


def _cand(command: Any, text: str, *words: str, piece: str = "") -> Candidate:
    return Candidate(command=command, argv=("osric", *words), text=text, piece=piece)


def _procedure(s: OsricState, stream: str) -> Iterator[Candidate]:
    if s.phase == "setup":
        yield _cand(c.CheckSurprise(), "check surprise", "surprise", stream)
        for side in s.sides:
            yield _cand(c.CheckSurprise(alert=(side,)), f"check surprise, {side} already alert",
                        "surprise", stream, "--alert", side)
    if s.phase == "surprise":
        seg = segment_of(s.cursor, 0)
        yield _cand(c.ReachSegment(segment=seg + 1), f"move to surprise segment {seg + 1}", "segment", stream,
                    str(seg + 1))
    if s.phase == "round" and not s.initiative:
        yield _cand(c.RollInitiative(), f"roll initiative for round {s.round}", "initiative", stream)
    if s.phase == "round" and s.initiative:
        seg = segment_of(s.cursor, s.round) if s.cursor >= tick(s.round, 1) else 0
        if seg < 10:
            yield _cand(c.ReachSegment(segment=seg + 1), f"move the timeline to segment {seg + 1}", "segment",
                        stream, str(seg + 1))
        for n in sorted({max(seg, 1), 10}):
            yield _cand(c.ReachSegment(segment=n, end=True), f"move the timeline to the end of segment {n}",
                        "segment", stream, str(n), "--end")
    if s.phase in ("setup", "surprise", "round", "between"):
        yield _cand(c.StartRound(), f"start round {s.round + 1}", "round", stream)
    if s.phase in ("round", "surprise"):
        what = f"round {s.round}" if s.phase == "round" else "the surprise segments"
        yield _cand(c.EndRound(), f"end {what}", "end-round", stream)
    holding = [side for side in s.sides if any(s.standing(n) for n, x in s.roster.items() if x.side == side)]
    for outcome in [f"{side} hold the field" for side in holding] + ["the fight is broken off"]:
        yield _cand(c.EndCombat(outcome=outcome), f"end the combat: {outcome}", "end", stream, "--outcome", outcome)


# -- declarations ---------------------------------------------------------------------------------------


def _opponents(s: OsricState, name: str) -> list[str]:
    side = s.roster[name].side
    return [n for n, x in s.roster.items() if x.side != side and s.standing(n)]


def _weapon_data(name: str) -> t.WeaponData | None:
    try:
        return t.weapon(t.canonical_weapon(name))
    except (InvalidCommand, KeyError):
        return None


def _missile_weapons(s: OsricState, name: str) -> list[tuple[str, t.Missile]]:
    out = []
    for w in s.roster[name].weapons:
        data = _weapon_data(w.name)
        m = data and (data.missile or data.thrown)
        if m:
            out.append((w.name, m))
    return out


def _member_entries(s: OsricState, name: str) -> Iterator[str]:
    """Every declaration worth proposing for ``name``, as ``osric declare`` takes it (WHO=ACTION...)."""
    x = s.roster[name]
    opps = _opponents(s, name)
    yield f"{name}=melee"
    for o in opps:
        yield f"{name}=melee@{o}"
    for weapon, _m in _missile_weapons(s, name):
        for o in opps:
            yield f"{name}=missile:{weapon}@{o}"
    for action in ("charge", "close", "grapple", "overbear"):
        for o in opps:
            yield f"{name}={action}@{o}"
    if any((d := _weapon_data(w.name)) is not None and d.set for w in x.weapons):
        yield f"{name}=set"
    for spell, segments in SPELLS.get(x.cls, ()) if x.kind == "character" else ():
        yield f"{name}=spell:{spell}:{segments}"
    for action in ("unarmed", "parry", "hold", "retreat", "flee", "negotiate", "none"):
        yield f"{name}={action}"
    yield f"{name}=other:shouts for help"


def _declarations(s: OsricState, stream: str) -> Iterator[Candidate]:
    if s.pinned:
        yield from _sealed(s, stream)
    for side in s.sides:
        if not must_declare(s, side):
            continue
        members = [n for n, x in s.roster.items() if x.side == side and able(s, n)
                   and not ((cast := s.live[n].casting) is not None and cast.status == "casting")]
        for rest in _REST:
            yield from _declare(s, stream, side, (), rest)
        for n in members:
            for entry in _member_entries(s, n):
                yield from _declare(s, stream, side, (entry,), "melee" if len(members) > 1 else "")


def _declare(s: OsricState, stream: str, side: str, entries: tuple[str, ...], rest: str) -> Iterator[Candidate]:
    decls = tuple(c.parse_declaration(x) for x in entries)
    words = ("declare", stream, side, *entries, *(("--rest", rest) if rest else ()))
    said = ", ".join(entries) + (f", the rest {rest}" if entries and rest else f"all {rest}" if rest else "")
    if not s.pinned:
        yield _cand(c.Declare(side=side, declarations=decls, rest=rest), f"{side} declare: {said}", *words,
                    piece=side)
        return
    from combatlog.trust.api import CommitOrders

    try:  # exactly as ``osric declare --seal`` builds the orders
        orders = orders_for(s, side, decls, rest)
    except IllegalCommand:
        orders = raw_orders(side, decls, rest)
    except InvalidCommand:
        return
    yield _cand(CommitOrders(step=step_name(s.round), orders=orders), f"{side} seal their declarations: {said}",
                *words, "--seal", piece=side)


def _sealed(s: OsricState, stream: str) -> Iterator[Candidate]:
    """The nonce and the reveal of the round's sealed declaration step (the trust layer decides who may)."""
    from combatlog.trust.api import CommitOrders, RevealOrders

    name = step_name(s.round)  # (one group: status gives the sealed step's moves apart from the others)
    yield Candidate(command=CommitOrders(step=name), argv=("osric", "seed", stream),
                    text=f"commit a nonce to {name} for the round's dice", group=f"seal:{name}")
    yield Candidate(command=RevealOrders(step=name), argv=("osric", "reveal", stream),
                    text=f"reveal the sealed declarations of {name}", group=f"seal:{name}")


# -- a combatant's actions --------------------------------------------------------------------------------


def _actions(s: OsricState, stream: str, n: str) -> Iterator[Candidate]:  # noqa: C901 - one list
    x = s.roster[n]
    opps = _opponents(s, n)

    def act(command: Any, text: str, *words: str) -> Candidate:
        return _cand(command, f"{n} {text}", *words, piece=n)

    yield act(c.Attack(who=n), "attacks", "attack", stream, n)
    for o in opps:
        yield act(c.Attack(who=n, target=o), f"attacks {o}", "attack", stream, n, "--target", o)
    melee = [w.name for w in x.weapons if (d := _weapon_data(w.name)) is not None and d.melee]
    forms = [a.name for a in x.attacks] if len(x.attacks) > 1 else []
    for w in [*melee[1:], *forms, "unarmed"]:
        yield act(c.Attack(who=n, weapon=w), f"attacks with {w}", "attack", stream, n, "--weapon", w)
    for flag in ("rear", "flank"):
        yield act(c.Attack(who=n, flags=(flag,)), f"attacks from the {flag}", "attack", stream, n, f"--{flag}")
    for w in x.weapons:
        d = _weapon_data(w.name)
        if d is not None and d.offhand and melee and w.name != melee[0]:
            yield act(c.Attack(who=n, offhand=w.name), f"attacks with two weapons (off hand: {w.name})",
                      "attack", stream, n, "--offhand", w.name)
    for weapon, m in _missile_weapons(s, n):
        for o in opps:
            for feet, band in ((m.increment, "short"), (m.increment * 3, "long")):
                yield act(c.Shoot(who=n, target=o, weapon=weapon, range=feet),
                          f"shoots {o} with {weapon} at {band} range ({feet} ft)",
                          "shoot", stream, n, o, "--weapon", weapon, "--range", str(feet))
    if s.phase == "surprise":
        for spell, _segments in SPELLS.get(x.cls, ()) if x.kind == "character" else ():
            yield act(c.Cast(who=n, spell=spell, casting=1), f"casts {spell}", "cast", stream, n, "--spell", spell,
                      "--segments", "1")
    else:
        d = s.declaration(n)
        spell = f" {d.spell}" if d is not None and d.spell else ""
        yield act(c.Cast(who=n), f"begins casting{spell}", "cast", stream, n)
    yield act(c.Decline(who=n), "declines the spell", "decline", stream, n)
    for o in opps:
        yield act(c.Charge(who=n, target=o), f"charges {o}", "charge", stream, n, o)
        yield act(c.Charge(who=n, target=o, overbear=True), f"charges {o} to overbear", "charge", stream, n, o,
                  "--overbear")
        yield act(c.Close(who=n, target=o), f"closes with {o}", "close", stream, n, o)
    yield act(c.Retreat(who=n), "makes a fighting retreat", "retreat", stream, n)
    yield act(c.Flee(who=n), "flees", "flee", stream, n)
    yield act(c.Grapple(who=n), "grapples", "grapple", stream, n)
    for o in opps:
        yield act(c.Grapple(who=n, target=o), f"grapples {o}", "grapple", stream, n, "--target", o)
        yield act(c.Assassinate(who=n, target=o, chance=50), f"strikes the sleeping {o} (50% to kill)",
                  "assassinate", stream, n, o, "--chance", "50")
    yield act(c.NoteAction(who=n, text="shouts for help"), "shouts for help", "act", stream, n, "shouts for help")
    yield act(c.BreakGrapple(who=n), "breaks free of the grapple", "break-free", stream, n)


# -- the referee's rulings --------------------------------------------------------------------------------


def _rulings(s: OsricState, stream: str) -> Iterator[Candidate]:
    for n, x in s.roster.items():
        yield _cand(c.Damage(who=n, amount="1d6"), f"{n} takes 1d6 damage (a ruling)", "damage", stream, n, "1d6")
        yield _cand(c.Heal(who=n, amount="1d4"), f"{n} is healed 1d4 (a ruling)", "heal", stream, n, "1d4")
        for cond in _CONDITIONS:
            on = cond not in s.live[n].conditions
            yield _cand(c.SetCondition(who=n, condition=cond, present=on),
                        f"{n} {'becomes' if on else 'is no longer'} {cond} (a ruling)",
                        "condition", stream, n, cond, *(() if on else ("--off",)))
        for ally in (a for a, y in s.roster.items() if y.side == x.side and a != n and s.standing(a)):
            yield _cand(c.Aid(who=n, by=ally), f"{ally} aids {n} (a ruling)", "aid", stream, n, "--by", ally)
        if x.kind == "monster" or not x.pc:
            for mod in (-10, 0, 10):
                yield _cand(c.Morale(who=(n,), modifier=mod), f"{n} checks morale at {mod:+d}% (a ruling)",
                            "morale", stream, n, *(("--modifier", str(mod)) if mod else ()))
        outcome = f"{n} parleys"
        yield _cand(c.Negotiate(by=n, outcome=outcome), f"{n} negotiates (a ruling)", "negotiate", stream,
                    "--by", n, "--outcome", outcome)
    for side in s.sides:
        monsters = tuple(n for n, x in s.roster.items() if x.side == side and (x.kind == "monster" or not x.pc)
                         and s.standing(n))
        if len(monsters) > 1:
            yield _cand(c.Morale(who=monsters), f"{', '.join(monsters)} check morale (a ruling)", "morale", stream,
                        *monsters)
    if len(s.sides) == 2:
        a_side, b_side = s.sides
        for a in (n for n, x in s.roster.items() if x.side == a_side):
            for b in (n for n, x in s.roster.items() if x.side == b_side):
                off = s.is_engaged(a, b)
                yield _cand(c.Engage(a=a, b=b, off=off),
                            f"{a} and {b} {'are no longer' if off else 'are'} engaged (a ruling)",
                            "engage", stream, a, b, *(("--off",) if off else ()))
