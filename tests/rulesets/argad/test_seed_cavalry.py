"""Seed examples with mounts: the knight's couched lance against a Troll (Melee peculiarities), the
mounted Dwarf against the mounted Orcq and the mounted Orcq archer (Mounted creatures)."""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.argad import commands as c
from tests.rulesets.argad.argad_helpers import Fight


def knight_fight(troll: str = "troll_medium") -> Fight:
    f = Fight([
        {"name": "knight", "side": "men", "species": "human", "class": 5, "worn": 5, "mounted": True,
         "weapon": "lance"},
        {"name": "bowman", "side": "men", "species": "human", "missile": "simple_bow"},
        {"name": "archer", "side": "men", "species": "human", "missile": "longbow", "abilities": ["elite_shooter"]},
        {"name": "footman", "side": "men", "species": "human", "class": 4, "worn": 4},
        {"name": "troll", "side": "monsters", "species": troll},
    ])
    f.turn()
    return f


@pytest.mark.parametrize("face, result", [(4, "wound"), (3, "recoil"), (2, "none")])
def test_knight_couched_lance_strikes_first_at_1d6_plus_3(face: int, result: str) -> None:
    # Seed: "The human knight strikes with 1D6, +1 modifier for cavalry vs foot, +1 modifier for cavalry
    # charge, +1 modifier for charging with heavy couched lance (usual cavalry rules) which strikes first,
    # total is 1D6+3." Troll (medium) "equal to armour 6" (class 3): 4+3 = 7 > 6 wounds (1D3 life
    # points), 3+3 = 6 recoil, 2+3 = 5 nothing.
    f = knight_fight()
    f.run(c.Move(figure="knight", charge=True))
    f.strike("knight", "troll", {"t1/melee/troll/knight": face})
    s = f.last_strike()
    assert s.tier == 0 and sum(m.value for m in s.mods["knight"]) == 3
    assert s.result == result
    if result == "wound":
        # Seed: "If wounded by the knight, the Troll may survive (?) but will not be able to strike in the
        # same game turn."
        with pytest.raises(IllegalCommand, match="wounded before it could strike"):
            f.strike("troll", "knight", {"t1/melee/knight/troll": 10})
    elif result == "recoil":
        # Seed: "If the Troll is not just wounded or recoiling, he strikes": a recoil stops its blow; the
        # knight is mounted, so the Troll cannot refuse this recoil.
        assert s.recoil_refused == ""
        with pytest.raises(IllegalCommand, match="recoiled before it could strike"):
            f.strike("troll", "knight", {"t1/melee/knight/troll": 10})
    else:
        # "he strikes with 1D10 or 1D12 (depending on his strength)": a medium Troll 1D10.
        f.strike("troll", "knight", {"t1/melee/knight/troll": 6})
        assert f.last_strike().dice[0].sides == 10 and f.last_strike().result == "kill"


def test_large_troll_strikes_1d12_last() -> None:
    # Seed: the large Troll (H2, armour 7, 1D4 life points) strikes with 1D12 and always strikes last.
    f = knight_fight("troll_large")
    f.run(c.Move(figure="knight", charge=True))
    f.strike("knight", "troll", {"t1/melee/troll/knight": 4})  # 4+3 = 7 = armour 7: recoil
    assert f.last_strike().result == "recoil"
    with pytest.raises(IllegalCommand, match="recoiled"):
        f.strike("troll", "knight", {"t1/melee/knight/troll": 12})


def test_nobody_else_strikes_with_charging_cavalry() -> None:
    # Seed: "No other character can strike a same enemy in the same game turn as charging cavalry
    # (except other charging cavalry)".
    f = knight_fight()
    f.run(c.Move(figure="knight", charge=True))
    f.strike("knight", "troll", {"t1/melee/troll/knight": 1})
    with pytest.raises(IllegalCommand, match="charging cavalry"):
        f.strike("footman", "troll", {"t1/melee/troll/footman": 6})


def test_lone_bowman_needs_a_triple_six() -> None:
    # Seed: "a lone bowman with a simple bow has -3 modifier at armour 6 and should roll a natural 8 (at
    # short range) to hit, that means a triple 6 with only 1D6" - 6, re-roll 6 (7), re-roll 6 (8).
    f = knight_fight()
    f.run(c.Shoot(shooters=("bowman",), targets=("troll",)),
          {"t1/shoot/troll/bowman": 6, "t1/shoot/troll/reroll#1": 6, "t1/shoot/troll/reroll#2": 6})
    shot = f.state.turn.shots[-1]
    assert shot.need == 8 and shot.hits == ("troll",)
    g = knight_fight()
    g.run(c.Shoot(shooters=("bowman",), targets=("troll",)),
          {"t1/shoot/troll/bowman": 6, "t1/shoot/troll/reroll#1": 6, "t1/shoot/troll/reroll#2": 5})
    assert g.state.turn.shots[-1].hits == ()


@pytest.mark.parametrize("troll, faces, hit", [
    ("troll_medium", {"t1/shoot/troll/archer": 6}, True),
    ("troll_medium", {"t1/shoot/troll/archer": 5}, False),
    ("troll_large", {"t1/shoot/troll/archer": 6, "t1/shoot/troll/reroll#1": 6}, True),
    ("troll_large", {"t1/shoot/troll/archer": 6, "t1/shoot/troll/reroll#1": 2}, False)])
def test_elite_longbow(troll: str, faces: dict[str, int], hit: bool) -> None:
    # Seed: "an 'elite shooter' can have a +1 modifier so if using a longbow a roll of 6 would be effective
    # (and a double 6 would be needed at armour 7)".
    f = knight_fight(troll)
    f.run(c.Shoot(shooters=("archer",), targets=("troll",)), faces)
    shot = f.state.turn.shots[-1]
    assert [m.why for m in shot.mods["archer"]] == ["elite shooter"]
    assert (shot.hits == ("troll",)) == hit


def mounted_fight() -> Fight:
    f = Fight([
        {"name": "dwarf", "side": "dwarves", "species": "dwarf", "class": 4, "worn": 4, "mounted": True,
         "weapon": "spear"},
        {"name": "orcq", "side": "orcqs", "species": "orcq", "class": 4, "worn": 4, "mounted": True,
         "weapon": "two_handed_axe"},
        {"name": "orcq-archer", "side": "orcqs", "species": "orcq", "class": 3, "mounted": True,
         "missile": "simple_bow"},
    ])
    f.turn()
    f.run(c.Move(figure="dwarf", charge=True))
    f.run(c.Move(figure="orcq", charge=True))
    return f


@pytest.mark.parametrize("face, result", [(4, "kill"), (3, "recoil"), (2, "none")])
def test_mounted_dwarf_strikes_first(face: int, result: str) -> None:
    # Seed: "The Dwarf strikes first with his spear, and kills the enemy (mount included) on a result of
    # 4+1=5 or more, or forces him to recoil on a result of 3+1=4." The spear is half-long for Dwarves;
    # the Orcq's two-handed axe "has no length and weight advantages when used mounted".
    f = mounted_fight()
    f.strike("dwarf", "orcq", {"t1/melee/orcq/dwarf": face})
    s = f.last_strike()
    assert [m.why for m in s.mods["dwarf"]] == ["charge of a mount with the charge ability"]
    assert s.result == result
    if result == "none":
        # "If the Orcq is not killed or in recoil, he strikes, and eliminates the Dwarf (mount included) on
        # a result of 4+1=5 or more; or forces him to recoil on a result of 3+1=4."
        f.strike("orcq", "dwarf", {"t1/melee/dwarf/orcq": 4})
        o = f.last_strike()
        assert [m.why for m in o.mods["orcq"]] == ["charge of a mount with the charge ability"]
        assert o.result == "kill"
    else:
        with pytest.raises(IllegalCommand):
            f.strike("orcq", "dwarf", {"t1/melee/dwarf/orcq": 4})


def test_orcq_archer_needs_a_triple_four() -> None:
    # Seed: "A mounted Orcq archer wants to shoot the Dwarf before this contact ...but needs a result of 6
    # to hit a target in chainmail at short range. With 1D4 that means a triple 4: roll 4, and reroll 4
    # twice!"
    f = mounted_fight()
    f.run(c.Shoot(shooters=("orcq-archer",), targets=("dwarf",)),
          {"t1/shoot/dwarf/orcq-archer": 4, "t1/shoot/dwarf/reroll#1": 4, "t1/shoot/dwarf/reroll#2": 4})
    shot = f.state.turn.shots[-1]
    assert shot.dice[0].sides == 4 and shot.need == 6 and shot.hits == ("dwarf",)
    assert f.effect("dwarf").killed_at == -1
    g = mounted_fight()
    g.run(c.Shoot(shooters=("orcq-archer",), targets=("dwarf",)),
          {"t1/shoot/dwarf/orcq-archer": 4, "t1/shoot/dwarf/reroll#1": 4, "t1/shoot/dwarf/reroll#2": 1})
    assert g.state.turn.shots[-1].hits == ()
