"""The event store contract. Every backend passes tests/contracts/.

A store keeps envelopes as their canonical bytes plus the few columns it
indexes. It never updates or deletes an event. Appends are atomic batches
guarded by an expected version; a retried command id returns its first result.
Snapshots and referee secrets are local caches and keys, never exported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import msgspec

from combatlog.errors import VerificationFailed
from combatlog.events.canonical import line_size_problem


class StreamMeta(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    ruleset: str
    created_at: str
    parent: str | None = None  # parent stream id, for forks
    fork_seq: int = 0  # last parent seq this stream shares


class Head(msgspec.Struct, frozen=True):
    seq: int
    hash: str


def _fits(body: bytes) -> None:
    """The last guard of the event size limit: no row larger than an event may be is ever built for a
    store, whatever path it comes by (import, merge, evidence, server, replica, the write path)."""
    problem = line_size_problem(body)
    if problem:
        raise VerificationFailed(problem)


class NewRow(msgspec.Struct, frozen=True):
    seq: int
    type: str
    hash: str
    body: bytes
    command_id: str = ""  # set on imported rows, so a retried command is recognised here too

    def __post_init__(self) -> None:
        _fits(self.body)


class ImportBatch(msgspec.Struct, frozen=True, kw_only=True):
    """Rows for one stream in an import; ``create`` is set when the stream is new here."""

    stream_id: str
    expected_version: int  # 0 with ``create``
    rows: list[NewRow]
    create: StreamMeta | None = None


class HeldBundle(msgspec.Struct, frozen=True, kw_only=True):
    """A bundle that arrived before the events it rests on (``import`` holds it until they do).

    Local state, like snapshots: never exported, and deleted once applied. ``body`` is
    the bundle (JSON Lines) exactly as received; it is verified in full when applied.
    """

    digest: str  # SHA-256 of body, hex: one row per bundle however often it arrives
    stream: str  # the stream the bundle continues (its header's)
    waits_on: str  # the local stream whose missing events it needs
    since: int  # it rests on this seq of that history
    head_seq: int  # its last seq
    received_at: str  # RFC 3339 UTC
    source: str  # where it came from, for people ("mail.eml, block 2")
    body: bytes


class SupersededRow(msgspec.Struct, frozen=True, kw_only=True):
    """An event that lost a deterministic merge (``exchange/merge.py``): kept as evidence, never replayed.

    Local state like held bundles, but never deleted: it is what a player shows when a decision
    of theirs was dropped or changed by a rebase. ``by`` is the hash of the event that holds the
    same seq in the chosen branch ("" when the chosen branch is shorter).
    """

    stream: str
    seq: int
    hash: str
    body: bytes
    by: str
    superseded_at: str  # RFC 3339 UTC

    def __post_init__(self) -> None:
        _fits(self.body)


class StoredRow(msgspec.Struct, frozen=True):
    position: int
    stream: str
    seq: int
    hash: str
    body: bytes


class AppendResult(msgspec.Struct, frozen=True, kw_only=True):
    stream: str
    first_seq: int
    last_seq: int
    duplicate: bool = False  # True when the command id had already been appended


class EventStore(Protocol):
    url: str

    def create_stream(self, meta: StreamMeta, rows: list[NewRow], *, command_id: str) -> AppendResult: ...

    def append(
        self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str,
        secrets: Mapping[str, bytes] | None = None,
    ) -> AppendResult:
        """Append ``rows`` atomically if the head is ``expected_version``; ``secrets`` (local, never exported:
        the command a merge may re-run) are written in the same transaction, so they cost no second sync."""
        ...

    def import_batches(self, batches: list[ImportBatch], *, then: Callable[[Any], None] | None = None) -> None:
        """Create and append several streams' rows in one transaction: all or nothing.

        ``then(handle)`` (the server's request nonce) runs in that same transaction after the rows, with the
        backend's handle on it (SQLite: the connection; PostgreSQL: the cursor; memory: None): if it raises,
        nothing is imported and its exception is raised; if this returns, both were committed at once."""
        ...

    def head(self, stream_id: str) -> Head: ...

    def read_stream(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredRow]: ...

    def read_bodies(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[tuple[int, bytes]]:
        """(seq, body) of ``read_stream``'s rows: what a verifier reads (half the cost of whole rows in SQLite)."""
        ...

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredRow]: ...

    def get_stream(self, stream_id: str) -> StreamMeta | None: ...

    def list_streams(self) -> list[StreamMeta]: ...

    def command_result(self, stream_id: str, command_id: str) -> AppendResult | None: ...

    def save_snapshot(self, stream_id: str, seq: int, engine: str, blob: bytes) -> None: ...

    def load_snapshot(self, stream_id: str, max_seq: int, engine: str) -> tuple[int, bytes] | None: ...

    def put_secret(self, name: str, value: bytes) -> None: ...

    def hold_bundle(self, held: HeldBundle) -> bool:
        """Keep a bundle that waits for its predecessor; False when one with its digest is already held."""
        ...

    def held_bundles(self, stream_id: str | None = None) -> list[HeldBundle]:
        """Held bundles that continue or wait on ``stream_id`` (all when None), by stream, since, arrival."""
        ...

    def release_bundle(self, digest: str) -> None:
        """Forget a held bundle (applied, or refused once its predecessor arrived)."""
        ...

    def get_secret(self, name: str) -> bytes | None: ...

    def replace_tail(self, stream_id: str, *, fork_seq: int, expected_version: int, rows: list[NewRow],
                     superseded_at: str) -> list[SupersededRow]:
        """In one transaction: keep the events after ``fork_seq`` as superseded evidence, drop them, their
        command ids and the snapshots after ``fork_seq`` from the log, and append ``rows`` in their place.

        The one exception to append-only, used only by a deterministic merge (``exchange/merge.py``):
        nothing is lost, the superseded events stay in ``superseded``. Raises ``ConcurrencyConflict``
        when the head is not ``expected_version``; returns the rows superseded.
        """
        ...

    def keep_superseded(self, rows: list[SupersededRow]) -> int:
        """Keep events of a branch that lost a merge (received, never in the log); returns how many were new."""
        ...

    def superseded(self, stream_id: str) -> list[SupersededRow]:
        """The superseded events of a stream, by seq then time."""
        ...

    def close(self) -> None: ...
