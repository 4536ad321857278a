"""No rewinding: the merge order of two branches, and who would rewind history by winning it.

Two branches part after ``#fork``. The merge (``exchange/merge.py``) keeps the one that goes first
(``rank``). Keeping it supersedes the other, so whoever *signed* an event of the other branch after
the fork (any event, an ``ack`` included) sees what he signed undone. That is how merges work for
everyone else; for the winning branch's own author it is a rewind: he signed a history, then
authored a branch that parts from it before that point (docs/trust.md, "No rewinding").
A pure function of the two branches and the genesis, so every machine (and ``verify`` of a proof)
decides alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from combatlog.events.core import CombatStarted
from combatlog.events.envelope import Envelope

RULE_REWIND = "trust: no rewinding"


def sequencer_of(genesis: CombatStarted | None) -> str:
    return str(genesis.options.get("sequencer", "")) if genesis is not None else ""


def signed_by(branch: Sequence[Envelope], player: str) -> bool:
    return any(e.actor == player for e in branch)


def rank(genesis: CombatStarted | None, fork_seq: int, branch: Sequence[Envelope]) -> tuple[int, int, str]:
    """The merge order of a branch: lower goes first.

    With a sequencer (``--option sequencer=gm``), a branch holding an event the sequencer signed
    after the place where the branches part goes first: the sequencer saw it first, and signs one
    branch only (two would be a rewind of his own). Otherwise, and between two such branches, the
    first event's actor in the players' order rotated by the place. Only combats with pinned players
    merge, and verify has checked that every actor is pinned; the hash breaks the tie only between
    two events of one actor, which equivocation refuses first."""
    names = [p.name for p in genesis.players] if genesis is not None else []
    sequencer = sequencer_of(genesis)
    seen_by_sequencer = 0 if sequencer and signed_by(branch, sequencer) else 1
    first = branch[0]
    # the two branches start at ``fork_seq + 1``: the player at that index (mod players) goes first
    place = (names.index(first.actor) - fork_seq - 1) % len(names) if first.actor in names else len(names)
    return (seen_by_sequencer, place, first.hash)


def settled_by_sequencer(genesis: CombatStarted | None, winner: Sequence[Envelope],
                         loser: Sequence[Envelope]) -> bool:
    """The sequencer signed the winner and not the loser: the order is his, whoever authored the winner."""
    sequencer = sequencer_of(genesis)
    return bool(sequencer) and signed_by(winner, sequencer) and not signed_by(loser, sequencer)


def rewinder(genesis: CombatStarted | None, winner: Sequence[Envelope],
             loser: Sequence[Envelope]) -> Envelope | None:
    """The newest event of the loser signed by the winner's author, when keeping ``winner`` would
    rewind it (None when it would not).

    One exception, so that honest mail in any order converges: when the sequencer signed the winner
    and not the loser and the author's first decision of the winner is among his events of the loser
    (the same command id: his machine re-applied it there when the winner had not yet been sequenced),
    the author did not choose the order, the sequencer did."""
    author = winner[0].actor
    mine = [e for e in loser if e.actor == author]
    if not mine:
        return None
    if author != sequencer_of(genesis) and settled_by_sequencer(genesis, winner, loser) \
            and winner[0].command_id in {e.command_id for e in mine}:
        return None
    return mine[-1]

