"""A combat stored in a log, fed to a verifier event by event (``verify`` of a stored combat, ``report``).

Apart from ``exchange/bundle.py`` so that the report, which reads each event as it is verified, does not
import the importer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from combatlog.events.envelope import Recorded
from combatlog.exchange.verify import ChainVerifier
from combatlog.projections.fold import lineage
from combatlog.store.base import EventStore, StreamMeta


def fed(verifier: ChainVerifier, store: EventStore, meta: StreamMeta) -> Iterator[tuple[Any, Recorded]]:
    """Feed ``verifier`` the stored bytes of ``meta``'s history in order; for each event, once checked and
    folded, yield (the rules' state before it, its record): ``verifier.folded`` is then the fold just after
    it. Raises at the first problem, as ``ChainVerifier.feed`` does.

    The stored canonical bytes are checked, not decoded structs: a row edited in the database file is
    caught exactly as an edited export line would be."""
    for seg, low, high in lineage(store, meta):
        for row in store.read_stream(seg.id, low, high):
            before = verifier.folded.state
            yield before, verifier.feed(row.body, f"{meta.name}#{row.seq}")
