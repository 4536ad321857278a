"""Regression: a character wounded to death in the Fatigue Step keeps no pending wounds.

Source: MR tables, Fatigue Step (data/tables.md section 11): "If wounds exceed all remaining chits
the character is dead ('wounded to death'; killer = last attacker that hit him)". The property test
(test_property.py) found two play-outs (seeds 169 and 261) where a character was wounded to death
while another character still had to pay his fatigue: until the step ended, the dead character kept
the round's wounds pending, which ``check`` reports as "dead with wounds pending" (the append was
refused). Each test below rebuilds one seed's situation directly.
"""

from __future__ import annotations

from combatlog.rulesets.magic_realm import commands as c
from tests.rulesets.magic_realm.mr_helpers import Game, char


def _round_of_hits(wounded: dict[str, str], monsters: list[str], boxes: tuple[int, ...]) -> Game:
    """A level-1 White Knight (chits M1 MOVE H5*, M2 MOVE H6, F1 FIGHT H5*) lures the monsters,
    plays no maneuver and only his shield, so every monster hits (MR 8.4.8: "the target made no
    maneuver"); each hit on armor with harm M or more, or below his vulnerability H unarmored, is one
    wound (MR tables: Applying harm to a character). The Amazon, alone on her sheet, maneuvers with
    M2 MOVE M3* and plays F3 FIGHT M4* with no target (to alert her weapon, MR 8.4.5): two asterisks
    less the free one, so she owes one in the Fatigue Step (MR tables: Fatigue Step) and is still to
    pay when the White Knight pays first."""
    dens = [{"id": m.lower().replace(" ", "-"), "monster": m} for m in monsters]
    g = Game({"first_round_of_day": False,
              "characters": [char("wk", "White Knight", level=1, chits=wounded), char("am", "Amazon")],
              "denizens": dens})
    g.do(c.Lure(character="wk", denizens=tuple(d["id"] for d in dens)))
    g.encounter(["wk", "am"], attention=(1,))
    for cid in list(g.state.attention):
        g.do(c.Target(character=cid))
    g.do(c.Play(character="wk", shield=1))
    g.do(c.Play(character="am", shield=1, maneuver=2, move="M2", fight="F3"))
    # Reposition die 1 on the White Knight's sheet (the Amazon's holds no attacker) and tactics dice
    # (1, 1) for each of its occupied red boxes, ``boxes`` (no 6: nobody turns over); with no maneuver
    # played, every attack on the White Knight hits wherever the monster stands (MR 8.4.8).
    faces = {"r1/reposition/wk": (1,), **{f"r1/tactics/wk/box{b}": (1, 1) for b in boxes}}
    g.do(c.Resolve(), faces)
    assert g.state.step == "fatigue" and g.state.owed["am"] == 1
    return g


def test_seed_169_two_wounds_one_unwounded_chit_left() -> None:
    # Property seed 169, round 2: the White Knight (M1, M2 already wounded) is hit by the H Troll
    # and the Ogre: 2 wounds, 1 unwounded chit (F1), while the Captain still owed fatigue. He wounds
    # F1; 2 > 1, so he is wounded to death, and the round's wounds are spent: none stays pending.
    g = _round_of_hits({"M1": "wounded", "M2": "wounded"}, ["H Troll", "Ogre"], boxes=(1, 3))
    assert g.state.characters["wk"].wounds == 2
    g.do(c.Fatigue(character="wk", wounds=("F1",)))  # refused "dead with wounds pending" before the fix
    wk = g.state.characters["wk"]
    assert g.state.step == "fatigue"  # the Amazon has not paid yet
    assert not wk.alive and wk.wounds == 0 and "wounded to death" in wk.death
    assert all(ch.status == "wounded" for ch in wk.chits)
    assert g.folded.ruleset.check(g.state) == []


def test_seed_261_one_wound_every_chit_already_wounded() -> None:
    # Property seed 261, round 4: the Black Knight had every chit wounded (still alive: a character
    # dies only when wounds exceed his unwounded chits), took one more wound from the H Troll, and
    # the Amazon still had to pay. Rebuilt with the White Knight, all three chits wounded: 1 wound >
    # 0 unwounded chits, so he wounds no chit (none is left) and is wounded to death.
    g = _round_of_hits({"M1": "wounded", "M2": "wounded", "F1": "wounded"}, ["H Troll"], boxes=(1,))
    assert g.state.characters["wk"].wounds == 1
    g.do(c.Fatigue(character="wk"))  # refused "dead with wounds pending" before the fix
    wk = g.state.characters["wk"]
    assert g.state.step == "fatigue"
    assert not wk.alive and wk.wounds == 0 and "wounded to death" in wk.death
    assert g.folded.ruleset.check(g.state) == []
    g.do(c.Fatigue(character="am", fatigue=("M2",)))  # the step then ends normally
    assert g.state.step != "fatigue" or g.state.ended
