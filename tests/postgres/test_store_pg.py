"""What only the PostgreSQL store has: its migrations, append-only guard, errors and lazy driver import."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from combatlog.errors import StoreError, Unavailable
from combatlog.store import open_store
from combatlog.store.base import NewRow
from combatlog.store.pg_schema import SCHEMA_VERSION
from combatlog.store.pgtemp import TempPostgres
from combatlog.store.postgres import PostgresStore, redact
from tests.conftest import REPO
from tests.contracts.test_store_contract import meta, rows

psycopg = pytest.importorskip("psycopg")  # a dependency, but skip cleanly if it is absent
pytestmark = pytest.mark.postgres


def test_open_store_routes_both_url_spellings(pg_server: TempPostgres) -> None:
    schema = pg_server.new_schema()
    for url in (pg_server.url(schema=schema), pg_server.url(schema=schema).replace("postgresql://", "postgres://", 1)):
        store = open_store(url)
        assert isinstance(store, PostgresStore)
        store.close()


def test_writers_opening_a_new_log_together_migrate_it_once(pg_url: str) -> None:
    errors: list[BaseException] = []

    def open_and_close() -> None:
        try:
            PostgresStore(pg_url).close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_and_close) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    with psycopg.connect(pg_url) as conn:
        versions = conn.execute("SELECT version FROM combatlog_schema ORDER BY version").fetchall()
    assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]


def test_a_newer_schema_is_refused_not_touched(pg_url: str) -> None:
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO combatlog_schema (version) VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}, newer than this combatlog"):
        PostgresStore(pg_url)


def test_a_search_path_naming_no_schema_is_a_clear_error(pg_server: TempPostgres) -> None:
    with pytest.raises(StoreError, match="names no existing schema"):
        PostgresStore(pg_server.url(schema="no_such_schema"))


def test_the_server_refuses_to_change_or_delete_the_log(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.create_stream(meta("s"), rows("s", 1, 2), command_id="c0")
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for sql in ("UPDATE events SET body = 'x'", "DELETE FROM events", "TRUNCATE events CASCADE",
                    "DELETE FROM streams", "UPDATE commands SET last_seq = 9"):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(sql)
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (2,)


def test_only_a_kept_event_may_leave_the_log_and_only_during_a_merge(pg_url: str) -> None:
    """Migration 3 (a merge's replaced tail): the guard lets an event row go only inside a transaction that
    set combatlog.superseding, and only once its copy is in ``superseded``; a stream never goes."""
    store = PostgresStore(pg_url)
    store.create_stream(meta("s"), rows("s", 1, 2), command_id="c0")
    store.close()
    with psycopg.connect(pg_url) as conn:
        conn.execute("SET LOCAL combatlog.superseding = 'on'")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM events WHERE seq = 2")  # flagged, but not kept as evidence first
        conn.rollback()
        conn.execute("SET LOCAL combatlog.superseding = 'on'")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM streams")
        conn.rollback()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (2,)


def test_any_bytes_come_back_exactly(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    odd = bytes(range(256)) * 3  # NUL, high bytes, invalid UTF-8: bytea keeps them all
    store.create_stream(meta("s"), [NewRow(1, "core.noted", "h1", odd)], command_id="c0")
    assert store.read_stream("s")[0].body == odd
    assert store.read_all()[0].body == odd
    store.save_snapshot("s", 1, "e", odd)
    assert store.load_snapshot("s", 1, "e") == (1, odd)
    store.close()


def test_read_stream_of_an_unknown_stream_is_not_found_as_in_memory(pg_url: str) -> None:
    from combatlog.errors import NotFound

    store = PostgresStore(pg_url)
    with pytest.raises(NotFound):
        store.read_stream("nope")
    store.close()


def test_passwords_are_redacted() -> None:
    assert redact("postgresql://gm:s3cret@db.example.org:5432/log") == "postgresql://gm:***@db.example.org:5432/log"
    assert redact("postgresql:///log?user=gm&password=s3cret&sslmode=require") == \
        "postgresql:///log?user=gm&password=***&sslmode=require"
    assert redact("postgresql://gm@db/log") == "postgresql://gm@db/log"


def test_without_psycopg_the_backend_is_unavailable_and_the_cli_does_not_import_it() -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "import combatlog.cli.root\n"  # the typer app and its root options do not touch the driver
        "from combatlog.errors import Unavailable\n"
        "from combatlog.store import open_store\n"
        "try:\n    open_store('postgresql://x@/y')\nexcept Unavailable as e:\n    print('unavailable:', e)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "unavailable: the PostgreSQL backend needs psycopg 3: pip install 'psycopg[binary]'"
    assert Unavailable.code == "unavailable"
