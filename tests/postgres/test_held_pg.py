"""PostgreSQL: a log made before held bundles (schema 1) gains their table when opened, its events untouched."""

from __future__ import annotations

import pytest

from combatlog.store.pg_schema import SCHEMA_VERSION, MIGRATIONS, VERSION_TABLE
from combatlog.store.postgres import PostgresStore
from tests.contracts.test_store_contract import meta, rows
from tests.contracts.test_store_contract_held import held

psycopg = pytest.importorskip("psycopg")
pytestmark = pytest.mark.postgres


def test_a_schema_1_log_is_migrated_to_hold_bundles(pg_url: str) -> None:
    old = rows("s1", 1, 2)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the log as a schema-1 combatlog left it
        for statement in MIGRATIONS[1]:
            conn.execute(statement)
        conn.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES (1)")
        m = meta("s1")
        conn.execute("INSERT INTO streams (id, name, ruleset, created_at, parent, fork_seq) VALUES (%s,%s,%s,%s,%s,%s)",
                     (m.id, m.name, m.ruleset, m.created_at, None, 0))
        conn.execute("SELECT combatlog_insert_events(%s::text[], %s::bigint[], %s::text[], %s::text[], %s::bytea[])",
                     (["s1", "s1"], [r.seq for r in old], [r.type for r in old], [r.hash for r in old],
                      [r.body for r in old]))
    store = PostgresStore(pg_url)
    try:
        kept = held(b"a bundle")
        assert store.held_bundles() == [] and store.hold_bundle(kept) and store.held_bundles("s1") == [kept]
        assert [r.body for r in store.read_stream("s1")] == [r.body for r in old]
    finally:
        store.close()
    with psycopg.connect(pg_url) as conn:
        versions = conn.execute(f"SELECT version FROM {VERSION_TABLE} ORDER BY version").fetchall()
    assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]  # 2 held bundles, 3 superseded
