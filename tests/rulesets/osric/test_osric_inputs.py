"""Set-up fields and command numbers: a refusal names the field as written and the combatant, and every
number is bounded before anything is logged (a log holds whole numbers within +-2**53 only).

Sources: docs/osric.md "Every set-up key" (hp -10 up to max_hp, max_hp 1-9999, Hit Dice N, N+k, N-k,
1/2); reference/osric.md 2.4 "Damage and death" (dead at -10, so hit points run from -10 to 9999).
"""

import pytest

from combatlog.errors import InvalidCommand
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.setup import validate_setup
from tests.rulesets.osric.osric_helpers import FIGHTER, Fight, orc
from tests.rulesets.osric.test_osric_timing import _round


def _with(**fields: object) -> dict[str, object]:
    return {"combatants": [{**{k: v for k, v in FIGHTER.items() if k != "hp"}, **fields}, orc(1)]}


@pytest.mark.parametrize("fields, message", [
    # hp alone is full hit points: 1-9999; a wounded hp below 1 needs max_hp (reference 2.4: -10 is dead).
    ({"hp": -11}, r"Brom: hp must be a whole number from 1 to 9999; a wounded .* \(got -11\)"),
    ({"hp": 0}, r"Brom: hp must be .* \(got 0\)"),
    # a JSON boolean is not a number (Python counts True as 1)
    ({"hp": True}, r"Brom: hp must be .* \(got true, not a number\)"),
    ({"hp": "7"}, r"Brom: hp must be .* \(got \"7\", not a number\)"),
    # with max_hp, hp runs from -10 to max_hp
    ({"hp": -11, "max_hp": 5}, r"Brom: hp must be a whole number from -10 to 5 \(its max_hp 5\) \(got -11\)"),
    ({"hp": 6, "max_hp": 5}, r"Brom: hp must be a whole number from -10 to 5"),
    ({"hp": 5, "max_hp": True}, r"Brom: max_hp must be a whole number from 1 to 9999 \(got true, not a number\)"),
    ({}, r"Brom: give hp"),
    ({"hp": 5, "level": True}, r"Brom: level must be .* \(got true, not a number\)"),
    ({"hp": 5, "pc": "no"}, r"Brom: pc must be true or false \(got \"no\"\)"),
])
def test_a_character_field_refused_is_named_as_written(fields: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidCommand, match=message):
        validate_setup(_with(**fields))


def test_hit_points_accepted_at_the_bounds() -> None:
    # -10 with max_hp is a dead combatant, still a legal set-up (reference 2.4); 9999 alone is the most.
    out = validate_setup(_with(hp=-10, max_hp=10))["combatants"][0]
    assert (out["hp"], out["max_hp"]) == (-10, 10)
    out = validate_setup(_with(hp=9999))["combatants"][0]
    assert (out["hp"], out["max_hp"]) == (9999, 9999)


@pytest.mark.parametrize("hd, message", [
    ("abc", r"orc1: hd \"abc\": write Hit Dice as N, N\+k, N-k, 1/2 or 1d4hp"),
    (True, r"orc1: hd is Hit Dice such as \"4\+1\" \(got true\)"),
    ("100", r"orc1: hd \"100\": Hit Dice up to 99"),
    ("4+100", r"orc1: hd \"4\+100\": Hit Dice up to 99, and a plus or minus up to 99"),
])
def test_hit_dice_refused_name_the_monster(hd: object, message: str) -> None:
    with pytest.raises(InvalidCommand, match=message):
        validate_setup({"combatants": [FIGHTER, orc(1, hd=hd)]})


def _fight() -> Fight:
    f = Fight([FIGHTER, orc(1)], engaged=[["Brom", "orc1"]])
    _round(f, 4, 3)
    return f


@pytest.mark.parametrize("amount", ["99999999999999999999", "100000", "0", "9" * 5000])
def test_a_typed_damage_or_healing_amount_is_bounded(amount: str) -> None:
    # Hit points run from -10 to 9999, so 1-99999 covers every amount; a larger one (beyond 2**53 it
    # could not even be verified) is refused naming the bound, and nothing is logged.
    f = _fight()
    before = len(f.state.log)
    for cmd in (c.Damage(who="orc1", amount=amount), c.Heal(who="Brom", amount=amount)):
        with pytest.raises(InvalidCommand, match="a whole number from 1 to 99999") as refused:
            f.dice(cmd, {})
        assert len(refused.value.message) < 200
    assert len(f.state.log) == before


def test_a_typed_amount_at_the_bound_is_accepted() -> None:
    # orc1 (5 hp) takes 99999: slain (a monster dies at 0 hp, option monster_death=zero).
    f = _fight()
    f.dice(c.Damage(who="orc1", amount="+099999"), {})
    assert f.hp("orc1") == 5 - 99999 and f.state.live["orc1"].dead


@pytest.mark.parametrize("cmd, message", [
    (c.Attack(who="Brom", mod=101), r"--mod 101: the referee's adjustment runs from -100 to 100"),
    (c.Attack(who="Brom", mod=-2**60), r"--mod -\d+: the referee's adjustment runs from -100 to 100"),
    (c.Shoot(who="Brom", target="orc1", range=10_000), r"--range 10000: a distance in feet from 0 to 9999"),
    (c.Shoot(who="Brom", target="orc1", range=-1), r"--range -1: a distance in feet from 0 to 9999"),
    (c.Morale(who=("orc1",), modifier=101), r"--modifier 101: a percent from -100 to 100"),
])
def test_command_numbers_out_of_bounds_are_refused_up_front(cmd: object, message: str) -> None:
    # Refused before any die is asked for (no faces are given) and before anything is logged.
    f = _fight()
    before = len(f.state.log)
    with pytest.raises(InvalidCommand, match=message):
        f.dice(cmd, {})
    assert len(f.state.log) == before
