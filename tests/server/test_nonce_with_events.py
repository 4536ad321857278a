"""A signed append's nonce is recorded in the transaction that appends its events (server/routes.py
``Api._append``, where the registry is in the store's own database: the default), else alone: every
replay is refused all the same, whatever the first request came to. Each attack replays a request
that was answered, on a live server; on PostgreSQL in tests/postgres/test_nonce_with_events_pg.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table


def _bundle(seat, folder: Path, since: int) -> bytes:  # type: ignore[no-untyped-def]
    path = folder / f"{seat.name}-since-{since}.jsonl"
    seat("export", "duel", "--since", str(since), "-o", str(path))
    return path.read_bytes()


def _head(server: LiveServer, seat, cid: str) -> int:  # type: ignore[no-untyped-def]
    info = f"/v1/combats/{cid}"
    return int(server.request("GET", info, None, signed(seat.home, seat.name, "GET", info)).json()["head_seq"])


def _replayed(server: LiveServer, seat, cid: str, body: bytes, headers: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    before = _head(server, seat, cid)
    again = server.request("POST", f"/v1/combats/{cid}/events", body, headers)
    assert again.status == 401 and again.json()["error"] == "replayed", again.body
    assert _head(server, seat, cid) == before


def replays_refused(server: LiveServer, folder: Path) -> None:
    """Replays of an append that appended, of one refused (409, then a bad bundle), and of a retry that
    appended nothing (its events were there already): each refused as replayed, nothing changed."""
    alice, bob = table(folder, server.url, ("alice", "bob"))
    bob("pull", "duel")
    cid = combat_id(alice)
    target = f"/v1/combats/{cid}/events"
    alice("note", "duel", "first")
    body = _bundle(alice, folder, 1)
    headers = signed(alice.home, "alice", "POST", target, body)
    assert server.request("POST", target, body, headers).json()["appended"] == 1
    _replayed(server, alice, cid, body, headers)
    # the same events again under a fresh nonce: a retry of an append made (200, nothing appended)...
    retry = signed(alice.home, "alice", "POST", target, body)
    answer = server.request("POST", target, body, retry)
    assert answer.status == 200 and answer.json()["appended"] == 0
    _replayed(server, alice, cid, body, retry)  # ...and replayed
    # bob's note rests on #1, the server is at #2: refused (409), then replayed
    bob("note", "duel", "late")
    stale = _bundle(bob, folder, 1)
    conflict = signed(bob.home, "bob", "POST", target, stale)
    assert server.request("POST", target, stale, conflict).status == 409
    _replayed(server, bob, cid, stale, conflict)
    # a bundle that does not verify (its event's text changed after alice signed it): refused, then replayed
    alice("note", "duel", "second")
    forged = _bundle(alice, folder, 2).replace(b'"second"', b'"forged"')
    bad = signed(alice.home, "alice", "POST", target, forged)
    first = server.request("POST", target, forged, bad)
    assert first.status in (400, 409, 422) and first.json()["error"] != "replayed", first.body
    _replayed(server, alice, cid, forged, bad)
    # the honest append still goes through, and its own replay is refused
    body = _bundle(alice, folder, 2)
    headers = signed(alice.home, "alice", "POST", target, body)
    assert server.request("POST", target, body, headers).json()["appended"] == 1
    _replayed(server, alice, cid, body, headers)


def test_replays_are_refused_with_the_nonce_in_the_events_commit(tmp_path: Path) -> None:
    server = LiveServer(tmp_path, "--open")
    try:
        replays_refused(server, tmp_path)
    finally:
        server.stop()
    # every answered signed request's nonce is there (a refused one's as much as an appended one's)
    conn = sqlite3.connect(tmp_path / "server.db")
    try:
        assert conn.execute("SELECT count(*) FROM server_nonces").fetchone()[0] >= 6
    finally:
        conn.close()


def test_replays_are_refused_with_the_registry_in_a_file_of_its_own(tmp_path: Path) -> None:
    """``--state`` elsewhere than the store: the nonce is recorded alone first, as before."""
    server = LiveServer(tmp_path, "--open", "--state", str(tmp_path / "registry.db"))
    try:
        replays_refused(server, tmp_path)
    finally:
        server.stop()


@pytest.mark.parametrize("state", ["same", "own"])
def test_a_key_refused_for_its_rate_spends_its_nonce(tmp_path: Path, state: str) -> None:
    """A signed append refused 429 for its key's rate (after its signature was checked) is not left to be
    replayed later: its nonce is recorded all the same. Each request comes from an address of its own (a
    believed X-Forwarded-For), so only the key's bucket can refuse it."""
    extra = ("--state", str(tmp_path / "registry.db")) if state == "own" else ()
    server = LiveServer(tmp_path, "--open", "--rate", "0.01", "--burst", "3", "--forwarded-allow-ips", "127.0.0.1",
                        *extra)
    try:
        alice, _bob = table(tmp_path, server.url, ("alice", "bob"))
        cid = combat_id(alice)
        target = f"/v1/combats/{cid}/events"
        alice("note", "duel", "first")
        body = _bundle(alice, tmp_path, 1)
        limited = None
        for n in range(6):
            headers = signed(alice.home, "alice", "POST", target, body)
            answer = server.request("POST", target, body, {**headers, "X-Forwarded-For": f"10.0.0.{n + 1}"})
            if answer.status == 429:
                assert answer.json()["message"].startswith("too many requests from key "), answer.body
                limited = headers
                break
        assert limited is not None, "the key's bucket never ran out"
        db = tmp_path / ("registry.db" if state == "own" else "server.db")
        conn = sqlite3.connect(db)
        try:
            kept = conn.execute("SELECT 1 FROM server_nonces WHERE nonce = ?", (limited["X-Combatlog-Nonce"],)).fetchone()
        finally:
            conn.close()
        assert kept is not None
        again = server.request("POST", target, body, {**limited, "X-Forwarded-For": "10.0.1.1"})
        assert again.status == 401 and again.json()["error"] == "replayed"
    finally:
        server.stop()
