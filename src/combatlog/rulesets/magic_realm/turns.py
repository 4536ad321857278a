"""Who must decide in each step of the round, and the checks that a command comes at its step and
its character's turn (MR 001 Luring, Deployment, Actions; MR 8.4.2 target selection in Attention
order; MR 8.4.5 plays; MR 001 Fatigue Step). Read by ``decide``, ``rounds``, ``sealed`` and the
ruleset's ``pending``.
"""

from __future__ import annotations

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.magic import peaceful
from combatlog.rulesets.magic_realm.state import MRState

STEP_NAMES = {"lure": "luring", "deploy": "deployment", "actions": "actions", "targets": "target selection",
              "plays": "attacks and maneuvers", "resolve": "resolution", "fatigue": "the Fatigue Step"}
STEP_RULES = {"lure": "MR 001 Luring", "deploy": "MR 001 Deployment", "actions": "MR 001 Actions",
              "targets": "MR 8.4.2", "plays": "MR 8.4.5", "resolve": "MR 8.4.6", "fatigue": "MR 001 Fatigue Step"}


def unassigned_denizens(st) -> list[str]:  # type: ignore[no-untyped-def]
    """Uncontrolled denizens free to be lured or assigned; one under Peace cannot be assigned
    (MR spells: Peace; MR 8.4.4 Preventing Attacks)."""
    where = q.sheets(st)
    return sorted(d.id for d in st.denizens.values()
                  if d.alive and not d.owner and not d.parent and d.id not in where
                  and d.id not in st.pinned and not peaceful(st, d.id))


def deciders(st, step: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Characters who still owe a decision in ``step``. (One pass per step, those done left out as they come:
    ``advance`` asks after every event of a combat.)"""
    done = st.done
    if step == "lure":
        return [c for c in q.participants(st) if c not in done] if unassigned_denizens(st) else []
    if step == "deploy":
        # those done are left out whatever the test says: test only the others (none, once every side deployed)
        todo = [c for c in q.participants(st) if c not in done]
        if not todo:
            return todo
        # A character decides who can charge (another character in the clearing, no monster holding him) or who
        # has an unassigned hireling. The cheaper test first, the sections only when a hireling needs them
        # (deciders runs on every event).
        present = q.in_clearing(st)
        can_charge = len(present) > 1
        where = None
        out = []
        for c in todo:
            if can_charge and c in present and not q.red_on_sheet(st, c):
                out.append(c)
                continue
            hired = q.hirelings_of(st, c)
            if hired:
                if where is None:
                    where = q.sheets(st)
                if any(h not in where for h in hired):
                    out.append(c)
        return out
    if step == "actions":
        charges = st.charges
        return [c for c in q.in_clearing(st) if c not in charges and c not in done]
    if step == "targets":
        for c in st.attention:  # one at a time, in Attention order
            if q.alive_char(st, c) and c not in done:
                return [c]
        return []
    if step == "plays":
        return [c for c in q.participants(st) if c not in done]
    if step == "fatigue":
        chars = st.characters
        return [c for c, n in st.owed.items() if (n or chars[c].wounds) and c not in done]
    return []


# What each step asks of the characters who decide in it (status, and the refusals below).
STEP_ASKS = {"lure": "lure denizens or pass: mr lure", "deploy": "deploy hirelings / charge or pass: mr deploy",
             "actions": "declare an action (or none): mr action", "targets": "select targets: mr target",
             "plays": "play attack, maneuver, armor and place counters (secret): mr play",
             "fatigue": "pay fatigue and take wounds: mr fatigue"}


def need_step(state: MRState, step: str, what: str) -> None:
    """Refuse ``what`` outside its step, saying what the combat waits for and from whom."""
    if state.step == step:
        return
    order = list(STEP_NAMES)
    now = STEP_NAMES.get(state.step, state.step)
    if step in order and state.step in order and order.index(step) < order.index(state.step):
        when = f"too late for round {state.round}: the combat is at {now}"
    else:
        when = f"not yet: the combat is at {now} of round {state.round}"
    raise IllegalCommand(f"{what}: {when}{_waiting_for(state)}", rule=STEP_RULES.get(step, "MR 001"))


def _waiting_for(state: MRState) -> str:
    """", waiting for bob (amazon) and alice (bk) (lure denizens or pass: mr lure)"."""
    who = [f"{state.characters[c].player} ({c})" for c in deciders(state, state.step) if c in state.characters]
    if not who:
        return ""
    names = " and ".join(who) if len(who) < 3 else ", ".join(who[:-1]) + " and " + who[-1]
    ask = STEP_ASKS.get(state.step)
    return f", waiting for {names}" + (f" ({ask})" if ask else "")


def waiting_on(state: MRState, step: str) -> tuple[str, ...] | list[str]:
    """``deciders(state, step)``: who owes a decision in ``step``."""
    return deciders(state, step)


def need_turn(state: MRState, cid: str, step: str) -> None:
    if cid not in state.characters:
        raise InvalidCommand(f"no character {cid!r} (characters: {', '.join(state.characters)})")
    waiting = waiting_on(state, step)
    if cid not in waiting:
        if step == "targets" and waiting:
            raise IllegalCommand(f"it is {waiting[0]}'s turn to select targets (Attention chits: "
                                 f"{', '.join(state.attention)})", rule="MR 8.4.2")
        raise IllegalCommand(f"{cid} has nothing to decide in {STEP_NAMES.get(step, step)} now",
                             rule=STEP_RULES.get(step, "MR 001"))
