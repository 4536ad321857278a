"""Set-up: a starting Fatigue level (reference/classic_fantasy.md 1.9, the CFI Fatigue table:
level, skill grade, movement, Initiative, AP). Default fighter (cfi_support.fighter): all
characteristics 13 (CHA 10): Initiative modifier ceil(26/2) = 13, Rank 1 so 2 Action Points."""

from __future__ import annotations

import pytest

from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter
from combatlog.errors import InvalidCommand
from combatlog.rulesets.classic_fantasy import setup as setup_mod


def test_a_starting_fatigue_level_applies_from_the_first_round() -> None:
    # Exhausted (table 1.9): skills Formidable, Initiative -4, AP -1.
    fight = Combat(fighter("A", "a", fatigue="exhausted"), fighter("D", "b"))
    assert fight.who("A").fatigue == 4 and fight.who("D").fatigue == 0
    fight.round({"r1/init/A": 9, "r1/init/D": 1})
    # By hand: A 9 + 13 - 4 = 18; D 1 + 13 = 14; A has 2 - 1 = 1 Action Point, D 2.
    assert (fight.who("A").initiative, fight.who("A").ap) == (18, 1)
    assert (fight.who("D").initiative, fight.who("D").ap) == (14, 2)
    assert "A is Exhausted: 1 Action Points this Round" in fight.texts()
    # Combat 60% at Formidable (CFI Ch.5 Difficulty Grades, multiply: halved) = 30%: 31 fails, 30 would succeed.
    fight.attack("A", "D", {"r1/a1/attack": 31}, moving=True)
    ex = fight.state.exchange
    assert (ex.attack_skill, ex.grade) == (30, "formidable")
    assert "fatigue Exhausted: Formidable" in fight.texts()[0]


def test_the_level_is_written_out_by_name_and_only_when_given() -> None:
    given = setup_mod.validate({"combatants": [fighter("A", "a", fatigue="semi_conscious"), fighter("D", "b")]})
    assert given["combatants"][0]["fatigue"] == "Semi-Conscious"
    assert "fatigue" not in given["combatants"][1]  # a set-up without it keeps the genesis it always had
    a = setup_mod.build(given["combatants"][0])
    assert a.fatigue == 7 and a.out  # Semi-Conscious: no activity (table 1.9)


@pytest.mark.parametrize("value", ["Dead", "sleepy", 3, True])
def test_a_level_that_is_not_a_starting_level_is_refused(value: object) -> None:
    with pytest.raises(InvalidCommand, match="is not a Fatigue level"):
        setup_mod.validate({"combatants": [fighter("A", "a", fatigue=value), fighter("D", "b")]})
