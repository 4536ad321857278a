"""An in-process store: the reference behaviour, and fast tests."""

from __future__ import annotations

import threading

from combatlog.errors import ConcurrencyConflict, InvalidCommand, NotFound
from combatlog.store.base import AppendResult, Head, HeldBundle, ImportBatch, NewRow, StoredRow, StreamMeta


class MemoryStore:
    url = "memory:"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: dict[str, StreamMeta] = {}
        self._events: list[StoredRow] = []
        self._by_stream: dict[str, list[StoredRow]] = {}
        self._commands: dict[tuple[str, str], AppendResult] = {}
        self._snapshots: dict[tuple[str, str], dict[int, bytes]] = {}
        self._secrets: dict[str, bytes] = {}
        self._held: dict[str, HeldBundle] = {}

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
        self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str
    ) -> AppendResult:
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
            stored = StoredRow(len(self._events) + 1, stream_id, row.seq, row.hash, row.body)
            self._events.append(stored)
            mine.append(stored)
        result = AppendResult(stream=stream_id, first_seq=rows[0].seq, last_seq=rows[-1].seq)
        self._commands[(stream_id, command_id)] = result
        return result

    def import_batches(self, batches: list[ImportBatch]) -> None:
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
            for b in batches:
                if b.create is not None:
                    self._streams[b.create.id] = b.create
                    self._by_stream[b.create.id] = []
                self._insert_imported(b.stream_id, b.rows)

    def _insert_imported(self, stream_id: str, rows: list[NewRow]) -> None:
        for row in rows:
            stored = StoredRow(len(self._events) + 1, stream_id, row.seq, row.hash, row.body)
            self._events.append(stored)
            self._by_stream[stream_id].append(stored)
        for cid, first, last in command_spans(rows):
            self._commands.setdefault((stream_id, cid), AppendResult(stream=stream_id, first_seq=first, last_seq=last))

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

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredRow]:
        with self._lock:
            return self._events[after_position : after_position + limit]

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
