"""Players against a live server with the real CLI: create, list, read, append; a signed freeform
combat with sealed orders and joint dice played by three players over push/pull/sync."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table


def test_create_list_read_append_round_trip(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    # the creator got the invite token; tokens live in the key home, not in the log
    token = alice("remote", "list", "--json").json()[0]
    assert token["combats"] == [cid] and token["token"] is False
    # list: a player's signed request sees the combat; an anonymous one does not (it is private)
    listed = server.request("GET", "/v1/combats", headers=signed(bob.home, "bob", "GET", "/v1/combats"))
    assert listed.status == 200 and [c["id"] for c in listed.json()] == [cid]
    assert listed.json()[0]["head_seq"] == 1 and {p["name"] for p in listed.json()[0]["players"]} == {"alice", "bob"}
    assert server.request("GET", "/v1/combats").json() == []
    # read: the bundle is exactly what `combatlog export --since 0` writes
    target = f"/v1/combats/{cid}/events?since=0"
    served = server.request("GET", target, headers=signed(bob.home, "bob", "GET", target))
    assert served.status == 200 and served.headers["content-type"].startswith("application/x-ndjson")
    alice("export", "duel", "-o", str(tmp_path / "mine.jsonl"))
    assert served.body == (tmp_path / "mine.jsonl").read_bytes()
    # bob pulls (finds it by name on the server), appends, pushes; alice pulls
    assert "pulled 1 events" in bob("pull", "duel").out
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    assert "pushed 1 events" in bob("push", "duel").out
    assert server.head(cid)[0] == 2
    assert "pulled 1 events" in alice("pull", "duel").out
    assert "up to date" in alice("push", "duel").out
    # an incremental read is exactly `export --since 1`
    target = f"/v1/combats/{cid}/events?since=1"
    served = server.request("GET", target, headers=signed(alice.home, "alice", "GET", target))
    alice("export", "duel", "--since", "1", "-o", str(tmp_path / "inc.jsonl"))
    assert served.body == (tmp_path / "inc.jsonl").read_bytes()
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"] == server.head(cid)[1]


def test_three_players_play_a_sealed_round_with_joint_dice(tmp_path: Path, server: LiveServer) -> None:
    alice, bob, carol = seats = table(tmp_path, server.url)
    cid = combat_id(alice)
    for seat in (bob, carol):
        seat("pull", "duel")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    alice("sync")
    bob("sync")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    bob("sync")
    carol("sync", "duel")
    carol("freeform", "join", "duel", "Cy", "--side", "blue", "--hp", "8")
    carol("sync", "duel")
    # sealed orders: each commits, then each reveals; the joint seed needs all three nonces
    for seat, orders in zip(seats, ('{"Aldo": "thrust"}', '{"Bo": "swing"}', '{"Cy": "shoot"}')):
        seat("sync")
        seat("seal", "commit", "duel", "--step", "r1", "--orders-json", orders)
        seat("sync")
    for seat in seats:
        seat("sync")
        seat("seal", "reveal", "duel", "--step", "r1")
        seat("sync")
    alice("sync")
    alice("freeform", "round", "duel")
    alice("freeform", "act", "duel", "Aldo", "thrusts at Bo", "--roll", "1d20")
    alice("freeform", "damage", "duel", "Bo", "1d6")
    alice("sync")
    bob("sync")
    bob("freeform", "act", "duel", "Bo", "swings at Aldo", "--roll", "1d20")
    bob("sync")
    carol("sync")
    carol("freeform", "act", "duel", "Cy", "shoots at Aldo", "--roll", "1d20")
    carol("sync")
    for seat in seats:
        seat("sync")
        seat("ack", "duel")
        seat("sync")
    for seat in seats:
        seat("sync")

    reports = [seat.verify("duel") for seat in seats]
    head_seq, head_hash = server.head(cid)
    assert all(r["ok"] for r in reports)
    assert {(r["head_seq"], r["head_hash"]) for r in reports} == {(head_seq, head_hash)}
    assert reports[0]["signatures"] == head_seq  # every event signed by its actor
    assert reports[0]["dice"]["verified"] == 4 and reports[0]["dice"]["local"] == 0
    # the server verified it too (it is a log like any other)
    served = server.request("GET", f"/v1/combats/{cid}", headers=signed(carol.home, "carol", "GET", f"/v1/combats/{cid}"))
    assert served.json()["head_seq"] == head_seq and served.json()["head_hash"] == head_hash
    # secrets never left the players' machines: the server's database holds none, each player holds theirs
    with sqlite3.connect(server.db) as db:
        assert db.execute("SELECT count(*) FROM secrets").fetchone()[0] == 0
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables >= {"events", "streams", "server_combats", "server_nonces"}
        assert db.execute("SELECT count(*) FROM held_bundles").fetchone()[0] == 0
    for seat in seats:
        with sqlite3.connect(seat.dir / "log.db") as db:
            assert db.execute("SELECT count(*) FROM secrets WHERE name LIKE 'orders:%'").fetchone()[0] == 1
