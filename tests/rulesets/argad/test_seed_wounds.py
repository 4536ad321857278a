"""Seed 'Wounds': survival rolls at the end of the game turn for 1D2, 1D3 and 1D4 creatures."""

from __future__ import annotations

import pytest

from combatlog.rulesets.argad import RULESET
from combatlog.rulesets.argad import commands as c
from tests.rulesets.argad.argad_helpers import Fight


def fight(species: str, **options: str) -> Fight:
    f = Fight([
        {"name": "beast", "side": "monsters", "species": species},
        {"name": "hero", "side": "men", "species": "human", "class": 5, "worn": 5, "abilities": ["strong"],
         "weapon": "two_handed_axe"},
        {"name": "hero2", "side": "men", "species": "human", "class": 5, "worn": 5, "abilities": ["strong"],
         "weapon": "two_handed_axe"},
    ], options=options or None)
    return f


def wound(f: Fight, n: int, who: str = "hero") -> None:
    """hero: 1D6 6 +1 strong +1 axe = 8 > any armour up to 7: a kill result (a wound)."""
    f.strike(who, "beast", {f"t{n}/melee/beast/{who}": 6})


@pytest.mark.parametrize("roll, dies", [(1, True), (2, False)])
def test_1d2_first_wound(roll: int, dies: bool) -> None:
    # Seed: "Creatures which can receive 1D2 wounds roll 1D2 at the end of game turn when a first wound
    # happens. If the die rolls 1 after this first wound, the creature dies."
    f = fight("half_ogre")
    f.turn()
    wound(f, 1)
    assert f.state.figures["beast"].dead is False  # not before the end of the turn
    f.run(c.EndTurn(), {"t1/survival/beast": roll})
    beast = f.state.figures["beast"]
    assert (beast.dead, beast.wounds) == (dies, 1)


def test_1d2_second_wound_kills_anyway() -> None:
    # Seed: "If not, a second wound would kill the creature anyway." (no roll is needed)
    f = fight("half_ogre")
    f.turn()
    wound(f, 1)
    f.run(c.EndTurn(), {"t1/survival/beast": 2})
    f.turn()
    wound(f, 2)
    assert f.effect("beast").killed_at != -9
    out = f.run(c.EndTurn())
    assert not [e for e in out.events if e.env.type == "core.dice_rolled"]
    assert f.state.figures["beast"].dead


@pytest.mark.parametrize("rolls, dead_after", [((1,), 1), ((2, 2), 2), ((2, 3), None), ((3, 3), None)])
def test_1d3(rolls: tuple[int, ...], dead_after: int | None) -> None:
    # Seed: "With 1D3, the creature dies if the die rolls 1 for a first wound; or 1 or 2 after two wounds;
    # if not, the creature will die at the third wound."
    f = fight("ogre")
    for n, roll in enumerate(rolls, start=1):
        f.turn()
        wound(f, n)
        f.run(c.EndTurn(), {f"t{n}/survival/beast": roll})
        if f.state.figures["beast"].dead:
            break
    beast = f.state.figures["beast"]
    assert beast.dead == (dead_after is not None)
    if dead_after:
        assert beast.dead_turn == dead_after
    else:
        f.turn()
        wound(f, len(rolls) + 1)  # the third wound
        f.run(c.EndTurn())
        assert f.state.figures["beast"].dead


@pytest.mark.parametrize("wounds, roll, dies", [(1, 1, True), (1, 2, False), (2, 2, True), (2, 3, False),
                                                (3, 3, True), (3, 4, False)])
def test_1d4(wounds: int, roll: int, dies: bool) -> None:
    # Seed: "With 1D4, if the die rolls 1 for a first wound; or 1 or 2 after two wounds; or 1, 2, or 3,
    # after three; the creature cannot survive a fourth wound." Here the wounds come in one turn (the
    # survival die is rolled once "at the end of any game turn when one or more wounds are sustained").
    f = fight("troll_large")
    f.turn()
    wound(f, 1)
    if wounds >= 2:
        wound(f, 1, "hero2")
    if wounds == 3:  # the third wound comes in turn 2, after surviving two (roll 4 > 2)
        f.run(c.EndTurn(), {"t1/survival/beast": 4})
        f.turn()
        wound(f, 2)
        f.run(c.EndTurn(), {"t2/survival/beast": roll})
    else:
        f.run(c.EndTurn(), {"t1/survival/beast": roll})
    beast = f.state.figures["beast"]
    assert beast.wounds == wounds and beast.dead == dies


def test_1d4_fourth_wound() -> None:
    # Seed: "the creature cannot survive a fourth wound".
    f = fight("troll_large")
    for n in (1, 2):
        f.turn()
        wound(f, n)
        wound(f, n, "hero2")
        if n == 1:
            f.run(c.EndTurn(), {"t1/survival/beast": 4})
    assert f.effect("beast").killed_at != -9
    f.run(c.EndTurn())
    assert f.state.figures["beast"].dead and f.state.figures["beast"].wounds == 4


def test_wound_localisation_effects() -> None:
    # Seed 'Wound localisation (optional rule)': 1 head (half-stunned till end of next game turn, hit
    # with +1), 2-7 trunk/arm (lower die: 1D10 instead of 1D12), 8-12 leg (movement -4 cm, cumulative).
    f = fight("troll_large", wound_location="on")
    f.turn()
    wound(f, 1)
    wound(f, 1, "hero2")
    f.run(c.EndTurn(), {"t1/survival/beast": 4, "t1/location/beast/1": 5, "t1/location/beast/2": 9})
    beast = f.state.figures["beast"]
    assert (beast.strength_loss, beast.move_loss_cm, beast.dead) == (1, 4, False)
    f.turn()
    f.strike("hero", "beast", {"t2/melee/beast/hero": 1})  # the axe (half-long) strikes before the H2 (last)
    f.strike("beast", "hero", {"t2/melee/hero/beast": 10})
    assert f.last_strike().dice[0].sides == 10  # 1D10 instead of 1D12


@pytest.mark.parametrize("face, roll, dies", [(5, 1, True), (3, 1, True), (4, 2, False), (6, 2, False)])
def test_1d2_thrown_with_a_d6(face: int, roll: int, dies: bool) -> None:
    # Seed 'Wounds': "Any die may be used as 1D2, odd result =1, even result =2; or toss a coin." The 1D2
    # is recorded as a d6 read odd/even (a coin's 1 or 2 reads the same); explain shows the conversion.
    f = fight("half_ogre")
    f.turn()
    wound(f, 1)
    out = f.run(c.EndTurn(), {"t1/survival/beast": face})
    die = next(e.event for e in out.events if e.env.type == "core.dice_rolled")
    assert (die.label, die.notation, die.faces) == ("t1/survival/beast", "1d6", (face,))
    beast = f.state.figures["beast"]
    assert (beast.dead, beast.wounds) == (dies, 1)
    parity = "odd" if face % 2 else "even"
    step = next(s for s in f.steps if s.dice == ("t1/survival/beast",))
    assert step.text.startswith(f"beast: survival 1D2 = {roll} (d6 {face} -> {roll} ({parity})) with 1 wound(s)")
    assert step.rule.startswith("Argad: Wounds")
    summary = RULESET.describe(f.state)["last_turn_summary"]["survival"]
    assert summary == [{"figure": "beast", "label": "t1/survival/beast", "roll": roll, "wounds": 1, "died": dies,
                        "read": f"d6 {face} -> {roll} ({parity})"}]


def test_1d3_and_1d4_are_not_read_odd_or_even() -> None:
    # Only the 1D2 is thrown with another die; a 1D3 survival roll stays a 1d3 (face 3 is 3).
    f = fight("ogre")
    f.turn()
    wound(f, 1)
    out = f.run(c.EndTurn(), {"t1/survival/beast": 3})
    die = next(e.event for e in out.events if e.env.type == "core.dice_rolled")
    assert die.notation == "1d3" and not f.state.figures["beast"].dead
    assert "read" not in RULESET.describe(f.state)["last_turn_summary"]["survival"][0]
