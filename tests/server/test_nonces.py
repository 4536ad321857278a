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
