"""What one player must decide now in an OSRIC combat, with the command to paste (``status --mine``).

A player plays the sides the set-up's ``players`` gives him (without ``players``, the side named like
him); the first player of a side is its caller, who seals its declarations. A side no player plays is
the referee's (anyone's in a combat without one). The referee's steps
(opening rounds, surprise, initiative, ending rounds) go to ``referee``. Words in capitals are the
player's to choose.
"""

from __future__ import annotations

from combatlog.errors import InvalidCommand
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric.declare import SEALED, able, caller, must_declare, sealed_required, sides_of, step_name
from combatlog.rulesets.osric.evolve import ROUND, SURPRISE
from combatlog.rulesets.osric.state import OsricState, segment_of
from combatlog.rulesets.osric.attacks import within_reach
from combatlog.rulesets.osric.views import pending
from combatlog.trust.api import MyMove, command_line


def my_moves(s: OsricState, player: str, stream: str, referee: bool, unplayed: bool = False) -> list[MyMove]:
    """``unplayed``: ``player`` moves the sides no player plays (the referee, or anyone without one)."""
    if s.ended:
        return []
    cmd = lambda *words: command_line(*words, actor=player)  # noqa: E731
    sides = sides_of(s, player) or ([player] if player in s.sides and not s.players else [])
    if unplayed:
        sides += [x for x in s.sides if not s.players.get(x) and x not in sides]
    out: list[MyMove] = []
    if s.phase == "round" and s.pinned and any(must_declare(s, x) for x in s.sides):
        out += _sealed(s, player, stream, cmd)
    for p in pending(s):
        if p.who in s.sides and p.who in sides:  # a side's declarations, in clear (no pinned players)
            out.append(MyMove(what=f"declare for {p.who}: {p.what}", rule=p.rule,
                              command=cmd("osric", "declare", stream, p.who, *_entries(s, p.who))))
        elif p.who in s.roster and s.roster[p.who].side in sides:
            out.append(_action(s, p.who, p.what, p.rule, stream, cmd))
    if referee:
        out += _referee(s, stream, cmd)
    return out


def _entries(s: OsricState, side: str) -> list[str]:
    """``WHO=ACTION`` for each member of ``side`` who declares (a caster still casting continues by
    himself)."""
    out = []
    for n, x in s.roster.items():
        cast = s.live[n].casting
        if x.side == side and able(s, n) and not (cast is not None and cast.status == "casting"):
            out.append(f"{n}=ACTION")
    return out


def _sealed(s: OsricState, player: str, stream: str, cmd) -> list[MyMove]:  # type: ignore[no-untyped-def]
    name = step_name(s.round)
    step = s.sealed.get(name)
    try:
        waiting = step.waiting() if step else [(p, "commit") for p in sealed_required(s, name)]
    except InvalidCommand:  # a side without a pinned caller: pending says so to the referee
        return []
    todo = dict(waiting).get(player)
    due = [x for x in s.sides if caller(s, x) == player and must_declare(s, x)]
    if todo == "commit" and due:
        return [MyMove(what=f"seal the declarations of {side} for round {s.round} (checked now as the reveal will) "
                            f"[step {name}]", rule=SEALED,
                       command=cmd("osric", "declare", stream, side, *_entries(s, side), "--seal"), step=name)
                for side in due[:1]]
    if todo == "commit":
        return [MyMove(what=f"commit a nonce to {name} for the round's dice [step {name}]", rule=SEALED,
                       command=cmd("osric", "seed", stream), step=name)]
    if todo == "reveal":
        return [MyMove(what=f"reveal your sealed declarations (every required commit is in) [step {name}]",
                       rule=SEALED, command=cmd("osric", "reveal", stream), step=name)]
    return []


def _action(s: OsricState, who: str, what: str, rule: str, stream: str, cmd) -> MyMove:  # type: ignore[no-untyped-def]
    """The command of a combatant's declared action in its segment (or in a surprise segment)."""
    d = s.declaration(who) if s.round else None
    action = d.action if d is not None else "melee"
    target = (d.target if d is not None else "") or "TARGET"
    weapon = ["--weapon", d.weapon] if d is not None and d.weapon else []
    words: list[str]
    if action in ("melee", "unarmed", "grapple") and s.round and not within_reach(s, who):
        # nobody to strike (OSRIC Combat: Melee Attack, Closing into Combat): an attack would be refused
        words = ["close", stream, who, "TARGET"]
    elif action in ("melee", "unarmed"):
        words = ["attack", stream, who, *(["--weapon", "unarmed"] if action == "unarmed" else weapon)]
    elif action == "missile":
        words = ["shoot", stream, who, target, *weapon, "--range", "FEET"]
    elif action in ("spell", "continue"):
        words = ["cast", stream, who]
    elif action in ("charge", "overbear"):
        words = ["charge", stream, who, target, *weapon] + (["--overbear"] if action == "overbear" else [])
    elif action == "grapple":
        words = ["grapple", stream, who, target]
    elif action == "close":
        words = ["close", stream, who, target]
    elif action in ("retreat", "flee"):
        words = [action, stream, who]
    else:  # other, negotiate, hold: a general action in words
        words = ["act", stream, who, "WHAT"]
    # attacks, and a flight's free attacks, roll dice (a joint die needs a seed: trust/mine.seed_first)
    dice = words[0] != "close" and action in ("melee", "unarmed", "missile", "charge", "overbear", "grapple", "flee")
    return MyMove(what=f"{who}: {what}", rule=rule, command=cmd("osric", *words), dice=dice)


def _referee(s: OsricState, stream: str, cmd) -> list[MyMove]:  # type: ignore[no-untyped-def]
    if s.phase == "setup":
        # two moves, not one with a choice: a surprise check rolls dice (with joint dice a seed step of its own,
        # ``surprise``, comes first: trust/mine.seed_first offers it in this move's place) and round 1 does not
        return [MyMove(what="start round 1 (a step of the referee's)", rule=SURPRISE, command=cmd("osric", "round", stream)),
                MyMove(what="or first check surprise (a step of the referee's)", rule=SURPRISE,
                       command=cmd("osric", "surprise", stream), dice=True, seed_step="surprise")]
    if s.phase == "surprise":
        seg = segment_of(s.cursor, 0)
        if seg < s.surprise_len:
            return [MyMove(what=f"move to surprise segment {seg + 1} (a step of the referee's)", rule=SURPRISE,
                           command=cmd("osric", "segment", stream, str(seg + 1)))]
        return [MyMove(what="start round 1 (a step of the referee's)", rule=SURPRISE, command=cmd("osric", "round", stream))]
    if s.phase == "between":
        return [MyMove(what=f"start round {s.round + 1}, or end the combat (a step of the referee's)", rule=ROUND,
                       command=cmd("osric", "round", stream),
                       options=(command_line("osric", "end", stream, "--outcome", "TEXT"),))]
    if s.phase != "round":
        return []
    if any(must_declare(s, x) for x in s.sides):
        return []  # the sides declare first
    if not s.initiative:
        return [MyMove(what=f"roll initiative for round {s.round} (a step of the referee's)", rule=r.INITIATIVE,
                       command=cmd("osric", "initiative", stream), dice=True)]
    return [MyMove(what=f"end round {s.round} once every action is resolved (a step of the referee's)", rule=ROUND,
                   command=cmd("osric", "end-round", stream))]

