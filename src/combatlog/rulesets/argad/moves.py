"""What one player must decide now in an Argad game, with the command lines to paste (``status --mine``).

A figure's blow is its side's players' (a side no player plays: whoever moves the pieces no player plays,
``unplayed``), offered as a strike with the hold beside it (``argad hold``): the strike order and who fights
whom are the players' declaration (docs/argad.md, "A game turn"). The procedure's steps (starting and ending
a game turn, ending the combat) go to ``referee``; ending a turn over blows still open gives them up, so it
is offered with its command only where the write path would take it from him (argad/authority.py), and
otherwise listed as waiting for them; and to a player whose own blows are the only ones still open, as the
write path takes it from him too. Words in capitals are the player's to choose.
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.authority import check_authority
from combatlog.errors import IllegalCommand
from combatlog.rulesets.argad import commands as c
from combatlog.rulesets.argad.decide import may_still_strike, no_enemy_left, survival_due
from combatlog.rulesets.argad.state import ArgadState
from combatlog.trust.api import MyMove, command_line


def my_moves(ruleset: Any, s: ArgadState, player: str, stream: str, referee: bool,
             unplayed: bool = False) -> list[MyMove]:
    """``ruleset``: the Argad ruleset, whose ``pending`` and ``authority`` these moves follow."""
    if s.ended:
        return []
    cmd = lambda *words: command_line(*words, actor=player)  # noqa: E731
    out: list[MyMove] = []
    for p in ruleset.pending(s):
        if p.who == "gm":
            if referee:
                out.append(_procedure(ruleset, s, p, stream, player, cmd))
            else:
                out.extend(_end_over_own_blows(ruleset, s, p, stream, player, cmd))
            continue
        players = s.players.get(s.figures[p.who].side, ())
        if player in players or (not players and unplayed):
            # a strike rolls the figures' dice (a joint die needs a seed: trust/mine.seed_first); a hold rolls none
            out.append(MyMove(what=f"{p.who}: {p.what}", rule=p.rule, dice=True,
                              command=cmd("argad", "strike", stream, p.who, "--at", "TARGET"),
                              options=(cmd("argad", "hold", stream, p.who),), options_dice=False))
    return out


def _end_over_own_blows(ruleset: Any, s: ArgadState, p: Any, stream: str, player: str, cmd) -> list[MyMove]:  # type: ignore[no-untyped-def]
    """A player who takes no referee's step may still end the turn where every blow still open is his to give
    up (argad/authority.py): offered beside those blows, once the write path's own check passes."""
    if s.turn is None or not s.roles.enforced:  # (in a hot seat the one who types everything runs the procedure)
        return []
    open_ = [f.name for f in may_still_strike(s, s.turn)]
    if not open_:
        return []  # nothing to give up: the procedure's step, its runner's
    try:
        check_authority(ruleset, s, s.roles, c.EndTurn(), player)
    except IllegalCommand:
        return []
    return [MyMove(what=f"or end game turn {s.turn.number} now, giving up the blows of {', '.join(open_)}",
                   rule=p.rule, command=cmd("argad", "end-turn", stream), dice=bool(survival_due(s.turn)))]


def _procedure(ruleset: Any, s: ArgadState, p: Any, stream: str, player: str, cmd) -> MyMove:  # type: ignore[no-untyped-def]
    """The referee's step ``p`` (``pending``'s ``gm``): start a turn, end it, or end the combat."""
    if s.turn is None:
        if no_enemy_left(s):
            return MyMove(what=p.what, rule=p.rule, command=cmd("argad", "end", stream, "--outcome", "TEXT"))
        return MyMove(what=p.what, rule=p.rule, command=cmd("argad", "turn", stream))
    try:  # the same check the write path makes (commands/authority.py)
        check_authority(ruleset, s, s.roles, c.EndTurn(), player)
    except IllegalCommand:
        return MyMove(what=p.what, rule=p.rule, waiting="the blows still open are their players' to strike or hold "
                                                         "first (argad hold)")
    return MyMove(what=p.what, rule=p.rule, command=cmd("argad", "end-turn", stream),
                  dice=bool(survival_due(s.turn)))
