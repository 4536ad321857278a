"""The entries the OSRIC fold appends to ``state.log`` (the segment timeline that ``explain``
prints): the rules they cite, how one is appended, and how a declaration reads in one.
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric.state import LATE, Entry, OsricState, segment_of, tick

replace = msgspec.structs.replace

SURPRISE = "OSRIC Combat: Determine Surprise"
DEX_SURPRISE = "OSRIC Combat: Determine Surprise (individual surprise bonus)"
MONSTER_SURPRISE = "OSRIC Combat: Determine Surprise (advanced monster surprise)"
DECLARE = "OSRIC Combat: Declare Spells and General Actions"
ROUND = "OSRIC Combat: Round Completion"
DEATH = "OSRIC Combat: Damage and Death"
MORALE = "OSRIC Combat: Morale"
NEGOTIATION = "OSRIC Combat: Negotiation and Diplomacy"
CLOSING = "OSRIC Combat: Closing into Combat"
RETREAT = "OSRIC Combat: Fighting Retreat"
SLEEPING = "OSRIC Combat: Sleeping Opponent"
TABLE = "OSRIC Combat: referee's ruling"


def log_entry(s: OsricState, seq: int, text: str, rule: str, dice: tuple[str, ...] = (), t_: int | None = None,
              side: str = "") -> OsricState:
    """Append one derived step to ``state.log``, placed on the segment timeline at ``t_`` (default: now)."""
    at = s.cursor if t_ is None else t_
    seg = segment_of(at, s.round) if s.phase in ("round", "surprise") and at >= tick(s.round, 1) else 0
    entry = Entry(seq=seq, round=s.round, segment=seg, text=text, rule=rule, dice=dice,
                  late=bool(at % 4 == LATE) and seg > 0, side=side)
    return replace(s, log=s.log + (entry,))


def describe_declaration(d: e.Declaration) -> str:
    text = f"{d.who} {d.action}"
    if d.action == "spell":
        text += f" {d.spell} ({d.casting} segment(s))"
    if d.weapon:
        text += f" with {d.weapon}"
    if d.target:
        text += f" at {d.target}"
    if d.text:
        text += f": {d.text}"
    return text


def declares(side: str) -> str:
    """``side`` and its verb in agreement: "party declares", "orcs declare" (a side named by a plural)."""
    plural = side.endswith("s") and not side.endswith("ss")
    return f"{side} {'declare' if plural else 'declares'}"
