"""``combatlog serve --db postgresql://...``: the same server over the PostgreSQL store."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.store.pgtemp import TempPostgres
from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table

pytestmark = pytest.mark.postgres


def test_the_server_runs_over_postgresql(pg_server: TempPostgres, tmp_path: Path) -> None:
    url = pg_server.url(schema=pg_server.new_schema("serve"))
    live = LiveServer(tmp_path, "--open", db=url)
    try:
        alice, bob = table(tmp_path, live.url, ("alice", "bob"))
        cid = combat_id(alice)
        assert not (tmp_path / "combatlog-server.db").exists()  # the server's own tables are in PostgreSQL
        import psycopg

        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT id FROM server_combats").fetchall() == [(cid,)]
        bob("pull", "duel")
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
        target = f"/v1/combats/{cid}/events"
        bodies = {}
        for seat in (alice, bob):
            seat("export", "duel", "--since", "1", "-o", str(tmp_path / f"{seat.name}.jsonl"))
            bodies[seat.name] = (tmp_path / f"{seat.name}.jsonl").read_bytes()
        first = live.request("POST", target, bodies["alice"], signed(alice.home, "alice", "POST", target, bodies["alice"]))
        second = live.request("POST", target, bodies["bob"], signed(bob.home, "bob", "POST", target, bodies["bob"]))
        assert (first.status, second.status) == (200, 409)
        info = f"/v1/combats/{cid}"
        head = live.request("GET", info, None, signed(alice.home, "alice", "GET", info)).json()
        assert head["head_seq"] == 2 and second.json()["head_hash"] == head["head_hash"]
        assert alice.verify("duel")["head_hash"] == head["head_hash"]
    finally:
        live.stop()
