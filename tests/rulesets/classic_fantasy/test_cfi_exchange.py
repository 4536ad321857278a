"""Exchanges played through the real write path with manual dice. Every number is worked by
hand in the comments. Default fighter (cfi_support.fighter): all characteristics 13 (CHA 10):
Initiative modifier ceil(26/2)=13, DM +1d2 (STR+SIZ 26, notes 1.7), HP (CON+SIZ 26, notes 1.6)
head 6, chest 8, abdomen 7, arms 5, legs 6; Endurance/Evade/Athletics/Brawn 26; Healing Rate 3."""

from __future__ import annotations

import pytest

from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter
from combatlog.errors import IllegalCommand
from combatlog.rulesets.classic_fantasy import commands as c

INIT = {"r1/init/A": 9, "r1/init/D": 1}  # A 22, D 14: A acts first


def chest(combat: Combat, name: str) -> int:
    return combat.who(name).loc("chest").hp


@pytest.mark.parametrize("defender,weapon,block,chest_hp", [
    # seed, Damage Reduction: great axe (Huge) vs kite shield (Huge) all, glaive (Large) half,
    # shortsword (Medium) none. Blow: 2d6+2 with faces 1,1 = 4, DM 1d2 = 1 -> 5 to the chest (8 HP).
    (fighter("D", "b", shield="kite"), "kite", "all", 8),
    (fighter("D", "b", weapons=["glaive"]), "glaive", "half", 8 - 3),  # half of 5, rounded up (Decision) = 3
    (fighter("D", "b", weapons=["shortsword"]), "shortsword", "none", 8 - 5),
])
def test_great_axe_parried_by_size(defender: dict, weapon: str, block: str, chest_hp: int) -> None:
    fight = Combat(fighter("A", "a", weapons=["great axe"]), defender)
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)  # 30 <= 60: success
    # parry 40 <= 60: success; equal levels -> no Special Effects, the blow resolves at once
    fight.parry("D", {"r1/a1/parry": 40, "r1/a1/location": 11, "r1/a1/damage": (1, 1), "r1/a1/dm": 1},
                weapon=weapon)
    assert chest(fight, "D") == chest_hp
    reduction = [s for s in fight.steps if s.rule == "CFI Ch.8 Damage Reduction"]
    assert reduction and reduction[0].text.endswith(f"blocks {block}")


def test_maximize_damage_hand_axe() -> None:
    # seed, Maximize Damage: a hand axe's 1d6 "would instead be treated as a 6". STR 10 + SIZ 12 = 22:
    # DM +0 (notes 1.7), so no die is rolled at all. Attack 03 is a Critical (60% crits on 06-);
    # no defence is an automatic Failure: Critical vs Failure = 2 Special Effects (notes 1.3).
    fight = Combat(fighter("A", "a", weapons=["hand axe"], chars={"STR": 10, "SIZ": 12}), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 3}, moving=True)
    fight.none("D")
    assert fight.state.exchange.count == 2
    fight.effects("A", ("maximize_damage", "choose_location"), {}, location="chest")
    assert chest(fight, "D") == 8 - 6
    assert not any("r1/a1/damage" in s.dice for s in fight.steps)


@pytest.mark.parametrize("stack,faces,expected", [
    # seed, Maximize Damage: great club 2d6 -> 1d6+6; with face 3 that is 9; less 4 worn AP = 5 -> chest 3.
    (1, {"r1/a1/damage": 3}, 8 - 5),
    # stacked twice: 12 with no roll; the defender wears 6 AP: 12 - 6 = 6 -> chest 2 (set below).
    (2, {}, None),
])
def test_maximize_damage_great_club(stack: int, faces: dict, expected: int | None) -> None:
    worn = 4 if stack == 1 else 6
    fight = Combat(fighter("A", "a", weapons=["great club"], chars={"STR": 10, "SIZ": 12}),
                   fighter("D", "b", worn=worn))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 3}, moving=True)
    fight.none("D")
    chosen = ("maximize_damage",) * stack + (("choose_location",) if stack == 1 else ())
    params = {"location": "chest"} if stack == 1 else {}
    if stack == 2:
        faces = {"r1/a1/location": 11}  # chest; 12 - 6 AP = 6 -> chest 8 -> 2
        expected = 2
    fight.effects("A", chosen, faces, **params)
    assert chest(fight, "D") == expected


def test_surprised_initiative_and_bonus_effect() -> None:
    # seed, Surprise: "-10 penalty to Initiative", flat-footed until their Initiative arrives, the first
    # successful attack "gains a bonus Special Effect", no offensive Action this Round.
    # By hand: D rolls 5: 5 + 13 - 2 (worn armour, seed Armor) - 10 = 6; A rolls 5: 5 + 13 = 18.
    fight = Combat(fighter("A", "a"), fighter("D", "b", worn=2))
    fight.round({"r1/init/A": 5, "r1/init/D": 5}, surprised=("D",))
    assert fight.who("D").initiative == 6 and fight.who("A").initiative == 18
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    ex = fight.state.exchange
    # flat-footed: no reaction possible -> automatic Failure; Success vs Failure = 1, +1 for surprise
    assert ex.defence == "none" and ex.count == 2 and ex.winner == "attacker"
    fight.effects("A", (), {"r1/a1/location": 1, "r1/a1/damage": 1, "r1/a1/dm": 1})  # 2 - 2 AP: nothing
    assert fight.state.turn == "D"
    with pytest.raises(IllegalCommand, match="Surprise"):
        fight.attack("D", "A", {"r1/a2/attack": 10})


def test_bleed_ticks_a_fatigue_level_each_round_and_fatigue_grades_later_rolls() -> None:
    # seed, Bleed: failed Endurance -> "At the start of each Combat Round, the recipient loses one
    # level of Fatigue". notes 1.9: Winded and Tired are Hard. Round 1: A hits (30 vs D's no defence:
    # 1 Special Effect = Bleed); chest takes 2+1 = 3 (8 -> 5); Endurance 90 fails against 30.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", ("bleed",), {"r1/a1/location": 11, "r1/a1/damage": 2, "r1/a1/dm": 1, "r1/a1/bleed": 90})
    assert fight.who("D").has("bleeding") and chest(fight, "D") == 5
    fight.round({}, force=True)
    assert fight.who("D").fatigue == 1  # Winded
    fight.round({}, force=True)
    assert fight.who("D").fatigue == 2  # Tired
    fight.act("A", "dither")
    fight.attack("D", "A", {"r3/a2/attack": 50})
    ex = fight.state.exchange
    assert ex.grade == "hard" and ex.attack_skill == 40  # 60 reduced by one third (CFI Ch.5)
    assert ex.att_level == 1  # 50 > 40: Failure


@pytest.mark.parametrize("attack,endurance,resisted", [(30, 50, False), (10, 20, True)])
def test_serious_wound_to_an_arm(attack: int, endurance: int, resisted: bool) -> None:
    # notes 1.8 Serious Wound: location at <= 0 HP; cannot attack for 1d3 Turns; opposed Endurance
    # against the attack roll, failure makes an arm useless and drops what it holds.
    # Longsword 1d8 = 6, DM 1 -> 7 to the right arm (5 HP) -> -2: Serious (not <= -5).
    # Endurance 26%: 50 fails; 20 succeeds and beats an attack of 10 (higher success wins, CFI Ch.5),
    # but loses to an attack of 30, so the first case uses 50 (a plain failure).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": attack}, moving=True)
    fight.none("D")
    fight.effects("A", ("choose_location",), {"r1/a1/damage": 6, "r1/a1/dm": 1, "r1/a1/serious-turns": 2,
                                              "r1/a1/endurance": endurance}, location="right arm")
    d = fight.who("D")
    arm = d.loc("right arm")
    assert arm.hp == -2 and arm.wound == "serious"
    assert d.cond("no_attack").turns == 2
    assert d.has("useless", "right arm") is (not resisted)
    assert ("longsword" in d.held) is resisted


@pytest.mark.parametrize("endurance,dead", [(20, False), (80, True)])
def test_major_wound_to_the_head(endurance: int, dead: bool) -> None:
    # notes 1.8 Major Wound: negative HP >= starting HP; Incapacitated and prone; head: opposed Endurance
    # or instant death; survivors die in 2 x Healing Rate (3) = 6 Rounds untreated.
    # Great axe 2d6+2 with 6,6 = 14, DM 1 -> 15 to the head (6 HP) -> -9 <= -6: Major.
    # Knockback (seed): 15 > SIZ 13 -> 5 ft; Athletics 26% rolls 10: stays standing.
    # Endurance 20 beats the attack roll 10 (both succeed, higher roll wins); 80 fails.
    fight = Combat(fighter("A", "a", weapons=["great axe"]), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 10}, moving=True)
    fight.none("D")
    fight.effects("A", ("choose_location",), {"r1/a1/damage": (6, 6), "r1/a1/dm": 1, "r1/a1/knockback": 10,
                                              "r1/a1/endurance": endurance}, location="head")
    d = fight.who("D")
    assert d.loc("head").hp == -9 and d.loc("head").wound == "major"
    assert d.has("incapacitated") and d.has("prone")
    assert any("thrust back 5 ft" in s.text for s in fight.steps)
    assert d.dead is dead
    if not dead:
        assert d.has("unconscious") and d.cond("dying").rounds == 6


def test_evade_opposed_and_prone() -> None:
    # seed, Evading: an Opposed Test; the winner of equal levels is the higher successful roll (CFI Ch.5):
    # attack 30 vs evade 20 -> the attack lands; "the evasive gambit leaves the defender prone".
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.evade("D", {"r1/a1/evade": 20, "r1/a1/location": 11, "r1/a1/damage": 1, "r1/a1/dm": 1})
    d = fight.who("D")
    assert d.has("prone") and d.loc("chest").hp == 6 and d.ap == 1


def test_parry_a_missed_attack_for_special_effects() -> None:
    # seed, Parrying a Missed Attack: the defender may still parry to win Special Effects.
    # Attack 70 > 60 fails; parry 05 is a Critical: Critical vs Failure = 2 for the defender (notes 1.3).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 70}, moving=True)
    fight.parry("D", {"r1/a1/parry": 5})
    ex = fight.state.exchange
    assert ex.winner == "defender" and ex.count == 2
    from combatlog.rulesets.classic_fantasy.effects import offered

    # seed, Special Effects Table: defender-critical effects are offered, offensive ones are not
    opts = offered(fight.state, ex)
    assert {"enhance_parry", "blind_opponent", "trip_opponent", "withdraw"} <= set(opts)
    assert "bleed" not in opts and "maximize_damage" not in opts and "accidental_injury" not in opts
    fight.effects("D", ("trip_opponent", "withdraw"), {"r1/a1/trip": 90})  # Brawn 26% fails
    a = fight.who("A")
    assert a.has("prone") and "D" not in a.engaged


def test_ranged_force_against_a_shield_long_range_and_loading() -> None:
    # seed, Ranged Combat: Force is the Size equivalent; at Long Range damage is halved and Force drops
    # one step; ranged weapons can normally only be parried with shields; Load is Turns to reload.
    bow = {"name": "shortbow", "damage": "1d6", "size": "S", "types": ["impaling"], "force": "M",
           "range": [10, 50, 100], "load": 1}
    fight = Combat(fighter("A", "a", weapons=[bow]), fighter("D", "b", shield="heater"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, range="long")
    with pytest.raises(IllegalCommand, match="shields"):
        fight.parry("D", {"r1/a1/parry": 40}, weapon="longsword")
    # heater (Large) vs Force Medium one step down = Small: blocks all. Damage 5 halved -> 3, blocked.
    fight.parry("D", {"r1/a1/parry": 40, "r1/a1/location": 11, "r1/a1/damage": 5}, weapon="heater")
    assert chest(fight, "D") == 8
    assert any("Long Range: damage halved 5 -> 3" in s.text for s in fight.steps)
    assert fight.who("A").weapons["shortbow"].reload_left == 1
    fight.act("D", "dither")
    with pytest.raises(IllegalCommand, match="loading"):
        fight.attack("A", "D", {"r1/a3/attack": 30})
    fight.act("A", "ready", weapon="shortbow", mode="reload")
    assert fight.who("A").weapons["shortbow"].reload_left == 0


def test_firing_into_a_crowd_strikes_a_bystander() -> None:
    # seed, Firing into a Crowd: edge of a melee is Hard (60 -> 40); a roll of 50 fails only because of
    # the penalty (50 <= 60), so the adjacent bystander is struck instead and no Special Effect applies.
    bow = {"name": "shortbow", "damage": "1d6", "size": "S", "types": ["impaling"], "force": "M",
           "range": [10, 50, 100], "load": 1}
    fight = Combat(fighter("A", "a", weapons=[bow]), fighter("D", "b"), fighter("B", "c"))
    fight.round({**INIT, "r1/init/B": 2})
    fight.attack("A", "D", {"r1/a1/attack": 50}, crowd="edge", bystanders=("B",))
    ex = fight.state.exchange
    assert ex.target == "B" and ex.redirected and ex.original_target == "D"
    fight.none("B", {"r1/a1/location": 11, "r1/a1/damage": 4})
    assert chest(fight, "B") == 4 and chest(fight, "D") == 8


def test_illegal_commands_append_nothing() -> None:
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    before = fight.state
    with pytest.raises(IllegalCommand, match="Turn"):
        fight.attack("D", "A", {"r1/a1/attack": 30}, moving=True)  # seed, Running Combat: not D's Turn
    with pytest.raises(IllegalCommand, match="Engaged"):
        fight.attack("A", "D", {"r1/a1/attack": 30})  # seed, Engagement: not in contact
    with pytest.raises(IllegalCommand, match="Hopeless"):
        fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True, grade="hopeless")
    assert fight.state == before


def test_delay_and_interrupt() -> None:
    # seed, Delay and Interrupt: A holds his Action Points, then halts D's Turn to attack first;
    # D's Turn continues afterwards. Attack 30 vs no defence: 1 effect (A chooses none); the blow:
    # right leg (1d20=2), 1d8 (1) + 1d2 (1) = 2 -> leg 6 -> 4.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.act("A", "delay")  # action 1 of the round: the attack will be a2
    assert fight.state.turn == "D" and fight.who("A").ap == 2
    fight.act("A", "interrupt")
    assert fight.state.turn == "A" and fight.state.interrupted == "D"
    fight.attack("A", "D", {"r1/a2/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", (), {"r1/a2/location": 2, "r1/a2/damage": 1, "r1/a2/dm": 1})
    assert fight.state.turn == "D" and fight.who("A").ap == 1
    assert fight.who("D").loc("right leg").hp == 4


def test_luck_point_rerolls_an_attack() -> None:
    # seed, Use Luck Point: a Free Action to re-roll. 80 fails (60%); the re-roll 20 succeeds.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    luck = fight.who("A").luck
    fight.attack("A", "D", {"r1/a1/attack": 80}, moving=True)
    fight.run(c.UseLuck(who="A", roll="attack"), {"r1/a1/attack-luck": 20})
    assert fight.state.exchange.att_level == 2 and fight.who("A").luck == luck - 1
    with pytest.raises(IllegalCommand, match="already"):
        fight.run(c.UseLuck(who="A", roll="attack"), {"r1/a1/attack-luck#2": 5})
