"""Declarations: validation, sealing with the trust layer, and concealment from the other side.

OSRIC Combat: Declare Spells and General Actions: before initiative every caster names his spell
and everyone else says in general terms what he will do; "monsters' actions are not to be tailored
to the players' declared actions" (the step's notes). Two ways to keep a side from tailoring:

- *Hot seat / a referee's own log* (no pinned players): ``osric declare`` appends one
  ``osric.actions_declared`` per side in clear; ``conceals`` hides it from viewers of the other side
  until every side has declared for that round.
- *Pinned players* (the trust layer): a side's caller commits the side's declarations to the sealed
  step ``r<N>/declare`` (only a hash enters the log) and reveals once every required commit is in;
  the revealed orders *are* that side's declarations (``evolve`` applies them; the plain ``declare``
  is refused so nothing travels in clear).

Who plays which side: the set-up's ``players`` (``{"party": ["alice", "carol"], "orcs": ["bob"]}``);
the first player named for a side is its *caller*, who commits its declarations. Decision: without
``players``, a player whose name is a side's name plays that side (``--as party``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.events.core import OrdersCommitted, OrdersRevealed
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric.entries import DECLARE, declares, describe_declaration
from combatlog.rulesets.osric.entries import log_entry as _log
from combatlog.rulesets.osric.state import OsricState
from combatlog.trust.api import RefusedAtReveal, track_sealed

SEALED = "OSRIC Combat: Declare Spells and General Actions (sealed by the trust layer)"
_STEP = re.compile(r"^r([0-9]{1,6})/declare$")
_ORDER_KEYS = {"side", "declarations", "rest"}


# -- steps, sides and players ------------------------------------------------------------------


def step_name(round_no: int) -> str:
    """The sealed step of a round's declarations (deterministic: ``r3/declare``)."""
    return f"r{round_no}/declare"


def step_round(step: str) -> int | None:
    m = _STEP.match(step)
    return int(m.group(1)) if m else None


def caller(s: OsricState, side: str) -> str:
    """The player who commits ``side``'s declarations: the first named for it in the set-up."""
    players = s.players.get(side, ())
    return players[0] if players else ""


def sides_of(s: OsricState, player: str) -> list[str]:
    return [side for side, players in s.players.items() if player in players]


def able(s: OsricState, name: str) -> bool:
    """Can act this round: standing, not restrained, not asleep or held."""
    live = s.live[name]
    return s.standing(name) and not live.restrained_by and not any(x in live.conditions for x in ("sleeping", "held"))


def must_declare(s: OsricState, side: str) -> bool:
    """``side`` still owes its declarations for the open round (it has a member able to act)."""
    return (s.phase == "round" and not s.initiative and side not in s.declared
            and any(able(s, n) for n, x in s.roster.items() if x.side == side))


# -- validation (the same rules for a plain declaration, a commit and a reveal) ---------------


def resolve_declarations(s: OsricState, side: str, given: tuple[e.Declaration, ...], rest: str = "",
                         problems: list[str] | None = None,
                         faults: list[InvalidCommand | IllegalCommand] | None = None) -> tuple[e.Declaration, ...]:
    """OSRIC Combat: Declare Spells and General Actions: one declaration per able member of ``side``.

    Strict (``problems`` None): raise on the first fault, naming the rule. Lenient (a list; for
    revealed sealed orders, whose commit only the committing machine checked, or whose members'
    state changed since): a faulty declaration is dropped and noted, an able member without one
    declares ``none``, and a caster still casting continues. ``faults`` (lenient only) collects each
    fault as its error, for the check before sealing (``check_orders``).
    """
    def fault(exc: InvalidCommand | IllegalCommand) -> None:
        if problems is None:
            raise exc
        problems.append(exc.message)
        if faults is not None:
            faults.append(exc)

    members = [n for n, x in s.roster.items() if x.side == side and able(s, n)]
    decls: dict[str, e.Declaration] = {}
    for d in given:
        if d.who not in s.roster or s.roster[d.who].side != side:
            fault(InvalidCommand(f"{d.who} is not on side {side} (members: {', '.join(members)})"))
        elif d.who not in members:
            fault(IllegalCommand(f"{d.who} cannot act (down, fled, restrained or asleep)", rule=DECLARE))
        elif d.who in decls:
            fault(InvalidCommand(f"{d.who} is declared twice"))
        else:
            decls[d.who] = d
    if rest:
        if rest not in c.ACTIONS or rest in ("spell", "other", "continue"):
            fault(InvalidCommand(f"--rest must be a simple action such as melee (got {rest!r})"))
        else:
            for n in members:
                decls.setdefault(n, e.Declaration(who=n, action=rest))
    for n in members:
        cast = s.live[n].casting
        d = decls.get(n)
        if cast is not None and cast.status == "casting":
            if d is not None and d.action != "continue":
                fault(IllegalCommand(f"{n} is still casting {cast.spell}; declare continue (or decline later)",
                                     rule=DECLARE))
            decls[n] = e.Declaration(who=n, action="continue", spell=cast.spell, casting=cast.casting)
            continue
        if d is None:
            if problems is None:
                raise InvalidCommand(f"declare an action for {n} (or use --rest ACTION for everyone not listed)")
            problems.append(f"{n} has no declaration: none")
            if faults is not None:
                faults.append(InvalidCommand(f"declare an action for {n} (or use --rest ACTION for everyone not "
                                             "listed)"))
            decls[n] = e.Declaration(who=n, action="none")
            continue
        if d.action == "continue":
            fault(IllegalCommand(f"{n} is not casting anything to continue", rule=DECLARE))
            decls[n] = e.Declaration(who=n, action="none")
            continue
        try:
            check_declaration(s, d)
        except (InvalidCommand, IllegalCommand) as exc:
            fault(exc)
            decls[n] = e.Declaration(who=n, action="none")
            continue
        why = drawn_target(s, d)
        if why:
            if problems is None:
                raise TargetDrawn(why)
            # lenient (a revealed order): the action stands, without the target the rules would ignore
            problems.append(f"{why}: {n}'s {d.action} stands without the target")
            if faults is not None:
                faults.append(TargetDrawn(why))
            decls[n] = msgspec.structs.replace(d, target="")
    return tuple(decls[n] for n in members)


# The declared actions whose attack (``osric attack``, ``osric grapple``) takes its target from the
# opponents engaged (``attacks.choose_target``), drawn among several under melee_target=random.
DRAWN = ("melee", "unarmed", "grapple")
RANDOM_TARGET = f"{r.MELEE} (option melee_target=random)"


class TargetDrawn(IllegalCommand):
    """A declared target the attack would not strike under melee_target=random (``drawn_target``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, rule=RANDOM_TARGET)


def drawn_target(s: OsricState, d: e.Declaration) -> str:
    """Why ``d`` may not name its target (empty when it may).

    Under the option melee_target=random (the default) the target of a melee attack is not chosen:
    "When facing multiple opponents, the target of the attack is determined randomly" (seed 003 "Melee
    Attack"; reference osric.md: "Against multiple opponents the target is random"), and against one
    opponent it is that one. Neither text lets a declaration choose, so a declared target is accepted
    only where it says what the attack will do: the declarer is engaged with that opponent alone (or
    with nobody yet). Declared against several opponents engaged, or another than the one engaged, it
    would be shown and then ignored, so it is refused. A target that is no standing opponent is left
    to ``foresee``; a charge, a close or an overbearing attack names its target, and keeps it."""
    if not d.target or d.action not in DRAWN or s.options.get("melee_target", "random") != "random":
        return ""
    if s.revision == "1":  # version 1 (OsricState.revision) took the declared target as it was given
        return ""
    if s.roster[d.target].side == s.roster[d.who].side or not s.standing(d.target):
        return ""
    opps = s.opponents_engaged(d.who)
    if not opps or opps == [d.target]:
        return ""
    arg = f":{d.weapon}" if d.weapon else ""
    facing = (f"faces {', '.join(opps)}: the target of its {d.action} attack is drawn among them"
              if len(opps) > 1 else f"is engaged with {opps[0]} alone: its {d.action} attack strikes {opps[0]}")
    return (f"{d.who}={d.action}{arg}@{d.target}: under the option melee_target=random (the default) the target "
            f"is random, not declared; {d.who} {facing}. Declare {d.who}={d.action}{arg}, or create the "
            "combat with --option melee_target=declared")


def check_declaration(s: OsricState, d: e.Declaration) -> None:
    """One declaration against the combatant (weapons carried, set weapons, a charge the rules allow)."""
    from combatlog.rulesets.osric import tables as t

    x = s.roster[d.who]
    if d.action not in c.ACTIONS:
        raise InvalidCommand(f"{d.who}: action must be one of {', '.join(c.ACTIONS)}")
    if d.action == "spell" and (not d.spell or d.casting < 1):
        raise InvalidCommand(f"{d.who}: a spell needs its name and casting time (spell:NAME:SEGMENTS)")
    if d.target and d.target not in s.roster:
        raise InvalidCommand(f"{d.who}'s target {d.target!r} is not in the combat")
    if d.weapon:
        name = t.canonical_weapon(d.weapon)
        if name not in [w.name for w in x.weapons] and name != "unarmed":
            raise InvalidCommand(f"{d.who} does not carry a {name}")
        if d.action == "set" and not t.weapon(name).set:
            raise IllegalCommand(f"a {name} cannot be set against a charge (spears, dismounted lances, pole arms, "
                                 "tridents)", rule=r.SET)
    if d.action == "set" and not d.weapon and not any(t.weapon(w.name).set for w in x.weapons):
        raise IllegalCommand(f"{d.who} has no weapon that can be set against a charge", rule=r.SET)
    if d.action in ("charge", "overbear"):
        check_charge(s, d.who, d.target)
    if d.action == "spell" and d.casting > 99:
        raise InvalidCommand("a casting time above 99 segments is not a combat spell")


def check_charge(s: OsricState, who: str, target: str = "") -> None:
    """What OSRIC Combat: Charge makes impossible, refused when it is declared (and again when it is
    made): "A charge action may be performed only once every 10 rounds"; a charge is a move "into
    combat" that "must end within 10 ft melee range of the target", so its target is a standing
    opponent not already within 10 ft (engaged) of the charger (OSRIC Combat: Closing into Combat:
    charging or closing is for opponents "not within 10 ft range"); and a combatant already in melee
    cannot charge out of it: leaving melee is a Fighting Retreat or Fleeing from Combat. An
    overbearing attack is made at the end of a charge, so the same holds for it."""
    last = s.live[who].last_charge
    if s.round - last < 10:
        raise IllegalCommand(f"{who} charged in round {last}: once every 10 rounds", rule=r.CHARGE)
    if target:
        if s.roster[target].side == s.roster[who].side:
            raise IllegalCommand(f"{who} cannot charge {target}, who is on the same side", rule=r.CHARGE)
        if not s.standing(target):
            raise IllegalCommand(f"{target} is out of the fight: there is nobody to charge", rule=r.CHARGE)
        if s.is_engaged(who, target):
            raise IllegalCommand(f"{who} is already within 10 ft of {target} (engaged): a charge needs room to "
                                 "move in; attack instead", rule=r.CHARGE)
    melee = s.opponents_engaged(who)
    if melee:
        raise IllegalCommand(f"{who} is in melee with {', '.join(melee)} and cannot charge out of it (leaving melee "
                             "is a fighting retreat or a flight: OSRIC Combat: Fighting Retreat, Fleeing from "
                             "Combat)", rule=r.CHARGE)


# -- sealed orders: what a commit holds, who must commit, the trust layer's hooks --------------


def orders_for(s: OsricState, side: str, given: tuple[e.Declaration, ...], rest: str = "") -> dict[str, Any]:
    """The orders a caller seals: ``side``'s declarations resolved now (``--rest`` expanded, casters
    still casting continuing), each without its empty fields. Raises like ``osric declare``."""
    check_open(s, side)
    decls = resolve_declarations(s, side, given, rest)
    return {"side": side, "declarations": [
        {k: v for k, v in msgspec.structs.asdict(d).items() if v not in ("", 0)} for d in decls]}


def raw_orders(side: str, given: tuple[e.Declaration, ...], rest: str = "") -> dict[str, Any]:
    """The orders as the caller wrote them, unresolved (sealed ``--anyway``): the reveal resolves them
    by the rules, leniently, as it does any revealed declarations."""
    out: dict[str, Any] = {"side": side, "declarations": [
        {k: v for k, v in msgspec.structs.asdict(d).items() if v not in ("", 0)} for d in given]}
    if rest:
        out["rest"] = rest
    return out


def check_open(s: OsricState, side: str) -> None:
    if s.phase != "round":
        raise IllegalCommand("declarations open a round: start one first (osric round)", rule=DECLARE)
    if s.initiative:
        raise IllegalCommand("initiative is rolled: declarations are closed for this round", rule=DECLARE)
    if side not in s.sides:
        raise InvalidCommand(f"no side {side!r} (sides: {', '.join(s.sides)})")
    if side in s.declared:
        raise IllegalCommand(f"{side} has already declared for round {s.round}", rule=DECLARE)


def sealed_required(s: OsricState, step: str) -> tuple[str, ...]:
    """Who commits to ``r<N>/declare``: the caller of every side that owes declarations; with joint
    dice every pinned player (so that the step seeds the round's dice: its initiative dice come
    from it). Decision: a pinned player on no side (a referee) commits an empty order then."""
    if step_round(step) is None:
        return ()
    if s.joint and s.pinned:
        return s.pinned
    out: list[str] = []
    for side in s.sides:
        if not must_declare(s, side):
            continue
        who = caller(s, side)
        if not who or (s.pinned and who not in s.pinned):
            raise InvalidCommand(f"side {side} has no pinned player to declare for it: name its players in the "
                                 f"set-up, e.g. \"players\": {{\"{side}\": [\"alice\"]}}")
        out.append(who)
    return tuple(dict.fromkeys(out))


def _decode(orders: dict[str, Any]) -> tuple[str, tuple[e.Declaration, ...], str]:
    unknown = set(orders) - _ORDER_KEYS
    if unknown:
        raise InvalidCommand(f"declaration orders hold only side, declarations, rest (not {sorted(unknown)})")
    try:
        given = msgspec.convert(orders.get("declarations", []), tuple[e.Declaration, ...])
    except msgspec.ValidationError as exc:
        raise InvalidCommand(f"declaration orders: {exc}") from None
    return str(orders.get("side", "")), given, str(orders.get("rest", ""))


def foresee(s: OsricState, d: e.Declaration) -> list[tuple[str, str]]:
    """What the rules will refuse later of a declaration that is itself valid, knowable before sealing:
    the action commands of the round (``osric shoot``, ``attack``, ``grapple``) apply these rules to the
    declared action, so a player told only then would have sealed a round he cannot play.

    - OSRIC Combat: Missile Attacks: a missile attack needs a missile or throwing weapon ("performed with
      ranged weapons like crossbows, slings, or thrown axes"): ``osric shoot`` refuses one without it;
    - OSRIC Combat: Melee Attack: an attack's target is an opponent still in the fight (``opponent``);
    - OSRIC Combat: Morale: a combatant that failed morale must flee, or makes a fighting withdrawal and
      may parry but not attack (``acting``)."""
    from combatlog.rulesets.osric import tables as t

    out: list[tuple[str, str]] = []
    x, live = s.roster[d.who], s.live[d.who]
    attack = d.action in ("melee", "missile", "grapple", "overbear", "unarmed", "charge")
    if d.action == "missile":
        if d.weapon:
            w = t.weapon(t.canonical_weapon(d.weapon))
            if not (w.missile or w.thrown):
                out.append((f"{d.who}: a {w.name} is not a missile or throwing weapon: osric shoot will refuse it",
                            r.MISSILES))
        elif not any(t.weapon(w.name).missile or t.weapon(w.name).thrown for w in x.weapons):
            out.append((f"{d.who} carries no missile or throwing weapon ({', '.join(w.name for w in x.weapons) or 'none'}): "
                        "osric shoot will refuse the missile attack", r.MISSILES))
    if attack and d.target and d.action not in ("charge", "overbear"):  # a charge's target: check_charge
        if s.roster[d.target].side == x.side:
            out.append((f"{d.who}'s target {d.target} is on its own side: the attack will be refused", r.MELEE))
        elif not s.standing(d.target):
            out.append((f"{d.who}'s target {d.target} is out of the fight: the attack will be refused", r.DEATH))
    if live.morale == "flee" and d.action not in ("flee", "other", "none"):
        out.append((f"{d.who} failed morale and must flee: {d.action} will be refused", r.MORALE))
    elif live.morale == "withdraw" and attack:
        out.append((f"{d.who} is making a fighting withdrawal (morale): it may parry, not attack; {d.action} will "
                    "be refused", r.MORALE))
    return out


def check_orders(s: OsricState, step: str, player: str, orders: dict[str, Any]) -> None:
    """Refuse a commit to ``r<N>/declare`` that ``osric declare`` would refuse (with the rule).

    Orders for a closed round, another side or malformed ones are refused outright. A declaration that
    the reveal would drop (``resolve_declarations``: a member who cannot act, a caster who must continue,
    a weapon that cannot be set, a charge the rules forbid) or that the round's actions would refuse
    (``foresee``) is refused as ``RefusedAtReveal``, each with its rule; the caller may seal it anyway."""
    n = step_round(step)
    if n is None:
        return
    if s.phase != "round" or n != s.round:
        raise IllegalCommand(f"step {step} is not the open round's declarations (now: round {s.round}"
                             + (f", step {step_name(s.round)})" if s.phase == "round" else ", no round open)"),
                             rule=DECLARE)
    if s.initiative:
        raise IllegalCommand("initiative is rolled: declarations are closed for this round", rule=DECLARE)
    if not orders:
        due = [x for x in s.sides if caller(s, x) == player and must_declare(s, x)]
        if due:
            raise IllegalCommand(f"{player} is the caller of {due[0]}: commit its declarations "
                                 f"(osric declare STREAM {due[0]} WHO=ACTION ... --seal)", rule=SEALED)
        return  # a nonce for the round's joint dice
    side, given, rest = _decode(orders)
    check_open(s, side)
    if caller(s, side) != player:
        raise IllegalCommand(f"{player} does not declare for {side}; its caller is {caller(s, side) or 'nobody'} "
                             "(the first of its players in the set-up)", rule=SEALED)
    faults: list[InvalidCommand | IllegalCommand] = []
    decls = resolve_declarations(s, side, given, rest, [], faults)
    hard = [f for f in faults if not isinstance(f, IllegalCommand)]
    if hard:
        raise hard[0]
    problems = [(f.message.removesuffix(f" ({f.rule})") + (": the reveal would drop the target"
                                                           if isinstance(f, TargetDrawn) else
                                                           ": the reveal would make it none"), f.rule)
                for f in faults if isinstance(f, IllegalCommand)]
    faulty = {d.who for d in given} - {d.who for d in decls if d in given}
    for d in decls:
        if d.who not in faulty:
            problems.extend(foresee(s, d))
    if problems:
        raise RefusedAtReveal(problems)


def evolve_sealed(s: OsricState, ev: Event, seq: int) -> OsricState:
    """Track the round's declaration step; a reveal becomes that side's declarations (leniently:
    only the committing machine checked the orders, and the state may have moved since)."""
    if not isinstance(ev, (OrdersCommitted, OrdersRevealed)):
        return s
    n = step_round(ev.step)
    if n is None:
        return s
    s = msgspec.structs.replace(s, sealed=track_sealed(dict(s.sealed), ev))
    if isinstance(ev, OrdersCommitted) or not ev.orders:
        return s
    try:
        side, given, rest = _decode(dict(ev.orders))
    except InvalidCommand as exc:
        return _log(s, seq, f"{ev.player}'s revealed orders for {ev.step} are void: {exc.message}", SEALED)
    why = ("it names no side of this combat" if side not in s.sides else
           f"{ev.player} is not the caller of {side}" if caller(s, side) != ev.player else
           f"{side} has already declared" if side in s.declared else
           "they are not for the open round" if n != s.round or s.phase != "round" or s.initiative else "")
    if why:
        return _log(s, seq, f"{ev.player}'s revealed orders for {ev.step} are void: {why}", SEALED)
    problems: list[str] = []
    decls = resolve_declarations(s, side, given, rest, problems)
    return record(s, side, decls, seq, problems, sealed=True)


def record(s: OsricState, side: str, decls: tuple[e.Declaration, ...], seq: int, problems: tuple[str, ...] |
           list[str] = (), *, sealed: bool = False) -> OsricState:
    """``side``'s declarations for the round, logged as entries secret to ``side`` until all are in."""
    s = msgspec.structs.replace(s, declared={**s.declared, side: decls})
    for text in problems:
        s = _log(s, seq, f"{side}'s sealed declarations: {text}", SEALED, side=side)
    how = " (sealed, revealed)" if sealed else ""
    for d in decls:
        s = _log(s, seq, f"{declares(side)}{how}: {describe_declaration(d)}", DECLARE, side=side)
    return s


# -- concealment ------------------------------------------------------------------------------


def hidden(s: OsricState, side: str, round_no: int, viewer: str | None) -> bool:
    """A side's declarations for the open round are hidden from a viewer not playing that side until
    every side has declared (``viewer`` None: the referee or hot-seat table, who sees everything)."""
    if viewer is None or viewer in s.players.get(side, ()):
        return False
    return round_no == s.round and any(must_declare(s, x) for x in s.sides)


def conceals(event: Event, s: OsricState, viewer: str | None) -> bool:
    if isinstance(event, e.ActionsDeclared):
        return hidden(s, event.side, event.round, viewer)
    if isinstance(event, OrdersRevealed) and event.orders:
        n = step_round(event.step)
        side = event.orders.get("side")
        return n is not None and isinstance(side, str) and hidden(s, side, n, viewer)
    return False
