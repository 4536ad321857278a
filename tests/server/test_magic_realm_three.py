"""Issue #13, "Done when": three players on three local stores play the Magic Realm fight against the
server with ``sync`` only (no mail), and every machine and the server end with the same verified head.

The fight and the players' choices are those of tests/trust/test_message_economy.py (gm the referee,
alice's Black Knight, bob's Amazon, two Axe Goblins; joint dice with nonce chains; the Black Knight
runs away in round 1). Each turn every player syncs, does what ``status --mine`` lists, and syncs again.
The fight is played to the end of round 1, which holds every kind of step the server carries (the set-up and
the acknowledgements, sealed plays and their reveal, joint dice on nonce chains, the referee's steps, the
resolution); round 2 repeats them with one character fewer, and tests/trust/test_message_economy.py and
tests/trust/test_concurrent_fight.py play it by mail and by forum (this test was the suite's slowest).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatlog.rulesets import available
from tests.server.live import LiveServer
from tests.trust.pbem import Seat
from tests.trust.test_message_economy import SETUP, _command

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

G = "cave"


def test_three_players_play_magic_realm_against_the_server_with_sync(tmp_path: Path, server: LiveServer) -> None:
    seats = [Seat(name, tmp_path) for name in ("gm", "alice", "bob")]
    for seat in seats:
        seat("keys", "new", seat.name)
        seat("keys", "export", seat.name, "-o", str(tmp_path / f"{seat.name}.pub"))
    for seat in seats:
        for other in seats:
            if other is not seat:
                seat("keys", "import", str(tmp_path / f"{other.name}.pub"))
        seat("remote", "add", "origin", server.url)
    setup = tmp_path / "cave.json"
    setup.write_text(json.dumps(SETUP))
    gm = seats[0]
    gm("new", G, "--ruleset", "magic_realm", "--setup", str(setup), "--dice", "joint",
       *[a for s in seats for a in ("--player", s.name)])
    gm("push", G)
    for seat in seats[1:]:
        seat("pull", G)
        seat("ack", G)
        seat("sync", G)
    for _turn in range(60):
        moved = False
        for seat in seats:
            seat("sync", G)
            status = seat("status", G, "--mine", "--json").json()
            assert isinstance(status, dict)
            if status["finished"] or status["round"] > 1:
                continue
            for move in [m for m in status["pending"] if m["command"] and "ack" not in m["command"].split()[:2]][:1]:
                words = _command(seat, move, status["round"])
                assert words is not None
                seat(*words)
                moved = True
            seat("sync", G)
        if not moved:
            break
    else:
        raise AssertionError("the fight did not end or reach round 2")
    for seat in seats:
        seat("sync", G)
    heads = {seat.verify(G)["head_hash"] for seat in seats}
    cid = next(r["id"] for r in gm("list", "--json").json() if r["name"] == G)  # type: ignore[union-attr,index]
    assert heads == {server.head(cid)[1]}
    assert all(seat.verify(G)["ok"] for seat in seats)
    log = gm("log", G, "--json").json()
    assert sum(e["type"] == "mr.melee_resolved" for e in log) >= 1  # type: ignore[index,union-attr]  # rounds resolved
