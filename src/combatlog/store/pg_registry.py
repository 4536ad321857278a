"""The combat server's own tables in PostgreSQL, beside a PostgreSQL event store: what several
``combatlog serve`` processes on one database share (docs/server.md, "Several server processes").

The same interface and the same rules as ``server_registry.Registry`` (SQLite): who may read and
write each hosted combat (invite tokens as SHA-256 only, the pinned players copied from the
genesis) and the request nonces seen. Here the nonce is recorded by one ``INSERT ... ON CONFLICT
DO NOTHING`` on the primary key (key, nonce): whichever process gets a request first records its
nonce, and the same request replayed to any process on the database is refused. The per-key cap is
checked in the same statement; two processes racing on one key may pass it by a request or two
(it bounds the table, it is not a security boundary).

The tables live in the log's own schema (the URL's search_path) with a version table of their own,
``combatlog_server_schema``: the event store's schema and migrations (pg_schema.py) stay the store's.
Migrations run on open, one process at a time per schema (an advisory lock), and only append.
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec

from combatlog.errors import StoreError
from combatlog.store.pg_connection import PgConnection, redact
from combatlog.store.server_registry import MAX_NONCES_PER_KEY, Access, NonceRefused, Pinned

VERSION_TABLE = "combatlog_server_schema"

MIGRATIONS: dict[int, list[str]] = {
    1: [
        f"""CREATE TABLE {VERSION_TABLE} (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )""",
        """CREATE TABLE server_combats (
            id text COLLATE "C" PRIMARY KEY,
            creator text NOT NULL,
            creator_key text NOT NULL,
            token_sha256 text NOT NULL,
            public boolean NOT NULL,
            players text NOT NULL,
            created_at bigint NOT NULL
        )""",
        """CREATE TABLE server_nonces (
            key text COLLATE "C" NOT NULL,
            nonce text COLLATE "C" NOT NULL,
            expires bigint NOT NULL,
            PRIMARY KEY (key, nonce)
        )""",
        "CREATE INDEX server_nonces_expires ON server_nonces (expires)",
    ],
}
SCHEMA_VERSION = max(MIGRATIONS)

_COLUMNS = "id, creator, creator_key, token_sha256, public, players"


class PgRegistry:
    def __init__(self, url: str) -> None:
        self.url = url
        # reopened by the next use when the server closed it; a use it broke is Unavailable (pg_connection.py)
        self._link = PgConnection(url, "combatlog-serve")
        try:
            with self._link.translate():
                self._migrate()
        except BaseException:
            self._link.close()
            raise

    @property
    def conn(self) -> Any:
        return self._link.get()

    def _migrate(self) -> None:
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext('combatlog.server-migrate:' || "
                        "coalesce(current_schema(), '')))")
            if cur.execute("SELECT current_schema()").fetchone()[0] is None:
                raise StoreError(f"{redact(self.url)}: the search_path names no existing schema")
            version = 0
            if cur.execute("SELECT to_regclass(%s)", (VERSION_TABLE,)).fetchone()[0] is not None:
                version = cur.execute(f"SELECT coalesce(max(version), 0) FROM {VERSION_TABLE}").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"the server tables at {redact(self.url)} have version {version}, newer than this "
                                 f"combatlog understands ({SCHEMA_VERSION}); upgrade combatlog")
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target]:
                    cur.execute(statement)
                cur.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (%s)", (target,))

    def add(self, access: Access, now: int | None = None) -> None:
        with self._link.translate():
            self.conn.execute(
                "INSERT INTO server_combats (id, creator, creator_key, token_sha256, public, players, created_at) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s)",
                (access.id, access.creator, access.creator_key, access.token_sha256, access.public,
                 msgspec.json.encode(access.players).decode(), int(now or time.time())))

    def remove(self, combat_id: str) -> None:
        with self._link.translate():
            self.conn.execute("DELETE FROM server_combats WHERE id = %s", (combat_id,))

    def get(self, combat_id: str) -> Access | None:
        with self._link.translate():
            row = self.conn.execute(f"SELECT {_COLUMNS} FROM server_combats WHERE id = %s", (combat_id,)).fetchone()
        return _access(row) if row else None

    def all(self) -> list[Access]:
        with self._link.translate():
            rows = self.conn.execute(f"SELECT {_COLUMNS} FROM server_combats ORDER BY created_at, id").fetchall()
        return [_access(r) for r in rows]

    def use_nonce(self, key: str, nonce: str, expires: int, now: int) -> str:
        """Record a request nonce: "" when it is new, else why it is refused ("replayed", "too many")."""
        with self._link.translate(), self.conn.transaction(), self.conn.cursor() as cur:
            return _record(cur, key, nonce, expires, now)

    def seen(self, key: str, nonce: str) -> bool:
        """Whether a nonce is recorded already (a replay refused before any work; ``record_nonce`` decides)."""
        with self._link.translate():
            return self.conn.execute("SELECT 1 FROM server_nonces WHERE key = %s AND nonce = %s",
                                     (key, nonce)).fetchone() is not None

    @staticmethod
    def record_nonce(cur: Any, key: str, nonce: str, expires: int, now: int) -> None:
        """``use_nonce`` inside a transaction of the PostgreSQL event store on these tables' own database and schema
        (``cur``, in ``import_batches``): raises ``NonceRefused`` for a nonce it would refuse, and the transaction
        commits nothing. Another process recording the same nonce meanwhile waits for this transaction's end (the
        primary key), then finds it: a replay sent to two processes at once is still refused by one of them."""
        why = _record(cur, key, nonce, expires, now)
        if why:
            raise NonceRefused(why)

    def close(self) -> None:
        self._link.close()


def _record(cur: Any, key: str, nonce: str, expires: int, now: int) -> str:
    """In an open transaction: record the nonce, or say why not ("replayed", "too many")."""
    cur.execute("DELETE FROM server_nonces WHERE expires < %s", (now,))
    cur.execute("INSERT INTO server_nonces (key, nonce, expires) SELECT %s, %s, %s "
                "WHERE (SELECT count(*) FROM server_nonces WHERE key = %s) < %s "
                "ON CONFLICT (key, nonce) DO NOTHING RETURNING 1",
                (key, nonce, expires, key, MAX_NONCES_PER_KEY))
    if cur.fetchone() is not None:
        return ""
    seen = cur.execute("SELECT 1 FROM server_nonces WHERE key = %s AND nonce = %s", (key, nonce)).fetchone()
    return "replayed" if seen else "too many"


def _access(row: tuple) -> Access:  # type: ignore[type-arg]
    players = tuple(Pinned(**p) for p in json.loads(row[5]))
    return Access(id=row[0], creator=row[1], creator_key=row[2], token_sha256=row[3], public=bool(row[4]),
                  players=players)
