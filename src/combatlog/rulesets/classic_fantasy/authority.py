"""Who may issue each Classic Fantasy command (commands/authority.py; docs/design.md, "Who may issue what").

A combatant is its own player's where the set-up gives it one (a combatant's ``player``), else its side's
players' (the set-up's ``players``, side -> players); a side no player plays
is the Games Master's (the referee) where there is one. A forced end of round, surprise and the end of
the combat are the referee's rulings; a plain new round is a step of the procedure.
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.authority import ANYONE, Authority, pieces, ruling
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.rulesets.classic_fantasy.state import CFIState, players_for

RULE = "CFI: each combatant acts for its player (else its side's players); rulings are the Games Master's"


def _players(state: CFIState, who: str) -> tuple[str, ...]:
    return players_for(state, who)


def authority(state: CFIState, command: Any) -> Authority:
    match command:
        case c.Attack(attacker=who) | c.Defend(defender=who) | c.UseLuck(who=who) | c.ChooseEffects(who=who) \
                | c.Act(who=who):
            return pieces({who: _players(state, who)}, what="act for", rule=RULE)
        case c.StartRound(force=force, surprised=surprised) if force or surprised:
            return ruling("a forced round or surprise", RULE)
        case c.EndCombat():
            return ruling("ending the combat", RULE)
    return ANYONE
