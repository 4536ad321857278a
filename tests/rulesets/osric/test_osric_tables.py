"""Table facts: the to-hit matrices, monster levels, ability and armour tables.

Sources: reference/osric.md 2.3 (to-hit formula and worked examples), 2.4
(strength, dexterity, armour, weapon damage, attacks per round), OSRIC Chapter 1
weapon tables (data/weapons.json).
"""

import pytest

from combatlog.errors import InvalidCommand
from combatlog.rulesets.osric import tables as t


@pytest.mark.parametrize("ac, need", [(10, 10), (5, 15), (0, 20), (-1, 20), (-5, 20), (-6, 21)])
def test_to_hit_first_level_fighter_worked_examples(ac: int, need: int) -> None:
    # reference/osric.md 2.3 worked examples: a 1st-level fighter (B = 20) hits AC 10 on 10,
    # AC 5 on 15, AC 0 to AC -5 on 20 (the "six 20s"), and AC -6 on 21.
    assert t.needed(t.class_b("fighter", 1), ac) == need


def test_to_hit_first_level_magic_user_worked_example() -> None:
    # reference/osric.md 2.3: a 1st-level magic user hits AC 10 on 11 (B = 21).
    assert t.needed(t.class_b("magic-user", 1), 10) == 11


def test_to_hit_formula_bands() -> None:
    # reference 2.3: r = B - AC; r <= 20 -> r; 21..25 -> 20; >= 26 -> r - 5.
    # Hand check with B = 21 (normal man): AC 1 -> 20, AC -4 -> 20 (r = 25), AC -5 -> 21 (r = 26).
    assert [t.needed(21, ac) for ac in (1, -4, -5)] == [20, 20, 21]
    # High level prints negatives: a 20th-level fighter (B = 1) needs -9 against AC 10.
    assert t.needed(t.fighter_b(20), 10) == -9


@pytest.mark.parametrize("cls, level, b", [
    ("fighter", 0, 21), ("fighter", 1, 20), ("fighter", 7, 14), ("fighter", 25, 1), ("paladin", 3, 18),
    ("ranger", 2, 19), ("cleric", 3, 20), ("cleric", 4, 18), ("cleric", 19, 9), ("druid", 13, 12),
    ("thief", 4, 21), ("thief", 5, 19), ("thief", 21, 10), ("assassin", 9, 16), ("magic-user", 5, 21),
    ("magic-user", 6, 19), ("illusionist", 21, 13),
])
def test_class_b_by_level(cls: str, level: int, b: int) -> None:
    # reference/osric.md 2.3, "B by level" table, row by row.
    assert t.class_b(cls, level) == b


@pytest.mark.parametrize("hd, level, b", [
    ("1/2", 0, 21), ("1-2", 0, 21), ("1-1", 1, 20), ("1", 2, 19), ("1+1", 3, 18), ("2", 3, 18),
    ("2+1", 4, 17), ("4+1", 6, 15), ("5", 6, 15), ("19", 20, 1), ("19+1", 21, 1), ("30", 21, 1),
])
def test_monster_levels(hd: str, level: int, b: int) -> None:
    # reference/osric.md 2.3: up to 1-1 -> 0; 1-1 -> 1; 1 -> 2; 1+1 to 2 -> 3; (N-1)+1 to N -> N+1;
    # 19+1 or more -> 21 (fighter 20+ row, B = 1). So 1 HD -> B 19 and N HD (N >= 2) -> B = 20 - N.
    assert t.monster_level(hd) == level
    assert t.fighter_b(level) == b


def test_strength_table() -> None:
    # reference/osric.md 2.4 strength (to hit / damage).
    rows = {"3": (-3, -1), "5": (-2, -1), "7": (-1, 0), "12": (0, 0), "16": (0, 1), "17": (1, 1), "18": (1, 2),
            "18/01": (1, 3), "18/50": (1, 3), "18/51": (2, 3), "18/75": (2, 3), "18/76": (2, 4), "18/90": (2, 4),
            "18/91": (2, 5), "18/99": (2, 5), "18/00": (3, 6), "19": (3, 6)}
    for text, adj in rows.items():
        assert t.strength_adjustments(*t.parse_strength(text)) == adj, text


def test_dexterity_table() -> None:
    # reference/osric.md 2.4 dexterity (surprise / missile / AC).
    assert t.dexterity_adjustments(3) == (-3, -3, 4)
    assert t.dexterity_adjustments(6) == (0, 0, 1)
    assert t.dexterity_adjustments(10) == (0, 0, 0)
    assert t.dexterity_adjustments(15) == (0, 0, -1)
    assert t.dexterity_adjustments(16) == (1, 1, -2)
    assert t.dexterity_adjustments(17) == (2, 2, -3)
    assert t.dexterity_adjustments(18) == (3, 3, -4)


def test_weapons_damage_by_size() -> None:
    # reference/osric.md 2.4 examples: long sword 1d8/1d12, short sword 1d6/1d8, battle axe 1d8/1d8,
    # two-handed sword 1d10/3d6, spear 1d6/1d8, dagger 1d4/1d3, heavy mace 1d6+1/1d6.
    expect = {"long sword": ("1d8", "1d12"), "short sword": ("1d6", "1d8"), "battle axe": ("1d8", "1d8"),
              "two-handed sword": ("1d10", "3d6"), "spear": ("1d6", "1d8"), "dagger": ("1d4", "1d3"),
              "heavy mace": ("1d6+1", "1d6")}
    for name, dice in expect.items():
        assert t.weapon(name).melee == dice
    # rates of fire: bows 2, daggers 2, darts 3, heavy crossbow 1/2.
    assert t.weapon("long bow").missile.rate == "2"
    assert t.weapon("dagger").thrown.rate == "2"
    assert t.weapon("dart").thrown.rate == "3"
    assert t.weapon("heavy crossbow").missile.rate == "1/2"
    assert [t.rate_per_round("1/2", n) for n in (1, 2, 3)] == [1, 0, 1]
    assert t.weapon("spear").set and t.weapon("trident").set and not t.weapon("long sword").set
    with pytest.raises(InvalidCommand):
        t.weapon("lightsaber")


def test_fighter_attacks_per_round_odd_round_half() -> None:
    # reference/osric.md 2.4: 1/1 at 1-6, 3/2 at 7-12, 2/1 at 13+; the half attack falls on odd rounds.
    assert [t.attacks_this_round(t.fighter_half_attacks(1, False), n, "odd") for n in (1, 2)] == [1, 1]
    assert [t.attacks_this_round(t.fighter_half_attacks(7, False), n, "odd") for n in (1, 2, 3)] == [2, 1, 2]
    assert [t.attacks_this_round(t.fighter_half_attacks(7, False), n, "even") for n in (1, 2)] == [1, 2]
    assert t.attacks_this_round(t.fighter_half_attacks(13, False), 2, "odd") == 2
    # specialisation adds half an attack: a 1st-level specialist has 3/2.
    assert [t.attacks_this_round(t.fighter_half_attacks(1, True), n, "odd") for n in (1, 2)] == [2, 1]
