"""The freeform moves worth proposing (``Ruleset.candidates``; commands/legal.py keeps the legal ones).

Freeform has no rulebook, so its moves are the table's procedure (rounds, the end) and, for each
participant still standing, an action against each opponent, with and without a d20, damage and
healing in d6, and leaving the fight. Free text is the players' own: these are concrete examples
of each kind of move, each runnable as written, not the only words a player may type.
"""

from __future__ import annotations

from collections.abc import Iterator

from combatlog.rulesets.base import Candidate
from combatlog.rulesets.freeform import commands as c
from combatlog.rulesets.freeform.state import FreeformState


def candidates(state: FreeformState, stream: str) -> Iterator[Candidate]:
    if state.ended:
        return
    standing = [p for p in state.participants.values() if p.present and not p.down]
    sides = sorted({p.side for p in standing})
    if not state.in_round:
        yield Candidate(command=c.StartRound(), argv=("freeform", "round", stream),
                        text=f"start round {state.round + 1}")
    else:
        yield Candidate(command=c.EndRound(), argv=("freeform", "end-round", stream), text=f"end round {state.round}")
        for p in standing:
            for foe in (q for q in standing if q.side != p.side):
                action = f"attacks {foe.name}"
                yield Candidate(command=c.Act(who=p.name, action=action),
                                argv=("freeform", "act", stream, p.name, action), text=f"{p.name} {action}",
                                piece=p.name)
                yield Candidate(command=c.Act(who=p.name, action=action, roll="1d20"),
                                argv=("freeform", "act", stream, p.name, action, "--roll", "1d20"),
                                text=f"{p.name} {action}, rolling 1d20", piece=p.name)
    for p in (q for q in state.participants.values() if q.present):
        if p.hp is not None and not p.down:
            yield Candidate(command=c.ChangeHp(who=p.name, amount="1d6"),
                            argv=("freeform", "damage", stream, p.name, "1d6"),
                            text=f"{p.name} takes 1d6 damage (a ruling)")
        if p.hp is not None and p.max_hp is not None and p.hp < p.max_hp:
            yield Candidate(command=c.ChangeHp(who=p.name, amount="1", heal=True),
                            argv=("freeform", "heal", stream, p.name, "1"),
                            text=f"{p.name} is healed 1 hp (a ruling)")
        yield Candidate(command=c.Leave(name=p.name), argv=("freeform", "leave", stream, p.name),
                        text=f"{p.name} leaves the fight", piece=p.name)
    outcome = f"{sides[0]} wins" if len(sides) == 1 else "the fight is broken off"
    yield Candidate(command=c.EndCombat(outcome=outcome),
                    argv=("freeform", "end", stream, "--outcome", outcome), text=f"end the combat: {outcome}")
