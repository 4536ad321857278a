"""A Magic Realm round through the server: the round of tests/trust/test_pbem_magic_realm.py, each
mail replaced by a push and a pull; the sealed plays reach the server as commitments only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from combatlog.rulesets import available
from tests.server.live import LiveServer
from tests.trust.pbem import Seat

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

G = "giant-goblins"


def _server_text(server: LiveServer) -> bytes:
    with sqlite3.connect(server.db) as db:
        return b"\n".join(row[0] for row in db.execute("SELECT body FROM events ORDER BY position"))


def test_a_magic_realm_round_through_the_server(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = Seat("alice", tmp_path), Seat("bob", tmp_path)
    for seat in (alice, bob):
        seat("keys", "new", seat.name)
        seat("keys", "export", seat.name, "-o", str(tmp_path / f"{seat.name}.pub"))
        seat("remote", "add", "origin", server.url)
    alice("keys", "import", str(tmp_path / "bob.pub"))
    bob("keys", "import", str(tmp_path / "alice.pub"))
    alice("new", G, "--ruleset", "magic_realm", "--dice", "manual", "--player", "alice", "--player", "bob",
          "--setup", "docs/examples/magic_realm/giant-and-goblins.json")

    def send(sender: Seat, receiver: Seat) -> None:
        sender("push", G)
        receiver("pull", G)

    send(alice, bob)
    bob("ack", G)
    bob("mr", "lure", G, "amazon", "goblin-1")
    send(bob, alice)
    alice("mr", "lure", G, "bk", "giant")
    alice("mr", "assign", G, "--face", "r1/assign/goblin-2=1", "--face", "r1/assign/goblin-3=2")
    send(alice, bob)
    bob("mr", "deploy", G, "amazon", "--hireling", "lancer-hq=giant", "--hireling", "lancer-1=giant")
    send(bob, alice)
    alice("mr", "deploy", G, "bk")
    alice("mr", "action", G, "bk", "alert", "--chit", "F2")
    send(alice, bob)
    bob("mr", "action", G, "amazon", "none")
    bob("mr", "melee", G, "--face", "r1/attention/1=1")
    bob("mr", "target", G, "amazon", "goblin-1")
    send(bob, alice)
    alice("mr", "target", G, "bk", "goblin-3")
    alice("mr", "play", G, "bk", "--attack", "smash", "--fight", "F3", "--maneuver", "charge", "--move", "M3",
          "--shield", "thrust", "--place", "giant=1", "--place", "giant-club=2", "--place", "goblin-3=3",
          "--place", "lancer-hq=1", "--place", "lancer-1=1", "--seal")
    send(alice, bob)
    assert b'"F3"' not in _server_text(server)  # only the commitment is on the server
    bob("mr", "play", G, "amazon", "--attack", "thrust", "--fight", "F6", "--maneuver", "dodge", "--move", "M1",
        "--shield", "smash", "--place", "goblin-1=1", "--place", "goblin-2=3", "--seal")
    bob("mr", "reveal", G)
    send(bob, alice)
    alice("mr", "reveal", G)
    send(alice, bob)
    assert b'"F3"' in _server_text(server)  # revealed now, by its player
    bob("mr", "resolve", G, "--face", "r1/reposition/amazon=4", "--face", "r1/reposition/bk=4",
        "--face", "r1/tactics/amazon/box1=2,3", "--face", "r1/tactics/amazon/box3=6,1",
        "--face", "r1/tactics/bk/box1=1,5", "--face", "r1/tactics/bk/box2=4,4", "--face", "r1/tactics/bk/box3=2,2")
    send(bob, alice)
    alice("ack", G)
    send(alice, bob)

    va, vb = alice.verify(G), bob.verify(G)
    assert va["head_hash"] == vb["head_hash"] and va["signatures"] == va["head_seq"]
    with sqlite3.connect(server.db) as db:
        head = db.execute("SELECT seq, hash FROM events ORDER BY position DESC LIMIT 1").fetchone()
        assert db.execute("SELECT count(*) FROM secrets").fetchone()[0] == 0
    assert (va["head_seq"], va["head_hash"]) == tuple(head)
    assert alice("show", G, "--json").json() == bob("show", G, "--json").json()
