"""Conditions counted in Turns start counting with the bearer's *next* Turn, even when they strike
the bearer during the bearer's own Turn (issue #21). Seed 002, Blind Opponent: "they suffer a
situational modifier of Hard or Formidable for the next 1d3 Turns"; reference/classic_fantasy.md 1.8
(CFI Ch.7 Serious Wounds): "cannot attack or start a spell for 1d3 Turns"; seed 002, Stun Location:
"Incapacitated for a number of Turns equal to the damage inflicted".

Default fighter (cfi_support.fighter): all characteristics 13, Combat 60, Evade/Endurance 26, DM +1d2,
2 Action Points, HP chest 8, legs 6. A_FIRST: A 9+13 = 22 acts before D 1+13 = 14."""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.classic_fantasy import commands as c
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

A_FIRST = {"r1/init/A": 9, "r1/init/D": 1}


def turns_left(fight: Combat, name: str, condition: str) -> int:
    cond = fight.who(name).cond(condition)
    return cond.turns if cond is not None else 0


def blind_a(fight: Combat, turns: int) -> None:
    """A attacks on his first Turn (50 <= 60, a success); D parries with 05, a Critical (Combat 60:
    critical on 06 or less): Critical vs Success, D wins 1 Special Effect and takes Blind Opponent.
    A resists with Evade 26% against D's parry roll: 90 fails. Blinded (Hard) for 1d3 = ``turns``.
    The longsword parry (Medium against Medium) blocks the blow itself."""
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 50}, moving=True)
    fight.parry("D", {"r1/a1/parry": 5})
    fight.effects("D", ("blind_opponent",), {"r1/a1/blind": 90, "r1/a1/blind-turns": turns, "r1/a1/location": 11,
                                             "r1/a1/damage": 1, "r1/a1/dm": 1}, blind="hard")
    assert fight.state.turn == "D"  # A's first Turn is over


def attack_skill_text(fight: Combat) -> str:
    return next(s for s in fight.texts() if s.startswith("A attacks D"))


def test_blind_for_one_turn_penalises_the_next_turn() -> None:
    # 1d3 = 1: the one Turn is A's next Turn. Before the fix "A: blinded ends" came in the very
    # exchange that blinded him. Combat 60 at Hard (-1/3, reference/classic_fantasy.md Difficulty Grades) is 40%.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    blind_a(fight, 1)
    assert "A: blinded ends" not in fight.texts()
    assert turns_left(fight, "A", "blinded") == 1
    fight.act("D", "brace")  # D's last Action Point (1 spent on the parry)
    fight.attack("A", "D", {"r1/a3/attack": 45})  # 45 fails against 40 (it would succeed at 60)
    assert "Combat Skill 60% -> 40% (Hard; blinded: Hard), rolls 45: failure" in attack_skill_text(fight)
    assert "A: blinded ends" in fight.texts()
    assert not fight.who("A").has("blinded")


def test_blind_for_two_turns_penalises_two_later_turns() -> None:
    # 1d3 = 2: A's second Turn of Round 1 and his first of Round 2 are both at Hard (40%).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    blind_a(fight, 2)
    assert turns_left(fight, "A", "blinded") == 2
    fight.act("D", "brace")
    fight.attack("A", "D", {"r1/a3/attack": 45})
    assert "60% -> 40% (Hard; blinded: Hard)" in attack_skill_text(fight)
    assert turns_left(fight, "A", "blinded") == 1
    fight.round({})
    fight.attack("A", "D", {"r2/a1/attack": 45})
    assert "60% -> 40% (Hard; blinded: Hard)" in attack_skill_text(fight)
    fight.none("D")
    assert fight.state.exchange is None and not fight.who("A").has("blinded")


def injure_a(fight: Combat, turns: int) -> None:
    """A attacks and fumbles (99); D parries (30 succeeds): Fumble vs Success gives D 2 Special
    Effects; D takes Accidental Injury. A strikes his own right leg (1d20 = 2): longsword 1d8 (8) +
    DM 1d2 (2) = 10 against 6 HP -> -4, a Serious Wound (Major only at -6): no attack for 1d3 =
    ``turns`` Turns. Endurance 20 succeeds against the fumble: the leg still works."""
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 99}, moving=True)
    fight.parry("D", {"r1/a1/parry": 30})
    fight.effects("D", ("accidental_injury",), {"r1/a1/accident-location": 2, "r1/a1/accident-damage": 8,
                                                "r1/a1/accident-dm": 2, "r1/a1/accident-serious-turns": turns,
                                                "r1/a1/accident-endurance": 20})
    assert fight.who("A").loc("right leg").hp == -4 and fight.state.turn == "D"


def test_accidental_serious_wound_bars_the_next_turn() -> None:
    # 1d3 = 1: A may not attack on his next Turn (his second Action Point), and may in Round 2.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    injure_a(fight, 1)
    assert turns_left(fight, "A", "no_attack") == 1
    fight.act("D", "brace")
    with pytest.raises(IllegalCommand, match="Serious Wound"):
        fight.attack("A", "D", {"r1/a3/attack": 30})
    fight.act("A", "brace")
    assert turns_left(fight, "A", "no_attack") == 0
    fight.round({})
    fight.attack("A", "D", {"r2/a1/attack": 30})
    assert fight.state.exchange is not None and fight.state.exchange.attacker == "A"


def test_accidental_serious_wound_for_two_turns() -> None:
    # 1d3 = 2: both A's second Turn of Round 1 and his first of Round 2 are barred.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    injure_a(fight, 2)
    fight.act("D", "brace")
    fight.act("A", "brace")
    assert turns_left(fight, "A", "no_attack") == 1
    fight.round({})
    with pytest.raises(IllegalCommand, match="Serious Wound"):
        fight.attack("A", "D", {"r2/a1/attack": 30})


def test_stun_location_struck_by_a_counter_attack_in_the_chargers_turn() -> None:
    # Seed 002, Charging: the recipient "can simultaneously counterattack"; the mace is declared longer
    # and strikes first. A charges (30 against Hard 40 succeeds); D counters with the mace (20 <= 60):
    # each meets no parry, 1 Special Effect each. D takes Stun Location: chest (1d20 = 11), 1d8 (1) +
    # DM 1d2 (1) = 2, chest 8 -> 6; Endurance 26% rolls 90 against 20: fails. Stun Location: the chest
    # is stunned for 2 Turns (the damage), "winded, only able to defend". That happens in A's Turn,
    # so A's next two Turns are the stunned ones.
    fight = Combat(fighter("A", "a"), fighter("D", "b", weapons=["mace"]))
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 30}, charge=True)
    fight.run(c.Defend(defender="D", kind="counter", longer="recipient"), {"r1/a1/counter": 20})
    fight.effects("D", ("stun_location",), {"r1/a1/counter/location": 11, "r1/a1/counter/damage": 1,
                                            "r1/a1/counter/dm": 1, "r1/a1/counter/stun": 90})
    fight.effects("A", (), {"r1/a1/location": 11, "r1/a1/damage": 1, "r1/a1/dm": 1})
    assert turns_left(fight, "A", "stunned") == 2 and fight.state.turn == "D"
    fight.act("D", "dither")
    with pytest.raises(IllegalCommand, match="winded"):
        fight.attack("A", "D", {"r1/a3/attack": 30})
    fight.act("A", "dither")
    assert turns_left(fight, "A", "stunned") == 1
    fight.round({})
    with pytest.raises(IllegalCommand, match="winded"):
        fight.attack("A", "D", {"r2/a1/attack": 30})
