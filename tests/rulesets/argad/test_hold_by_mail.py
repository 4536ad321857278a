"""A two-player Argad game by mail with pinned players never deadlocks over the end of a turn.

Ending a game turn gives up the blows still open (seed 004, Wounds; the Goblin example of 'Natural dice
maximum rule': blows at one step land at the same time, then the shorter ones), so while a figure may
still strike only its side's players (or the referee) may end the turn. The engine cannot tell a figure
out of contact from one about to strike, so each side holds the figures that will not strike
(``argad hold``); ``status --mine`` and the mail offer each player his own figures' blows and holds, and
say whom the end of the turn waits for. Two seats, each with its own log and keys, run the real CLI in
subprocesses and exchange bundle files only (tests/trust/pbem.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.trust.pbem import Seat, mail, pair

SETUP = {
    "title": "A warrior and an archer against an Ogre and a Goblin",
    "figures": [
        {"name": "warrior", "side": "band", "species": "human", "class": 4, "worn": 4, "weapon": "two_handed_axe"},
        {"name": "archer", "side": "band", "species": "human", "missile": "simple_bow"},
        {"name": "ogre", "side": "monsters", "species": "ogre", "class": 3, "worn": 3, "weapon": "two_handed_axe"},
        {"name": "gob", "side": "monsters", "species": "goblin", "class": 3},
    ],
    "players": {"band": ["alice"], "monsters": ["bob"]},
}


def mine(seat: Seat) -> dict[str, Any]:
    return seat("status", "t", "--mine", "--json").json()  # type: ignore[return-value]


def whats(seat: Seat) -> list[str]:
    """What ``status --mine`` says he owes: his figures' decisions and the procedure's steps, without the
    count of their legal moves, and without the rulings any player may make in a combat with no referee."""
    import re

    return [re.sub(r" \(\d+ legal moves\)$", "", m["what"]) for m in mine(seat)["pending"]
            if not m["what"].startswith(("rulings you may make", "a ruling you may make", "side "))]


def test_a_two_player_game_by_mail_holds_and_ends_its_turns(tmp_path: Path) -> None:
    (tmp_path / "setup.json").write_text(json.dumps(SETUP))
    alice, bob = pair(tmp_path, "t", ruleset="argad", dice="manual", setup=str(tmp_path / "setup.json"))
    alice("argad", "turn", "t")  # alice created the combat: she runs the procedure's steps
    mail(alice, bob, "t", tmp_path)
    # each is offered his own figures' blows, each with the hold beside it
    assert whats(bob) == ["ogre: may strike in melee (half-long step), or hold its blow",
                          "gob: may strike in melee (short step; longer weapons first: after warrior, if they fight), "
                          "or hold its blow"]
    assert whats(alice)[:2] == ["warrior: may strike in melee (half-long step), or hold its blow",
                                "archer: may strike in melee (short step; longer weapons first: after ogre, if they "
                                "fight), or hold its blow"]
    # the end of the turn, owed once every blow is struck or held: said, with no command (it is refused now)
    assert any(w.startswith("end game turn 1 once warrior, archer, ogre, gob have struck or held")
               for w in whats(alice))

    # Turn 1. The archer is out of contact and does not shoot: alice holds it. The axe strikes the Ogre:
    # 1D6 2 +1 = 3 against class 3 / armour 3 + 2 (hide, ++H) = 5: nothing.
    alice("argad", "hold", "t", "archer")
    alice("argad", "strike", "t", "warrior", "--at", "ogre", "--face", "t1/melee/ogre/warrior=2")
    refused = alice("argad", "end-turn", "t", ok=False)  # bob's Ogre and Goblin have not struck or held
    assert refused.code == 4 and "ogre belongs to bob; alice may not end game turn 1" in refused.err
    assert "combatlog argad hold t --side monsters --as bob" in refused.err
    body = alice("mail", "t", "--for", "bob").out
    yours = body.split("What you must decide now")[1].split("The combat also waits for")[0]
    assert "bob: ogre: may strike in melee (half-long step), or hold its blow" in " ".join(yours.split())
    mail(alice, bob, "t", tmp_path)
    assert mine(alice)["waiting_for"] == ["bob (ogre)", "bob (gob)"]

    # bob: the Ogre's axe at the warrior (the same step: no wait), 1D10 1 +1 = 2 < 4: nothing; the Goblin is
    # out of contact: held. Nobody may strike now, and the end of the turn is alice's step again.
    bob("argad", "strike", "t", "ogre", "--at", "warrior", "--face", "t1/melee/warrior/ogre=1")
    bob("argad", "hold", "t", "gob")
    assert not any("may strike" in w for w in whats(bob))  # (his recoil policy he may still set)
    mail(bob, alice, "t", tmp_path)
    assert "end game turn 1" in whats(alice)
    alice("argad", "end-turn", "t")

    # Turn 2. Nobody is in contact: bob holds his side; alice may then end the turn over her own figures'
    # blows (hers to give up), though they never struck.
    alice("argad", "turn", "t")
    assert alice("argad", "end-turn", "t", ok=False).code == 4
    mail(alice, bob, "t", tmp_path)
    bob("argad", "hold", "t", "--side", "monsters")
    assert not any("may strike" in w for w in whats(bob)) and mine(bob)["waiting_for"] == ["alice (warrior)", "alice (archer)", "alice"]
    mail(bob, alice, "t", tmp_path)
    assert "end game turn 2 once warrior, archer have struck or held (before that, only their players may end " \
           "it)" in whats(alice)  # (no referee here: the creator runs the steps, no more)
    alice("argad", "end-turn", "t")
    mail(alice, bob, "t", tmp_path)
    for seat in (alice, bob):
        assert seat.verify("t")["ok"]
    assert "held back gob, ogre" in bob("show", "t").out
