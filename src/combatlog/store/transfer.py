"""Copying streams between two stores of any backends, keeping ids and bytes.

``plan_copy`` decides, for every stream, what the target lacks, and refuses
before anything is written when a stream diverges (a different event at the
same seq, or the same id forked from elsewhere) or when a name is taken there
by another stream. ``apply_copy`` then moves the missing events with
``import_batches`` in transactions of at most ``CHUNK`` events, parents before
forks, so the target is a valid log after each transaction: a copy that is
interrupted is resumed by running it again. Global positions are not copied
(they belong to one store); snapshots are caches and are rebuilt on use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import msgspec

from combatlog.errors import Diverged, InvalidCommand, NotFound
from combatlog.store.base import EventStore, ImportBatch, NewRow, StreamMeta

CHUNK = 2000  # events per target transaction
PAGE = 1000  # events per source read
Action = Literal["create", "append", "up_to_date", "ahead"]


class StreamPlan(msgspec.Struct, kw_only=True):
    meta: StreamMeta  # as in the source
    action: Action
    source_head: int
    target_head: int  # 0 when the stream is new there
    target_name: str  # the target may know the stream under a local name

    @property
    def first_seq(self) -> int:
        """The first seq to copy."""
        low = self.meta.fork_seq + 1 if self.meta.parent else 1
        return max(low, self.target_head + 1)

    @property
    def count(self) -> int:
        return max(0, self.source_head - self.first_seq + 1) if self.action in ("create", "append") else 0


class _Slim(msgspec.Struct):
    type: str
    command_id: str = ""


_slim = msgspec.json.Decoder(_Slim)


def parents_first(streams: list[StreamMeta]) -> list[StreamMeta]:
    """``streams`` ordered so that every fork comes after the stream it forks from."""
    by_id = {m.id: m for m in streams}

    def depth(m: StreamMeta) -> int:
        d, seen = 0, {m.id}
        while m.parent is not None and m.parent in by_id and m.parent not in seen:
            seen.add(m.parent)
            m = by_id[m.parent]
            d += 1
        return d

    return sorted(streams, key=lambda m: (depth(m), m.created_at, m.id))


def select_streams(source: EventStore, refs: list[str]) -> list[StreamMeta]:
    """All streams, or those named (by id or name) with every stream they fork from."""
    everything = source.list_streams()
    if not refs:
        return parents_first(everything)
    by_id = {m.id: m for m in everything}
    chosen: dict[str, StreamMeta] = {}
    for ref in refs:
        hits = [m for m in everything if ref in (m.id, m.name)]
        if not hits:
            raise NotFound(f"no combat {ref!r} in the source log")
        m: StreamMeta | None = hits[0]
        while m is not None and m.id not in chosen:
            chosen[m.id] = m
            m = by_id.get(m.parent) if m.parent else None
    return parents_first(list(chosen.values()))


def _diverged(name: str, seq: int, target: str, source: str) -> Diverged:
    exc = Diverged(name, seq, target, source)
    exc.message = f"{name} differs at seq {seq} ({target}; {source}): refusing to overwrite it"
    return exc


def _first_difference(source: EventStore, target: EventStore, stream_id: str, low: int, high: int) -> tuple[int, str, str]:
    for lo in range(low, high + 1, PAGE):
        hi = min(high, lo + PAGE - 1)
        ours = source.read_stream(stream_id, lo, hi)
        theirs = target.read_stream(stream_id, lo, hi)
        for a, b in zip(ours, theirs):
            if a.hash != b.hash:
                return a.seq, b.hash, a.hash
    raise AssertionError("no difference found")  # pragma: no cover - the caller saw one


def plan_copy(source: EventStore, target: EventStore, streams: list[StreamMeta]) -> list[StreamPlan]:
    """What to copy for each stream; raises Diverged/InvalidCommand before anything is written."""
    plans: list[StreamPlan] = []
    target_names = {m.name: m.id for m in target.list_streams()}
    for meta in streams:
        source_head = source.head(meta.id)
        there = target.get_stream(meta.id)
        if there is None:
            holder = target_names.get(meta.name)
            if holder is not None:
                raise InvalidCommand(f"the target already has a different combat named {meta.name!r} (id {holder}); "
                                     f"the source's {meta.name} is {meta.id}. Rename one before copying")
            plans.append(StreamPlan(meta=meta, action="create", source_head=source_head.seq, target_head=0,
                                    target_name=meta.name))
            continue
        if (there.parent, there.fork_seq, there.ruleset) != (meta.parent, meta.fork_seq, meta.ruleset):
            raise _diverged(meta.name, meta.fork_seq + 1,
                            f"target: {there.ruleset}, fork of {there.parent}@{there.fork_seq}",
                            f"source: {meta.ruleset}, fork of {meta.parent}@{meta.fork_seq}")
        target_head = target.head(meta.id)
        common = min(source_head.seq, target_head.seq)
        low = meta.fork_seq + 1 if meta.parent else 1
        ours = source.read_stream(meta.id, common, common)
        theirs = target.read_stream(meta.id, common, common)
        if common >= low and (not ours or not theirs or ours[0].hash != theirs[0].hash):
            # The chain makes equal hashes at ``common`` mean equal histories up to it; find where they part.
            seq, target_hash, source_hash = _first_difference(source, target, meta.id, low, common)
            raise _diverged(meta.name, seq, f"target {target_hash}", f"source {source_hash}")
        if source_head.seq > target_head.seq:
            action: Action = "append"
        elif source_head.seq == target_head.seq:
            action = "up_to_date"
        else:
            action = "ahead"
        plans.append(StreamPlan(meta=meta, action=action, source_head=source_head.seq, target_head=target_head.seq,
                                target_name=there.name))
    return plans


def apply_copy(source: EventStore, target: EventStore, plans: list[StreamPlan],
               progress: Callable[[int, int], None] | None = None) -> int:
    """Move the planned events; returns how many were copied."""
    total = sum(p.count for p in plans)
    done = 0
    pending: list[ImportBatch] = []
    pending_rows = 0

    def flush() -> None:
        nonlocal pending, pending_rows, done
        if pending:
            target.import_batches(pending)
            done += pending_rows
            if progress is not None:
                progress(done, total)
        pending, pending_rows = [], 0

    for plan in plans:
        if plan.count == 0:
            continue
        expected = plan.target_head
        create = plan.meta if plan.action == "create" else None
        rows: list[NewRow] = []
        for lo in range(plan.first_seq, plan.source_head + 1, PAGE):
            hi = min(plan.source_head, lo + PAGE - 1)
            page = source.read_stream(plan.meta.id, lo, hi)
            if not page or page[0].seq != lo or page[-1].seq != hi:
                raise NotFound(f"the source's {plan.meta.name} lacks events {lo}-{hi} it announced")
            for stored in page:
                slim = _slim.decode(stored.body)
                rows.append(NewRow(stored.seq, slim.type, stored.hash, stored.body, slim.command_id))
            # One batch per stream per transaction; a full transaction is committed before going on.
            if pending_rows + len(rows) >= CHUNK or hi == plan.source_head:
                pending.append(ImportBatch(stream_id=plan.meta.id, expected_version=expected, rows=rows,
                                           create=create))
                pending_rows += len(rows)
                expected, create, rows = hi, None, []
                if pending_rows >= CHUNK:
                    flush()
    flush()
    return done


def copy_seeds(source: EventStore, target: EventStore, streams: list[StreamMeta]) -> int:
    """Copy the referee seeds committed in ``streams`` (secret keys; only with the user's consent)."""
    copied = 0
    for meta in streams:
        low = meta.fork_seq + 1 if meta.parent else 1
        for stored in source.read_stream(meta.id, low):
            if _slim.decode(stored.body).type != "core.seed_committed":
                continue
            commitment = msgspec.json.decode(stored.body, type=_Commit).data.commitment
            name = f"seed:{commitment}"
            value = source.get_secret(name)
            if value is not None and target.get_secret(name) is None:
                target.put_secret(name, value)
                copied += 1
    return copied


class _CommitData(msgspec.Struct):
    commitment: str


class _Commit(msgspec.Struct):
    data: _CommitData
