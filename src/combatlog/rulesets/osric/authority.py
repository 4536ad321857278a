"""Who may issue each OSRIC command (commands/authority.py; docs/design.md, "Who may issue what").

OSRIC is refereed by nature: with roles enforced (players pinned, or ``--referee``) and no referee
named, the combat's creator referees. A combatant's actions are its side's players' (the set-up's
``players``, side -> players); a side no player plays is the referee's. Damage and healing that no
attack rolled, conditions, engagement, morale, aid, negotiation and the end are the referee's rulings.
The timeline's steps (surprise, initiative, segments, rounds) are decided by the rules: anyone's, except
that moving the timeline past an action still open to a combatant (its declared action due in an earlier
segment, its turn in a surprise segment) forgoes that action: its side's players', or the referee's, to do.
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.authority import ANYONE, Authority, pieces, ruling
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.rules import passed_by
from combatlog.rulesets.osric.state import END, NORMAL, OsricState, tick

RULE = "OSRIC: each side's combatants act for its players; rulings are the referee's"
PASSED = ("OSRIC Combat: First Party Acts / Second Party Acts: moving the timeline past a combatant's due action "
          "forgoes it: its side's players', or the referee's, to do")

_ACTIONS = (c.Attack, c.Shoot, c.Cast, c.Decline, c.Charge, c.Close, c.Retreat, c.Flee, c.Grapple,
            c.NoteAction, c.BreakGrapple, c.Assassinate)
_RULINGS = {c.Damage: "damage", c.Heal: "healing", c.SetCondition: "a condition", c.Engage: "engagement",
            c.Morale: "a morale check", c.Aid: "aid", c.Negotiate: "a negotiation", c.EndCombat: "ending the combat"}


def _players(state: OsricState, who: str) -> tuple[str, ...]:
    member = state.roster.get(who)
    return tuple(state.players.get(member.side, ())) if member is not None else ()


def authority(state: OsricState, command: Any) -> Authority:
    if isinstance(command, _ACTIONS):
        return pieces({command.who: _players(state, command.who)}, what="act for", rule=RULE)
    if isinstance(command, c.Declare):
        return pieces({f"side {command.side}": tuple(state.players.get(command.side, ()))}, what="declare for",
                      rule=RULE)
    what = _RULINGS.get(type(command))
    if what is not None:
        return ruling(what, RULE)
    sealed = _sealed(state, command)
    if sealed is not None:
        return sealed
    passed = _passed(state, command)
    if passed:
        return pieces({who: _players(state, who) for who in passed}, what="move the timeline past the open action "
                      "of", rule=PASSED, referee_too=True)
    return ANYONE


def _passed(state: OsricState, command: Any) -> list[str]:
    """The combatants whose open action a step of the timeline would pass (``rules.passed_by``)."""
    if isinstance(command, c.ReachSegment):
        round_no = 0 if state.phase == "surprise" else state.round
        return passed_by(state, tick(round_no, command.segment, END if command.end else NORMAL))
    if isinstance(command, (c.StartRound, c.EndRound)):
        return passed_by(state, None)
    return []


def _sealed(state: OsricState, command: Any) -> Authority | None:
    """Who makes a move of the round's sealed declaration step (rN/declare): a side's commit, its caller; a
    nonce, a required player who calls for no side owing declarations; a reveal, who committed. The write
    path leaves core commands to the trust layer (which refuses the others when they run); this says whose
    move each is, for the legal moves (commands/legal.py)."""
    from combatlog.trust.api import CommitOrders, RevealOrders
    from combatlog.errors import InvalidCommand
    from combatlog.rulesets.osric.declare import SEALED, caller, must_declare, sealed_required, step_round

    if not isinstance(command, (CommitOrders, RevealOrders)) or step_round(command.step) is None:
        return None
    step = state.sealed.get(command.step)
    if isinstance(command, RevealOrders):
        who = tuple(p for p, what in step.waiting() if what == "reveal") if step else ()
        return pieces({f"step {command.step}": who or ("",)}, what="reveal", rule=SEALED)
    side = command.orders.get("side") if command.orders else None
    if isinstance(side, str):
        return pieces({f"side {side}": (caller(state, side),)}, what="seal the declarations of", rule=SEALED)
    try:
        required = step.required if step else sealed_required(state, command.step)
    except InvalidCommand:
        required = ()
    callers = {caller(state, x) for x in state.sides if must_declare(state, x)}
    who = tuple(p for p in required if p not in callers and not (step and p in step.committed))
    # nobody owes a nonce (a step without joint dice): no player, and not the referee either
    return pieces({f"step {command.step}": who or ("",)}, what="commit a nonce to", rule=SEALED)
