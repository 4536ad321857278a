"""Pure rule arithmetic: success levels, grades, the Differential Roll table, sizes, tables.
Each case names its source (seed = 002_6d17a5a910762645.txt, Chapter 8; notes =
reference/classic_fantasy.md)."""

from __future__ import annotations

import pytest

from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.resolve import knockback_feet, roll_damage
from combatlog.rulesets.classic_fantasy.state import CFIState

C, S, F, X = t.CRITICAL, t.SUCCESS, t.FAILURE, t.FUMBLE


@pytest.mark.parametrize("roll,skill,level", [
    # notes 1.2: <= skill succeeds, > skill fails; critical <= ceil(skill/10); 99-00 fumble
    (1, 60, C), (6, 60, C), (7, 60, S), (60, 60, S), (61, 60, F), (98, 60, F), (99, 60, X), (100, 60, X),
    # notes 1.2: 01-05 always succeed, even for a tiny skill (crit range ceil(3/10)=1)
    (5, 3, S), (1, 3, C), (4, 0, S),
    # notes 1.2: 96-00 always fail; over 100% only 00 fumbles (crit range ceil(120/10)=12)
    (96, 120, F), (99, 120, F), (100, 120, X), (12, 120, C), (13, 120, S),
])
def test_success_levels(roll: int, skill: int, level: int) -> None:
    assert t.success_level(roll, skill) == level


def test_critical_range_follows_modified_skill() -> None:
    # CFI Ch.5 Criticals and Fumbles (notes 1.2): a skill doubled from 40 to 80 crits on 08 or less.
    doubled = t.apply_grade(40, "very_easy")
    assert doubled == 80 and t.critical_range(doubled) == 8
    assert t.success_level(8, doubled) == C and t.success_level(9, doubled) == S


@pytest.mark.parametrize("grade,value,simplified", [
    # notes 1.2 / CFI Ch.5 Difficulty Grade Table, skill 60 by hand: x2=120, x1.5=90, -1/3=40, x1/2=30, x1/5=12
    ("very_easy", 120, 100), ("easy", 90, 80), ("standard", 60, 60), ("hard", 40, 40),
    ("formidable", 30, 20), ("herculean", 12, 0),
])
def test_difficulty_grades(grade: str, value: int, simplified: int) -> None:
    assert t.apply_grade(60, grade) == value
    assert t.apply_grade(60, grade, "simplified") == simplified


def test_hardest_grade_wins() -> None:
    # CFI Ch.8 Situational Modifiers: "Where two or more situations are pertinent ... use the most severe."
    assert t.hardest(["hard", "formidable", "standard"]) == "formidable"
    assert t.hardest(["easy", "hard"]) == "hard"
    assert t.hardest([]) == "standard"
    assert t.shift_grade("hard", 1) == "formidable" and t.shift_grade("hopeless", 1) == "hopeless"


# Every cell of the Differential Roll Results table (notes 1.3; CFI Ch.5):
# rows protagonist Critical/Success/Failure/Fumble, columns antagonist the same.
DIFFERENTIAL = {
    (C, C): 0, (C, S): 1, (C, F): 2, (C, X): 3,
    (S, C): -1, (S, S): 0, (S, F): 1, (S, X): 2,
    (F, C): -2, (F, S): -1, (F, F): 0, (F, X): 0,
    (X, C): -3, (X, S): -2, (X, F): 0, (X, X): 0,
}


@pytest.mark.parametrize("cell", sorted(DIFFERENTIAL))
def test_differential_roll_table(cell: tuple[int, int]) -> None:
    assert t.differential(*cell) == DIFFERENTIAL[cell]


def test_opposed_rolls() -> None:
    # CFI Ch.5 Opposed Rolls: better level wins; equal levels -> higher roll within the skill wins.
    assert t.opposed_winner(S, 40, S, 30) == "a"
    assert t.opposed_winner(S, 40, C, 3) == "b"
    assert t.opposed_winner(F, 80, F, 70) == ""
    # CFI Ch.5 Opposed Skills Over 100%: the excess of the highest skill comes off everyone.
    assert t.over_hundred(120, 80) == 20 and t.over_hundred(90, 80) == 0


def test_parry_reduction_by_size_seed_example() -> None:
    # seed, Damage Reduction: "Parrying a great axe (Huge) with a kite shield (also Huge) would block
    # all damage; Parrying it with a Glaive (Large) would halve the damage, and ... a shortsword
    # (Medium) would stop no damage at all." Sizes read from the module's data files.
    data = t.load_data("equipment.json")
    axe = t.size_index(data["weapons"]["great axe"]["size"])
    assert t.parry_fraction(axe, t.size_index(data["shields"]["kite"]["size"])) == "all"
    assert t.parry_fraction(axe, t.size_index(data["weapons"]["glaive"]["size"])) == "half"
    assert t.parry_fraction(axe, t.size_index(data["weapons"]["shortsword"]["size"])) == "none"


class FixedRoller:
    def __init__(self, faces: dict[str, tuple[int, ...]]) -> None:
        self.faces, self.labels, self.asked = faces, [], []

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]:
        self.asked.append((label, notation))
        f = self.faces[label]
        return f, sum(f)


def test_maximize_damage_seed_examples() -> None:
    # seed, Maximize Damage: "a Hand Axe which normally does 1d6 damage would instead be treated as a 6,
    # whereas a great club with 2d6 damage would instead inflict 1d6+6 damage."
    state = CFIState()
    r = FixedRoller({"d": (3,)})
    total, _ = roll_damage(state, r, "1d6", 1, "d", "x")
    assert total == 6 and r.asked == []  # no die rolled at all
    total, _ = roll_damage(state, r, "2d6", 1, "d", "x")
    assert r.asked == [("d", "1d6")] and total == 3 + 6  # 1d6 (rolled 3) + 6
    # "This Special Effect may be stacked": twice on 2d6 is 12 with nothing rolled.
    r2 = FixedRoller({})
    assert roll_damage(state, r2, "2d6", 2, "d", "x")[0] == 12 and r2.asked == []


def test_knockback_distance() -> None:
    # seed, Knockback: "thrust 5 feet backward for each 8 points of damage (or fraction thereof) over
    # their SIZ". By hand: SIZ 13, damage 22 -> 9 over -> two 8-point steps -> 10 ft; 21 -> 8 over -> 5 ft.
    assert knockback_feet(22, 13) == 10
    assert knockback_feet(21, 13) == 5
    assert knockback_feet(13, 13) == 0


def test_damage_modifier_and_hit_points() -> None:
    # notes 1.7: STR+SIZ 21-25 -> +0, 26-30 -> +1d2, <=5 -> -1d8; "one step" is the next row.
    assert t.damage_modifier(25) == "+0" and t.damage_modifier(26) == "+1d2" and t.damage_modifier(5) == "-1d8"
    assert t.dm_step("+1d2", 1) == "+1d4" and t.dm_step("+0", 2) == "+1d4"
    assert t.dm_terms("+1d8+1d6") == (1, ("1d8", "1d6"))
    # notes 1.6: CON+SIZ 26-30 is the sixth band (index 5).
    assert t.location_hp_band(26) == 5 and t.location_hp_band(5) == 0 and t.location_hp_band(41) == 8


def test_impale_effects_table() -> None:
    # seed, Impale Effects Table rows read directly.
    assert t.impale_effect(8, 0) == "formidable"      # SIZ 1-10, Small
    assert t.impale_effect(15, 1) == "formidable"     # SIZ 11-20, Medium
    assert t.impale_effect(15, 3) == "incapacitated"  # SIZ 11-20, Huge
    assert t.impale_effect(25, 0) == ""               # SIZ 21-30, Small: No Effect
    assert t.impale_effect(45, 4) == "formidable"     # SIZ 41-50, Enormous


def test_fatigue_table() -> None:
    # notes 1.9: Wearied -2 Initiative and Formidable; Exhausted -4 and -1 AP.
    assert t.FATIGUE[3][:4] == ("Wearied", "formidable", 2, 0)
    assert t.FATIGUE[4][:4] == ("Exhausted", "formidable", 4, 1)
