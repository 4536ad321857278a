"""A server's log is settled as it stands, placed decisions at its end included (docs/trust.md, "Crossings").

Three players on a server (``combatlog serve`` on 127.0.0.1) each join a figure on the same head. alice's push
lands; bob's is refused (409), his client pulls, keeps the server's branch and places his join after it; then
carol's is refused too. In the placement rule's order carol's join goes before bob's placed one (the players'
order rotated by the place puts carol first at that place), but the server only appends: re-sorting its tail
would be refused and pulled back again, for ever. So carol's client keeps the server's log whole and re-runs her
join after it (a signed event of hers), and every copy verifies the same head.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server.players import combat_id, table


def test_a_decision_that_would_go_before_the_servers_placed_run_is_re_run_after_it(tmp_path: Path,
                                                                                  start_server: Any) -> None:
    server = start_server("--open")
    alice, bob, carol = table(tmp_path, server.url, ("alice", "bob", "carol"), dice="local")
    cid = combat_id(alice)
    # the head f where carol goes before bob (trust/rewind.rank: (index - f - 1) mod 3 is 0 for carol when f = 1
    # mod 3, and 2 for bob)
    while alice.head("duel") % 3 != 1:
        alice("note", "duel", "pad")
    alice("push", "duel")
    fork = alice.head("duel")
    for seat in (bob, carol):
        seat("pull", "duel")
        assert seat.head("duel") == fork
    for seat, name in ((alice, "Ann"), (bob, "Bo"), (carol, "Cy")):
        seat("freeform", "join", "duel", name, "--side", seat.name, "--hp", "5")
    alice("push", "duel")
    bob_push = bob("push", "duel")
    assert "placed bob's" in bob_push.out, bob_push.out
    settled = server.head(cid)
    assert settled[0] == fork + 2
    carol_push = carol("push", "duel")
    # carol's join could not be placed before bob's on a server (its tail stays): it was re-run after it
    assert "re-applied carol's" in carol_push.out, carol_push.out
    assert "placement rule puts it before" in carol_push.out, carol_push.out
    head = server.head(cid)
    assert head[0] == fork + 3
    exported = tmp_path / "server-view.jsonl"
    carol("export", "duel", "-o", str(exported))
    import json

    events = [json.loads(line) for line in exported.read_text().splitlines()[1:]]
    tail = [(e["seq"], e["actor"], "placed" in e) for e in events if e["seq"] > fork]
    # the server's two events stand where they were; carol's is her own signed event after them
    assert tail == [(fork + 1, "alice", False), (fork + 2, "bob", True), (fork + 3, "carol", False)], tail
    for seat in (alice, bob):
        seat("pull", "duel")
    for seat in (alice, bob, carol):
        report = seat.verify("duel")
        assert report["ok"] and report["head_hash"] == head[1], report
