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
from combatlog.projections.fold import Folded, history, lineage
from combatlog.store.base import EventStore, StreamMeta

if TYPE_CHECKING:
    from combatlog.ports import Wiring

Walked = Iterator[tuple[Any, Recorded, Folded]]  # (the rules' state before an event, the event, the fold after)
T = TypeVar("T")


def fed(verifier: ChainVerifier, store: EventStore, meta: StreamMeta) -> Iterator[tuple[Any, Recorded]]:
    """Feed ``verifier`` the stored bytes of ``meta``'s history in order; for each event, once checked and
    folded, yield (the rules' state before it, its record): ``verifier.folded`` is then the fold just after
    it. Raises at the first problem, as ``ChainVerifier.feed`` does.

    The stored canonical bytes are checked, not decoded structs: a row edited in the database file is
    caught exactly as an edited export line would be."""
    for seg, low, high in lineage(store, meta):
        for seq, body in store.read_bodies(seg.id, low, high):
            before = verifier.folded.state
            yield before, verifier.feed(body, f"{meta.name}#{seq}")


class Unverified(Exception):
    """The log failed verification (``message``: the verifier's words, as a reader is shown them)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Inconclusive(Exception):
    """A split walk (``Verified`` with ``split``) did not end in success: walk again the ordinary way, which names
    the first problem, if there is one, as verify names it."""


class Verified:
    """Every event of ``meta``'s history as the verifier reads, checks and folds it (as ``verify_stream``
    does), for a walk that reads the verifier's fold instead of folding the log a second time (the fold is
    one object, updated in place: read it before asking for the next event). Once the whole log is walked,
    ``report`` is the verifier's. Raises ``Unverified`` at the first problem: no walk that saw an event that
    fails ends well.

    ``split`` (the CLI's report, which may fork): a long log's fold-free checks (its lines', signatures, sealed
    orders, joint dice) are made by a second process while this one folds (``exchange/split.py``); the walk
    then sees each event before the other process has checked it, and only the end says whether all passed:
    if not, ``Inconclusive`` is raised and the walk's result must be dropped (``walk_verified``)."""

    def __init__(self, store: EventStore, meta: StreamMeta, wiring: Wiring, *, split: bool = False) -> None:
        self.store, self.meta, self.wiring, self.split = store, meta, wiring, split
        self.report: VerifyReport | None = None

    def __iter__(self) -> Walked:
        # (an exception of the walk never surfaces at the yield: the walk's own errors stay its own)
        try:
            segments = segments_of(self.store, self.meta)
            lines = self._lines_to_split()
            if lines is not None:
                yield from self._split_walk(segments, lines)
                return
            verifier = ChainVerifier(segments, wiring=self.wiring)
            for before, rec in fed(verifier, self.store, self.meta):
                yield before, rec, verifier.folded
            self.report = verifier.finish(self.meta.name)
        except CombatlogError as exc:
            raise Unverified(str(exc)) from exc

    def _lines_to_split(self) -> list[tuple[str, bytes]] | None:
        if not self.split:
            return None
        from combatlog.exchange.split import worth_splitting

        if not worth_splitting(self.store.head(self.meta.id).seq):
            return None
        return [(f"{self.meta.name}#{seq}", body) for seg, low, high in lineage(self.store, self.meta)
                for seq, body in self.store.read_bodies(seg.id, low, high)]

    def _split_walk(self, segments: Any, lines: list[tuple[str, bytes]]) -> Walked:
        from combatlog.exchange.split import SecondProcess

        try:
            second = SecondProcess(ChainVerifier(segments, wiring=self.wiring), lines, None)
        except OSError as exc:  # no process to be had: the ordinary way
            raise Inconclusive() from exc
        finished = False
        try:
            verifier = ChainVerifier(segments, wiring=self.wiring)
            second.take_over(verifier)
            for where, body in lines:
                before = verifier.folded.state
                try:
                    rec = verifier.feed_line_checked(body, where)
                except CombatlogError as exc:  # (which problem comes first is the ordinary way's to say)
                    raise Inconclusive() from exc
                yield before, rec, verifier.folded
            done = second.done()
            if done is None:
                raise Inconclusive()
            finished = True
            verifier.checked_elsewhere = done.checks
            try:
                self.report = verifier.finish(self.meta.name)
            except CombatlogError as exc:
                raise Inconclusive() from exc
        finally:  # (a walk abandoned half-way too: the second process is stopped and reaped)
            second.close(finished=finished)


def unverified(store: EventStore, meta: StreamMeta) -> Walked:
    """Every event, read and folded without a check: a log that fails verification is still shown whole."""
    from combatlog.projections.views import fold_start

    folded = fold_start(store, meta)
    for rec in history(store, meta):
        before = folded.state
        folded.apply(rec)
        yield before, rec, folded


def walk_verified(store: EventStore, meta: StreamMeta, wiring: Wiring,
                  walk: Callable[[Walked], T], *, split: bool = False) -> tuple[T, VerifyReport | None, str]:
    """``walk`` the log in one pass, the verifier's: (what ``walk`` returned, the verifier's report, "").
    Where verification fails, at an event or when the verifier finishes, the walk's result is dropped and
    the log walked again, whole and unchecked: (what that walk returned, None, the verifier's words). ``walk``
    starts afresh each time it is called. ``split``: see ``Verified`` (a split walk that does not end in
    success is walked again the ordinary way)."""
    verified = Verified(store, meta, wiring, split=split)
    try:
        try:
            return walk(iter(verified)), verified.report, ""
        except Inconclusive:
            verified = Verified(store, meta, wiring)
            return walk(iter(verified)), verified.report, ""
    except Unverified as exc:  # rare: a log that fails is read twice, as every log was before
        return walk(unverified(store, meta)), None, exc.message
