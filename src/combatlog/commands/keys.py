"""The referee's dice key: the seed committed in the log, held on the referee's machine only."""

from __future__ import annotations

from combatlog.errors import IllegalCommand
from combatlog.projections.fold import CoreTrack
from combatlog.store.base import EventStore


def referee_key(store: EventStore, core: CoreTrack, label: str = "") -> tuple[int, bytes]:
    seq = core.open_seed("referee")
    if seq is None:
        raise IllegalCommand(
            "no referee seed is open in this combat; run: combatlog seed commit STREAM",
            rule="core: referee dice derive from a committed seed",
        )
    secret = store.get_secret(f"seed:{core.seeds[seq].commitment}")
    if secret is None:
        raise IllegalCommand(
            f"the referee seed committed at seq {seq} is not on this machine; the referee rolls these dice",
            rule="core: only the referee holds the seed",
        )
    return seq, secret
