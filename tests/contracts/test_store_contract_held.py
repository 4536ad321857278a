"""The store contract for held bundles: bundles that arrived before the events they rest on.

``import`` keeps them (``hold_bundle``) until their predecessor arrives, ``status`` lists them,
and they are forgotten once applied (``release_bundle``). Every backend behaves like this.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from combatlog.store.base import EventStore, HeldBundle

Factory = Callable[[], EventStore]


def held(body: bytes, stream: str = "s1", waits_on: str = "s1", since: int = 5, at: str = "2026-01-02T00:00:00Z",
         source: str = "mail.eml, block 1") -> HeldBundle:
    return HeldBundle(digest=hashlib.sha256(body).hexdigest(), stream=stream, waits_on=waits_on, since=since,
                      head_seq=since + 3, received_at=at, source=source, body=body)


def test_a_held_bundle_reads_back_exactly_and_once(store_factory: Factory) -> None:
    store = store_factory()
    body = bytes(range(256)) * 3  # any bytes, NUL included
    first = held(body)
    assert store.hold_bundle(first) is True
    assert store.hold_bundle(held(body, source="again.jsonl")) is False  # the same bundle is held once
    assert store.held_bundles("s1") == [first]
    assert store.held_bundles() == [first]
    assert store.held_bundles("other") == []


def test_held_bundles_are_found_by_the_stream_they_continue_or_wait_on(store_factory: Factory) -> None:
    store = store_factory()
    late = held(b"late", since=9, at="2026-01-01T00:00:00Z")
    early = held(b"early", since=4, at="2026-01-03T00:00:00Z")
    fork = held(b"fork", stream="f1", waits_on="s1", since=2)
    other = held(b"other", stream="s2", waits_on="s2", since=1)
    for h in (late, early, fork, other):
        store.hold_bundle(h)
    assert store.held_bundles("s1") == [fork, early, late]  # by since, then arrival
    assert store.held_bundles("f1") == [fork]
    assert store.held_bundles() == [fork, early, late, other]


def test_a_released_bundle_is_gone_and_releasing_twice_is_harmless(store_factory: Factory) -> None:
    store = store_factory()
    a, b = held(b"a", since=1), held(b"b", since=2)
    store.hold_bundle(a)
    store.hold_bundle(b)
    store.release_bundle(a.digest)
    store.release_bundle(a.digest)
    assert store.held_bundles("s1") == [b]
    assert store.hold_bundle(a) is True  # it may be held again (it arrived again, still early)


def test_held_bundles_survive_reopening_a_sqlite_log_and_an_old_log_gains_the_table(tmp_path: Path) -> None:
    import sqlite3

    from combatlog.store.sqlite import SCHEMA_VERSION, SQLiteStore

    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    kept = held(b"kept")
    store.hold_bundle(kept)
    store.close()
    assert SQLiteStore(path).held_bundles() == [kept]
    # a log written before held bundles existed (schema 1) is migrated when opened
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE held_bundles")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.held_bundles() == [] and store.hold_bundle(kept)
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.close()
