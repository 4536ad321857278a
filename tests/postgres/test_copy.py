"""``combatlog copy`` between SQLite and PostgreSQL (issue 8, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.commands.core import AddNote
from combatlog.wiring import create_combat, execute, fork_stream
from combatlog.errors import Diverged, InvalidCommand
from combatlog.wiring import verify_stream
from combatlog.store import transfer
from combatlog.store.base import EventStore, StreamMeta
from combatlog.store.memory import MemoryStore
from combatlog.store.pgtemp import TempPostgres
from combatlog.store.postgres import PostgresStore
from combatlog.store.sqlite import SQLiteStore
from tests.conftest import REPO, Cli

pytestmark = pytest.mark.postgres


def _campaign(store: EventStore, notes: int = 6) -> dict[str, StreamMeta]:
    """A combat with notes, a fork of it with its own notes, a fork of the fork, and an unrelated combat."""
    duel = create_combat(store, "duel", "freeform", actor="gm", dice="manual").stream
    for i in range(notes):
        execute(store, duel.id, AddNote(text=f"duel note {i} \u00e9\u4e2d"), actor="gm")  # non-ASCII bytes too
    whatif = fork_stream(store, duel.id, at_seq=4, name="whatif", actor="gm").stream
    execute(store, whatif.id, AddNote(text="what if"), actor="bo")
    deeper = fork_stream(store, whatif.id, at_seq=5, name="deeper", actor="gm").stream
    other = create_combat(store, "other", "freeform", actor="gm").stream
    execute(store, other.id, AddNote(text="elsewhere"), actor="gm")
    return {m.name: m for m in (duel, whatif, deeper, other)}


def _same_streams(a: EventStore, b: EventStore) -> None:
    assert [m for m in a.list_streams()] == [m for m in b.list_streams()]  # ids, names, parents, fork points
    for meta in a.list_streams():
        mine = [(r.seq, r.hash, r.body) for r in a.read_stream(meta.id)]
        theirs = [(r.seq, r.hash, r.body) for r in b.read_stream(meta.id)]
        assert mine == theirs, meta.name


def _copy(source: EventStore, target: EventStore, refs: list[str] | None = None) -> list[transfer.StreamPlan]:
    plans = transfer.plan_copy(source, target, transfer.select_streams(source, refs or []))
    transfer.apply_copy(source, target, plans)
    return plans


def test_sqlite_to_postgresql_and_back_keeps_ids_bytes_and_forks(pg_url: str, tmp_path: Path) -> None:
    sqlite = SQLiteStore(tmp_path / "a.db")
    _campaign(sqlite)
    pg = PostgresStore(pg_url)
    plans = _copy(sqlite, pg)
    assert [(p.meta.name, p.action) for p in plans] == [
        ("duel", "create"), ("other", "create"), ("whatif", "create"), ("deeper", "create")]  # forks after parents
    _same_streams(sqlite, pg)
    for meta in pg.list_streams():
        assert verify_stream(pg, meta).ok
    back = SQLiteStore(tmp_path / "b.db")
    _copy(pg, back)
    _same_streams(sqlite, back)
    # A copy again changes nothing.
    assert {p.action for p in _copy(sqlite, pg)} == {"up_to_date"}
    for s in (sqlite, pg, back):
        s.close()


def test_a_partial_copy_is_extended_and_a_longer_target_is_left_alone(pg_url: str, tmp_path: Path) -> None:
    sqlite = SQLiteStore(tmp_path / "a.db")
    names = _campaign(sqlite)
    pg = PostgresStore(pg_url)
    _copy(sqlite, pg)
    execute(sqlite, names["duel"].id, AddNote(text="later, at home"), actor="gm")
    execute(pg, names["other"].id, AddNote(text="later, on the server"), actor="gm")
    plans = {p.meta.name: p for p in _copy(sqlite, pg)}
    assert (plans["duel"].action, plans["duel"].count) == ("append", 1)
    assert plans["other"].action == "ahead" and plans["other"].count == 0
    assert pg.head(names["duel"].id) == sqlite.head(names["duel"].id)
    assert pg.head(names["other"].id).seq == sqlite.head(names["other"].id).seq + 1
    sqlite.close()
    pg.close()


def test_a_diverging_stream_is_refused_and_nothing_is_written(pg_url: str, tmp_path: Path) -> None:
    sqlite = SQLiteStore(tmp_path / "a.db")
    names = _campaign(sqlite)
    pg = PostgresStore(pg_url)
    _copy(sqlite, pg, ["duel"])
    execute(sqlite, names["duel"].id, AddNote(text="at home"), actor="gm")
    execute(pg, names["duel"].id, AddNote(text="on the server"), actor="gm")
    before = pg.read_all(0, 10_000)
    with pytest.raises(Diverged) as err:
        _copy(sqlite, pg)
    assert err.value.seq == 8 and "refusing to overwrite" in str(err.value)  # 1 genesis + 6 notes, then the split
    assert pg.read_all(0, 10_000) == before  # not even the streams that did not diverge were copied
    assert pg.get_stream(names["other"].id) is None
    sqlite.close()
    pg.close()


def test_a_name_taken_by_another_combat_is_refused(pg_url: str, tmp_path: Path) -> None:
    sqlite = SQLiteStore(tmp_path / "a.db")
    _campaign(sqlite)
    pg = PostgresStore(pg_url)
    create_combat(pg, "other", "freeform", actor="gm")
    with pytest.raises(InvalidCommand, match="already has a different combat named 'other'"):
        _copy(sqlite, pg)
    assert [m.name for m in pg.list_streams()] == ["other"]
    sqlite.close()
    pg.close()


def test_selected_streams_bring_their_ancestors_only() -> None:
    source = MemoryStore()
    names = _campaign(source)
    target = MemoryStore()
    plans = _copy(source, target, ["deeper"])
    assert [p.meta.name for p in plans] == ["duel", "whatif", "deeper"]
    assert target.get_stream(names["other"].id) is None
    assert verify_stream(target, names["deeper"]).ok


def test_forks_come_after_parents_whatever_their_dates() -> None:
    parent = StreamMeta(id="p", name="p", ruleset="freeform", created_at="2026-05-01")
    child = StreamMeta(id="c", name="c", ruleset="freeform", created_at="2026-01-01", parent="p", fork_seq=2)
    grandchild = StreamMeta(id="g", name="g", ruleset="freeform", created_at="2025-01-01", parent="c", fork_seq=3)
    assert [m.id for m in transfer.parents_first([grandchild, child, parent])] == ["p", "c", "g"]


def test_big_streams_move_in_several_transactions(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transfer, "CHUNK", 7)
    monkeypatch.setattr(transfer, "PAGE", 5)
    source = MemoryStore()
    names = _campaign(source, notes=20)
    pg = PostgresStore(pg_url)
    calls: list[int] = []
    plain = pg.import_batches
    pg.import_batches = lambda batches: (calls.append(sum(len(b.rows) for b in batches)), plain(batches))[1]  # type: ignore[method-assign]
    _copy(source, pg)
    assert sum(calls) == sum(len(source.read_stream(m.id)) for m in source.list_streams())
    # duel has 21 events, read 5 at a time: 10 reach CHUNK (7) and are flushed, twice; then duel's last
    # event, whatif's 2, deeper's 1 and other's 2 share the final transaction: 1 + 2 + 1 + 2 = 6.
    assert calls == [10, 10, 6]
    _same_streams(source, pg)
    assert verify_stream(pg, names["deeper"]).ok
    pg.close()


def test_referee_seeds_move_only_when_asked(pg_url: str, tmp_path: Path) -> None:
    sqlite = SQLiteStore(tmp_path / "a.db")
    duel = create_combat(sqlite, "duel", "freeform", actor="gm", dice="referee").stream
    pg = PostgresStore(pg_url)
    streams = transfer.select_streams(sqlite, [])
    transfer.apply_copy(sqlite, pg, transfer.plan_copy(sqlite, pg, streams))
    secret_names = [f"seed:{c}" for c in _commitments(sqlite, duel)]
    assert len(secret_names) == 1 and sqlite.get_secret(secret_names[0]) is not None  # `new --dice referee` commits one
    assert pg.get_secret(secret_names[0]) is None
    assert transfer.copy_seeds(sqlite, pg, streams) == 1
    assert pg.get_secret(secret_names[0]) == sqlite.get_secret(secret_names[0])
    assert transfer.copy_seeds(sqlite, pg, streams) == 0  # already there
    sqlite.close()
    pg.close()


def _commitments(store: EventStore, meta: StreamMeta) -> list[str]:
    import msgspec

    out = []
    for row in store.read_stream(meta.id):
        env = msgspec.json.decode(row.body)
        if env["type"] == "core.seed_committed":
            out.append(env["data"]["commitment"])
    return out


def test_copy_from_the_cli_both_ways(pg_server: TempPostgres, tmp_path: Path) -> None:
    a_db, b_db = tmp_path / "a.db", tmp_path / "b.db"
    home = SQLiteStore(a_db)
    names = _campaign(home)
    home.close()
    url = pg_server.url(schema=pg_server.new_schema("copy"))
    cli = Cli(a_db, REPO)
    up = cli("copy", "--from", str(a_db), "--to", url, "--json").json()
    assert up["events_copied"] == sum(  # type: ignore[index]
        len(SQLiteStore(a_db).read_stream(m.id)) for m in names.values())
    assert all(s["verified"] for s in up["streams"])  # type: ignore[index]
    down = cli("copy", "--from", url, "--to", str(b_db)).out
    assert "created" in down and "verified: head" in down
    on_pg = Cli(url, REPO)  # type: ignore[arg-type]
    on_b = Cli(b_db, REPO)
    for view in ("status", "show", "log", "explain", "dice"):
        assert cli(view, "deeper", "--json").out == on_pg(view, "deeper", "--json").out == on_b(view, "deeper", "--json").out
    for who, c in (("a", cli), ("pg", on_pg), ("b", on_b)):
        c("export", "deeper", "-o", str(tmp_path / f"{who}.jsonl"))
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "pg.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    # Diverging, then refused with the diverged exit status and nothing written.
    cli("note", "duel", "at home")
    on_b("note", "duel", "elsewhere")
    refused = cli("copy", "--from", str(a_db), "--to", str(b_db), ok=False)
    assert refused.code == 9 and "error[diverged]" in refused.err and "refusing to overwrite" in refused.err
    missing = cli("copy", "--from", str(tmp_path / "nope.db"), "--to", url, ok=False)
    assert missing.code == 6 and not (tmp_path / "nope.db").exists()
