"""MR 8.4.7 (seed 000): a character held by a red-side-up Tremendous monster; Boots cards, Gloves
cards and Fly chits (values supplied by the set-up); the Elusive Cloak ruling (`mr concede`).

Every case cites the seed sentence it checks. The Black Knight (level 4) carries his Suit of Armor
(Heavy: items weight H) and his Mace (weight M); his chits: M1 MOVE M5, M2 MOVE H5*, F1 FIGHT H5*,
M3 MOVE H6, F2 FIGHT H6, F6 FIGHT H4** ...; cards K1 (boots), G1 (gloves), Fly chits Y1.
"""

from __future__ import annotations

from typing import Any

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.magic_realm import commands as c

from .mr_helpers import Game, char

CLOAK = {"kind": "elusive_cloak"}


def _held(items: list[dict[str, Any]], fly: list[str] = ()) -> Game:  # type: ignore[assignment]
    """Round 1 of the seed-example test: the Giant (H5) undercuts the Black Knight's MOVE H6, wounds
    him and turns red side up at the end of the round, holding him (MR 8.4.7). Round 2 then starts
    at his action (no denizen left to lure, nobody else to charge)."""
    bk = char("bk", "Black Knight", items=items, fly_chits=list(fly))
    g = Game({"characters": [bk], "denizens": [{"id": "giant", "monster": "Giant"}], "assigned": {"giant": "bk"}})
    g.encounter(["bk"])
    g.do(c.Target(character="bk"))
    g.do(c.Play(character="bk", maneuver=1, move="M3", shield=3, place={"giant": 1, "giant-club": 2}))
    g.do(c.Resolve(), {"r1/reposition/bk": (4,), "r1/tactics/bk/box2": (1, 1)})
    g.do(c.Fatigue(character="bk", wounds=("M1",)))
    assert g.state.pinned == {"giant": "bk"} and g.state.step == "actions" and g.state.round == 2
    return g


def _free(items: list[dict[str, Any]], fly: list[str] = ()) -> Game:  # type: ignore[assignment]
    """The Black Knight with an Axe Goblin assigned to him, nobody holding him, at his action."""
    bk = char("bk", "Black Knight", items=items, fly_chits=list(fly))
    g = Game({"characters": [bk], "denizens": [{"id": "goblin", "monster": "Axe Goblin"}],
              "assigned": {"goblin": "bk"}})
    assert g.state.step == "actions"
    return g


# -- item 3: restrictions while held, Boots, Gloves, Fly chits ----------------------------------


def test_8_4_7_held_cannot_run_with_boots_or_fly_with_a_fly_chit() -> None:
    # MR 8.4.7: "During the Encounter Step, the character cannot play Move chits, Fly chits, Boots cards,
    # or horses to run or fly away."
    g = _held([{"kind": "boots", "strength": "T", "time": 2}], ["FLY T2"])
    with pytest.raises(IllegalCommand, match="red-side-up"):
        g.do(c.Act(character="bk", kind="run", chit="K1"))
    with pytest.raises(IllegalCommand, match="red-side-up"):
        g.do(c.Act(character="bk", kind="fly", chit="Y1"))
    assert g.state.characters["bk"].present


def test_8_4_7_held_can_alert_his_weapon_with_a_gloves_card() -> None:
    # MR 8.4.7: "He can play Fight chits and Gloves cards to turn over his weapon counter". Gloves H4 is
    # at least as strong as the Mace (M), so the play is legal (MR 8.4.5 strength, applied to the card).
    g = _held([{"kind": "gloves", "strength": "H", "time": 4}])
    assert g.state.characters["bk"].weapon.alert is False
    g.do(c.Act(character="bk", kind="alert", chit="G1"))
    st = g.state
    assert st.characters["bk"].weapon.alert is True and st.used["bk"] == ("G1",)
    assert "MR 8.4.7 | Black Knight plays G1 GLOVES H4 to alert his Mace" in g.text()


def test_8_4_7_gloves_card_weaker_than_the_weapon_is_refused() -> None:
    # MR 8.4.5: "He can play a Fight chit only if its strength equals or exceeds the weight of his active
    # weapon"; a Gloves card that turns the weapon over in its place (MR 8.4.7) obeys the same rule:
    # Gloves L4 < Mace M.
    g = _free([{"kind": "gloves", "strength": "L", "time": 4}])
    with pytest.raises(IllegalCommand, match="weaker than the Mace"):
        g.do(c.Act(character="bk", kind="alert", chit="G1"))


def test_8_4_7_held_maneuvers_with_a_boots_card_but_not_a_horse() -> None:
    # MR 8.4.7: "During the Melee Step, the character cannot play a horse. He can play an attack normally,
    # and he can play a Move chit or Boots card to do a maneuver". Boots H3 against items weight H: legal;
    # its time 3 is the maneuver time (MR 8.4.5: "His maneuver time equals the time number on the Move chit").
    g = _held([{"kind": "boots", "strength": "H", "time": 3}])
    g.do(c.Act(character="bk", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="bk", target="giant"))
    g.do(c.Play(character="bk", attack=1, fight="F2", maneuver=2, move="K1", shield=3, place={"giant": 1,
                                                                                            "giant-club": 2}))
    assert "dodge with K1 BOOTS H3" in g.text()
    assert "bk/maneuver" not in g.state.cancelled
    from combatlog.rulesets.magic_realm.melee import maneuver
    from combatlog.rulesets.magic_realm.work import Work

    assert maneuver(Work(g.state, 0), "bk", {}) == (2, 3, "")


def test_8_4_5_boots_card_weaker_than_his_items_is_cancelled() -> None:
    # MR 8.4.5: "He can play a Move chit only if its strength equals or exceeds the weight of every item he
    # is carrying ... If he plays a chit that has insufficient strength, he must cancel the play". Applied
    # to a Boots card played as a maneuver (MR 8.4.8 lists it with Move chits): Boots M2 < Heavy armor.
    g = _held([{"kind": "boots", "strength": "M", "time": 2}])
    g.do(c.Act(character="bk", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="bk"))
    g.do(c.Play(character="bk", maneuver=1, move="K1", shield=3, place={"giant": 1, "giant-club": 2}))
    assert "weaker than the heaviest item" in g.state.cancelled["bk/maneuver"]


def test_8_4_5_effort_limit_counts_a_boots_cards_asterisks() -> None:
    # MR 8.4.5: "Each character can play no more than a total of two effort asterisks per round of combat. If
    # he plays a chit that causes his asterisks for the round to total more than two, then the play is
    # cancelled." Boots H3* (1 asterisk, from the set-up) + FIGHT H4** = 3 > 2: with the default
    # effort_order maneuver_first the attack is cancelled (White Knight example).
    g = _held([{"kind": "boots", "strength": "H", "time": 3, "asterisks": 1}])
    g.do(c.Act(character="bk", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="bk", target="giant"))
    g.do(c.Play(character="bk", attack=1, fight="F6", maneuver=1, move="K1", shield=3,
                place={"giant": 1, "giant-club": 2}))
    assert "effort limit" in g.state.cancelled["bk/attack"] and "bk/maneuver" not in g.state.cancelled


def test_001_fly_away_with_a_fly_chit() -> None:
    # MR 001 Actions: "Characters who run or fly away leave the clearing immediately, and denizens attacking
    # them become unassigned until the next round." The seeds give no speed test: flying succeeds.
    g = _free([], ["FLY T2"])
    g.do(c.Act(character="bk", kind="fly", chit="Y1"))
    st = g.state
    assert not st.characters["bk"].present and "goblin" not in st.assigned
    assert "Black Knight flies away with his Y1 FLY T2" in g.text()


def test_8_4_5_fly_chit_weaker_than_his_items_is_refused() -> None:
    # MR 8.4.5 strength restrictions, applied to a Fly chit as to a Move chit: FLY L2 < his Heavy armor.
    g = _free([], ["FLY L2"])
    with pytest.raises(IllegalCommand, match="weaker than his heaviest item"):
        g.do(c.Act(character="bk", kind="fly", chit="Y1"))
    with pytest.raises(IllegalCommand, match="not a FLY chit"):
        g.do(c.Act(character="bk", kind="fly", chit="M2"))


def test_001_run_away_with_a_boots_card() -> None:
    # MR 8.4.7 lists Boots cards with the Move chits that run away; when nothing holds him he may
    # (MR 001: "run or fly away"). Boots T2 >= his Heavy armor.
    g = _free([{"kind": "boots", "strength": "T", "time": 2}])
    g.do(c.Act(character="bk", kind="run", chit="K1"))
    assert not g.state.characters["bk"].present


# -- item 1: the Elusive Cloak ruling -------------------------------------------------------


def test_8_4_7_elusive_cloak_concession_kills_the_held_character() -> None:
    # MR 8.4.7: "If there is no chance for the Tremendous monster to be killed by either the character or
    # anyone else in the clearing (or the other characters decline to help), then the character is killed."
    # and "When its target is killed, the Tremendous monster turns red side down again."
    g = _held([CLOAK])
    g.do(c.Concede(character="bk", reason="declined"))
    st = g.state
    bk = st.characters["bk"]
    assert not bk.alive and "Elusive Cloak" in bk.death and "MR 8.4.7" in bk.death
    assert st.pinned == {} and st.denizens["giant"].side == "light"
    assert st.ended and st.end_reason == "no character takes part any more"
    assert "the other characters decline to help: the character is killed" in g.text()
    assert bk.fame == (0, 1) and st.ledger == ()  # nobody is credited (decision: not a kill by an attack)


def test_8_4_7_concession_needs_a_red_side_up_monster_and_the_cloak() -> None:
    # MR 8.4.7: the ruling concerns the 'infinite loop' of "Use of the Elusive Cloak" against a red-side-up
    # Tremendous monster: refused when nothing holds him, and when he has no Elusive Cloak.
    with pytest.raises(IllegalCommand, match="no red-side-up Tremendous monster holds bk"):
        _free([CLOAK]).do(c.Concede(character="bk"))
    with pytest.raises(IllegalCommand, match="no Elusive Cloak"):
        _held([]).do(c.Concede(character="bk"))


# -- item 2: characters transmorphized into Tremendous monsters ---------------------------------


def _transmorphized() -> Game:
    """The Amazon transmorphized into the Giant (data: light side H, time 5, move 5; red side RED, time 4,
    move 6; its Giant Club light H, time 6, length 8) against the Black Knight; no denizens."""
    g = Game({"characters": [char("amazon", "Amazon", transmorphized="Giant"), char("bk", "Black Knight")]})
    for cid in ("amazon", "bk"):
        g.do(c.Deploy(character=cid))
    for cid in ("amazon", "bk"):
        g.do(c.Act(character=cid, kind="none"))
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})  # one die over amazon, bk: 1 = amazon first
    return g


def test_8_4_7_transmorphized_character_attacks_with_the_monster_and_flips_red_side_up() -> None:
    # MR 8.4.7: "Characters Transmorphized into Tremendous Monsters ... must be played red-side-down initially,
    # and flip red-side-up if their body, head, or club hit. Unless otherwise specified, while red-side up they
    # stay assigned to their target until either they or their target are killed."
    # Round 1 (first of the day): the Giant body thrusts at time 5 (light side, the monster's attack time) and
    # undercuts the Black Knight's MOVE H6 charge (5 < 6): H against his Armor (H): damaged, one wound;
    # the club smashes at time 6: neither undercuts (6 = 6) nor intercepts (smash vs charge): miss.
    g = _transmorphized()
    assert g.state.characters["amazon"].form_side == "light"
    g.do(c.Target(character="amazon", target="bk"))
    g.do(c.Target(character="bk"))
    with pytest.raises(IllegalCommand, match="monster's values"):
        g.do(c.Play(character="amazon", attack=1, fight="F1", shield=1))
    g.do(c.Play(character="amazon", attack=1, part_attack=3, maneuver=2, shield=1))
    g.do(c.Play(character="bk", maneuver=1, move="M3", shield=3))
    g.do(c.Resolve())
    text = g.text()
    assert "Amazon (transmorphized into Giant, red side down) attacks Black Knight (bk) with H at time 5" in text
    assert "Amazon thrust at time 5 on Black Knight (bk): undercuts charge at time 6" in text
    assert "Amazon smash at time 6 on Black Knight (bk): misses charge at time 6" in text
    assert g.state.characters["bk"].wounds == 1 and g.state.owed.get("amazon") == 0
    g.do(c.Fatigue(character="bk", wounds=("M1",)))
    st = g.state
    assert st.round == 2
    amazon = st.characters["amazon"]
    assert amazon.form_side == "dark" and amazon.holding == "bk"
    assert "he turns red side up and stays assigned to bk" in g.text()
    # Red side up he stays assigned to his target: he cannot pick another, nor leave.
    for cid in ("amazon", "bk"):
        g.do(c.Deploy(character=cid))
    with pytest.raises(IllegalCommand, match="stays assigned to bk"):
        g.do(c.Act(character="amazon", kind="run", chit="M1"))
    for cid in ("amazon", "bk"):
        g.do(c.Act(character=cid, kind="none"))
    g.do(c.StartMelee(), {"r2/attention/1": (1,)})
    with pytest.raises(IllegalCommand, match="stays assigned to bk"):
        g.do(c.Target(character="amazon"))
    # Round 2: the red side attacks at time 4 (RED); the Black Knight's MOVE H5* (M2, time 5) is undercut:
    # "When the monster hits its target, instead of inflicting harm it just kills the target outright"
    # (MR 8.4.7, the rules a transmorphized character follows as a Tremendous monster: decision).
    g.do(c.Target(character="amazon", target="bk"))
    g.do(c.Target(character="bk"))
    g.do(c.Play(character="amazon", attack=1, part_attack=3, maneuver=2, shield=1))
    g.do(c.Play(character="bk", maneuver=1, move="M2", shield=3))
    g.do(c.Resolve())
    assert not g.state.characters["bk"].alive
    assert "killed outright" in g.text()
    st = g.state
    # "until either they or their target are killed": the target is dead, so he turns red side down.
    assert st.characters["amazon"].holding == "" and st.characters["amazon"].form_side == "light"


def test_8_4_7_transmorphization_needs_a_tremendous_monster() -> None:
    # MR 8.4.7 covers "Characters Transmorphized into Tremendous Monsters" only.
    from combatlog.errors import InvalidCommand

    with pytest.raises(InvalidCommand, match="not a Tremendous monster"):
        Game({"characters": [char("amazon", "Amazon", transmorphized="Wolf")]})
