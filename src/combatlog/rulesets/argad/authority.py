"""Who may issue each Argad command (commands/authority.py; docs/design.md, "Who may issue what").

A figure is its side's players' (the set-up's ``players``, side -> players); a side no player plays is
the referee's where there is one. Adding and removing figures and the end are the referee's rulings;
turns are steps of the procedure.
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.authority import ANYONE, Authority, pieces, ruling
from combatlog.rulesets.argad import commands as c
from combatlog.rulesets.argad.state import ArgadState

RULE = "Argad: each side's figures act for its players; rulings are the referee's"


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
    return ANYONE
