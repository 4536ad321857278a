"""Luck Points (Cheat Fate, Desperate Effort, Mitigate Damage, Heroic Last Action), First Aid once per
injury with a staunched Bleed re-opening, and the optional Serious-Wound grade.

The seed's "Use Luck Point" is a Free Action "to re-roll a particular result for example"; the uses are
those of CFI Ch.7 Luck Points (Cheat Fate, Desperate Effort, Mitigate Damage) and CFI Ch.7 Heroic Last
Actions. Default fighter: characteristics 13, Combat 60, Endurance/Brawn/Athletics/First Aid 26, DM +1d2,
HP head 6, chest 8, arms 5, legs 6, Healing Rate 3 (cfi_support.fighter)."""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.rulesets.classic_fantasy.luck import swapped
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

INIT = {"r1/init/A": 9, "r1/init/D": 1}  # A 22 acts before D 14


def luck(fight: Combat, who: str, roll: str, dice: dict | None = None, **kw: object) -> None:
    fight.run(c.UseLuck(who=who, roll=roll, **kw), dice)  # type: ignore[arg-type]


def test_swapped_digits() -> None:
    # CFI Ch.7 Cheat Fate: "re-roll or swap (a 75 would become a 57 for example)". 05 -> 50; 10 -> 01; 00 stays.
    assert [swapped(75), swapped(5), swapped(10), swapped(100)] == [57, 50, 1, 100]


def test_cheat_fate_swaps_an_attack_roll() -> None:
    # Attack 82 fails against 60; swapping the digits gives 28, a success (crit range 6).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    before = fight.who("A").luck
    fight.attack("A", "D", {"r1/a1/attack": 82}, moving=True)
    luck(fight, "A", "attack", swap=True)
    ex = fight.state.exchange
    assert ex.attack_roll == 28 and ex.att_level == 2 and fight.who("A").luck == before - 1


def test_cheat_fate_defender_forces_a_damage_reroll_after_the_blow() -> None:
    # CFI Ch.7 Cheat Fate: "Characters can even force an opponent to re-roll an attack or damage roll made
    # against them." A hits (30), D does not defend: 1 effect, none chosen. Chest: 1d8 = 8 + 1d2 = 2 = 10,
    # less 4 worn AP = 6: chest 8 -> 2. D forces the re-roll: 1 + 1 = 2, less 4 AP: nothing gets through.
    fight = Combat(fighter("A", "a"), fighter("D", "b", worn=4))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", (), {"r1/a1/location": 11, "r1/a1/damage": 8, "r1/a1/dm": 2})
    assert fight.who("D").loc("chest").hp == 2
    luck_before = fight.who("D").luck
    luck(fight, "D", "damage", {"r1/a1/damage-luck": 1, "r1/a1/dm-luck": 1})
    d = fight.who("D")
    assert d.loc("chest").hp == 8 and d.luck == luck_before - 1
    assert fight.state.turn == "D"  # the re-derived blow ends A's Turn as before
    with pytest.raises(IllegalCommand, match="already spent"):  # one Luck Point per Action (CFI Ch.7)
        luck(fight, "D", "location", {"r1/a1/location-luck": 1})
    # the window closes with the next command
    fight.act("D", "dither")
    with pytest.raises(IllegalCommand, match="just resolved"):
        luck(fight, "A", "damage", {"r1/a1/damage-luck": 8, "r1/a1/dm-luck": 2})


def test_cheat_fate_on_an_attack_that_decided_no_effects_reopens_the_exchange() -> None:
    # Attack 30 and parry 40 both succeed: no Special Effects, the blow resolves at once (a longsword
    # parries a longsword fully, CFI Ch.8 Damage Reduction). D forces A to re-roll the attack: 80 fails
    # against 60; Failure vs Success gives D one Special Effect, so the exchange waits for D's choice.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.parry("D", {"r1/a1/parry": 40, "r1/a1/location": 11, "r1/a1/damage": 5, "r1/a1/dm": 1})
    assert fight.state.exchange is None
    luck(fight, "D", "attack", {"r1/a1/attack-luck": 80})
    ex = fight.state.exchange
    assert ex.stage == "effects" and ex.winner == "defender" and ex.count == 1 and ex.attack_roll == 80
    assert fight.state.turn == "A"


def test_mitigate_damage_turns_a_major_wound_serious() -> None:
    # CFI Ch.7 Mitigate Damage: "A character who suffers a Major Wound may spend a Luck Point to downgrade
    # the injury to a Serious Wound. This reduces the damage taken to one Hit Point less than what would be
    # required to inflict a Major Wound." Great axe 2d6+2 (6,6) + 1 = 15 to the head (6 HP): -9, Major;
    # knockback 5 ft, Athletics 10 keeps D up; Endurance 80 fails against 10: instant death.
    # Mitigated: 11 damage (6 -> -5, one short of -6): a Serious Wound; 1d3 = 1 Turn; the Endurance roll
    # already made (80, Decision) fails: unconscious for 11 minutes (132 Rounds), not dead.
    fight = Combat(fighter("A", "a", weapons=["great axe"]), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 10}, moving=True)
    fight.none("D")
    fight.effects("A", ("choose_location",), {"r1/a1/damage": (6, 6), "r1/a1/dm": 1, "r1/a1/knockback": 10,
                                              "r1/a1/endurance": 80}, location="head")
    assert fight.who("D").dead
    luck(fight, "D", "mitigate", {"r1/a1/serious-turns": 1})
    d = fight.who("D")
    assert not d.dead and d.loc("head").hp == -5 and d.loc("head").wound == "serious"
    assert d.cond("unconscious").rounds == 132


def test_desperate_effort_gives_an_action_point() -> None:
    # CFI Ch.7 Desperate Effort: out of Action Points, a Luck Point buys one more.
    fight = Combat(fighter("A", "a"), fighter("D", "b", action_points=1))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.parry("D", {"r1/a1/parry": 40, "r1/a1/location": 11, "r1/a1/damage": 5, "r1/a1/dm": 1})
    assert fight.who("D").ap == 0
    with pytest.raises(IllegalCommand, match="still has"):
        luck(fight, "A", "action-point")
    luck(fight, "D", "action-point")
    assert fight.who("D").ap == 1


def test_heroic_last_action() -> None:
    # CFI Ch.7 Heroic Last Actions: with a Major Wound a key character may "burn a Luck Point", gets "a
    # single opportunity to attempt their Action, and then immediately collapse[s] into unconsciousness".
    # A's great axe: 15 to D's right leg (6 HP) -> -9, Major: maimed, Incapacitated, prone; Endurance 20
    # beats 10: conscious. D's Turn is wasted (cannot act). D burns Luck and attacks A from the ground:
    # prone, Formidable: 60 -> 30; 20 succeeds. A does not defend: 1 effect (none); chest 1d8 = 5 + 1 = 6:
    # A's chest 8 -> 2. Then D collapses and A's Turn resumes.
    fight = Combat(fighter("A", "a", weapons=["great axe"]), fighter("D", "b"))
    fight.round(INIT)
    with pytest.raises(IllegalCommand, match="Major"):
        luck(fight, "D", "heroic")
    fight.attack("A", "D", {"r1/a1/attack": 10}, moving=True)
    fight.none("D")
    fight.effects("A", ("choose_location",), {"r1/a1/damage": (6, 6), "r1/a1/dm": 1, "r1/a1/knockback": 10,
                                              "r1/a1/endurance": 20}, location="right leg")
    d = fight.who("D")
    assert d.has("incapacitated") and d.has("maimed", "right leg") and not d.has("unconscious")
    assert fight.state.turn == "A"
    luck(fight, "D", "heroic")
    assert fight.state.turn == "D" and fight.state.interrupted == "A"
    fight.attack("D", "A", {"r1/a2/attack": 20})
    assert fight.state.exchange.attack_skill == 30
    fight.none("A")
    fight.effects("D", (), {"r1/a2/location": 11, "r1/a2/damage": 5, "r1/a2/dm": 1})
    assert fight.who("A").loc("chest").hp == 2
    assert fight.who("D").has("unconscious") and not fight.who("D").has("heroic")
    assert fight.state.turn == "A"


def _bleeding(options: dict | None = None) -> Combat:
    # A hits (30), D does not defend: Bleed; chest 1d8 = 2 + 1d2 = 1 -> 3: chest 8 -> 5; Endurance 90
    # fails against 30: D bleeds (seed, Bleed).
    fight = Combat(fighter("A", "a"), fighter("D", "b", skills={"first_aid": 50}), options=options)
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", ("bleed",), {"r1/a1/location": 11, "r1/a1/damage": 2, "r1/a1/dm": 1, "r1/a1/bleed": 90})
    assert fight.who("D").has("bleeding", "chest")
    return fight


def test_first_aid_once_per_injury_and_a_staunched_bleed_reopens() -> None:
    # CFI Ch.5 First Aid: "may be applied only once per specific injury and heals 1d3"; seed, Bleed:
    # "Bleeding wounds can be staunched by passing a First Aid skill roll, but the recipient can no longer
    # perform any strenuous or violent action without re-opening the wound."
    fight = _bleeding()
    fight.act("D", "first_aid", "D", {"r1/a2/first-aid": 20, "r1/a2/first-aid-heal": 2}, location="chest")
    d = fight.who("D")
    assert not d.has("bleeding") and d.has("staunched", "chest") and d.loc("chest").hp == 7
    fight.act("A", "dither")
    with pytest.raises(IllegalCommand, match="once per injury"):
        fight.act("D", "first_aid", "D", {"r1/a4/first-aid": 20}, location="chest")
    fight.attack("D", "A", {"r1/a4/attack": 70})  # attacking is violent: the wound re-opens
    d = fight.who("D")
    assert d.has("bleeding", "chest") and not d.has("staunched")


@pytest.mark.parametrize("option,retry", [("success", True), ("attempt", False)])
def test_first_aid_option_for_a_failed_attempt(option: str, retry: bool) -> None:
    # Decision/option first_aid_once: by default only a successful treatment uses up the injury's First
    # Aid; with "attempt" a failed roll (90 > 50) does too.
    fight = _bleeding({"first_aid_once": option})
    fight.act("D", "first_aid", "D", {"r1/a2/first-aid": 90}, location="chest")
    fight.act("A", "dither")
    if retry:
        fight.act("D", "first_aid", "D", {"r1/a4/first-aid": 20, "r1/a4/first-aid-heal": 1}, location="chest")
        assert not fight.who("D").has("bleeding")
    else:
        with pytest.raises(IllegalCommand, match="once per injury"):
            fight.act("D", "first_aid", "D", {"r1/a4/first-aid": 20}, location="chest")


@pytest.mark.parametrize("option,skill", [("off", 60), ("on", 40)])
def test_serious_wound_location_grade_option(option: str, skill: int) -> None:
    # CFI Ch.7 Serious Wound: "At the Games Master's discretion ... all tasks requiring use of that Hit
    # Location will suffer an ongoing penalty of one Difficulty Grade" (option serious_wound_grade, off by
    # default). 1d8 = 6 + 1 = 7 to D's right arm (5 HP) -> -2, Serious; 1d3 = 2 Turns; Endurance 20 beats
    # 10, so the arm still works. Later D parries with the longsword held in that arm: Hard, 60 -> 40.
    fight = Combat(fighter("A", "a"), fighter("D", "b"), options={"serious_wound_grade": option})
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 10}, moving=True)
    fight.none("D")
    fight.effects("A", ("choose_location",), {"r1/a1/damage": 6, "r1/a1/dm": 1, "r1/a1/serious-turns": 2,
                                              "r1/a1/endurance": 20}, location="right arm")
    fight.act("D", "dither")
    fight.attack("A", "D", {"r1/a3/attack": 90})
    fight.parry("D", {"r1/a3/parry": 95}, weapon="longsword")
    assert fight.state.last_exchange["defence"] == "parry"
    steps = [s.text for s in fight.steps if "parries with longsword" in s.text]
    assert steps and f"-> {skill}%" in steps[0]
