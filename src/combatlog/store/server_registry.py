"""The combat server's own tables (``combatlog serve``, docs/server.md): who may read and write each
hosted combat, and the request nonces it has seen. Here, not in ``server/``, because only ``store/``
talks to databases (tests/core/test_layers.py); it is not part of the ``EventStore`` contract.

Kept in SQLite tables of their own (``server_combats``, ``server_nonces``), by default in the
same file as a SQLite event store (one file to back up), or in a file of its own beside a
PostgreSQL store (``--state``). The event store's contract is not touched: the registry is the
server's own state, like a web server's user table. It holds no secret of any player:

- an invite token is kept as its SHA-256 only (a stolen copy of the database does not let anyone
  read a private combat), compared in constant time;
- the pinned players are copied from the genesis (names, fingerprints, public keys: public data),
  so that a signed request is checked without folding the log.

Nonces are kept per key until their request's timestamp leaves the time window, so a replay
inside the window is caught and the table stays bounded (at most ``MAX_NONCES_PER_KEY`` per key).
A request is refused, or does nothing, unless its nonce is recorded durably: alone (``use_nonce``, a
commit of its own), or, where these tables are in the event store's own database, in the transaction
that appends the request's events (``record_nonce``: one durable commit for both instead of two).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
import time
from pathlib import Path

import msgspec

MAX_NONCES_PER_KEY = 20_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS server_combats (
    id TEXT PRIMARY KEY,
    creator TEXT NOT NULL,
    creator_key TEXT NOT NULL,
    token_sha256 TEXT NOT NULL,
    public INTEGER NOT NULL,
    players TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS server_nonces (
    key TEXT NOT NULL,
    nonce TEXT NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (key, nonce)
);
CREATE INDEX IF NOT EXISTS server_nonces_expires ON server_nonces (expires);
"""


class Pinned(msgspec.Struct, frozen=True):
    name: str
    fingerprint: str
    public_key: str  # base64 of the raw 32 bytes


class Access(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    creator: str
    creator_key: str
    token_sha256: str
    public: bool
    players: tuple[Pinned, ...]

    def pinned(self, name: str) -> Pinned | None:
        return next((p for p in self.players if p.name == name), None)

    def token_matches(self, token: str) -> bool:
        return hmac.compare_digest(token_digest(token), self.token_sha256)


class NonceRefused(Exception):
    """Raised by ``record_nonce`` inside the transaction that was to record the nonce with the request's events
    (which then commits nothing): ``why`` is "replayed" or "too many", as ``use_nonce`` answers."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def token_digest(token: str) -> str:
    return hashlib.sha256(b"combatlog-invite/v1\n" + token.encode("utf-8", "replace")).hexdigest()


class Registry:
    def __init__(self, path: str | Path) -> None:
        self.conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(_SCHEMA)

    def add(self, access: Access, now: int | None = None) -> None:
        self.conn.execute(
            "INSERT INTO server_combats (id, creator, creator_key, token_sha256, public, players, created_at) "
            "VALUES (?,?,?,?,?,?,?)",
            (access.id, access.creator, access.creator_key, access.token_sha256, int(access.public),
             msgspec.json.encode(access.players).decode(), int(now or time.time())))

    def remove(self, combat_id: str) -> None:
        self.conn.execute("DELETE FROM server_combats WHERE id = ?", (combat_id,))

    def get(self, combat_id: str) -> Access | None:
        row = self.conn.execute("SELECT id, creator, creator_key, token_sha256, public, players FROM server_combats "
                                "WHERE id = ?", (combat_id,)).fetchone()
        return _access(row) if row else None

    def all(self) -> list[Access]:
        rows = self.conn.execute("SELECT id, creator, creator_key, token_sha256, public, players FROM server_combats "
                                 "ORDER BY created_at, id").fetchall()
        return [_access(r) for r in rows]

    def use_nonce(self, key: str, nonce: str, expires: int, now: int) -> str:
        """Record a request nonce: "" when it is new, else why it is refused ("replayed", "too many")."""
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            why = _record(c, key, nonce, expires, now)
            c.execute("ROLLBACK" if why else "COMMIT")
            return why
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def seen(self, key: str, nonce: str) -> bool:
        """Whether a nonce is recorded already (a replay refused before any work; ``record_nonce`` decides)."""
        return self.conn.execute("SELECT 1 FROM server_nonces WHERE key = ? AND nonce = ?",
                                 (key, nonce)).fetchone() is not None

    @staticmethod
    def record_nonce(conn: sqlite3.Connection, key: str, nonce: str, expires: int, now: int) -> None:
        """``use_nonce`` inside a transaction of the SQLite event store on this registry's own file (``conn``, in
        ``import_batches``): raises ``NonceRefused`` for a nonce it would refuse, and the transaction commits nothing."""
        why = _record(conn, key, nonce, expires, now)
        if why:
            raise NonceRefused(why)

    def close(self) -> None:
        self.conn.close()


def _record(c: sqlite3.Connection, key: str, nonce: str, expires: int, now: int) -> str:
    """In an open write transaction: record the nonce, or say why not ("replayed", "too many")."""
    c.execute("DELETE FROM server_nonces WHERE expires < ?", (now,))
    # one statement on the common path (a new nonce, the key under its cap), as the PostgreSQL registry
    added = c.execute("INSERT INTO server_nonces (key, nonce, expires) SELECT ?, ?, ? "
                      "WHERE (SELECT count(*) FROM server_nonces WHERE key = ?) < ? "
                      "ON CONFLICT (key, nonce) DO NOTHING RETURNING 1",
                      (key, nonce, expires, key, MAX_NONCES_PER_KEY)).fetchall()
    if added:
        return ""
    seen = c.execute("SELECT 1 FROM server_nonces WHERE key = ? AND nonce = ?", (key, nonce)).fetchone()
    return "replayed" if seen else "too many"


def _access(row: tuple) -> Access:  # type: ignore[type-arg]
    players = tuple(Pinned(**p) for p in json.loads(row[5]))
    return Access(id=row[0], creator=row[1], creator_key=row[2], token_sha256=row[3], public=bool(row[4]),
                  players=players)
