"""Two players who answer the same email, on two machines, through the CLI: the logs merge by themselves.

The case of issue #11: alice and bob each seal their orders on the same head (both legal, order
irrelevant) and mail them crosswise. Before merges both imports said ``error[diverged]``; then both
machines kept the same branch (the players' order at that place: docs/trust.md, "Concurrent
moves") and alice's machine re-applied her decision, which cost one more mail. Now (issue #20) both
machines place her decision, unchanged and still signed by her, after bob's: the same head at once.
Her commitment is the one she made, so her secret still opens it.
"""

from __future__ import annotations

from pathlib import Path

from tests.trust.pbem import mail, pair


def test_crossing_bundles_merge_to_one_head_and_the_secrets_still_open(tmp_path: Path) -> None:
    alice, bob = pair(tmp_path)
    bob("ack", "duel")
    mail(bob, alice, "duel", tmp_path)  # both at #2
    alice("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Aldo": "thrust"}')
    bob("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"Bo": "swing"}')
    a_file, b_file = tmp_path / "from-alice.jsonl", tmp_path / "from-bob.jsonl"
    alice("export", "duel", "--since", "2", "-o", str(a_file))
    bob("export", "duel", "--since", "2", "-o", str(b_file))
    # the mails cross: each imports the other's, made on the same head #2
    at_alice = alice("import", str(b_file))
    at_bob = bob("import", str(a_file))
    # at #3 the players' order starts with the player at index 3 mod 2 = 1: bob goes first everywhere
    assert "merged at #2" in at_alice.out and "(bob) goes first" in at_alice.out
    placed = "placed alice's core.orders_committed (was #3) as #4, unchanged, with alice's signature"
    assert placed in at_alice.out and placed in at_bob.out
    assert "(bob) goes first" in at_bob.out and "re-applied" not in at_bob.out + at_alice.out
    # both machines placed it alike, with nobody's key but alice's first signature: no further mail
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"]
    # the secrets followed the decision: both reveal, and the joint seed exists
    bob("seal", "reveal", "duel")
    mail(bob, alice, "duel", tmp_path)
    alice("seal", "reveal", "duel")
    mail(alice, bob, "duel", tmp_path)
    va, vb = alice.verify("duel"), bob.verify("duel")
    assert va["head_hash"] == vb["head_hash"] and va["ok"] and va["signatures"] == va["head_seq"]
    status = alice("seal", "status", "duel", "--json").json()
    assert status["joint_seed"]["step"] == "r1"  # type: ignore[index]
    # the superseded event is kept as evidence on both machines (alice's replaced it, bob's received it)
    for seat in (alice, bob):
        kept = seat("superseded", "duel", "--json").json()["superseded"]  # type: ignore[index]
        assert [(k["seq"], k["actor"], k["type"]) for k in kept] == [(3, "alice", "core.orders_committed")]
    listed = alice("superseded", "duel").out
    assert "1 superseded events" in listed and "#3 alice core.orders_committed" in listed


def test_the_losing_bundle_arriving_late_changes_nothing(tmp_path: Path) -> None:
    alice, bob = pair(tmp_path)
    bob("ack", "duel")
    mail(bob, alice, "duel", tmp_path)
    alice("seal", "commit", "duel", "--step", "r1")
    stale = tmp_path / "stale.jsonl"
    alice("export", "duel", "--since", "2", "-o", str(stale))
    bob("seal", "commit", "duel", "--step", "r1")
    crossing = tmp_path / "crossing.jsonl"
    bob("export", "duel", "--since", "3", "-o", str(crossing))
    # a bundle that starts after the place where the logs part cannot be merged: a clear error, no change
    refused = alice("import", str(crossing), ok=False)
    assert refused.code != 0 and "two players answered the same head" in refused.err and "--for" in refused.err
    bob("export", "duel", "--for", "alice", "-o", str(crossing))  # from what alice acknowledged: #2
    alice("import", str(crossing))  # alice merges: bob's #3 first, her commit placed as #4
    mail(alice, bob, "duel", tmp_path)
    head = bob.verify("duel")["head_hash"]
    again = bob("import", str(stale))  # alice's old mail, delivered late, to bob
    assert bob.verify("duel")["head_hash"] == head
    assert "already in this log as #4" in again.out
