"""A real Magic Realm round played by mail: alice (Black Knight) and bob (Amazon, with two Lancers)
on two machines, exchanging bundle files only; both end with the same verified, signed log.

The moves are round 1 of docs/examples/magic_realm/giant-and-goblins.cmds, each made by the player
who owns the character (steps anyone may run are split between them), with the same manual dice.
Manual dice are typed in by a player, so ``verify`` notes that they are not checkable at a
distance. Note what this test also shows: alice's ``mr.plays_made`` travels in plain JSON in her
bundle before bob plays, because Magic Realm's secret plays are not sealed yet (its views conceal
them, which is enough at one table only); sealing them, and joint dice seeded by them, is the
integration described in docs/trust.md, "For ruleset authors".
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
          "--place", "lancer-hq=1", "--place", "lancer-1=1")
    mail(alice, bob, G, tmp_path)
    bob("mr", "play", G, "amazon", "--attack", "thrust", "--fight", "F6", "--maneuver", "dodge", "--move", "M1",
        "--shield", "smash", "--place", "goblin-1=1", "--place", "goblin-2=3")
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
