"""Seed example under 'Natural dice maximum rule': a warrior with a two-handed axe against six Goblins.

Seed 004: "A (probably human?) warrior, strength =H, class 4 armour 4, holding a two-handed axe
(half-long heavy weapon) is fighting six red Goblins, strength -H ... class 3 armour 3 in melee."
Three Goblins (A, B, C) with swords in contact; three with thrusting spears (half-long for Gobs)
strike above the shoulders (D, E) or sideways (F).
"""

from __future__ import annotations

import pytest
from tests.rulesets.argad.argad_helpers import Fight

from combatlog.errors import IllegalCommand

GOB = {"species": "goblin", "side": "gobs", "class": 3, "worn": 3}


def fight() -> Fight:
    figures = [{"name": "warrior", "side": "humans", "species": "human", "class": 4, "worn": 4,
                "weapon": "two_handed_axe"}]
    for n in "abc":
        figures.append({"name": f"gob-{n}", **GOB, "weapon": "short"})
    for n in "def":
        figures.append({"name": f"gob-{n}", **GOB, "weapon": "spear"})
    f = Fight(figures)
    f.turn()
    return f


def test_goblin_protection_from_the_species_table() -> None:
    # Seed species table: Goblins "armour 4 from shooting, class 3 armour 3 in melee".
    f = fight()
    gob = f.state.figures["gob-a"]
    assert (gob.klass, gob.armour, gob.shooting_armour, gob.melee_die) == (3, 3, 4, 4)


@pytest.mark.parametrize("face, result", [(1, "none"), (2, "recoil"), (3, "kill"), (4, "kill"), (5, "kill"),
                                          (6, "kill")])
def test_axe_kills_on_4_or_more_and_recoils_on_3(face: int, result: str) -> None:
    # Seed: "rolls 1D6, +1 modifier for two-handed axe: on a total result of 4 or more (die roll of 3
    # or more +1) he kills that Gob, on a total result of 3 (die roll of 2 or more +1) the Gob recoils."
    # (A 2 gives 3 = class/armour 3: recoil; a 1 gives 2: nothing.)
    f = fight()
    f.strike("warrior", "gob-a", {"t1/melee/gob-a/warrior": face})
    s = f.last_strike()
    assert s.result == result
    assert s.best2 == 2 * (face + 1)
    assert [m.why for m in s.mods["warrior"]] == ["two-handed heavy weapon"]


def test_spears_single_four_is_a_recoil_when_the_reroll_misses() -> None:
    # Seed: "If they roll a single 4 the human will recoil with no wound" - the lone 4 is re-rolled
    # (natural maximum rule); a re-roll of 2 leaves 4 = class/armour 4: recoil.
    f = fight()
    f.strike(("gob-d", "gob-e", "gob-f"), "warrior",
             {"t1/melee/warrior/gob-d": 4, "t1/melee/warrior/gob-e": 2, "t1/melee/warrior/gob-f": 1,
              "t1/melee/warrior/reroll#1": 2}, ranks=(2, 2, 1), over="gob-a")
    s = f.last_strike()
    assert s.rerolls == ("t1/melee/warrior/reroll#1",)
    assert (s.best2, s.result) == (8, "recoil")


def test_spears_two_fours_equal_4_and_5_and_kill() -> None:
    # Seed: "If they roll two 4s with D4 it equals 4 and 5, which is superior to the enemy's class and
    # armor so it's a hit." No re-roll: the result is sufficient.
    f = fight()
    f.strike(("gob-d", "gob-e", "gob-f"), "warrior",
             {"t1/melee/warrior/gob-d": 4, "t1/melee/warrior/gob-e": 4, "t1/melee/warrior/gob-f": 1})
    s = f.last_strike()
    assert (s.best2, s.result, s.rerolls) == (10, "kill", ())


def test_short_weapon_fours_count_with_the_lancers_even_if_the_human_recoiled() -> None:
    # Seed: "Then the three Gobs with short weapons ... strike with as many D4 ... If they roll one or
    # more natural 4 it counts with those of the lancers to make 5 or 6 etc. ... another natural 4
    # equals 5 and kills the human (it exceeds his/her class and armour) even if the human was recoiling."
    f = fight()
    f.strike(("gob-d", "gob-e", "gob-f"), "warrior",
             {"t1/melee/warrior/gob-d": 4, "t1/melee/warrior/gob-e": 1, "t1/melee/warrior/gob-f": 1,
              "t1/melee/warrior/reroll#1": 3}, ranks=(2, 2, 1), over="gob-a")
    assert f.last_strike().result == "recoil"
    # "The Goblins spears and the human two-handed axe strike at the same time": recoiled at that same
    # step the warrior still strikes (1 +1 = 2 < 3: nothing), and the swords come "Then".
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 1})
    f.strike(("gob-a", "gob-b", "gob-c"), "warrior",
             {"t1/melee/warrior/gob-a": 4, "t1/melee/warrior/gob-b": 2, "t1/melee/warrior/gob-c": 1})
    s = f.last_strike()
    assert (s.maxima_before, s.best2, s.result) == (1, 10, "kill")
    assert f.effect("warrior").killed_at != -9


def test_a_goblin_killed_by_the_axe_cannot_strike_with_its_short_sword() -> None:
    # Seed: "Then the three Gobs with short weapons (or two of them if one has been killed or recoils)":
    # the axe (half-long) strikes before swords (short).
    f = fight()
    f.strike("warrior", "gob-a", {"t1/melee/gob-a/warrior": 5})
    f.strike(("gob-d", "gob-e", "gob-f"), "warrior",
             {"t1/melee/warrior/gob-d": 1, "t1/melee/warrior/gob-e": 1, "t1/melee/warrior/gob-f": 1})
    with pytest.raises(IllegalCommand, match="killed before it could strike"):
        f.strike(("gob-a", "gob-b"), "warrior", {"t1/melee/warrior/gob-a": 4, "t1/melee/warrior/gob-b": 4})
    # a Gob that recoiled cannot strike either
    f2 = fight()
    f2.strike("warrior", "gob-b", {"t1/melee/gob-b/warrior": 2})
    with pytest.raises(IllegalCommand, match="recoiled before it could strike"):
        f2.strike("gob-b", "warrior", {"t1/melee/warrior/gob-b": 4})


def test_simultaneous_strikes_both_stand_for_a_pool() -> None:
    # Seed: "The Goblins spears and the human two-handed axe strike at the same time", and pooled
    # strikes "ignore the priority for class, armour, etc." - the warrior killing Gob D does not stop
    # D's spear, struck at the same time.
    f = fight()
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 6})
    f.strike(("gob-d", "gob-e"), "warrior", {"t1/melee/warrior/gob-d": 4, "t1/melee/warrior/gob-e": 4})
    assert f.effect("gob-d").killed_at != -9
    assert f.effect("warrior").killed_at != -9
    assert f.last_strike().cancelled_by == 0


def test_strike_order_longer_weapons_first() -> None:
    # Seed: lancers and axe strike "at the same time", "Then" the short weapons; seed 'Wounds': a
    # creature wounded "before it could strike its opponent(s)" cannot strike. A sword at the warrior
    # waits for the warrior's axe, and is accepted once the axe has struck (1 +1 = 2 < 3: nothing).
    f = fight()
    with pytest.raises(IllegalCommand, match="strike order: warrior strikes first"):
        f.strike("gob-a", "warrior", {"t1/melee/warrior/gob-a": 1})
    f.strike("warrior", "gob-b", {"t1/melee/gob-b/warrior": 1})
    f.strike("gob-a", "warrior", {"t1/melee/warrior/gob-a": 1})
    assert [s.attackers for s in f.state.turn.strikes] == [("warrior",), ("gob-a",)]


def test_four_in_contact_spears_from_the_second_rank() -> None:
    # Seed, Bases of different sizes: "no more than four characters can be in close contact with a same
    # foe on foot"; spears strike above the shoulders from the second rank.
    f = fight()
    f.strike(("gob-d", "gob-e"), "warrior", {"t1/melee/warrior/gob-d": 1, "t1/melee/warrior/gob-e": 1},
             ranks=(2, 2), over="gob-a")
    f.strike("gob-f", "warrior", {"t1/melee/warrior/gob-f": 1})
    f.strike("warrior", "gob-f", {"t1/melee/gob-f/warrior": 1})  # the axe before the swords
    f.strike(("gob-a", "gob-b", "gob-c"), "warrior",
             {"t1/melee/warrior/gob-a": 1, "t1/melee/warrior/gob-b": 2, "t1/melee/warrior/gob-c": 3})
    f2 = fight()
    f2.strike(("gob-d", "gob-e", "gob-f"), "warrior",
              {"t1/melee/warrior/gob-d": 1, "t1/melee/warrior/gob-e": 1, "t1/melee/warrior/gob-f": 1})
    f2.strike("warrior", "gob-f", {"t1/melee/gob-f/warrior": 1})
    with pytest.raises(IllegalCommand, match="at most 4"):
        f2.strike(("gob-a", "gob-b"), "warrior", {"t1/melee/warrior/gob-a": 1, "t1/melee/warrior/gob-b": 1})
    with pytest.raises(IllegalCommand, match="staff weapon"):
        f2.strike("gob-a", "warrior", {"t1/melee/warrior/gob-a": 1}, ranks=(2,))
