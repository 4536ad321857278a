"""A monster's head or club can start dark side up (set-up key ``part_side``; issue 38, item 1).

Source: MR 8.4.6 (seed 000): each monster and native has two sets of tactics on the two sides of its
counter, and the rolls to change tactics turn counters over throughout combat; a Giant's club and a
Dragon's head are separate counters that roll and turn on their own (data/monsters.json, ``parts``). So a
fight entered in the middle of a day may begin with the club already turned. The Giant Club's sides
(monsters.json): light H, time 6, length 8; dark T, time 4, length 8.

The case: an Elf (vulnerability L, no armor) lures a Giant whose club starts dark side up and plays no
maneuver, so the Giant and its club hit her (MR 8.4.8). Round 1 of the day, longest first (MR 8.4.9): the
club (length 8) strikes before the Giant (length 0) with its dark side, T at time 4: T >= L, she is killed.
Before, ``part_side`` was read without a check: "red", or a side for a monster without a head or club,
went into the log unremarked.
"""

from __future__ import annotations

from typing import Any

import pytest

from combatlog.errors import InvalidCommand
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.setup import validate
from tests.rulesets.magic_realm.mr_helpers import Game, char


def test_the_giants_club_starts_dark_side_up_and_strikes_with_that_side() -> None:
    g = Game({"characters": [char("x", "Elf")],
              "denizens": [{"id": "giant", "monster": "Giant", "part_side": "dark"}]})
    assert g.state.denizens["giant-club"].side == "dark" and g.state.denizens["giant"].side == "light"
    g.do(c.Lure(character="x", denizens=("giant",)))
    g.encounter(["x"])
    g.do(c.Target(character="x"))
    g.do(c.Play(character="x"))
    # repositioning die 4 keeps the Giant in box 1 and the club in box 2; the club's tactics dice (1, 1)
    # have no 6, so it stays dark side up (the Giant, Tremendous, rolls none)
    g.do(c.Resolve(), {"r1/reposition/x": (4,), "r1/tactics/x/box2": (1, 1)})
    assert "giant-club (Giant Club) swing at time 4 on Elf" in g.text()
    assert "T >= Elf's vulnerability L with no armor: killed" in g.text()
    assert not g.state.characters["x"].alive


@pytest.mark.parametrize(("denizen", "refusal"), [
    ({"id": "giant", "monster": "Giant", "part_side": "red"}, "part_side is light or dark"),
    ({"id": "ogre", "monster": "Ogre", "part_side": "dark"}, "Ogre has no separate head or club"),
    ({"id": "lancer", "native": "Lancer 1", "part_side": "light"}, "has no separate head or club"),
])
def test_a_part_side_that_cannot_be_is_refused(denizen: dict[str, Any], refusal: str) -> None:
    with pytest.raises(InvalidCommand, match=refusal):
        validate({"characters": [char("x", "Elf")], "denizens": [denizen]})


def test_a_hired_dragons_head_can_start_dark_side_up() -> None:
    setup = validate({"characters": [char("x", "Elf", hirelings=[{"id": "d", "monster": "T Dragon",
                                                                  "part_side": "dark"}])]})
    assert Game(setup).state.denizens["d-head"].side == "dark"
