"""Seed example under 'Ranged weapons': a small group of Dwarves defend a low wall against two Ogres.

Seed 004: "One is almost naked, this ++H creature 'in light clothing' (class 3) is equal to armour 5.
The chainmail of the other one (actual armour 4, class 4) equals an armour 6."
"""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.argad import commands as c
from tests.rulesets.argad.argad_helpers import Fight

DWARF = {"species": "dwarf", "side": "dwarves", "class": 4, "worn": 4}


def fight(**options: str) -> Fight:
    figures = [
        {"name": "ogre-naked", "side": "ogres", "species": "ogre", "class": 3, "worn": 3, "weapon": "two_handed_axe"},
        {"name": "ogre-mail", "side": "ogres", "species": "ogre", "class": 4, "worn": 4, "weapon": "two_handed_axe"},
    ]
    for n in (1, 2, 3):
        figures.append({"name": f"xbow-{n}", **DWARF, "missile": "war_crossbow"})
    for n in (1, 2):
        figures.append({"name": f"halberd-{n}", **DWARF, "weapon": "halberd"})
    f = Fight(figures, options=options or None)
    f.turn()
    return f


def test_ogre_armour_from_hide() -> None:
    # Seed: ++H "thick hide ... gives +2 to their real armour": light clothing (3) -> 5, mail (4) -> 6.
    f = fight()
    naked, mail = f.state.figures["ogre-naked"], f.state.figures["ogre-mail"]
    assert (naked.klass, naked.armour, naked.wounds_die, naked.melee_die) == (3, 5, 3, 10)
    assert (mail.klass, mail.armour) == (4, 6)


@pytest.mark.parametrize("target, face, hit", [("ogre-naked", 4, False), ("ogre-naked", 5, True),
                                               ("ogre-naked", 6, True), ("ogre-mail", 5, False),
                                               ("ogre-mail", 6, True)])
def test_crossbows(target: str, face: int, hit: bool) -> None:
    # Seed: "No modifier at armour 5, a roll 5 or 6 is needed to kill the naked Ogre. -1 modifier at
    # armour 6, a 6 is needed to kill the other one." A hit on a 1D3 creature is a wound.
    f = fight()
    label = f"t1/shoot/{target}/xbow-1"
    f.run(c.Shoot(shooters=("xbow-1",), targets=(target,)), {label: face})
    shot = f.state.turn.shots[-1]
    assert shot.need == (5 if target == "ogre-naked" else 6)
    assert shot.hits == ((target,) if hit else ())
    assert shot.rerolls == ()  # a 6 is already sufficient, no re-roll
    assert (f.effect(target) is not None and len(f.effect(target).wounds) == 1) == hit


def test_crossbows_at_a_couple_distribute_hits_at_random() -> None:
    # Seed: "If the Ogres are close to each other the Dwarves shoot at their couple, successful hits
    # will be distributed at random". Decision: the couple is shot with the most protected Ogre's need (6).
    # The couple is kept in name order whatever order it is named in (the order is part of the labels).
    f = fight()
    key = "ogre-mail+ogre-naked"
    f.run(c.Shoot(shooters=("xbow-1", "xbow-2", "xbow-3"), targets=("ogre-naked", "ogre-mail")),
          {f"t1/shoot/{key}/xbow-1": 6, f"t1/shoot/{key}/xbow-2": 5, f"t1/shoot/{key}/xbow-3": 2,
           f"t1/shoot/{key}/hit#1": 2})
    shot = f.state.turn.shots[-1]
    # one natural 6 hits; the 5 misses at need 6; the hit falls on the 2nd of the couple
    assert (shot.need, shot.targets, shot.hits) == (6, ("ogre-mail", "ogre-naked"), ("ogre-naked",))


def test_crossbow_shoots_immobile_and_shooters_cannot_strike() -> None:
    # Seed: "War crossbows shoot immobile" and "having shot they cannot strike in melee".
    f = fight()
    f.run(c.Move(figure="xbow-2", note="steps forward"))
    with pytest.raises(IllegalCommand, match="shoots immobile"):
        f.run(c.Shoot(shooters=("xbow-2",), targets=("ogre-naked",)), {"t1/shoot/ogre-naked/xbow-2": 6})
    f.run(c.Shoot(shooters=("xbow-1",), targets=("ogre-naked",)), {"t1/shoot/ogre-naked/xbow-1": 1})
    with pytest.raises(IllegalCommand, match="cannot strike in melee"):
        f.strike("xbow-1", "ogre-naked", {"t1/melee/ogre-naked/xbow-1": 3})


@pytest.mark.parametrize("target, face, result", [
    ("ogre-mail", 5, "wound"), ("ogre-mail", 4, "recoil"), ("ogre-mail", 3, "none"),
    ("ogre-naked", 4, "wound"), ("ogre-naked", 3, "recoil"), ("ogre-naked", 2, "none")])
def test_halberds_at_the_wall(target: str, face: int, result: str) -> None:
    # Seed: "Dwarves roll D6, +1 modifier at an enemy who crosses an obstacle, +1 modifier for halberd
    # vs large creatures (++H or stronger). The Ogre in chainmail, equivalent armour 6, is hit on a total
    # result of 7. The Ogre in light clothing, equivalent armour 5, is hit on a total result of 6."
    # D6+2: mail 5+2=7 > 6 wound, 4+2=6 = 6 recoil; naked 4+2=6 > 5 wound, 3+2=5 recoil.
    f = fight()
    f.run(c.Move(figure=target, crossing=True))
    f.strike("halberd-1", target, {f"t1/melee/{target}/halberd-1": face})
    s = f.last_strike()
    assert sorted(m.why for m in s.mods["halberd-1"]) == [
        "halberd or bill against a ++H/H2 creature or a mounted foe", f"{target} crosses an obstacle"]
    assert s.result == result
    if result == "recoil":
        # Seed, Recoil in melee: "++H because of =H or weaker" may refuse the recoil (default: refuses).
        assert "refuses a recoil" in s.recoil_refused


def test_ogre_strikes_1d10_plus_1_at_the_same_time_as_the_halberds() -> None:
    # Seed: "Each Ogre strikes with 1D10, +1 modifier for two-handed axe!". The Dwarves' staff weapons are
    # half-long, "as the two-handed axes wielded by the Ogres": they strike at the same time, so a wound
    # from halberd-1 does not stop the Ogre's blow at halberd-2 (not wounded "before it could strike").
    # Hand check: Dwarf class 4 / armour 4; Ogre 1D10 4 +1 = 5 > 4: kill; 3 + 1 = 4: recoil.
    f = fight()
    f.run(c.Move(figure="ogre-mail", crossing=True))
    f.strike("halberd-1", "ogre-mail", {"t1/melee/ogre-mail/halberd-1": 6})
    f.strike("ogre-mail", "halberd-2", {"t1/melee/halberd-2/ogre-mail": 4})
    s = f.last_strike()
    assert s.dice[0].sides == 10 and s.best2 == 2 * (4 + 1)
    assert s.result == "kill"
    f2 = fight()
    f2.strike("ogre-naked", "halberd-2", {"t1/melee/halberd-2/ogre-naked": 3})
    assert f2.last_strike().result == "recoil"


def test_priority_when_both_roll_a_kill_one_vs_one() -> None:
    # Seed: "If two opponents fighting one vs one both roll a kill (or recoil) result, the priority for
    # class, armour, etc. applies." Dwarf class 4 against the naked Ogre's class 3: the Dwarf's blow
    # stands and the Ogre's is cancelled. Against the Ogre in mail (class 4 = 4), armour decides: 6 > 4.
    f = fight()
    f.strike("halberd-1", "ogre-naked", {"t1/melee/ogre-naked/halberd-1": 6})
    f.strike("ogre-naked", "halberd-1", {"t1/melee/halberd-1/ogre-naked": 9})
    strikes = f.state.turn.strikes
    assert strikes[0].cancelled_by == 0 and strikes[1].cancelled_by == strikes[0].seq
    assert "class" in strikes[1].priority_note
    assert f.effect("halberd-1").killed_at == -9
    assert len(f.effect("ogre-naked").wounds) == 1
    g = fight()
    g.strike("halberd-1", "ogre-mail", {"t1/melee/ogre-mail/halberd-1": 6})
    g.strike("ogre-mail", "halberd-1", {"t1/melee/halberd-1/ogre-mail": 9})
    strikes = g.state.turn.strikes
    assert strikes[0].cancelled_by == strikes[1].seq and "armour" in strikes[0].priority_note
    assert g.effect("halberd-1").killed_at != -9 and not g.effect("ogre-mail").wounds
