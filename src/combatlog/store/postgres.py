"""PostgreSQL: the engine for hosted use (psycopg 3). See docs/postgres.md.

Global positions are handed out in commit order. Every transaction that adds
events takes the single row of ``log_head`` (an ``UPDATE ... RETURNING``, which
holds the row lock until commit) as its last step before committing, and
numbers its events from it. A second writer waits on that row until the first
has committed and become visible, then numbers after it. So the committed
positions are always a gap-free prefix 1..N: a follower reading
``position > last_seen`` can never pass over an event that commits later (the
trap with a plain sequence, whose numbers are taken at insert time and can
become visible out of order). The price is that commits of event batches are
serialised across the whole log; everything before the final insert (the
stream lock, the version and idempotency checks) runs in parallel.

Per stream, the stream's row is locked ``FOR NO KEY UPDATE`` before its head
is read, so two writers on one stream queue and the second sees the first's
events and reports a ``ConcurrencyConflict`` exactly as SQLite does. The head
is read in a statement *after* the lock is granted: under READ COMMITTED each
statement takes a fresh snapshot, so it sees what the lock holder committed.
An append does all of this in one round trip: the ``combatlog_append``
function (pg_schema.py). Creations and imports run the same steps from here.

psycopg is imported when a store is opened, so that the CLI does not pay for
it (~0.15 s) unless a ``postgresql://`` URL is used. A connection the server
closed is reopened by the next operation, and the operation it broke fails
with ``Unavailable`` (store/pg_connection.py).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

from combatlog.errors import ConcurrencyConflict, InvalidCommand, NotFound, StoreError
from combatlog.store.base import (
    AppendResult, Head, HeldBundle, ImportBatch, NewRow, StoredRow, StreamMeta, SupersededRow,
)
from combatlog.store.memory import command_spans
from combatlog.store.pg_connection import PgConnection, _psycopg, redact  # noqa: F401  (others import the last two from here)
from combatlog.store.pg_schema import MIGRATIONS, SCHEMA_VERSION, VERSION_TABLE

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
RETRIES = 8  # deadlocks between imports of several streams are detected by the server; we retry
INSERT_CHUNK = 5000  # rows per INSERT statement in big imports


class PostgresStore:
    def __init__(self, url: str) -> None:
        self.url = url
        # Test seam: when set, an append runs in an explicit transaction and this is called
        # after the append statement and before the commit (the tests hold a writer there).
        self.hold_before_commit: Callable[[Any], None] | None = None
        self._link = PgConnection(url, "combatlog")
        self._errors = self._link.errors
        try:
            with self._translate():
                self._migrate()
        except BaseException:
            self._link.close()
            raise

    # -- plumbing -------------------------------------------------------------------
    @property
    def conn(self) -> psycopg.Connection[Any]:
        """The connection, reopened here when the server had closed it (store/pg_connection.py)."""
        return self._link.get()  # type: ignore[no-any-return]

    def _translate(self) -> AbstractContextManager[None]:
        """Database errors reach the user as StoreError with the server's message, or as Unavailable
        when the connection was lost."""
        return self._link.translate()

    def _write(self, work: Callable[[Any], T], *, transaction: bool = True) -> T:
        """Run ``work(cursor)`` in one transaction; retry it if the server broke a deadlock.

        ``transaction=False`` is for work that is one statement (its own transaction).
        """
        retryable = (self._errors.DeadlockDetected, self._errors.SerializationFailure)
        for attempt in range(RETRIES):
            with self._translate():
                try:
                    if not transaction:
                        with self.conn.cursor() as cur:
                            return work(cur)
                    with self.conn.transaction(), self.conn.cursor() as cur:
                        return work(cur)
                except retryable:
                    pass  # rolled back; another writer holds what we need in the other order
            time.sleep(random.uniform(0.001, 0.01) * (attempt + 1))
        raise StoreError(f"PostgreSQL ({redact(self.url)}): gave up after {RETRIES} deadlocks; try again")

    def _migrate(self) -> None:
        try:
            version = self.conn.execute(f"SELECT max(version) FROM {VERSION_TABLE}").fetchone()[0] or 0
        except self._errors.UndefinedTable:
            version = -1
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StoreError(f"the database at {redact(self.url)} has schema version {version}, newer than this "
                             f"combatlog understands ({SCHEMA_VERSION}); upgrade combatlog")
        with self.conn.transaction(), self.conn.cursor() as cur:
            # One migrator at a time per schema: writers starting together must not race.
            cur.execute("SELECT pg_advisory_xact_lock(hashtext('combatlog.migrate:' || coalesce(current_schema(), '')))")
            if cur.execute("SELECT current_schema()").fetchone()[0] is None:
                raise StoreError(f"{redact(self.url)}: the search_path names no existing schema to create the log in")
            if cur.execute("SELECT to_regclass(%s)", (VERSION_TABLE,)).fetchone()[0] is None:
                version = 0
            else:
                version = cur.execute(f"SELECT coalesce(max(version), 0) FROM {VERSION_TABLE}").fetchone()[0]
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target]:
                    cur.execute(statement)
                cur.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (%s)", (target,))

    # -- writes ---------------------------------------------------------------------
    def create_stream(self, meta: StreamMeta, rows: list[NewRow], *, command_id: str) -> AppendResult:
        _nonempty(rows)

        def work(cur: Any) -> AppendResult:
            cur.execute(
                "INSERT INTO streams (id, name, ruleset, created_at, parent, fork_seq) VALUES (%s,%s,%s,%s,%s,%s) "
                "ON CONFLICT DO NOTHING RETURNING id",
                (meta.id, meta.name, meta.ruleset, meta.created_at, meta.parent, meta.fork_seq),
            )
            if cur.fetchone() is None:  # the id or the name is taken (perhaps by a retry of this very command)
                if cur.execute("SELECT 1 FROM streams WHERE id = %s", (meta.id,)).fetchone():
                    earlier = self._command(cur, meta.id, command_id)
                    if earlier is not None:
                        return earlier
                    raise InvalidCommand(f"a stream with id {meta.id} already exists")
                raise InvalidCommand(f"a combat named {meta.name!r} already exists")
            self._record_command(cur, meta.id, command_id, rows)
            self._insert_events(cur, [(meta.id, rows)])
            return AppendResult(stream=meta.id, first_seq=rows[0].seq, last_seq=rows[-1].seq)

        return self._write(work)

    def append(
        self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str,
        secrets: Mapping[str, bytes] | None = None,
    ) -> AppendResult:
        """One statement, one round trip: ``combatlog_append`` (pg_schema.py) does the whole protocol
        (with ``secrets``, one more statement in the same transaction, only when the append succeeded)."""
        _nonempty(rows)
        args = (stream_id, expected_version, command_id, [r.seq for r in rows], [r.type for r in rows],
                [r.hash for r in rows], [r.body for r in rows])
        hold = self.hold_before_commit
        kept = list((secrets or {}).items())

        def work(cur: Any) -> tuple[str, int | None, int | None, int | None]:
            row = cur.execute(_APPEND, args).fetchone()
            if kept and row[0] == "ok":
                cur.executemany("INSERT INTO secrets (name, value) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE "
                                "SET value = EXCLUDED.value", kept)
            if hold is not None:
                hold(cur)
            return row  # type: ignore[no-any-return]

        status, actual, first, last = self._write(work, transaction=hold is not None or bool(kept))
        if status == "missing":
            raise NotFound(f"no stream {stream_id}")
        if status == "conflict":
            raise ConcurrencyConflict(stream_id, expected_version, int(actual or 0))
        assert first is not None and last is not None
        return AppendResult(stream=stream_id, first_seq=first, last_seq=last, duplicate=status == "duplicate")

    def import_batches(self, batches: list[ImportBatch], *, then: Callable[[Any], None] | None = None) -> None:
        if not batches:
            return

        def work(cur: Any) -> None:
            existing = sorted({b.stream_id for b in batches if b.create is None})
            if existing:  # lock in a fixed order, so two imports cannot deadlock on them
                cur.execute("SELECT id FROM streams WHERE id = ANY(%s) ORDER BY id FOR NO KEY UPDATE", (existing,))
                found = {r[0] for r in cur.fetchall()}
                missing = [s for s in existing if s not in found and not any(
                    b.create is not None and b.create.id == s for b in batches)]
                if missing:
                    raise NotFound(f"no stream {missing[0]}")
            heads: dict[str, int] = {}
            for b in batches:
                if b.create is not None:
                    m = b.create
                    cur.execute(
                        "INSERT INTO streams (id, name, ruleset, created_at, parent, fork_seq) "
                        "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING RETURNING id",
                        (m.id, m.name, m.ruleset, m.created_at, m.parent, m.fork_seq),
                    )
                    if cur.fetchone() is None:
                        raise InvalidCommand(f"stream {m.id} ({m.name}) already exists here")
                    heads[b.stream_id] = 0
                if b.stream_id not in heads:
                    heads[b.stream_id] = self._head_seq(cur, b.stream_id)
                if heads[b.stream_id] != b.expected_version:
                    raise ConcurrencyConflict(b.stream_id, b.expected_version, heads[b.stream_id])
                if b.rows:
                    heads[b.stream_id] = b.rows[-1].seq
                spans = command_spans(b.rows)
                if spans:
                    cur.executemany(
                        "INSERT INTO commands (stream, command_id, first_seq, last_seq) VALUES (%s,%s,%s,%s) "
                        "ON CONFLICT DO NOTHING",
                        [(b.stream_id, cid, first, last) for cid, first, last in spans],
                    )
            self._insert_events(cur, [(b.stream_id, b.rows) for b in batches if b.rows])
            if then is not None:  # after the log head's lock: it adds no wait between other imports
                then(cur)

        self._write(work)

    def _record_command(self, cur: Any, stream_id: str, command_id: str, rows: list[NewRow]) -> None:
        cur.execute(
            "INSERT INTO commands (stream, command_id, first_seq, last_seq) VALUES (%s,%s,%s,%s)",
            (stream_id, command_id, rows[0].seq, rows[-1].seq),
        )

    def _insert_events(self, cur: Any, parts: list[tuple[str, list[NewRow]]]) -> None:
        """Number the rows from the log head and insert them: the last step before commit."""
        flat = [(stream, r) for stream, rows in parts for r in rows]
        for start in range(0, len(flat), INSERT_CHUNK):
            chunk = flat[start:start + INSERT_CHUNK]
            cur.execute(
                "SELECT combatlog_insert_events(%s::text[], %s::bigint[], %s::text[], %s::text[], %s::bytea[])",
                ([s for s, _ in chunk], [r.seq for _, r in chunk], [r.type for _, r in chunk],
                 [r.hash for _, r in chunk], [r.body for _, r in chunk]),
            )

    def _command(self, cur: Any, stream_id: str, command_id: str) -> AppendResult | None:
        row = cur.execute(
            "SELECT first_seq, last_seq FROM commands WHERE stream = %s AND command_id = %s", (stream_id, command_id)
        ).fetchone()
        if row is None:
            return None
        return AppendResult(stream=stream_id, first_seq=row[0], last_seq=row[1], duplicate=True)

    def _head_seq(self, cur: Any, stream_id: str) -> int:
        row = cur.execute("SELECT seq FROM events WHERE stream = %s ORDER BY seq DESC LIMIT 1", (stream_id,)).fetchone()
        if row is None:
            raise NotFound(f"no stream {stream_id}")
        return int(row[0])

    # -- reads ------------------------------------------------------------------------
    def head(self, stream_id: str) -> Head:
        with self._translate():
            row = self.conn.execute(
                "SELECT seq, hash FROM events WHERE stream = %s ORDER BY seq DESC LIMIT 1", (stream_id,)
            ).fetchone()
        if row is None:
            raise NotFound(f"no stream {stream_id}")
        return Head(row[0], row[1])

    def read_stream(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[StoredRow]:
        with self._translate(), self.conn.cursor(binary=True) as cur:
            cur.execute(
                "SELECT position, stream, seq, hash, body FROM events WHERE stream = %s AND seq >= %s AND seq <= %s "
                "ORDER BY seq",
                (stream_id, from_seq, to_seq if to_seq is not None else 2**62),
            )
            rows = [StoredRow(*r) for r in cur]
            if not rows and cur.execute("SELECT 1 FROM streams WHERE id = %s", (stream_id,)).fetchone() is None:
                raise NotFound(f"no stream {stream_id}")
        return rows

    def read_bodies(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None) -> list[tuple[int, bytes]]:
        with self._translate(), self.conn.cursor(binary=True) as cur:
            cur.execute(
                "SELECT seq, body FROM events WHERE stream = %s AND seq >= %s AND seq <= %s ORDER BY seq",
                (stream_id, from_seq, to_seq if to_seq is not None else 2**62),
            )
            rows = [(seq, bytes(body)) for seq, body in cur]
            if not rows and cur.execute("SELECT 1 FROM streams WHERE id = %s", (stream_id,)).fetchone() is None:
                raise NotFound(f"no stream {stream_id}")
        return rows

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredRow]:
        with self._translate(), self.conn.cursor(binary=True) as cur:
            cur.execute(
                "SELECT position, stream, seq, hash, body FROM events WHERE position > %s ORDER BY position LIMIT %s",
                (after_position, limit),
            )
            return [StoredRow(*r) for r in cur]

    def get_stream(self, stream_id: str) -> StreamMeta | None:
        with self._translate():
            row = self.conn.execute(
                "SELECT id, name, ruleset, created_at, parent, fork_seq FROM streams WHERE id = %s", (stream_id,)
            ).fetchone()
        return _meta(row) if row else None

    def list_streams(self) -> list[StreamMeta]:
        with self._translate():
            cur = self.conn.execute(
                "SELECT id, name, ruleset, created_at, parent, fork_seq FROM streams ORDER BY created_at, id"
            )
            return [_meta(row) for row in cur]

    def command_result(self, stream_id: str, command_id: str) -> AppendResult | None:
        with self._translate(), self.conn.cursor() as cur:
            return self._command(cur, stream_id, command_id)

    # -- caches and keys ----------------------------------------------------------------
    def save_snapshot(self, stream_id: str, seq: int, engine: str, blob: bytes) -> None:
        with self._translate():
            self.conn.execute(
                "INSERT INTO snapshots (stream, engine, seq, blob) VALUES (%s,%s,%s,%s) "
                "ON CONFLICT (stream, engine, seq) DO UPDATE SET blob = EXCLUDED.blob",
                (stream_id, engine, seq, blob),
            )

    def load_snapshot(self, stream_id: str, max_seq: int, engine: str) -> tuple[int, bytes] | None:
        with self._translate():
            row = self.conn.execute(
                "SELECT seq, blob FROM snapshots WHERE stream = %s AND engine = %s AND seq <= %s "
                "ORDER BY seq DESC LIMIT 1",
                (stream_id, engine, min(max_seq, 2**62)),
            ).fetchone()
        return (row[0], bytes(row[1])) if row else None

    def put_secret(self, name: str, value: bytes) -> None:
        with self._translate():
            self.conn.execute(
                "INSERT INTO secrets (name, value) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
                (name, value),
            )

    def get_secret(self, name: str) -> bytes | None:
        with self._translate():
            row = self.conn.execute("SELECT value FROM secrets WHERE name = %s", (name,)).fetchone()
        return bytes(row[0]) if row else None

    # -- a deterministic merge's replaced tail, kept as evidence ---------------------------
    def replace_tail(self, stream_id: str, *, fork_seq: int, expected_version: int, rows: list[NewRow],
                     superseded_at: str) -> list[SupersededRow]:
        by = {r.seq: r.hash for r in rows}

        def work(cur: Any) -> list[SupersededRow]:
            if cur.execute("SELECT 1 FROM streams WHERE id = %s FOR NO KEY UPDATE", (stream_id,)).fetchone() is None:
                raise NotFound(f"no stream {stream_id}")
            actual = self._head_seq(cur, stream_id)
            if actual != expected_version:
                raise ConcurrencyConflict(stream_id, expected_version, actual)
            cur.execute("SELECT seq, hash, body FROM events WHERE stream = %s AND seq > %s ORDER BY seq",
                        (stream_id, fork_seq))
            moved = [SupersededRow(stream=stream_id, seq=int(seq), hash=h, body=bytes(body), by=by.get(int(seq), ""),
                                   superseded_at=superseded_at) for seq, h, body in cur.fetchall()]
            self._keep(cur, moved)
            cur.execute("SET LOCAL combatlog.superseding = 'on'")
            cur.execute("DELETE FROM events WHERE stream = %s AND seq > %s", (stream_id, fork_seq))
            cur.execute("DELETE FROM commands WHERE stream = %s AND first_seq > %s", (stream_id, fork_seq))
            cur.execute("SET LOCAL combatlog.superseding = 'off'")
            cur.execute("DELETE FROM snapshots WHERE stream = %s AND seq > %s", (stream_id, fork_seq))
            spans = command_spans(rows)
            if spans:
                cur.executemany(
                    "INSERT INTO commands (stream, command_id, first_seq, last_seq) VALUES (%s,%s,%s,%s) "
                    "ON CONFLICT DO NOTHING", [(stream_id, cid, first, last) for cid, first, last in spans])
            if rows:
                self._insert_events(cur, [(stream_id, rows)])
            return moved

        return self._write(work)

    def _keep(self, cur: Any, rows: list[SupersededRow]) -> int:
        count = 0
        for r in rows:
            cur.execute(
                "INSERT INTO superseded (stream, seq, hash, body, by, superseded_at) VALUES (%s,%s,%s,%s,%s,%s) "
                "ON CONFLICT (stream, hash) DO NOTHING", (r.stream, r.seq, r.hash, r.body, r.by, r.superseded_at))
            count += cur.rowcount
        return count

    def keep_superseded(self, rows: list[SupersededRow]) -> int:
        return self._write(lambda cur: self._keep(cur, rows)) if rows else 0

    def superseded(self, stream_id: str) -> list[SupersededRow]:
        with self._translate(), self.conn.cursor(binary=True) as cur:
            cur.execute("SELECT stream, seq, hash, body, by, superseded_at FROM superseded WHERE stream = %s "
                        "ORDER BY seq, superseded_at, hash", (stream_id,))
            return [SupersededRow(stream=r[0], seq=int(r[1]), hash=r[2], body=bytes(r[3]), by=r[4],
                                  superseded_at=r[5]) for r in cur]

    # -- bundles waiting for their predecessor (local, like snapshots) -------------------
    def hold_bundle(self, held: HeldBundle) -> bool:
        with self._translate():
            row = self.conn.execute(
                "INSERT INTO held_bundles (digest, stream, waits_on, since, head_seq, received_at, source, body) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (digest) DO NOTHING RETURNING digest",
                (held.digest, held.stream, held.waits_on, held.since, held.head_seq, held.received_at, held.source,
                 held.body),
            ).fetchone()
        return row is not None

    def held_bundles(self, stream_id: str | None = None) -> list[HeldBundle]:
        query = "SELECT digest, stream, waits_on, since, head_seq, received_at, source, body FROM held_bundles"
        args: tuple[str, ...] = ()
        if stream_id is not None:
            query += " WHERE stream = %s OR waits_on = %s"
            args = (stream_id, stream_id)
        with self._translate(), self.conn.cursor(binary=True) as cur:
            cur.execute(query + " ORDER BY waits_on, since, received_at, digest", args)
            return [HeldBundle(digest=r[0], stream=r[1], waits_on=r[2], since=int(r[3]), head_seq=int(r[4]),
                               received_at=r[5], source=r[6], body=bytes(r[7])) for r in cur]

    def release_bundle(self, digest: str) -> None:
        with self._translate():
            self.conn.execute("DELETE FROM held_bundles WHERE digest = %s", (digest,))

    def close(self) -> None:
        self._link.close()


_APPEND = ("SELECT r_status, r_actual, r_first, r_last FROM combatlog_append("
           "%s, %s, %s, %s::bigint[], %s::text[], %s::text[], %s::bytea[])")


def _nonempty(rows: list[NewRow]) -> None:
    if not rows:
        raise InvalidCommand("nothing to append: a batch needs at least one event")


def _meta(row: tuple[Any, ...]) -> StreamMeta:
    return StreamMeta(
        id=row[0], name=row[1], ruleset=row[2], created_at=row[3], parent=row[4] or None, fork_seq=int(row[5] or 0)
    )
