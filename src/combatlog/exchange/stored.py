"""A combat stored in a log, fed to a verifier event by event (``verify`` of a stored combat, the report, the
live page).

Apart from ``exchange/bundle.py`` so that the report and the page, which read each event as it is verified,
do not import the importer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from combatlog.errors import CombatlogError
from combatlog.events.envelope import Recorded
from combatlog.exchange.verify import ChainVerifier, VerifyReport, segments_of
from combatlog.projections.fold import Folded, encode_snapshot, history, lineage, snapshot_key
from combatlog.store.base import EventStore, StreamMeta

if TYPE_CHECKING:
    from combatlog.ports import Wiring

Walked = Iterator[tuple[Any, Recorded, Folded]]  # (the rules' state before an event, the event, the fold after)
T = TypeVar("T")


def fed(verifier: ChainVerifier, store: EventStore, meta: StreamMeta, *,
        snapshots: bool = False) -> Iterator[tuple[Any, Recorded]]:
    """Feed ``verifier`` the stored bytes of ``meta``'s history in order; for each event, once checked and
    folded, yield (the rules' state before it, its record): ``verifier.folded`` is then the fold just after
    it. Raises at the first problem, as ``ChainVerifier.feed`` does.

    The stored canonical bytes are checked, not decoded structs: a row edited in the database file is
    caught exactly as an edited export line would be. ``snapshots``: so is every snapshot of the history
    this build would read, compared with the fold at its seq (``projections/fold.py``'s docstring: a long
    log's views start at one)."""
    kept = snapshots_of(store, meta, verifier.ruleset) if snapshots else {}
    for seg, low, high in lineage(store, meta):
        for seq, body in store.read_bodies(seg.id, low, high):
            before = verifier.folded.state
            rec = verifier.feed(body, f"{meta.name}#{seq}")
            if seq in kept and any(blob != encode_snapshot(verifier.folded) for blob in kept[seq]):
                verifier.fail(f"{meta.name}#{seq}", f"seq {seq}: this log's snapshot of the state after seq {seq} "
                              "is not the fold of its events (the snapshots table was edited or damaged; the events "
                              "are sound: a snapshot is a local cache, and deleting it restores the log)")
            yield before, rec


def snapshots_of(store: EventStore, meta: StreamMeta, ruleset: Any) -> dict[int, list[bytes]]:
    """seq -> the bytes of every snapshot of ``meta``'s history this build would read (its key; in the segment
    whose events they follow, as ``state_at`` looks them up). Another build's are never read by this one."""
    key = snapshot_key(ruleset)
    found: dict[int, list[bytes]] = {}
    for seg, low, high in lineage(store, meta):
        upper = high if high is not None else 2**62
        while upper >= max(low - 1, 1):
            row = store.load_snapshot(seg.id, upper, key)
            if row is None or row[0] < max(low - 1, 1):
                break
            found.setdefault(row[0], []).append(row[1])
            upper = row[0] - 1
    return found


class Unverified(Exception):
    """The log failed verification (``message``: the verifier's words, as a reader is shown them)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Verified:
    """Every event of ``meta``'s history as the verifier reads, checks and folds it (as ``verify_stream``
    does), for a walk that reads the verifier's fold instead of folding the log a second time (the fold is
    one object, updated in place: read it before asking for the next event). Once the whole log is walked,
    ``report`` is the verifier's. Raises ``Unverified`` at the first problem: no walk that saw an event that
    fails ends well."""

    def __init__(self, store: EventStore, meta: StreamMeta, wiring: Wiring) -> None:
        self.store, self.meta, self.wiring = store, meta, wiring
        self.report: VerifyReport | None = None

    def __iter__(self) -> Walked:
        # (an exception of the walk never surfaces at the yield: the walk's own errors stay its own)
        try:
            verifier = ChainVerifier(segments_of(self.store, self.meta), wiring=self.wiring)
            for before, rec in fed(verifier, self.store, self.meta, snapshots=True):
                yield before, rec, verifier.folded
            self.report = verifier.finish(self.meta.name)
        except CombatlogError as exc:
            raise Unverified(str(exc)) from exc


def unverified(store: EventStore, meta: StreamMeta) -> Walked:
    """Every event, read and folded without a check: a log that fails verification is still shown whole."""
    from combatlog.projections.views import fold_start

    folded = fold_start(store, meta)
    for rec in history(store, meta):
        before = folded.state
        folded.apply(rec)
        yield before, rec, folded


def walk_verified(store: EventStore, meta: StreamMeta, wiring: Wiring,
                  walk: Callable[[Walked], T]) -> tuple[T, VerifyReport | None, str]:
    """``walk`` the log in one pass, the verifier's: (what ``walk`` returned, the verifier's report, "").
    Where verification fails, at an event or when the verifier finishes, the walk's result is dropped and
    the log walked again, whole and unchecked: (what that walk returned, None, the verifier's words). ``walk``
    starts afresh each time it is called."""
    verified = Verified(store, meta, wiring)
    try:
        return walk(iter(verified)), verified.report, ""
    except Unverified as exc:  # rare: a log that fails is read twice, as every log was before
        return walk(unverified(store, meta)), None, exc.message
