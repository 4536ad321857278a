"""Who may issue each Argad command (commands/authority.py; docs/design.md, "Who may issue what").

A figure is its side's players' (the set-up's ``players``, side -> players); a side no player plays is
the referee's where there is one. Adding and removing figures and the end are the referee's rulings;
starting a turn is a step of the procedure. Ending a turn is one too, except that it gives up the blows
still open (blows at one step land at the same time; the order goes by weapon length): while a figure may
still strike, ending the turn is its side's players', or the referee's, to do; a side that will not strike
with a figure says so first (``argad hold``), after which the turn is anyone's to end again.
"""

from __future__ import annotations

import shlex
from typing import Any

from combatlog.commands.authority import ANYONE, Authority, pieces, ruling
from combatlog.rulesets.argad import commands as c
from combatlog.rulesets.argad.decide import may_still_strike
from combatlog.rulesets.argad.state import ArgadState

RULE = "Argad: each side's figures act for its players; rulings are the referee's"
PASSED = ("Argad: Wounds; Natural dice maximum rule (the Goblin example: the blows of one step land at the same "
          "time, then the shorter ones): ending the game turn gives up the blows still open: the striking "
          "figures' players', or the referee's, to do")


def _owners(state: ArgadState, names: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for name in names:
        fig = state.figures.get(name)
        out.append((name, tuple(state.players.get(fig.side, ())) if fig is not None else ()))
    return out


def authority(state: ArgadState, command: Any) -> Authority:
    match command:
        case c.Move(figure=name) | c.SetRecoilPolicy(figure=name):
            return pieces(_owners(state, (name,)), what="move", rule=RULE)
        case c.Shoot(shooters=names):
            return pieces(_owners(state, names), what="shoot with", rule=RULE)
        case c.Strike(attackers=names):
            return pieces(_owners(state, names), what="strike with", rule=RULE)
        case c.Hold(side=side) if side:
            return pieces({f"side {side}": tuple(state.players.get(side, ()))}, what="hold the blows of", rule=RULE,
                          referee_too=True)
        case c.Hold(figures=names):
            return pieces(_owners(state, names), what="hold the blow of", rule=RULE, referee_too=True)
        case c.AddFigure() | c.Remove():
            return ruling("adding or removing a figure", RULE)
        case c.EndCombat():
            return ruling("ending the combat", RULE)
        case c.EndTurn():
            return _end_turn(state)
    return ANYONE


def _end_turn(state: ArgadState) -> Authority:
    """Ending the turn over the figures that may still strike (``decide.may_still_strike``: not dead, not
    held, not struck...) gives up their blows: each one's players' (or the referee's) to do."""
    if state.turn is None:
        return ANYONE  # no turn to end: decide says so
    open_ = may_still_strike(state, state.turn)
    if not open_:
        return ANYONE
    sides: dict[str, list[str]] = {}
    for fig in open_:
        sides.setdefault(fig.side, []).append(fig.name)
    listed, holds = [], []
    for side, names in sides.items():
        players = state.players.get(side, ())
        listed.append(f"{', '.join(names)} (side {side}: {' or '.join(players) if players else 'no player'})")
        if players:
            holds.append(f"combatlog argad hold STREAM --side {shlex.quote(side)} --as {shlex.quote(players[0])}")
    hint = f"may still strike in game turn {state.turn.number}: {'; '.join(listed)}"
    if holds:
        hint += (": each strikes, or its side holds it first (then anyone may end the turn): "
                 + "; ".join(holds))
    return pieces(_owners(state, tuple(f.name for f in open_)), what=f"end game turn {state.turn.number} over the "
                  "blow still open to", rule=PASSED, referee_too=True, hint=hint,
                  pieces_dice=False)  # the survival dice are the wounded's, not the passed figures'
