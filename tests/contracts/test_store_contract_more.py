"""More of the store contract, on every backend: retried creations, listings, imports' edge cases.

(Written with the PostgreSQL backend; the behaviour asserted is memory's, the reference.)
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from combatlog.errors import InvalidCommand, NotFound
from combatlog.store.base import EventStore, ImportBatch, StreamMeta
from tests.contracts.test_store_contract import meta, rows

Factory = Callable[[], EventStore]


def test_a_retried_creation_is_a_duplicate_and_another_with_the_same_id_is_refused(store_factory: Factory) -> None:
    store = store_factory()
    r = rows("s1", 1, 2)
    first = store.create_stream(meta("s1", "duel"), r, command_id="create-1")
    again = store.create_stream(meta("s1", "duel"), r, command_id="create-1")
    assert (first.duplicate, again.duplicate) == (False, True)
    assert (again.first_seq, again.last_seq) == (1, 2)
    with pytest.raises(InvalidCommand):
        store.create_stream(meta("s1", "other-name"), r, command_id="create-2")
    assert store.head("s1").seq == 2 and len(store.read_all()) == 2
    assert store.command_result("s1", "create-1") == again


def test_list_streams_orders_by_creation_time_then_id(store_factory: Factory) -> None:
    store = store_factory()
    made = [
        StreamMeta(id="b", name="late", ruleset="freeform", created_at="2026-03-01T00:00:00Z"),
        StreamMeta(id="c", name="early-c", ruleset="freeform", created_at="2026-01-01T00:00:00Z"),
        StreamMeta(id="a", name="early-a", ruleset="osric", created_at="2026-01-01T00:00:00Z", parent="c", fork_seq=1),
    ]
    for m in made:
        start = m.fork_seq + 1
        store.create_stream(m, rows(m.id, start, 1), command_id="c0")
    assert store.list_streams() == [made[2], made[1], made[0]]


def test_positions_are_unique_increasing_and_the_same_in_both_reads(store_factory: Factory) -> None:
    store = store_factory()
    a, b = rows("a", 1, 4), rows("b", 1, 3)
    store.create_stream(meta("a"), a[:2], command_id="c0")
    store.create_stream(meta("b"), b[:1], command_id="c0")
    store.append("a", a[2:], expected_version=2, command_id="c1")
    store.append("b", b[1:], expected_version=1, command_id="c1")
    everything = store.read_all()
    positions = [r.position for r in everything]
    assert positions == sorted(set(positions)) and len(positions) == 7
    by_key = {(r.stream, r.seq): r.position for r in everything}
    assert all(by_key[(r.stream, r.seq)] == r.position for s in ("a", "b") for r in store.read_stream(s))
    assert store.read_all(positions[-1]) == []
    assert [r.seq for r in store.read_all(positions[2], limit=100)] == [r.seq for r in everything[3:]]


def test_an_import_whose_new_name_is_taken_writes_nothing(store_factory: Factory) -> None:
    store = store_factory()
    store.create_stream(meta("p", "duel"), rows("p", 1, 1), command_id="c0")
    fine = ImportBatch(stream_id="n", expected_version=0, create=meta("n", "fresh"), rows=rows("n", 1, 1))
    clash = ImportBatch(stream_id="x", expected_version=0, create=meta("x", "duel"), rows=rows("x", 1, 1))
    with pytest.raises(InvalidCommand):
        store.import_batches([fine, clash])
    assert [m.id for m in store.list_streams()] == ["p"] and len(store.read_all()) == 1


def test_an_import_into_a_stream_that_is_not_here_is_not_found(store_factory: Factory) -> None:
    store = store_factory()
    with pytest.raises(NotFound):
        store.import_batches([ImportBatch(stream_id="ghost", expected_version=2, rows=rows("ghost", 3, 1))])
    assert store.read_all() == []


def test_imported_command_ids_are_known_by_their_spans(store_factory: Factory) -> None:
    store = store_factory()
    r = rows("s", 1, 1, cid="x") + rows("s", 2, 2, rows("s", 1, 1, cid="x")[0].hash, cid="y")
    store.import_batches([ImportBatch(stream_id="s", expected_version=0, create=meta("s"), rows=r)])
    x, y = store.command_result("s", "x"), store.command_result("s", "y")
    assert x is not None and (x.first_seq, x.last_seq, x.duplicate) == (1, 1, True)
    assert y is not None and (y.first_seq, y.last_seq, y.duplicate) == (2, 3, True)


def test_an_import_runs_then_in_its_own_transaction(store_factory: Factory) -> None:
    """``import_batches(then=...)`` (the server records a request's nonce so): ``then`` runs once inside the
    import's transaction; if it raises, nothing is imported and its exception comes out; an import refused
    before it (a stale expected version) does not run it."""
    store = store_factory()
    store.create_stream(meta("s"), rows("s", 1, 1), command_id="c1")
    ran: list[object] = []
    store.import_batches([ImportBatch(stream_id="s", expected_version=1, rows=rows("s", 2, 1))], then=ran.append)
    assert len(ran) == 1 and store.head("s").seq == 2

    class Refused(Exception):
        pass

    def refuse(handle: object) -> None:
        raise Refused()

    with pytest.raises(Refused):
        store.import_batches([ImportBatch(stream_id="s", expected_version=2, rows=rows("s", 3, 2))], then=refuse)
    assert store.head("s").seq == 2 and len(store.read_stream("s")) == 2
    from combatlog.errors import ConcurrencyConflict

    with pytest.raises(ConcurrencyConflict):
        store.import_batches([ImportBatch(stream_id="s", expected_version=1, rows=rows("s", 2, 1))], then=ran.append)
    assert len(ran) == 1
    store.import_batches([ImportBatch(stream_id="s", expected_version=2, rows=rows("s", 3, 1))])  # then is optional
    assert store.head("s").seq == 3
