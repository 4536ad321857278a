"""The server is the sequencer: two appends on the same head, the first wins and the second gets 409
with the server's head, and nothing of it is appended; the loser's client merges (the server's branch
kept) and pushes its decision placed after it (unchanged, still signed by its author)."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.server.live import LiveServer, Reply, signed
from tests.server.players import combat_id, table


def _bundle(seat, tmp_path: Path, since: int) -> bytes:  # type: ignore[no-untyped-def]
    path = tmp_path / f"{seat.name}-since-{since}.jsonl"
    seat("export", "duel", "--since", str(since), "-o", str(path))
    return path.read_bytes()


def test_two_appends_on_one_head_one_is_refused_with_the_head(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    bob("pull", "duel")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    target = f"/v1/combats/{cid}/events"
    bodies = {seat.name: _bundle(seat, tmp_path, 1) for seat in (alice, bob)}
    requests = {seat.name: signed(seat.home, seat.name, "POST", target, bodies[seat.name]) for seat in (alice, bob)}
    replies: dict[str, Reply] = {}
    barrier = threading.Barrier(2)

    def send(name: str) -> None:
        barrier.wait()
        replies[name] = server.request("POST", target, bodies[name], requests[name])

    threads = [threading.Thread(target=send, args=(name,)) for name in requests]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status for r in replies.values()) == [200, 409], {n: r.body for n, r in replies.items()}
    winner = next(n for n, r in replies.items() if r.status == 200)
    loser = next(n for n, r in replies.items() if r.status == 409)
    refused = replies[loser].json()
    head_seq, head_hash = server.head(cid)
    assert head_seq == 2 and refused["error"] == "conflict"
    assert (refused["head_seq"], refused["head_hash"]) == (head_seq, head_hash)
    winner_seat = alice if winner == "alice" else bob
    assert winner_seat.verify("duel")["head_hash"] == head_hash  # the winner's event, and only it

    # the loser's bundle again, freshly signed: still 409, nothing appended
    again = server.request("POST", target, bodies[loser], signed(tmp_path / loser / "keys", loser, "POST", target,
                                                                 bodies[loser]))
    assert again.status == 409 and server.head(cid) == (head_seq, head_hash)
    # the winner's bundle again (a retry after a lost answer): accepted, nothing appended twice
    retry = server.request("POST", target, bodies[winner], signed(winner_seat.home, winner, "POST", target,
                                                                  bodies[winner]))
    assert retry.status == 200 and retry.json()["appended"] == 0 and server.head(cid) == (head_seq, head_hash)

    # the loser's client: push pulls the server's events (verified), merges with the server's branch kept
    # (the sequencer: first come, first served), re-applies the loser's join after it, and pushes that
    loser_seat = bob if loser == "bob" else alice
    winner_name = winner
    pushed = loser_seat("push", "duel")
    assert f"the bundle's branch ({winner_name}) goes first (the server ordered it first)" in pushed.out
    assert f"placed {loser}'s ff.participant_joined (was #2) as #3" in pushed.out
    assert "pushed 1" in pushed.out or "pushed" in pushed.out
    head_seq, head_hash = server.head(cid)
    assert head_seq == 3 and loser_seat.verify("duel")["head_hash"] == head_hash
    winner_seat("pull", "duel")
    assert winner_seat.verify("duel")["head_hash"] == head_hash
    kept = loser_seat("superseded", "duel", "--json").json()["superseded"]  # type: ignore[index]
    assert [(k["seq"], k["actor"]) for k in kept] == [(2, loser)]  # the loser's first #2, kept as evidence


def test_push_when_behind_pulls_then_pushes(tmp_path: Path, server: LiveServer) -> None:
    """docs/server.md, "The CLI as a replica": push pulls what the server holds first (issue #20: it used
    to print "pull first" and exit 0 with nothing pushed)."""
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    bob("pull", "duel")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    alice("push", "duel")
    # behind with nothing of his own: push pulls (verified) and has nothing to send
    caught_up = bob("push", "duel")
    assert "pulled 1 events from origin, verified (head #2," in caught_up.out and bob.head("duel") == 2
    assert "pull first" not in caught_up.out + caught_up.err
    # behind with a decision of his own on the old head: pulled, merged (the server's branch kept), his
    # join placed after the server's events and pushed, all in one push
    alice("freeform", "join", "duel", "Al", "--side", "red", "--hp", "3")
    alice("freeform", "join", "duel", "Ali", "--side", "red", "--hp", "4")
    alice("push", "duel")  # the server: #3, #4 (alice's)
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # bob's #3, on his head #2
    pushed = bob("push", "duel")
    assert "placed bob's ff.participant_joined (was #3) as #5" in pushed.out, pushed.out
    assert "then pushed 1 events to origin (head #5)" in pushed.out, pushed.out
    assert server.head(cid)[0] == 5 and bob.verify("duel")["head_hash"] == server.head(cid)[1]
    alice("pull", "duel")
    assert alice.verify("duel")["head_hash"] == server.head(cid)[1]
    # a player who appended on an old head: pull keeps the server's branch and re-applies hers after it
    alice("freeform", "join", "duel", "Alo", "--side", "red", "--hp", "3")
    bob("freeform", "join", "duel", "Bob", "--side", "blue", "--hp", "5")
    bob("push", "duel")
    merged = alice("pull", "duel")
    assert "merged at #5" in merged.out and "(the server ordered it first)" in merged.out
    assert "placed alice's ff.participant_joined (was #6) as #7" in merged.out
    assert "(head #7," in merged.out and alice.head("duel") == 7
    assert "pushed 1 events" in alice("sync").out and server.head(cid)[0] == 7


def test_push_without_a_key_here_says_so_before_asking(tmp_path: Path, server: LiveServer) -> None:
    alice, _ = table(tmp_path, server.url, ("alice", "bob"))
    refused = alice("push", "duel", "--as", "gm", ok=False)
    assert refused.code == 3 and "no secret key for 'gm'" in refused.err
