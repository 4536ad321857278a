"""Who may issue each freeform command (commands/authority.py; docs/design.md, "Who may issue what").

A participant joined with ``--player NAME`` is that player's; one joined without is the referee's
where the combat names one, anyone's where it does not. Hit points, conditions, the end and a
participant no player plays are rulings: the referee's where there is one (freeform has no referee
unless ``new --referee`` names one, and then rulings are any pinned player's, as at a table
without a referee).
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.authority import ANYONE, Authority, pieces, ruling
from combatlog.rulesets.freeform import commands as c
from combatlog.rulesets.freeform.state import FreeformState

RULE = "freeform: a participant's actions are its player's, outcomes the referee's"


def _owners(state: FreeformState, name: str) -> tuple[str, ...]:
    p = state.participants.get(name)
    return (p.player,) if p is not None and p.player else ()


def authority(state: FreeformState, command: Any) -> Authority:
    match command:
        case c.Join(player=player, name=name):
            return pieces({name: (player,)}, what="join", rule=RULE, referee_too=True) if player else \
                ruling("adding a participant no player plays", RULE)
        case c.Act(who=who):
            return pieces({who: _owners(state, who)}, what="act for", rule=RULE)
        case c.Leave(name=name):
            return pieces({name: _owners(state, name)}, what="withdraw", rule=RULE)
        case c.ChangeHp(heal=heal):
            return ruling("healing" if heal else "damage", RULE)
        case c.SetCondition():
            return ruling("a condition", RULE)
        case c.EndCombat():
            return ruling("ending the combat", RULE)
    return ANYONE  # rounds: steps of the procedure
