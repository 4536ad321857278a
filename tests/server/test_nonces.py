"""The request nonces the SQLite registry keeps (store/server_registry.py ``use_nonce``): a new nonce is
recorded durably, the same again is "replayed", a key at its cap is refused "too many" (and a replay at
the cap is still "replayed"), and nonces past their window are dropped, which makes room again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from combatlog.store import server_registry
from combatlog.store.server_registry import Registry


@pytest.fixture
def registry(tmp_path: Path):  # type: ignore[no-untyped-def]
    r = Registry(tmp_path / "server.db")
    yield r
    r.close()


def _kept(path: Path) -> set[tuple[str, str]]:
    """The nonces another connection sees (what was committed)."""
    conn = sqlite3.connect(path)
    try:
        return set(conn.execute("SELECT key, nonce FROM server_nonces").fetchall())
    finally:
        conn.close()


def test_new_then_replayed(registry: Registry, tmp_path: Path) -> None:
    assert registry.use_nonce("k1", "n1", expires=1300, now=1000) == ""
    assert registry.use_nonce("k1", "n1", expires=1300, now=1001) == "replayed"
    assert registry.use_nonce("k2", "n1", expires=1300, now=1001) == ""  # another key's nonce is its own
    assert _kept(tmp_path / "server.db") == {("k1", "n1"), ("k2", "n1")}
    assert not registry.conn.in_transaction


def test_a_key_at_its_cap_is_refused_until_nonces_expire(registry: Registry, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    monkeypatch.setattr(server_registry, "MAX_NONCES_PER_KEY", 3)
    for i in range(3):
        assert registry.use_nonce("k", f"n{i}", expires=1100 + i, now=1000) == ""
    assert registry.use_nonce("k", "n3", expires=1200, now=1000) == "too many"
    assert registry.use_nonce("k", "n0", expires=1200, now=1000) == "replayed"  # a replay is named as such
    assert registry.use_nonce("other", "n3", expires=1200, now=1000) == ""  # the cap is per key
    assert ("k", "n3") not in _kept(tmp_path / "server.db")
    # at 1101 the first nonce (expires 1100) is past its window: dropped, room for one more
    assert registry.use_nonce("k", "n3", expires=1400, now=1101) == ""
    assert registry.use_nonce("k", "n4", expires=1400, now=1101) == "too many"
    assert {n for k, n in _kept(tmp_path / "server.db") if k == "k"} == {"n1", "n2", "n3"}
    assert not registry.conn.in_transaction


def test_a_nonce_recorded_with_the_events_commits_with_them_or_not_at_all(tmp_path: Path) -> None:
    """The server's append on its default layout (the registry in the store's own file): ``record_nonce`` in the
    store's import transaction. Committed with the events; a nonce already recorded (a replay the first check
    missed: another process took it meanwhile) refuses the whole transaction; so does a key at its cap."""
    from combatlog.store.base import ImportBatch
    from combatlog.store.server_registry import NonceRefused
    from combatlog.store.sqlite import SQLiteStore
    from tests.contracts.test_store_contract import meta, rows

    path = tmp_path / "server.db"
    store, registry = SQLiteStore(path), Registry(path)
    try:
        store.create_stream(meta("s"), rows("s", 1, 1), command_id="c1")

        def batch(seq: int) -> list[ImportBatch]:
            return [ImportBatch(stream_id="s", expected_version=seq - 1, rows=rows("s", seq, 1))]

        def nonce(n: str):  # type: ignore[no-untyped-def]
            return lambda conn: registry.record_nonce(conn, "k", n, expires=1300, now=1000)

        store.import_batches(batch(2), then=nonce("n1"))
        assert ("k", "n1") in _kept(path) and store.head("s").seq == 2
        assert not registry.seen("k", "n2") and registry.seen("k", "n1")
        assert registry.use_nonce("k", "n1", expires=1300, now=1001) == "replayed"
        # the same nonce again, with events that would otherwise append: refused, nothing appended
        with pytest.raises(NonceRefused) as refused:
            store.import_batches(batch(3), then=nonce("n1"))
        assert refused.value.why == "replayed" and store.head("s").seq == 2
        # another connection records n2 between the server's check and its commit: the commit is refused
        assert registry.use_nonce("k", "n2", expires=1300, now=1001) == ""
        with pytest.raises(NonceRefused):
            store.import_batches(batch(3), then=nonce("n2"))
        assert store.head("s").seq == 2 and not store.conn.in_transaction
        # an import refused before the nonce (a stale head) records no nonce
        from combatlog.errors import ConcurrencyConflict

        with pytest.raises(ConcurrencyConflict):
            store.import_batches(batch(2), then=nonce("n3"))
        assert ("k", "n3") not in _kept(path)
    finally:
        store.close()
        registry.close()


def test_a_nonce_recorded_with_the_events_keeps_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from combatlog.store.base import ImportBatch
    from combatlog.store.server_registry import NonceRefused
    from combatlog.store.sqlite import SQLiteStore
    from tests.contracts.test_store_contract import meta, rows

    monkeypatch.setattr(server_registry, "MAX_NONCES_PER_KEY", 1)
    path = tmp_path / "server.db"
    store, registry = SQLiteStore(path), Registry(path)
    try:
        store.create_stream(meta("s"), rows("s", 1, 1), command_id="c1")
        assert registry.use_nonce("k", "n0", expires=1300, now=1000) == ""
        with pytest.raises(NonceRefused) as refused:
            store.import_batches([ImportBatch(stream_id="s", expected_version=1, rows=rows("s", 2, 1))],
                                 then=lambda conn: registry.record_nonce(conn, "k", "n1", expires=1300, now=1000))
        assert refused.value.why == "too many" and store.head("s").seq == 1
    finally:
        store.close()
        registry.close()
