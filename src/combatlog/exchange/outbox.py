"""The outbox: what a player lacks, from what they signed or acknowledged.

A pinned player who signed an event or acknowledged a seq holds the log up to
it (an append is made on top of the whole log before it). ``since_for`` is the
highest such seq, so ``export --for PLAYER`` and ``mail`` send exactly the
events after it. For a fork, what the player holds of the parent counts too,
up to the fork point: a bundle of a fork then rests on the player's own copy of
the parent, and does not repeat its prefix.

The acknowledgements are the trust layer's (``TrustChecker.acknowledged``); the
caller passes them in as ``acknowledged(meta) -> {player: seq}``, so that this
module stays below the trust layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from combatlog.errors import InvalidCommand
from combatlog.projections.fold import MAX_FORK_DEPTH
from combatlog.store.base import EventStore, StreamMeta

Acknowledged = Callable[[StreamMeta], Mapping[str, int]]


def since_for(store: EventStore, meta: StreamMeta, player: str, acknowledged: Acknowledged) -> int:
    """The last seq of ``meta``'s history that ``player`` is known to hold (0: nothing)."""
    acks = acknowledged(meta)
    if not acks:
        raise InvalidCommand(f"--for {player}: {meta.name} pins no players, so nobody's acknowledgements are "
                             "known; give --since SEQ (the last seq they have)")
    if player not in acks:
        raise InvalidCommand(f"--for {player}: not a player of {meta.name} (players: {', '.join(sorted(acks))})")
    best = acks[player]
    limit: int | None = None
    current = meta
    for _ in range(MAX_FORK_DEPTH):
        if current.parent is None:
            break
        limit = current.fork_seq if limit is None else min(limit, current.fork_seq)
        parent = store.get_stream(current.parent)
        if parent is None:
            break
        best = max(best, min(limit, acknowledged(parent).get(player, 0)))
        current = parent
    return best
