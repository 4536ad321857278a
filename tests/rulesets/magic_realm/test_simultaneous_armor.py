"""Simultaneous hits on the same armor piece (issue 38, item 1: disagreements with the reference engine).

Sources: MR 8.4.9 (seed 000): attacks with the same time and length "are simultaneous and inflict damage
at the same time (see Rule 8.4.9m)"; data/tables.md, "Applying harm to a character": point 3 "Armor
destroyed by a simultaneous attack still protects", point 4 harm equal to the armor's letter damages it
("if already damaged -> destroyed"), greater destroys it. Read order-independently: every hit of the group
is judged against the armor as it stood before the group, and the group's results on one piece accumulate
(a 'destroyed' result stands; two 'damaged' results destroy an intact piece). A piece never returns to a
better condition. Before the fix the last result of the group overwrote the others.
"""

from __future__ import annotations

import pytest

from combatlog.rulesets.magic_realm import commands as c
from tests.rulesets.magic_realm.mr_helpers import Game, char


def _no_maneuver_round(character: str, denizens: list[dict[str, str]]) -> Game:
    """``character`` lures the denizens, plays his shield in box 3 (smash) and no maneuver, so every attack
    hits (MR 8.4.8, "the target made no maneuver"). Unplaced counters fill boxes 1, 2 in id order; the
    repositioning die 4 keeps every box (MR tables, Repositioning: 4 -> 1, 2, 3) and tactics dice (1, 1) turn
    nobody over: the attacks come from box 1 (thrust) and box 2 (swing), where the shield is not."""
    g = Game({"first_round_of_day": False, "characters": [char("x", character)], "denizens": denizens})
    g.do(c.Lure(character="x", denizens=tuple(d["id"] for d in denizens)))
    g.encounter(["x"])
    g.do(c.Target(character="x"))
    g.do(c.Play(character="x", shield=3))
    g.do(c.Resolve(), {"r1/reposition/x": (4,), "r1/tactics/x/box1": (1, 1), "r1/tactics/x/box2": (1, 1)})
    return g


def _piece(g: Game, name: str):  # type: ignore[no-untyped-def]
    [piece] = [a for a in g.state.characters["x"].armor if a.name == name]
    return piece


@pytest.mark.parametrize("sides", [("light", "dark"), ("dark", "light")])
def test_a_destroyed_piece_stays_destroyed_whatever_the_order(sides: tuple[str, str]) -> None:
    # Case (a) of the issue: the Black Knight's suit of Armor (vulnerability H) is hit at time 5, length 0 by
    # two Ogres, one light side up (T, attack time 5) and one dark (H, attack time 5): simultaneous. T > H
    # destroys the Armor, H = H damages it; together: destroyed (the reference engine agrees), in either
    # order. Before the fix the H result, applied last, left the Armor "damaged": a destroyed piece came back.
    g = _no_maneuver_round("Black Knight", [{"id": "ogre-a", "monster": "Ogre", "side": sides[0]},
                                            {"id": "ogre-b", "monster": "Ogre", "side": sides[1]}])
    assert "simultaneous: ogre-a, ogre-b hit at the same time" in g.text()
    armor = _piece(g, "Armor")
    assert (armor.condition, armor.active) == ("destroyed", False)
    assert _piece(g, "Shield").condition == "intact"
    # each hit of M or more on armor is one wound (MR tables point 6); the character lives
    bk = g.state.characters["x"]
    assert bk.alive and bk.wounds == 2


def test_two_damaging_hits_destroy_an_intact_piece() -> None:
    # Case (b) of the issue: the Captain's intact Breastplate (vulnerability M, thrust and swing) takes two
    # simultaneous M hits at time 4, length 0: an H Troll light side up (M, time 4) and an H Dragon dark side
    # up (M, time 4). Each alone damages it (M = M); together the second lands on a damaged piece:
    # destroyed ("if already damaged -> destroyed"), as the reference engine has it (damaged, then destroyed).
    g = _no_maneuver_round("Captain", [{"id": "dragon", "monster": "H Dragon", "side": "dark"},
                                       {"id": "troll", "monster": "H Troll"}])
    assert "simultaneous: dragon, troll hit at the same time" in g.text()
    plate = _piece(g, "Breastplate")
    assert (plate.condition, plate.active) == ("destroyed", False)
    assert "(a simultaneous hit has damaged it; it still protects)" in g.text()
    assert _piece(g, "Helmet").condition == "intact" and _piece(g, "Shield").condition == "intact"
