"""One apply function per Classic Fantasy event, shared by ``decide`` (with a roller that draws
dice), ``evolve`` and ``explain`` (with one that reads the recorded faces) and ``dice_uses`` (with
one that notes what the rules read), so a replay derives exactly what was decided.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from combatlog.errors import IllegalCommand
from combatlog.events.base import Event
from combatlog.rulesets.classic_fantasy.actions import apply_action
from combatlog.rulesets.classic_fantasy.events import (
    ActionTaken, AttackDeclared, CombatEnded, DefenceDeclared, EffectsChosen, ExchangeResolved, LuckSpent,
    RoundStarted,
)
from combatlog.rulesets.classic_fantasy.exchange import apply_attack, apply_defence, apply_effects
from combatlog.rulesets.classic_fantasy.luck import apply_luck
from combatlog.rulesets.classic_fantasy.outcome import apply_resolved
from combatlog.rulesets.classic_fantasy.rounds import apply_round_start
from combatlog.rulesets.classic_fantasy.rules import Steps, cite
from combatlog.rulesets.classic_fantasy.state import CFIState

replace = msgspec.structs.replace


def _ended(state: CFIState, ev: CombatEnded, roller: Any, steps: Steps) -> CFIState:
    if state.ended:
        raise IllegalCommand("the combat has already ended", rule=cite("Running Combat"))
    if state.exchange is not None:
        raise IllegalCommand("finish the open exchange first", rule=cite("Attacks and Parries"))
    steps.add(cite("Running Combat"), f"the combat ends: {ev.outcome or 'no outcome given'}")
    return replace(state, ended=True, in_round=False, turn="", outcome=ev.outcome)


APPLY: dict[type[Event], Callable[..., CFIState]] = {
    RoundStarted: apply_round_start, AttackDeclared: apply_attack, DefenceDeclared: apply_defence,
    LuckSpent: apply_luck, EffectsChosen: apply_effects, ExchangeResolved: apply_resolved,
    ActionTaken: apply_action, CombatEnded: _ended,
}


def tidy(state: CFIState, steps: Steps) -> CFIState:
    """Decision (CFI Ch.8 Engagement): someone dead, unconscious or incapacitated no longer holds
    anyone Engaged, so a foe may walk away from a fallen enemy."""
    out = {n for n, x in state.combatants.items() if x.fallen and x.engaged}
    if not out:
        return state
    combatants = dict(state.combatants)
    for n, x in combatants.items():
        keep = tuple(e for e in x.engaged if e not in out and n not in out)
        if keep != x.engaged:
            combatants[n] = replace(x, engaged=keep)
    steps.add(cite("Engagement"), f"{', '.join(sorted(out))} no longer engage(s) anyone")
    return replace(state, combatants=combatants)


def apply_event(state: CFIState, event: Event, roller: Any, steps: Steps) -> CFIState:
    """Apply one event. The last blow stays open to Luck (CFI Ch.7 Cheat Fate) only until the
    next event that is not itself a Luck Point or the resolution that records it."""
    if state.undo is not None and type(event) not in (LuckSpent, ExchangeResolved):
        state = replace(state, undo=None)
    return tidy(APPLY[type(event)](state, event, roller, steps), steps)
