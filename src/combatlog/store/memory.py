"""An in-process store: the reference behaviour, and fast tests."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Mapping
from typing import Any

from combatlog.errors import ConcurrencyConflict, InvalidCommand, NotFound
from combatlog.store.base import (
    AppendResult, Head, HeldBundle, ImportBatch, NewRow, StoredRow, StreamMeta, SupersededRow,
)


class MemoryStore:
    url = "memory:"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: dict[str, StreamMeta] = {}
        self._events: list[StoredRow] = []  # by position; positions are never reused (a merge drops some)
        self._last_position = 0
        self._by_stream: dict[str, list[StoredRow]] = {}
        self._commands: dict[tuple[str, str], AppendResult] = {}
        self._snapshots: dict[tuple[str, str], dict[int, bytes]] = {}
        self._secrets: dict[str, bytes] = {}
        self._held: dict[str, HeldBundle] = {}
        self._superseded: dict[tuple[str, str], SupersededRow] = {}

    def create_stream(self, meta: StreamMeta, rows: list[NewRow], *, command_id: str) -> AppendResult:
        with self._lock:
            if meta.id in self._streams:
                earlier = self._commands.get((meta.id, command_id))
                if earlier is not None:
                    return _as_duplicate(earlier)
                raise InvalidCommand(f"a stream with id {meta.id} already exists")
            if any(s.name == meta.name for s in self._streams.values()):
                raise InvalidCommand(f"a combat named {meta.name!r} already exists")
            self._streams[meta.id] = meta
            self._by_stream[meta.id] = []
            return self._append_locked(meta.id, rows, command_id)

    def append(
        self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str,
        secrets: Mapping[str, bytes] | None = None,
    ) -> AppendResult:
        result = self._append(stream_id, rows, expected_version=expected_version, command_id=command_id)
        if secrets and not result.duplicate:
            for name, value in secrets.items():
                self.put_secret(name, value)
        return result

    def _append(self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str) -> AppendResult:
        with self._lock:
            if stream_id not in self._streams:
                raise NotFound(f"no stream {stream_id}")
            earlier = self._commands.get((stream_id, command_id))
            if earlier is not None:
                return _as_duplicate(earlier)
            actual = self._head_locked(stream_id).seq
            if actual != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, actual)
            return self._append_locked(stream_id, rows, command_id)

    def _append_locked(self, stream_id: str, rows: list[NewRow], command_id: str) -> AppendResult:
        mine = self._by_stream[stream_id]
        for row in rows:
            stored = self._next(stream_id, row)
            self._events.append(stored)
            mine.append(stored)
        result = AppendResult(stream=stream_id, first_seq=rows[0].seq, last_seq=rows[-1].seq)
        self._commands[(stream_id, command_id)] = result
        return result

    def import_batches(self, batches: list[ImportBatch], *, then: Callable[[Any], None] | None = None) -> None:
        with self._lock:
            names = {m.name for m in self._streams.values()}
            for b in batches:  # validate everything before changing anything
                if b.create is not None:
                    if b.create.id in self._streams or b.create.name in names:
                        raise InvalidCommand(f"stream {b.create.id} ({b.create.name}) already exists here")
                    names.add(b.create.name)
                else:
                    actual = self._head_locked(b.stream_id).seq
                    if actual != b.expected_version:
                        raise ConcurrencyConflict(b.stream_id, b.expected_version, actual)
            if then is not None:  # before any change: if it raises, nothing is imported
                then(None)
            for b in batches:
                if b.create is not None:
                    self._streams[b.create.id] = b.create
                    self._by_stream[b.create.id] = []
                self._insert_imported(b.stream_id, b.rows)

    def _insert_imported(self, stream_id: str, rows: list[NewRow]) -> None:
        for row in rows:
            stored = self._next(stream_id, row)
            self._events.append(stored)
            self._by_stream[stream_id].append(stored)
        for cid, first, last in command_spans(rows):
            self._commands.setdefault((stream_id, cid), AppendResult(stream=stream_id, first_seq=first, last_seq=last))

    def _next(self, stream_id: str, row: NewRow) -> StoredRow:
        self._last_position += 1
        return StoredRow(self._last_position, stream_id, row.seq, row.hash, row.body)

    def _head_locked(self, stream_id: str) -> Head:
        rows = self._by_stream.get(stream_id)
        if not rows:
            raise NotFound(f"no stream {stream_id}")
        return Head(rows[-1].seq, rows[-1].hash)

    def head(self, stream_id: str) -> Head:
        with self._lock:
            return self._head_locked(stream_id)

    def read_stream(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredRow]:
        with self._lock:
            rows = self._by_stream.get(stream_id)
            if rows is None:
                raise NotFound(f"no stream {stream_id}")
            return [r for r in rows if r.seq >= from_seq and (to_seq is None or r.seq <= to_seq)]

    def read_bodies(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[tuple[int, bytes]]:
        return [(r.seq, r.body) for r in self.read_stream(stream_id, from_seq, to_seq)]

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredRow]:
        with self._lock:
            start = bisect.bisect_right(self._events, after_position, key=lambda r: r.position)
            return self._events[start : start + limit]

    def get_stream(self, stream_id: str) -> StreamMeta | None:
        return self._streams.get(stream_id)

    def list_streams(self) -> list[StreamMeta]:
        return sorted(self._streams.values(), key=lambda m: (m.created_at, m.id))

    def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        earlier = self._commands.get((stream_id, command_id))
        return _as_duplicate(earlier) if earlier else None

    def save_snapshot(self, stream_id: str, seq: int, engine: str, blob: bytes) -> None:
        self._snapshots.setdefault((stream_id, engine), {})[seq] = blob

    def load_snapshot(self, stream_id: str, max_seq: int, engine: str) -> tuple[int, bytes] | None:
        snaps = self._snapshots.get((stream_id, engine), {})
        best = max((s for s in snaps if s <= max_seq), default=None)
        return (best, snaps[best]) if best is not None else None

    def put_secret(self, name: str, value: bytes) -> None:
        self._secrets[name] = value

    def get_secret(self, name: str) -> bytes | None:
        return self._secrets.get(name)

    def replace_tail(self, stream_id: str, *, fork_seq: int, expected_version: int, rows: list[NewRow],
                     superseded_at: str) -> list[SupersededRow]:
        with self._lock:
            actual = self._head_locked(stream_id).seq
            if actual != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, actual)
            mine = self._by_stream[stream_id]
            by = {r.seq: r.hash for r in rows}
            moved = [SupersededRow(stream=stream_id, seq=r.seq, hash=r.hash, body=r.body, by=by.get(r.seq, ""),
                                   superseded_at=superseded_at) for r in mine if r.seq > fork_seq]
            for row in moved:
                self._superseded.setdefault((stream_id, row.hash), row)
            gone = {r.hash for r in moved}
            self._by_stream[stream_id] = [r for r in mine if r.seq <= fork_seq]
            self._events = [r for r in self._events if not (r.stream == stream_id and r.hash in gone)]
            self._commands = {k: v for k, v in self._commands.items()
                              if not (k[0] == stream_id and v.first_seq > fork_seq)}
            for (sid, _engine), snaps in self._snapshots.items():
                if sid == stream_id:
                    for seq in [s for s in snaps if s > fork_seq]:
                        del snaps[seq]
            self._insert_imported(stream_id, rows)
            return moved

    def keep_superseded(self, rows: list[SupersededRow]) -> int:
        with self._lock:
            new = [r for r in rows if (r.stream, r.hash) not in self._superseded]
            for row in new:
                self._superseded[(row.stream, row.hash)] = row
            return len(new)

    def superseded(self, stream_id: str) -> list[SupersededRow]:
        with self._lock:
            found = [r for (sid, _h), r in self._superseded.items() if sid == stream_id]
        return sorted(found, key=lambda r: (r.seq, r.superseded_at, r.hash))

    def hold_bundle(self, held: HeldBundle) -> bool:
        with self._lock:
            if held.digest in self._held:
                return False
            self._held[held.digest] = held
            return True

    def held_bundles(self, stream_id: str | None = None) -> list[HeldBundle]:
        with self._lock:
            found = [h for h in self._held.values() if stream_id is None or stream_id in (h.stream, h.waits_on)]
        return sorted(found, key=held_order)

    def release_bundle(self, digest: str) -> None:
        with self._lock:
            self._held.pop(digest, None)

    def close(self) -> None:
        pass


def held_order(held: HeldBundle) -> tuple[str, int, str, str]:
    return (held.waits_on, held.since, held.received_at, held.digest)


def command_spans(rows: list[NewRow]) -> list[tuple[str, int, int]]:
    """(command id, first seq, last seq) for each run of rows sharing a command id."""
    spans: list[tuple[str, int, int]] = []
    for row in rows:
        if not row.command_id:
            continue
        if spans and spans[-1][0] == row.command_id and spans[-1][2] == row.seq - 1:
            spans[-1] = (row.command_id, spans[-1][1], row.seq)
        else:
            spans.append((row.command_id, row.seq, row.seq))
    return spans


def _as_duplicate(result: AppendResult) -> AppendResult:
    return AppendResult(stream=result.stream, first_seq=result.first_seq, last_seq=result.last_seq, duplicate=True)
