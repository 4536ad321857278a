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

import msgspec

from combatlog.events.core import CombatStarted
from combatlog.events.envelope import Envelope

RULE_REWIND = "trust: no rewinding"
# Trust plumbing: an acknowledgement or a chain's link, commit or release decides nothing, so a branch
# made only of it (and of decisions placed by earlier merges) never goes first (docs/trust.md, "Crossings").
PLUMBING = frozenset({"core.acknowledged", "core.link_revealed", "core.chain_committed", "core.chain_released"})


def sequencer_of(genesis: CombatStarted | None) -> str:
    return str(genesis.options.get("sequencer", "")) if genesis is not None else ""


def signed_by(branch: Sequence[Envelope], player: str) -> bool:
    """``player`` signed an event of ``branch`` there (a decision of his placed there by a merge was signed
    elsewhere, on a log without the branch: it does not count)."""
    return any(e.actor == player and e.placed is msgspec.UNSET for e in branch)


def decides(branch: Sequence[Envelope]) -> bool:
    """The branch holds a decision signed where it stands (not only plumbing, not only placed decisions)."""
    return any(e.placed is msgspec.UNSET and e.type not in PLUMBING for e in branch)


def author_of(branch: Sequence[Envelope]) -> str:
    """Who began the branch: the actor of its first event signed there ("" when every event was placed)."""
    return next((e.actor for e in branch if e.placed is msgspec.UNSET), "")


def rank(genesis: CombatStarted | None, fork_seq: int, branch: Sequence[Envelope]) -> tuple[int, int, int, str]:
    """The merge order of a branch: lower goes first.

    A branch that decides nothing (acknowledgements, chain links, decisions a merge placed) goes after
    one that does: its events are placed after the other's, so acknowledgements and links make no
    winner and no loser.
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
    return (0 if decides(branch) else 1, seen_by_sequencer, place, first.hash)


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
    begun = next((e for e in winner if e.placed is msgspec.UNSET), None)
    if begun is None:
        return None
    author = begun.actor
    mine = [e for e in loser if e.actor == author and e.placed is msgspec.UNSET]
    if not mine:
        return None
    if author != sequencer_of(genesis) and settled_by_sequencer(genesis, winner, loser) \
            and begun.command_id in {e.command_id for e in mine}:
        return None
    return mine[-1]



def placement_key(genesis: CombatStarted | None, fork_seq: int,
                  originals: Sequence[Envelope]) -> tuple[int, int, int, int, str]:
    """Where a decision lands among those placed after one crossed branch (docs/trust.md, "Crossings"): lower
    goes first. ``originals``: the decision (and any made on top of it, its chunk) as its author signed it;
    ``fork_seq``: the last event of this log its branch holds.

    Those made further along the crossed branch go first: a decision made on an event of the branch another
    one crossed belongs to that branch, which the other lands after, whole. Between decisions made at one
    place, the merge order at that place (``rank``: what decides before plumbing, the sequencer's, the
    players' order rotated by the place, the hash). A pure function of the signed events, so every machine
    places alike whatever order the mail came in, and ``verify`` refuses any other order."""
    return (-fork_seq, *rank(genesis, fork_seq, originals))
