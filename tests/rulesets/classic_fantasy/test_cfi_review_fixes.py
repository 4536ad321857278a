"""Rule fixes from a review, each with the case that would have caught it. Played through the real
write path with manual dice; every number is worked by hand in the comments.

Default fighter (cfi_support.fighter): all characteristics 13 (CHA 10): Combat 60 (critical on 06 or
less), Endurance/Evade/Brawn/Athletics/Unarmed 26, DM +1d2, 2 Action Points, HP head 6, chest 8,
abdomen 7, arms 5, legs 6 (reference/classic_fantasy.md 1.6, 1.7), no armour."""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy.effects import offered
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

D_FIRST = {"r1/init/D": 9, "r1/init/A": 1}  # D 22, A 14: D acts first
A_FIRST = {"r1/init/A": 9, "r1/init/D": 1}
BOW = {"name": "shortbow", "damage": "1d6", "size": "S", "types": ["impaling"], "force": "M",
       "range": [15, 60, 120], "load": 1, "dm": True}


def no_attack_left(fight: Combat, name: str) -> int:
    cond = fight.who(name).cond("no_attack")
    return cond.turns if cond is not None else 0


def serious_leg(fight: Combat, turns: int) -> None:
    """D moves in and attacks A: 10 succeeds, A does not defend (automatic Failure): one Special
    Effect, none taken. Right leg (1d20 = 2): 1d8 (8) + 1d2 (2) = 10 against 6 HP -> -4, a Serious
    Wound (Major only at -6): no attack for 1d3 = ``turns`` Turns. Endurance 26% rolls 20 against
    the attack roll 10: both succeed and the higher roll wins, so A resists (the leg still works)."""
    fight.round(D_FIRST)
    fight.attack("D", "A", {"r1/a1/attack": 10}, moving=True)
    fight.none("A")
    fight.effects("D", (), {"r1/a1/location": 2, "r1/a1/damage": 8, "r1/a1/dm": 2,
                            "r1/a1/serious-turns": turns, "r1/a1/endurance": 20})
    assert fight.who("A").loc("right leg").hp == -4 and no_attack_left(fight, "A") == turns
    assert fight.state.turn == "A"


# -- 1. a Turn spent on Delay counts (CFI Ch.8 Turns, Delay, Interrupt; CFI Ch.7 Serious Wounds) --------

def test_delay_counts_down_a_serious_wound_so_an_interrupt_may_attack() -> None:
    # Seed, Delay: "The character conserves one or more Actions in order to perform Reactive Actions
    # later"; the Turn is spent delaying. CFI Ch.7: a Serious Wound means no attack "for 1d3 Turns".
    # A's lockout is 1 Turn; he delays on his Turn (which counts), then interrupts D's Turn to attack.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    serious_leg(fight, 1)
    fight.act("A", "delay")
    assert no_attack_left(fight, "A") == 0 and fight.state.turn == "D"
    fight.act("A", "interrupt")
    fight.attack("A", "D", {"r1/a3/attack": 30})  # refused before the fix: "has a Serious Wound"
    assert fight.state.exchange is not None and fight.state.exchange.attacker == "A"


def test_delay_counts_down_a_serious_wound_before_the_next_round() -> None:
    # The same 1-Turn lockout; A delays and never interrupts. His first Turn of Round 2 is his second
    # Turn since the wound, so he may attack (before the fix the lockout was still 1 Turn).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    serious_leg(fight, 1)
    fight.act("A", "delay")
    fight.act("D", "dither")  # D's last AP; A holds his: the Round is over
    assert fight.state.turn == ""
    fight.round({})
    fight.act("D", "dither")
    fight.attack("A", "D", {"r2/a2/attack": 30})
    assert fight.state.exchange is not None


def test_an_interrupt_takes_the_delayed_turn_and_is_not_counted_twice() -> None:
    # Seed, Interrupt: "halts an opponent's Turn ... to take a delayed Turn Action". Lockout 2 Turns:
    # the Delay counts one (2 -> 1); the Interrupt is that same delayed Turn, so 1 Turn is left and an
    # attack is still refused; A's next own Turn (Round 2) is the second.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    serious_leg(fight, 2)
    fight.act("A", "delay")
    assert no_attack_left(fight, "A") == 1
    fight.act("A", "interrupt")
    with pytest.raises(IllegalCommand, match="Serious Wound"):
        fight.attack("A", "D", {"r1/a3/attack": 30})
    fight.act("A", "brace")
    assert no_attack_left(fight, "A") == 1 and fight.state.turn == "D"


# -- 2. Disarm Opponent needs no parry (CFI Ch.8 Disarm Opponent) ------------------------------------

def test_disarm_offered_when_the_defender_did_not_parry_but_holds_a_weapon() -> None:
    # Seed, Disarm Opponent: "knocks, yanks, or twists the opponent's weapon out of his hand"; no parry
    # is required. A attacks (30 succeeds); D holds his longsword but does not defend: one effect.
    # D resists with Combat Skill 60% against 30: rolls 90, fails (longsword against longsword, no
    # grade). Flung 1d2 (2) x 3 = 6 ft. The blow still lands: right leg 1d8 (1) + 1d2 (1) = 2: 6 -> 4.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    assert "disarm_opponent" in offered(fight.state, fight.state.exchange)
    with pytest.raises(InvalidCommand, match="disarm="):
        fight.effects("A", ("disarm_opponent",), {}, disarm="dagger")  # D holds no dagger
    fight.effects("A", ("disarm_opponent",), {"r1/a1/disarm": 90, "r1/a1/disarm-distance": 2,
                                              "r1/a1/location": 2, "r1/a1/damage": 1, "r1/a1/dm": 1})
    d = fight.who("D")
    assert d.weapons["longsword"].dropped and "longsword" not in d.held
    assert any("flung 6 ft" in text for text in fight.texts())
    assert d.loc("right leg").hp == 4


def test_disarm_not_offered_against_empty_hands() -> None:
    # Seed, Disarm Opponent: there must be a weapon to knock away; bare hands are not one.
    fight = Combat(fighter("A", "a"), fighter("D", "b", held=[]))
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    assert "disarm_opponent" not in offered(fight.state, fight.state.exchange)


# -- 3. Sharpshooter: the location is named before the roll (CFI Ch.8 Sharpshooter, Special Effects) ----

def test_sharpshooter_named_before_the_roll_moves_an_adjoining_location() -> None:
    # Seed, Special Effects: effects "must be selected before Damage and Hit Location ... are rolled";
    # Sharpshooter: "an attacker who rolled a leg shot [may] move it up to the abdomen". A shoots (30),
    # D does not defend: one effect, Sharpshooter aimed at the abdomen. 1d20 = 2: right leg, which
    # adjoins the abdomen: 1d6 (3) + 1d2 (1) = 4 to the abdomen (7 -> 3).
    fight = Combat(fighter("A", "a", weapons=[BOW]), fighter("D", "b"))
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 30})
    fight.none("D")
    with pytest.raises(InvalidCommand, match="before the hit location is rolled"):
        fight.effects("A", ("sharpshooter",), {})
    fight.effects("A", ("sharpshooter",), {"r1/a1/location": 2, "r1/a1/damage": 3, "r1/a1/dm": 1},
                  sharpshooter="abdomen")
    assert fight.who("D").loc("abdomen").hp == 3 and fight.who("D").loc("right leg").hp == 6
    assert any("named before the roll" in text for text in fight.texts())


def test_sharpshooter_wasted_when_the_roll_does_not_adjoin() -> None:
    # The same shot aimed at the head; 1d20 = 2 (right leg) does not adjoin the head (locations.json):
    # the effect is wasted and the leg takes 1d6 (3) + 1d2 (1) = 4 (6 -> 2).
    fight = Combat(fighter("A", "a", weapons=[BOW]), fighter("D", "b"))
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 30})
    fight.none("D")
    fight.effects("A", ("sharpshooter",), {"r1/a1/location": 2, "r1/a1/damage": 3, "r1/a1/dm": 1},
                  sharpshooter="head")
    assert fight.who("D").loc("right leg").hp == 2
    assert any("does not adjoin" in text and "wasted" in text for text in fight.texts())


# -- 4. Impale: the pull is further injury (CFI Ch.8 Impale; CFI Ch.7 Wounds) -------------------------

def test_impale_pull_damage_rounds_up_and_makes_a_serious_wound() -> None:
    # Seed, Impale: A's shortspear (1d8+1, Medium, impaling) hits (30), D does not defend: Impale.
    # Damage rolled twice: 1+1 = 2 and 1+1 = 2; + 1d2 (1) = 3 to the right leg (1d20 = 2): 6 -> 3, minor.
    # The spear stays in (SIZ 13, Medium weapon: Formidable). D dithers. On A's next Turn he pulls it
    # free: Brawn 26% rolls 10, success. "half the normal damage roll ... without any Damage Modifier":
    # 1d8+1 = 6+1 = 7, halved rounding up (Decision, as every halving here) = 4: leg 3 -> -1, now a
    # Serious Wound (CFI Ch.7: 0 HP or less) with its effects: no attack for 1d3 (2) Turns; Endurance
    # 26% rolls 50 against the Brawn roll 10 (Decision: the roll that inflicted the injury): failure,
    # the leg is useless and D falls prone. (Rounding down, 3, would have left the leg at 0.)
    spear = fighter("A", "a", weapons=["shortspear"])
    fight = Combat(spear, fighter("D", "b"))
    fight.round(A_FIRST)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", ("impale",), {"r1/a1/location": 2, "r1/a1/damage": 1, "r1/a1/damage-2": 1,
                                     "r1/a1/dm": 1})
    assert fight.who("D").loc("right leg").hp == 3 and fight.who("A").weapons["shortspear"].stuck_in
    fight.act("D", "dither")
    fight.act("A", "ready", dice={"r1/a3/pull-free": 10, "r1/a3/pull-damage": 6,
                                   "r1/a3/pull-serious-turns": 2, "r1/a3/pull-endurance": 50},
              weapon="shortspear", mode="withdraw")
    d = fight.who("D")
    leg = d.loc("right leg")
    assert (leg.hp, leg.wound) == (-1, "serious")
    assert no_attack_left(fight, "D") == 2
    assert d.has("useless", "right leg") and d.has("prone") and not d.has("impaled")
    assert not fight.who("A").weapons["shortspear"].stuck_in
    assert any("halved, rounding up -> 4" in text for text in fight.texts())


# -- 5. Grip: the gripped cannot disengage (CFI Ch.8 Grip, Outmaneuvering, Withdraw) --------------------

def gripped_fight() -> Combat:
    """D moves in and attacks A unarmed: 10 succeeds, A does not defend: one effect, Grip. The blow:
    chest (1d20 = 11), 1d3 (1) + 1d2 (1) = 2: chest 8 -> 6. A is gripped by D."""
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(D_FIRST)
    fight.attack("D", "A", {"r1/a1/attack": 10}, moving=True, weapon="unarmed")
    fight.none("A")
    fight.effects("D", ("grip",), {"r1/a1/location": 11, "r1/a1/damage": 1, "r1/a1/dm": 1})
    assert fight.who("A").cond("gripped").by == "D" and fight.state.turn == "A"
    return fight


def test_gripped_fighter_cannot_outmaneuver_to_withdraw() -> None:
    # Seed, Grip: "preventing them from being able to disengage from combat"; Outmaneuvering: the
    # winner may withdraw "from the fight completely". A gripped fighter may not declare it (nor engage
    # a single foe other than his gripper); nothing is recorded.
    fight = gripped_fight()
    before = fight.state
    with pytest.raises(IllegalCommand, match="cannot disengage") as err:
        fight.act("A", "outmaneuver", against="D", then="withdraw")
    assert err.value.rule == "CFI Ch.8 Grip"
    assert fight.state == before
    # Without a withdrawal the outmaneuver stands: Evade 26% rolls 10 against D's 20: both succeed,
    # D's higher roll wins: D keeps up, and A stays engaged with his gripper.
    fight.act("A", "outmaneuver", dice={"r1/a2/outmaneuver": 10, "r1/a2/outmaneuver-D": 20}, against="D")
    assert "D" in fight.who("A").engaged and "D" not in fight.who("A").blocked


def test_withdraw_effect_not_offered_to_a_fighter_gripped_by_his_opponent() -> None:
    # Seed, Withdraw: "breaking off engagement with that particular opponent" is disengaging, which the
    # Grip prevents. A dithers; D attacks again unarmed: Unarmed 26% rolls 80, a failure; A parries
    # with his longsword: Combat 60% rolls 30, a success: Success vs Failure, one effect for A.
    fight = gripped_fight()
    fight.act("A", "dither")
    fight.attack("D", "A", {"r1/a3/attack": 80}, weapon="unarmed")
    fight.parry("A", {"r1/a3/parry": 30})
    ex = fight.state.exchange
    assert ex.winner == "defender" and ex.count == 1
    assert "withdraw" not in offered(fight.state, ex)
    with pytest.raises(IllegalCommand, match="Grip"):
        fight.effects("A", ("withdraw",), {})


# -- 6. Outmaneuvering: a tie does not beat the roll (CFI Ch.8 Outmaneuver, Outmaneuvering) ------------

def engaged_fight() -> Combat:
    """A moves into contact with D (Engaged); D dithers; A's second Action Point is his outmaneuver
    (a3), and D still has one Action Point to oppose it."""
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(A_FIRST)
    fight.act("A", "move", "D")
    fight.act("D", "dither")
    return fight


def test_outmaneuver_tie_does_not_beat_his_roll() -> None:
    # Seed, Outmaneuvering: "those who fail to beat the maneuvering character's roll cannot attack him".
    # A's Evade 26% rolls 20, D's Evade 26% rolls 20: the same level and the same roll, so D does not
    # beat it: D is outmaneuvered, and A, having beaten every opponent, withdraws.
    fight = engaged_fight()
    fight.act("A", "outmaneuver", dice={"r1/a3/outmaneuver": 20, "r1/a3/outmaneuver-D": 20}, against="D",
              then="withdraw")
    a = fight.who("A")
    assert a.blocked == ("D",) and a.engaged == () and fight.who("D").ap == 0


def test_outmaneuver_both_fail_blocks_nobody() -> None:
    # Decision (docs/classic_fantasy.md): A's Evade 26% rolls 80 and fails; D's rolls 90 and fails too:
    # a failed maneuver blocks nobody, so D keeps up and A cannot withdraw.
    fight = engaged_fight()
    fight.act("A", "outmaneuver", dice={"r1/a3/outmaneuver": 80, "r1/a3/outmaneuver-D": 90}, against="D",
              then="withdraw")
    a = fight.who("A")
    assert a.blocked == () and a.engaged == ("D",)


def test_a_failed_evade_does_not_read_as_a_dive_clear(cli) -> None:  # type: ignore[no-untyped-def]
    """docs/examples/classic_fantasy/duel.cmds: Grak's Evade (30%) rolls 45 and fails, and the gambit leaves him
    prone anyway (CFI Ch.8 Evading). The step said he "dives clear", which reads as a success; it says he throws
    himself aside, whether or not the evasion succeeds."""
    from tests.conftest import REPO

    cli("run", str(REPO / "docs" / "examples" / "classic_fantasy" / "duel.cmds"), "-q")
    words = cli("explain", "duel").out
    assert "dives clear" not in words
    assert "Grak throws themself aside to evade and is left prone, whether or not the evasion succeeds" in words
