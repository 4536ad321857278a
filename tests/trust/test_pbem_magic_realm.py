"""A real Magic Realm round played by mail: alice (Black Knight) and bob (Amazon, with two Lancers)
on two machines, exchanging bundle files only; both end with the same verified, signed log.

The moves are round 1 of docs/examples/magic_realm/giant-and-goblins.cmds, each made by the player
who owns the character (steps anyone may run are split between them), with the same manual dice.
Manual dice are typed in by a player, so ``verify`` notes that they are not checkable at a
distance. The secret plays (MR 8.4.5) are sealed: each player commits his side's plays (only a hash
travels in the bundle), and reveals once both commits are in (docs/magic_realm.md, "Playing by email";
tests/trust/test_mr_sealed.py covers joint dice and the refusals).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.rulesets import available
from tests.trust.pbem import mail, pair

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

G = "giant-goblins"


def test_a_magic_realm_round_by_mail(tmp_path: Path) -> None:
    alice, bob = pair(tmp_path, G, ruleset="magic_realm", dice="manual",
                      setup="docs/examples/magic_realm/giant-and-goblins.json")
    bob("ack", G)
    bob("mr", "lure", G, "amazon", "goblin-1")
    mail(bob, alice, G, tmp_path)
    alice("mr", "lure", G, "bk", "giant")
    alice("mr", "assign", G, "--face", "r1/assign/goblin-2=1", "--face", "r1/assign/goblin-3=2")
    mail(alice, bob, G, tmp_path)
    bob("mr", "deploy", G, "amazon", "--hireling", "lancer-hq=giant", "--hireling", "lancer-1=giant")
    mail(bob, alice, G, tmp_path)
    alice("mr", "deploy", G, "bk")
    alice("mr", "action", G, "bk", "alert", "--chit", "F2")
    mail(alice, bob, G, tmp_path)
    bob("mr", "action", G, "amazon", "none")
    bob("mr", "melee", G, "--face", "r1/attention/1=1")
    bob("mr", "target", G, "amazon", "goblin-1")
    mail(bob, alice, G, tmp_path)
    alice("mr", "target", G, "bk", "goblin-3")
    alice("mr", "play", G, "bk", "--attack", "smash", "--fight", "F3", "--maneuver", "charge", "--move", "M3",
          "--shield", "thrust", "--place", "giant=1", "--place", "giant-club=2", "--place", "goblin-3=3",
          "--place", "lancer-hq=1", "--place", "lancer-1=1", "--seal")
    sent = mail(alice, bob, G, tmp_path)
    assert b'"fight"' not in sent.read_bytes()  # only the commitment travels
    bob("mr", "play", G, "amazon", "--attack", "thrust", "--fight", "F6", "--maneuver", "dodge", "--move", "M1",
        "--shield", "smash", "--place", "goblin-1=1", "--place", "goblin-2=3", "--seal")
    bob("mr", "reveal", G)
    mail(bob, alice, G, tmp_path)
    alice("mr", "reveal", G)
    mail(alice, bob, G, tmp_path)
    bob("mr", "resolve", G, "--face", "r1/reposition/amazon=4", "--face", "r1/reposition/bk=4",
        "--face", "r1/tactics/amazon/box1=2,3", "--face", "r1/tactics/amazon/box3=6,1",
        "--face", "r1/tactics/bk/box1=1,5", "--face", "r1/tactics/bk/box2=4,4", "--face", "r1/tactics/bk/box3=2,2")
    mail(bob, alice, G, tmp_path)
    alice("ack", G)
    mail(alice, bob, G, tmp_path)

    va, vb = alice.verify(G), bob.verify(G)
    assert va["head_hash"] == vb["head_hash"] and va["signatures"] == va["head_seq"]
    assert va["acknowledged"] == {"alice": va["head_seq"], "bob": va["head_seq"] - 1}
    assert any("local or manual dice" in note for note in va["notes"])
    sa = alice("show", G, "--json").json()
    assert sa == bob("show", G, "--json").json() and sa["seq"] == va["head_seq"]  # type: ignore[index]
