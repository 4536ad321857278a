"""The event store contract: every backend must behave exactly like this."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from combatlog.errors import ConcurrencyConflict, InvalidCommand, NotFound
from combatlog.events.core import Noted
from combatlog.events.envelope import GENESIS_PREV, encode_envelope, seal
from combatlog.store.base import EventStore, ImportBatch, NewRow, StreamMeta

Factory = Callable[[], EventStore]


def rows(stream: str, start: int, count: int, prev: str = GENESIS_PREV, cid: str = "") -> list[NewRow]:
    out = []
    for seq in range(start, start + count):
        env = seal(stream=stream, seq=seq, prev=prev, event=Noted(text=f"n{seq}"), actor="t", command_id=cid or f"c{seq}")
        out.append(NewRow(seq, env.type, env.hash, encode_envelope(env), env.command_id))
        prev = env.hash
    return out


def meta(id_: str, name: str | None = None, **kw: object) -> StreamMeta:
    return StreamMeta(id=id_, name=name or id_, ruleset="freeform", created_at=f"2026-01-01T00:00:0{len(id_) % 10}Z", **kw)  # type: ignore[arg-type]


def test_create_then_read_back_bytes_exactly(store_factory: Factory) -> None:
    store = store_factory()
    r = rows("s1", 1, 3)
    result = store.create_stream(meta("s1"), r, command_id="c0")
    assert (result.first_seq, result.last_seq, result.duplicate) == (1, 3, False)
    got = store.read_stream("s1")
    assert [g.seq for g in got] == [1, 2, 3]
    assert [g.body for g in got] == [x.body for x in r]
    assert [g.hash for g in got] == [x.hash for x in r]
    assert store.head("s1").seq == 3 and store.head("s1").hash == r[-1].hash
    assert store.get_stream("s1") == meta("s1")


def test_read_stream_range(store_factory: Factory) -> None:
    store = store_factory()
    store.create_stream(meta("s1"), rows("s1", 1, 10), command_id="c0")
    assert [r.seq for r in store.read_stream("s1", 4, 6)] == [4, 5, 6]
    assert [r.seq for r in store.read_stream("s1", 9)] == [9, 10]
    assert store.read_stream("s1", 11) == []


def test_read_bodies_is_read_streams_seq_and_body(store_factory: Factory) -> None:
    """What verify reads: the (seq, body) of each row ``read_stream`` gives, over the same range, in order, and
    only the stream asked for."""
    store = store_factory()
    store.create_stream(meta("s1"), rows("s1", 1, 10), command_id="c0")
    store.create_stream(meta("s2"), rows("s2", 1, 3), command_id="c1")
    for low, high in ((1, None), (4, 6), (9, None), (11, None)):
        assert store.read_bodies("s1", low, high) == [(r.seq, r.body) for r in store.read_stream("s1", low, high)]
    assert [seq for seq, _ in store.read_bodies("s1", 4, 6)] == [4, 5, 6]
    assert all(type(body) is bytes for _, body in store.read_bodies("s2"))
    assert [body for _, body in store.read_bodies("s2")] == [r.body for r in store.read_stream("s2")]


def test_append_with_expected_version_and_conflict_names_both_versions(store_factory: Factory) -> None:
    store = store_factory()
    first = rows("s1", 1, 2)
    store.create_stream(meta("s1"), first, command_id="c0")
    store.append("s1", rows("s1", 3, 2, first[-1].hash), expected_version=2, command_id="c1")
    with pytest.raises(ConcurrencyConflict) as err:
        store.append("s1", rows("s1", 3, 1), expected_version=2, command_id="c2")
    assert (err.value.expected, err.value.actual) == (2, 4)
    assert "s1" in str(err.value) and "expected version 2" in str(err.value) and "actual 4" in str(err.value)
    assert store.head("s1").seq == 4  # nothing from the losing batch


def test_retry_with_same_command_id_returns_first_result_and_appends_nothing(store_factory: Factory) -> None:
    store = store_factory()
    first = rows("s1", 1, 1)
    store.create_stream(meta("s1"), first, command_id="c0")
    batch = rows("s1", 2, 3, first[-1].hash)
    a = store.append("s1", batch, expected_version=1, command_id="same")
    b = store.append("s1", batch, expected_version=1, command_id="same")
    assert (a.first_seq, a.last_seq, a.duplicate) == (2, 4, False)
    assert (b.first_seq, b.last_seq, b.duplicate) == (2, 4, True)
    assert store.head("s1").seq == 4
    assert store.command_result("s1", "same") == b
    assert store.command_result("s1", "other") is None


def test_names_are_unique_and_missing_streams_are_not_found(store_factory: Factory) -> None:
    store = store_factory()
    store.create_stream(meta("s1", "duel"), rows("s1", 1, 1), command_id="c0")
    with pytest.raises(InvalidCommand):
        store.create_stream(meta("s2", "duel"), rows("s2", 1, 1), command_id="c0")
    with pytest.raises(NotFound):
        store.head("nope")
    with pytest.raises(NotFound):
        store.append("nope", rows("nope", 1, 1), expected_version=0, command_id="x")
    assert store.get_stream("nope") is None
    assert [m.id for m in store.list_streams()] == ["s1"]


def test_read_all_pages_in_global_order_across_streams(store_factory: Factory) -> None:
    store = store_factory()
    a, b = rows("a", 1, 3), rows("bb", 1, 2)
    store.create_stream(meta("a"), a, command_id="c0")
    store.create_stream(meta("bb"), b, command_id="c0")
    store.append("a", rows("a", 4, 2, a[-1].hash), expected_version=3, command_id="c9")
    seen = []
    after = 0
    while page := store.read_all(after, limit=2):
        assert len(page) <= 2
        seen += [(r.stream, r.seq) for r in page]
        positions = [r.position for r in page]
        assert positions == sorted(positions) and positions[0] > after
        after = page[-1].position
    assert seen == [("a", 1), ("a", 2), ("a", 3), ("bb", 1), ("bb", 2), ("a", 4), ("a", 5)]


def test_fork_metadata_round_trips(store_factory: Factory) -> None:
    store = store_factory()
    store.create_stream(meta("p"), rows("p", 1, 3), command_id="c0")
    fork = meta("f", "whatif", parent="p", fork_seq=2)
    store.create_stream(fork, rows("f", 3, 1), command_id="c0")
    assert store.get_stream("f") == fork
    assert store.head("f").seq == 3


def test_import_batches_land_whole_or_not_at_all(store_factory: Factory) -> None:
    store = store_factory()
    existing = rows("p", 1, 2)
    store.create_stream(meta("p"), existing, command_id="c0")
    good_new = ImportBatch(stream_id="n", expected_version=0, create=meta("n"), rows=rows("n", 1, 2))
    stale = ImportBatch(stream_id="p", expected_version=1, rows=rows("p", 2, 1))  # p is at 2, not 1
    with pytest.raises(ConcurrencyConflict):
        store.import_batches([good_new, stale])
    assert store.get_stream("n") is None  # the first batch was rolled back too
    assert store.head("p").seq == 2
    tail = ImportBatch(stream_id="p", expected_version=2, rows=rows("p", 3, 2, existing[-1].hash, cid="imported"))
    store.import_batches([good_new, tail])
    assert store.head("n").seq == 2 and store.head("p").seq == 4
    assert store.command_result("p", "imported") is not None  # imported command ids are known here


def test_snapshots_pick_the_newest_at_or_below(store_factory: Factory) -> None:
    store = store_factory()
    store.create_stream(meta("s"), rows("s", 1, 1), command_id="c0")
    assert store.load_snapshot("s", 100, "e1") is None
    store.save_snapshot("s", 10, "e1", b"ten")
    store.save_snapshot("s", 20, "e1", b"twenty")
    store.save_snapshot("s", 15, "e2", b"other engine")
    assert store.load_snapshot("s", 19, "e1") == (10, b"ten")
    assert store.load_snapshot("s", 20, "e1") == (20, b"twenty")
    assert store.load_snapshot("s", 9, "e1") is None
    assert store.load_snapshot("s", 100, "e2") == (15, b"other engine")


def test_secrets_are_kept(store_factory: Factory) -> None:
    store = store_factory()
    assert store.get_secret("seed:x") is None
    store.put_secret("seed:x", b"\x00\x01")
    assert store.get_secret("seed:x") == b"\x00\x01"


def test_secrets_given_with_an_append_land_with_it_and_only_with_it(store_factory: Factory) -> None:
    """The handler keeps the command a merge may re-run (commands/kept.py) in the append's own transaction."""
    store = store_factory()
    first = rows("s1", 1, 2)
    store.create_stream(meta("s1"), first, command_id="c0")
    with pytest.raises(ConcurrencyConflict):
        store.append("s1", rows("s1", 3, 1, first[-1].hash), expected_version=1, command_id="c1",
                     secrets={"command:s1:c1": b"lost"})
    assert store.get_secret("command:s1:c1") is None  # the refused append kept nothing
    store.append("s1", rows("s1", 3, 1, first[-1].hash), expected_version=2, command_id="c1",
                 secrets={"command:s1:c1": b"kept"})
    assert store.get_secret("command:s1:c1") == b"kept"
