"""Two players, two machines (two databases, two key homes), bundle files only, the real CLI.

The flow is the one docs/trust.md walks through: keys, a combat pinning both
players, sealed orders in 1.5 round trips, joint dice, a decision point that
needs a fresh commit-reveal (strict mode), acknowledgements, and both sides
ending with the same verified log and the same readable text.
"""

from __future__ import annotations

from pathlib import Path

from tests.trust.pbem import equivocated, mail, pair


def test_two_players_finish_a_freeform_combat_by_mail(tmp_path: Path) -> None:
    alice, bob = pair(tmp_path)
    # bob compares the pinned fingerprints, then countersigns the genesis
    shown = bob("seal", "status", "duel", "--json").json()
    assert set(shown["players"]) == {"alice", "bob"}  # type: ignore[index]
    bob("ack", "duel")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    mail(bob, alice, "duel", tmp_path)
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")

    # round 1: alice seals, bob seals and reveals in one packet, alice reveals and plays
    alice("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Aldo": "thrust at Bo"}')
    mail(alice, bob, "duel", tmp_path)
    early = bob("freeform", "damage", "duel", "Aldo", "1d6", ok=False)
    assert early.code == 4 and "no joint dice seed yet" in early.err
    free = bob("roll", "duel", "1d6", "--label", "r1/any", ok=False)  # a free label could be shopped for
    assert free.code == 4 and "a free roll cannot use joint dice" in free.err
    bob("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Bo": "swing at Aldo"}')
    bob("seal", "reveal", "duel", "--step", "r1")
    mail(bob, alice, "duel", tmp_path)
    alice("seal", "reveal", "duel")
    alice("freeform", "round", "duel")
    alice("freeform", "act", "duel", "Aldo", "thrusts at Bo", "--roll", "1d20")
    alice("freeform", "damage", "duel", "Bo", "1d6")
    mail(alice, bob, "duel", tmp_path)
    bob("freeform", "act", "duel", "Bo", "swings at Aldo", "--roll", "1d20")

    # bob decides something after seeing the seed: strict mode wants a fresh seed before the next die
    bob("seal", "decision", "duel", "Bo presses on instead of fleeing")
    refused = bob("freeform", "damage", "duel", "Aldo", "1d6", ok=False)
    assert refused.code == 4 and "fresh commit-reveal" in refused.err
    bob("seal", "commit", "duel", "--step", "r2")
    mail(bob, alice, "duel", tmp_path)
    alice("seal", "commit", "duel", "--step", "r2")
    alice("seal", "reveal", "duel", "--step", "r2")
    mail(alice, bob, "duel", tmp_path)
    bob("seal", "reveal", "duel", "--step", "r2")
    bob("freeform", "damage", "duel", "Aldo", "1d6")
    bob("freeform", "end", "duel", "--outcome", "both bloodied, they part")
    mail(bob, alice, "duel", tmp_path)
    alice("ack", "duel")
    mail(alice, bob, "duel", tmp_path)

    va, vb = alice.verify("duel"), bob.verify("duel")
    assert va["ok"] and vb["ok"]
    assert va["head_hash"] == vb["head_hash"] and va["head_seq"] == vb["head_seq"]
    assert va["signatures"] == va["head_seq"]  # every event signed, by its actor
    assert va["dice"]["verified"] == 4 and va["dice"]["local"] == 0
    assert va["dice"]["unbound"] == 0  # joint dice under the rules' labels, each read by its event
    assert va["acknowledged"] == {"alice": va["head_seq"], "bob": va["head_seq"] - 1}
    # the readable export is deterministic: both sides render the same bytes
    alice("export", "duel", "--format", "text", "-o", str(tmp_path / "a.txt"))
    bob("export", "duel", "--format", "text", "-o", str(tmp_path / "b.txt"))
    text = (tmp_path / "a.txt").read_text()
    assert text == (tmp_path / "b.txt").read_text()
    assert all(len(line) <= 72 for line in text.splitlines())
    assert f"sha256:{va['head_hash'][:32]}" in text and "JSON Lines export" in text
    assert "bob reveals step r1" in text and "decision point: bob" in text


def test_appending_as_a_player_whose_key_is_not_here_is_refused(tmp_path: Path) -> None:
    alice, bob = pair(tmp_path)
    forged = bob("freeform", "join", "duel", "Evil", "--side", "x", "--as", "alice", ok=False)
    assert forged.code == 4 and "secret key of 'alice' is not on this machine" in forged.err
    stranger = bob("freeform", "join", "duel", "Evil", "--side", "x", "--as", "mallory", ok=False)
    assert stranger.code == 4 and "'mallory' is not one of them" in stranger.err
    assert bob.head("duel") == 1  # nothing was appended


def test_equivocation_is_reported_with_both_events(tmp_path: Path) -> None:
    alice, _bob, path = equivocated(tmp_path)
    result = alice("import", str(path), ok=False)
    assert result.code == 9
    assert "equivocation by bob" in result.err and "seq 2" in result.err
    evidence = tmp_path / "second.jsonl.equivocation-2.jsonl"
    assert evidence.exists() and len(evidence.read_bytes().splitlines()) == 4  # header, genesis, both events
    assert alice.head("duel") == 2
