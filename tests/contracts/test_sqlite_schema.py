"""A new SQLite log gets its schema from ``NEW_LOG_SCHEMA`` without importing sqlite-utils; an existing one is
migrated by sqlite-utils (``_migrate``). The two must build the same file, statement for statement."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from combatlog.store.sqlite import NEW_LOG_SCHEMA, SCHEMA_VERSION, SQLiteStore, _migrate


def _schema(conn: sqlite3.Connection) -> list[tuple[str, str, str, str | None]]:
    return conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()


def test_a_new_log_has_the_schema_sqlite_utils_builds(tmp_path: Path) -> None:
    migrated = sqlite3.connect(tmp_path / "migrated.db", isolation_level=None)
    _migrate(migrated)
    new = SQLiteStore(tmp_path / "new.db")
    # On failure, the statements to paste into NEW_LOG_SCHEMA:
    rebuilt = [sql for _type, _name, _table, sql in _schema(migrated) if sql is not None]
    assert _schema(new.conn) == _schema(migrated), "\n".join(map(repr, rebuilt))
    assert list(NEW_LOG_SCHEMA) == rebuilt
    for conn in (new.conn, migrated):
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    new.close()


def test_a_new_log_is_made_without_importing_sqlite_utils(tmp_path: Path) -> None:
    # a fresh interpreter: the test process itself has long imported sqlite_utils
    code = ("import sys; from combatlog.store.sqlite import SQLiteStore; SQLiteStore(sys.argv[1]).close(); "
            "print('sqlite_utils' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "log.db")], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_a_file_that_already_holds_a_table_is_migrated_not_overwritten(tmp_path: Path) -> None:
    # version 0 but not empty (someone's own SQLite file): the fast path would fail on it; sqlite-utils adds
    # the log's tables beside what is there and leaves that alone
    path = tmp_path / "mine.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (text TEXT)")
    conn.execute("INSERT INTO notes VALUES ('keep me')")
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    assert store.conn.execute("SELECT text FROM notes").fetchall() == [("keep me",)]
    names = {name for _type, name, _table, _sql in _schema(store.conn)}
    assert {"streams", "events", "commands", "snapshots", "secrets", "held_bundles", "superseded"} <= names
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    store.close()
