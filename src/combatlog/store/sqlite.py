"""The embedded default: one SQLite file per campaign.

WAL journal with ``synchronous=FULL`` (a committed batch survives power loss),
a busy timeout so concurrent writers queue instead of failing, and
``BEGIN IMMEDIATE`` so the expected-version check and the insert happen under
one write lock. The hot paths use the standard ``sqlite3`` module; sqlite-utils
defines and migrates the schema, and is imported only when an existing log is
migrated (it costs ~0.1 s to import, which every command would otherwise pay).
A new, empty file gets the schema sqlite-utils builds as its SQL, kept here
(``NEW_LOG_SCHEMA``); a test checks it against what ``_migrate`` builds.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from combatlog.errors import ConcurrencyConflict, InvalidCommand, NotFound, StoreError
from combatlog.store.base import (
    AppendResult, Head, HeldBundle, ImportBatch, NewRow, StoredRow, StreamMeta, SupersededRow,
)
from combatlog.store.memory import command_spans

SCHEMA_VERSION = 3  # 2: held_bundles; 3: superseded
BUSY_TIMEOUT_S = 30.0


# What ``_migrate`` builds in an empty file, statement for statement (tests/contracts/test_sqlite_schema.py
# compares the two): a new log is made without importing sqlite-utils, a tenth of a second a new log would
# otherwise pay (`new`, an import into a new file, every `run` of a new file). A migration changes
# ``_migrate``, then this list is rebuilt from it (the test prints the statements).
NEW_LOG_SCHEMA = (
    'CREATE TABLE "streams" (\n   "id" TEXT PRIMARY KEY,\n   "name" TEXT NOT NULL,\n   "ruleset" TEXT NOT NULL,\n'
    '   "created_at" TEXT NOT NULL,\n   "parent" TEXT,\n   "fork_seq" INTEGER\n)',
    'CREATE UNIQUE INDEX "idx_streams_name"\n    ON "streams" ("name")',
    'CREATE TABLE "events" (\n   "position" INTEGER PRIMARY KEY,\n   "stream" TEXT NOT NULL REFERENCES "streams"("id"),\n'
    '   "seq" INTEGER NOT NULL,\n   "type" TEXT NOT NULL,\n   "hash" TEXT NOT NULL,\n   "body" BLOB NOT NULL\n)',
    'CREATE UNIQUE INDEX "idx_events_stream_seq"\n    ON "events" ("stream", "seq")',
    'CREATE TABLE "commands" (\n   "stream" TEXT,\n   "command_id" TEXT,\n   "first_seq" INTEGER,\n'
    '   "last_seq" INTEGER,\n   PRIMARY KEY ("stream", "command_id")\n)',
    'CREATE TABLE "snapshots" (\n   "stream" TEXT,\n   "seq" INTEGER,\n   "engine" TEXT,\n   "blob" BLOB,\n'
    '   PRIMARY KEY ("stream", "engine", "seq")\n)',
    'CREATE TABLE "secrets" (\n   "name" TEXT PRIMARY KEY,\n   "value" BLOB\n)',
    'CREATE TABLE "held_bundles" (\n   "digest" TEXT PRIMARY KEY,\n   "stream" TEXT NOT NULL,\n'
    '   "waits_on" TEXT NOT NULL,\n   "since" INTEGER NOT NULL,\n   "head_seq" INTEGER NOT NULL,\n'
    '   "received_at" TEXT NOT NULL,\n   "source" TEXT NOT NULL,\n   "body" BLOB NOT NULL\n)',
    'CREATE INDEX "idx_held_bundles_waits_on"\n    ON "held_bundles" ("waits_on")',
    'CREATE INDEX "idx_held_bundles_stream"\n    ON "held_bundles" ("stream")',
    'CREATE TABLE "superseded" (\n   "stream" TEXT,\n   "seq" INTEGER NOT NULL,\n   "hash" TEXT,\n'
    '   "body" BLOB NOT NULL,\n   "by" TEXT NOT NULL,\n   "superseded_at" TEXT NOT NULL,\n'
    '   PRIMARY KEY ("stream", "hash")\n)',
)


def _create_or_migrate(conn: sqlite3.Connection) -> None:
    """Bring the file to ``SCHEMA_VERSION`` (inside the caller's write transaction)."""
    empty = conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None
    if empty and conn.execute("PRAGMA user_version").fetchone()[0] == 0:
        for statement in NEW_LOG_SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    else:  # an older log, or a file that already holds tables: sqlite-utils migrates what is missing
        _migrate(conn)


def _migrate(conn: sqlite3.Connection) -> None:
    import sqlite_utils

    # No sqlite-utils plugins: a plugin installed beside us must not add SQL functions to the event store's
    # connection, and finding them reads every installed package's entry points (~25 ms a new log).
    db = sqlite_utils.Database(conn, execute_plugins=False)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version < 1:
        db["streams"].create(
            {"id": str, "name": str, "ruleset": str, "created_at": str, "parent": str, "fork_seq": int},
            pk="id", not_null={"name", "ruleset", "created_at"}, if_not_exists=True,
        )
        db["streams"].create_index(["name"], unique=True, if_not_exists=True)
        db["events"].create(
            {"position": int, "stream": str, "seq": int, "type": str, "hash": str, "body": bytes},
            pk="position", not_null={"stream", "seq", "type", "hash", "body"},
            foreign_keys=[("stream", "streams", "id")], if_not_exists=True,
        )
        db["events"].create_index(["stream", "seq"], unique=True, if_not_exists=True)
        db["commands"].create(
            {"stream": str, "command_id": str, "first_seq": int, "last_seq": int},
            pk=("stream", "command_id"), if_not_exists=True,
        )
        db["snapshots"].create(
            {"stream": str, "seq": int, "engine": str, "blob": bytes},
            pk=("stream", "engine", "seq"), if_not_exists=True,
        )
        db["secrets"].create({"name": str, "value": bytes}, pk="name", if_not_exists=True)
    if version < 2:
        # Bundles that arrived before their predecessor (local, like snapshots: never exported).
        db["held_bundles"].create(
            {"digest": str, "stream": str, "waits_on": str, "since": int, "head_seq": int, "received_at": str,
             "source": str, "body": bytes},
            pk="digest", not_null={"stream", "waits_on", "since", "head_seq", "received_at", "source", "body"},
            if_not_exists=True,
        )
        db["held_bundles"].create_index(["waits_on"], if_not_exists=True)
        db["held_bundles"].create_index(["stream"], if_not_exists=True)
    if version < 3:
        # Events of a branch that lost a deterministic merge: evidence, never deleted (exchange/merge.py).
        db["superseded"].create(
            {"stream": str, "seq": int, "hash": str, "body": bytes, "by": str, "superseded_at": str},
            pk=("stream", "hash"), not_null={"seq", "body", "by", "superseded_at"}, if_not_exists=True,
        )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create_owner_only(path: Path) -> None:
    """A new log file is created readable by its owner only (SQLite gives its WAL the same mode): it will hold
    the secrets of its player (seeds before their reveal, sealed orders' nonces)."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return
    except OSError:  # a folder that does not exist, or a name SQLite reads otherwise: sqlite3 says why
        return


class SQLiteStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.url = str(self.path)
        self._private = False  # the files are known to be owner-only (``_owner_only``)
        try:
            _create_owner_only(self.path)
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            if self.conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    _create_or_migrate(self.conn)
                    self.conn.execute("COMMIT")
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open SQLite database {self.path}: {exc}") from None
        self._sync_every: float | None = None  # set inside synced_every()
        self._synced_at = 0.0
        self._named_wal: tuple[int, int] | None = None  # the WAL file whose name _sync put on disk

    # -- durability of many commands in a row (run FILE) -------------------------
    @contextmanager
    def synced_every(self, seconds: float) -> Iterator[None]:
        """Inside this block each write is still its own transaction (all or nothing, visible to every reader
        at once, kept if this process dies), but it is put on disk at least every ``seconds`` and when the
        block ends, not at each commit: an fsync per command is most of what a command costs. A power loss
        can cost the commits of the last ``seconds``; a command file run again continues (its ids are chained)."""
        self.conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: commits stay atomic, written, not synced
        self._sync_every, self._synced_at = seconds, time.monotonic()
        try:
            yield
        finally:
            self._sync_every = None
            self.conn.execute("PRAGMA synchronous=FULL")
            self._sync()  # WAL frames are written in order: syncing them all keeps a prefix of the commits

    def _sync(self) -> None:
        """Put every commit so far on disk: SQLite's WAL commits are frames appended to the ``-wal`` file,
        so an fsync of it is what synchronous=FULL does. A new file's name lives in its folder, which is
        synced too the first time this WAL file is (SQLite keeps the file while a connection is open and
        rewrites it in place: syncing the folder again at each group was half of a group's cost)."""
        try:
            fd = os.open(f"{self.path}-wal", os.O_RDONLY)
        except FileNotFoundError:  # no WAL left: a checkpoint synced the database and removed it
            fd = None
        if fd is not None:
            try:
                os.fsync(fd)
                stat = os.fstat(fd)
                wal = (stat.st_dev, stat.st_ino)
            finally:
                os.close(fd)
            if wal != self._named_wal:
                folder = os.open(str(self.path.parent), os.O_RDONLY)
                try:
                    os.fsync(folder)
                finally:
                    os.close(folder)
                self._named_wal = wal
        self._synced_at = time.monotonic()

    def _begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def _commit(self) -> None:
        self.conn.execute("COMMIT")
        if self._sync_every is not None and time.monotonic() - self._synced_at >= self._sync_every:
            self._sync()

    # -- writes ---------------------------------------------------------------
    def create_stream(self, meta: StreamMeta, rows: list[NewRow], *, command_id: str) -> AppendResult:
        c = self.conn
        self._begin()
        try:
            if c.execute("SELECT 1 FROM streams WHERE id = ?", (meta.id,)).fetchone():
                earlier = self._command_locked(meta.id, command_id)
                c.execute("ROLLBACK")
                if earlier is not None:
                    return earlier
                raise InvalidCommand(f"a stream with id {meta.id} already exists")
            if c.execute("SELECT 1 FROM streams WHERE name = ?", (meta.name,)).fetchone():
                c.execute("ROLLBACK")
                raise InvalidCommand(f"a combat named {meta.name!r} already exists")
            c.execute(
                "INSERT INTO streams (id, name, ruleset, created_at, parent, fork_seq) VALUES (?,?,?,?,?,?)",
                (meta.id, meta.name, meta.ruleset, meta.created_at, meta.parent, meta.fork_seq),
            )
            result = self._insert_locked(meta.id, rows, command_id)
            self._commit()
            return result
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def append(
        self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str,
        secrets: Mapping[str, bytes] | None = None,
    ) -> AppendResult:
        c = self.conn
        self._begin()
        try:
            earlier = self._command_locked(stream_id, command_id)
            if earlier is not None:
                c.execute("ROLLBACK")
                return earlier
            actual = self._head_locked(stream_id).seq
            if actual != expected_version:
                c.execute("ROLLBACK")
                raise ConcurrencyConflict(stream_id, expected_version, actual)
            result = self._insert_locked(stream_id, rows, command_id)
            if secrets:
                self._owner_only()
                c.executemany("INSERT OR REPLACE INTO secrets (name, value) VALUES (?, ?)", list(secrets.items()))
            self._commit()
            return result
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def import_batches(self, batches: list[ImportBatch], *, then: Callable[[Any], None] | None = None) -> None:
        c = self.conn
        self._begin()
        try:
            for b in batches:
                if b.create is not None:
                    m = b.create
                    clash = c.execute("SELECT id FROM streams WHERE id = ? OR name = ?", (m.id, m.name)).fetchone()
                    if clash:
                        raise InvalidCommand(f"stream {m.id} ({m.name}) already exists here")
                    c.execute(
                        "INSERT INTO streams (id, name, ruleset, created_at, parent, fork_seq) VALUES (?,?,?,?,?,?)",
                        (m.id, m.name, m.ruleset, m.created_at, m.parent, m.fork_seq),
                    )
                else:
                    actual = self._head_locked(b.stream_id).seq
                    if actual != b.expected_version:
                        raise ConcurrencyConflict(b.stream_id, b.expected_version, actual)
                c.executemany(
                    "INSERT INTO events (stream, seq, type, hash, body) VALUES (?,?,?,?,?)",
                    [(b.stream_id, r.seq, r.type, r.hash, r.body) for r in b.rows],
                )
                c.executemany(
                    "INSERT OR IGNORE INTO commands (stream, command_id, first_seq, last_seq) VALUES (?,?,?,?)",
                    [(b.stream_id, cid, first, last) for cid, first, last in command_spans(b.rows)],
                )
            if then is not None:
                then(c)
            self._commit()
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def _insert_locked(self, stream_id: str, rows: list[NewRow], command_id: str) -> AppendResult:
        self.conn.executemany(
            "INSERT INTO events (stream, seq, type, hash, body) VALUES (?,?,?,?,?)",
            [(stream_id, r.seq, r.type, r.hash, r.body) for r in rows],
        )
        self.conn.execute(
            "INSERT INTO commands (stream, command_id, first_seq, last_seq) VALUES (?,?,?,?)",
            (stream_id, command_id, rows[0].seq, rows[-1].seq),
        )
        return AppendResult(stream=stream_id, first_seq=rows[0].seq, last_seq=rows[-1].seq)

    def _command_locked(self, stream_id: str, command_id: str) -> AppendResult | None:
        row = self.conn.execute(
            "SELECT first_seq, last_seq FROM commands WHERE stream = ? AND command_id = ?",
            (stream_id, command_id),
        ).fetchone()
        if row is None:
            return None
        return AppendResult(stream=stream_id, first_seq=row[0], last_seq=row[1], duplicate=True)

    def _head_locked(self, stream_id: str) -> Head:
        row = self.conn.execute(
            "SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1", (stream_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"no stream {stream_id}")
        return Head(row[0], row[1])

    # -- reads ----------------------------------------------------------------
    def head(self, stream_id: str) -> Head:
        return self._head_locked(stream_id)

    def read_stream(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredRow]:
        cur = self.conn.execute(
            "SELECT position, stream, seq, hash, body FROM events WHERE stream = ? AND seq >= ? AND seq <= ? ORDER BY seq",
            (stream_id, from_seq, to_seq if to_seq is not None else 2**62),
        )
        return [StoredRow(*row) for row in cur]

    def read_bodies(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[tuple[int, bytes]]:
        return self.conn.execute(
            "SELECT seq, body FROM events WHERE stream = ? AND seq >= ? AND seq <= ? ORDER BY seq",
            (stream_id, from_seq, to_seq if to_seq is not None else 2**62),
        ).fetchall()

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredRow]:
        cur = self.conn.execute(
            "SELECT position, stream, seq, hash, body FROM events WHERE position > ? ORDER BY position LIMIT ?",
            (after_position, limit),
        )
        return [StoredRow(*row) for row in cur]

    def get_stream(self, stream_id: str) -> StreamMeta | None:
        row = self.conn.execute(
            "SELECT id, name, ruleset, created_at, parent, fork_seq FROM streams WHERE id = ?", (stream_id,)
        ).fetchone()
        return _meta(row) if row else None

    def list_streams(self) -> list[StreamMeta]:
        cur = self.conn.execute(
            "SELECT id, name, ruleset, created_at, parent, fork_seq FROM streams ORDER BY created_at, id"
        )
        return [_meta(row) for row in cur]

    def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        return self._command_locked(stream_id, command_id)

    # -- caches and keys --------------------------------------------------------
    def save_snapshot(self, stream_id: str, seq: int, engine: str, blob: bytes) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO snapshots (stream, seq, engine, blob) VALUES (?,?,?,?)",
            (stream_id, seq, engine, blob),
        )

    def load_snapshot(self, stream_id: str, max_seq: int, engine: str) -> tuple[int, bytes] | None:
        row = self.conn.execute(
            "SELECT seq, blob FROM snapshots WHERE stream = ? AND engine = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
            (stream_id, engine, max_seq),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def put_secret(self, name: str, value: bytes) -> None:
        self._owner_only()
        self.conn.execute("INSERT OR REPLACE INTO secrets (name, value) VALUES (?, ?)", (name, value))

    def _owner_only(self) -> None:
        """Before a secret (an unrevealed seed, a sealed order's nonce, a kept command) enters the log: the file
        and its WAL readable by its owner only. A log made here is created so (``_create_owner_only``); an older
        one, or one copied in, may be readable by every local user, who could then read the seed."""
        if self._private:
            return
        for path in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")):
            try:
                mode = path.stat().st_mode & 0o777
                if mode & 0o077:
                    path.chmod(mode & 0o700)
            except OSError:  # a file of another owner (or none yet): the log is still usable
                continue
        self._private = True

    def get_secret(self, name: str) -> bytes | None:
        row = self.conn.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def replace_tail(self, stream_id: str, *, fork_seq: int, expected_version: int, rows: list[NewRow],
                     superseded_at: str) -> list[SupersededRow]:
        c = self.conn
        self._begin()
        try:
            actual = self._head_locked(stream_id).seq
            if actual != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, actual)
            by = {r.seq: r.hash for r in rows}
            moved = [SupersededRow(stream=stream_id, seq=seq, hash=h, body=bytes(body), by=by.get(seq, ""),
                                   superseded_at=superseded_at)
                     for seq, h, body in c.execute("SELECT seq, hash, body FROM events WHERE stream = ? AND seq > ? "
                                                   "ORDER BY seq", (stream_id, fork_seq))]
            self._keep_locked(moved)
            c.execute("DELETE FROM events WHERE stream = ? AND seq > ?", (stream_id, fork_seq))
            c.execute("DELETE FROM commands WHERE stream = ? AND first_seq > ?", (stream_id, fork_seq))
            c.execute("DELETE FROM snapshots WHERE stream = ? AND seq > ?", (stream_id, fork_seq))
            c.executemany(
                "INSERT INTO events (stream, seq, type, hash, body) VALUES (?,?,?,?,?)",
                [(stream_id, r.seq, r.type, r.hash, r.body) for r in rows],
            )
            c.executemany(
                "INSERT OR IGNORE INTO commands (stream, command_id, first_seq, last_seq) VALUES (?,?,?,?)",
                [(stream_id, cid, first, last) for cid, first, last in command_spans(rows)],
            )
            self._commit()
            return moved
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def _keep_locked(self, rows: list[SupersededRow]) -> int:
        count = 0
        for r in rows:
            cur = self.conn.execute(
                "INSERT OR IGNORE INTO superseded (stream, seq, hash, body, by, superseded_at) VALUES (?,?,?,?,?,?)",
                (r.stream, r.seq, r.hash, r.body, r.by, r.superseded_at))
            count += cur.rowcount
        return count

    def keep_superseded(self, rows: list[SupersededRow]) -> int:
        c = self.conn
        self._begin()
        try:
            count = self._keep_locked(rows)
            self._commit()
            return count
        except BaseException:
            if c.in_transaction:
                c.execute("ROLLBACK")
            raise

    def superseded(self, stream_id: str) -> list[SupersededRow]:
        cur = self.conn.execute(
            "SELECT stream, seq, hash, body, by, superseded_at FROM superseded WHERE stream = ? "
            "ORDER BY seq, superseded_at, hash", (stream_id,))
        return [SupersededRow(stream=r[0], seq=r[1], hash=r[2], body=bytes(r[3]), by=r[4], superseded_at=r[5])
                for r in cur]

    def hold_bundle(self, held: HeldBundle) -> bool:
        cur = self.conn.execute(
            "INSERT OR IGNORE INTO held_bundles (digest, stream, waits_on, since, head_seq, received_at, source, body) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (held.digest, held.stream, held.waits_on, held.since, held.head_seq, held.received_at, held.source,
             held.body),
        )
        return cur.rowcount == 1

    def held_bundles(self, stream_id: str | None = None) -> list[HeldBundle]:
        query = "SELECT digest, stream, waits_on, since, head_seq, received_at, source, body FROM held_bundles"
        args: tuple[str, ...] = ()
        if stream_id is not None:
            query += " WHERE stream = ? OR waits_on = ?"
            args = (stream_id, stream_id)
        cur = self.conn.execute(query + " ORDER BY waits_on, since, received_at, digest", args)
        return [_held(row) for row in cur]

    def release_bundle(self, digest: str) -> None:
        self.conn.execute("DELETE FROM held_bundles WHERE digest = ?", (digest,))

    def close(self) -> None:
        self.conn.close()


def _held(row: tuple[object, ...]) -> HeldBundle:
    return HeldBundle(digest=str(row[0]), stream=str(row[1]), waits_on=str(row[2]), since=int(row[3]),  # type: ignore[call-overload]
                      head_seq=int(row[4]), received_at=str(row[5]), source=str(row[6]), body=bytes(row[7]))  # type: ignore[call-overload,arg-type]


def _meta(row: tuple[object, ...]) -> StreamMeta:
    return StreamMeta(
        id=str(row[0]), name=str(row[1]), ruleset=str(row[2]), created_at=str(row[3]),
        parent=row[4] if row[4] else None, fork_seq=int(row[5] or 0),  # type: ignore[arg-type]
    )
