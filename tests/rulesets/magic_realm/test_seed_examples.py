"""The examples the seeds give, one test each (seed 000 = MR 8.4, seed 001 = A Round of Combat).

Every expected value is worked out by hand in the comment above the assertion.
"""

from __future__ import annotations

import pytest
from tests.rulesets.magic_realm.mr_helpers import Game, char

from combatlog.errors import IllegalCommand
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.data import RED
from combatlog.rulesets.magic_realm.fatigue import owed
from combatlog.rulesets.magic_realm.melee import Attack
from combatlog.rulesets.magic_realm.tables import Harm, reposition, tactics_flip


def test_8_4_9_m_with_two_stars_is_t_and_h_against_armor() -> None:
    # MR 8.4.9 example: "A counter with an 'M' harm letter and two sharpness stars inflicts
    # Tremendous harm normally, but only Heavy harm when it hits armor." M=2, +2 stars = 4 (T);
    # armor removes one star: 2 + 1 = 3 (H).
    h = Harm(2, 2)
    assert h.applied_text() == "T"
    h.armor()
    assert h.applied_text() == "H"


def test_8_4_9_no_stars_not_affected_by_armor() -> None:
    # MR 8.4.9 example: "A Heavy counter with no sharpness stars inflicts Heavy harm whether it
    # hits armor or not."
    h = Harm(3, 0)
    h.armor()
    assert h.applied_text() == "H"


def test_8_4_9_dagger_m_unarmored_l_against_armor() -> None:
    # MR 8.4.9 special: the dagger is Negligible with one star and always gains a level for excess
    # Fight strength: N + 1 level = L, + 1 star = M unarmored; armor removes the star: L.
    from combatlog.rulesets.magic_realm.harm import base_harm

    a = Attack("x", "y", 1, 3, 0, 0, 1, kind="dagger", bonus=True)
    h = base_harm(None, a)  # type: ignore[arg-type]  # no missile: no dice needed
    assert h.applied_text() == "M"
    h.armor()
    assert h.applied_text() == "L"


def test_8_4_9_light_weapon_with_stronger_fight_chit_gains_one_level() -> None:
    # MR 8.4.9 example: a Medium, Heavy or Tremendous Fight chit with a Light striking weapon raises the
    # harm one level "to Medium, plus any sharpness": Short Sword L* with Fight M -> M*, applied H.
    from combatlog.rulesets.magic_realm.harm import base_harm

    a = Attack("x", "y", 1, 4, 3, 1, 1, kind="weapon", bonus=True)
    h = base_harm(None, a)  # type: ignore[arg-type]
    assert h.text() == "M*" and h.applied_text() == "H"


WK_SETUP = {
    "first_round_of_day": False,
    "characters": [char("wk", "White Knight"), char("bk", "Black Knight")],
    "denizens": [{"id": "goblin", "monster": "Axe Goblin"}, {"id": "goblin-2", "monster": "Axe Goblin"}],
    "assigned": {"goblin": "wk", "goblin-2": "bk"},
}


def _to_plays(g: Game) -> None:
    g.encounter(["bk", "wk"], attention=(1,))  # pool [bk, wk]: die 1 picks bk first
    g.do(c.Target(character="bk", target="goblin-2"))
    g.do(c.Target(character="wk", target="goblin"))


def test_8_4_5_white_knight_move_h4_forbids_fight_t5() -> None:
    # MR 8.4.5 example: "If the White Knight plays his Move H4** chit to maneuver, he cannot play his
    # Fight T5* chit to attack": 2 + 1 = 3 asterisks > 2, so the attack is cancelled; the chit counts.
    g = Game(WK_SETUP)
    _to_plays(g)
    wk = g.state.characters["wk"]
    assert wk.chit("M3").label == "MOVE H4**" and wk.chit("F7").label == "FIGHT T5*"
    g.do(c.Play(character="wk", attack=1, fight="F7", maneuver=1, move="M3"))
    g.do(c.Play(character="bk", maneuver=1, move="M3", shield=1))
    st = g.state
    assert "effort limit" in st.cancelled["wk/attack"]
    assert "wk/maneuver" not in st.cancelled
    assert set(st.used["wk"]) == {"M3", "F7"}  # cancelled chits still go to Used This Round


def test_8_4_5_black_knight_cannot_maneuver_with_move_m4_while_carrying_heavy_armor() -> None:
    # MR 8.4.5 example: the Black Knight's Move M4 (data: MOVE M4*) is weaker than his Heavy suit of
    # armor (level 4: Mace, Armor H, Shield), so the maneuver is cancelled.
    g = Game(WK_SETUP)
    _to_plays(g)
    bk = g.state.characters["bk"]
    assert bk.chit("M4").label == "MOVE M4*"
    g.do(c.Play(character="bk", maneuver=2, move="M4", shield=1))
    g.do(c.Play(character="wk", maneuver=1, move="M2"))
    assert "weaker than the heaviest item" in g.state.cancelled["bk/maneuver"]


def test_8_4_9_two_thrusts_on_a_horse_doing_charge() -> None:
    # MR 8.4.9 example: two Thrust attacks with different attack times intercept a horse doing the
    # Charge maneuver; the first kills the horse, the second harms the rider.
    # Bashkar 1 rides Bashkar Pony 1 (vulnerability M; galloping side move 3 in the Melee Step, MR 8.4.1).
    # Later round (first_round_of_day false): faster first. Amazon: Short Sword L* + Fight M3** (M > L:
    # +1 level) = M*, applied H >= M: the pony dies at time 3. White Knight: Great Sword unalerted,
    # time 6, H*, applied T >= L (Bashkar vulnerability): the rider dies.
    setup = {
        "first_round_of_day": False,
        "characters": [char("wk", "White Knight"), char("amazon", "Amazon")],
        "denizens": [{"id": "bashkar", "native": "Bashkar 1"}],
        "assigned": {"bashkar": "wk"},
    }
    g = Game(setup)
    g.encounter(["amazon", "wk"], attention=(1,))
    g.do(c.Target(character="amazon", target="bashkar"))
    g.do(c.Target(character="wk", target="bashkar"))
    g.do(c.Play(character="amazon", attack=1, fight="F4", shield=3))
    g.do(c.Play(character="wk", attack=1, fight="F5", maneuver=2, move="M2", place={"bashkar": 1}))
    g.do(c.Resolve(), {"r1/reposition/wk": (4,), "r1/tactics/wk/box1": (1, 2)})
    st = g.state
    assert not st.denizens["bashkar"].alive
    assert st.denizens["bashkar"].horse is not None and not st.denizens["bashkar"].horse.alive
    text = g.text()
    assert "the horse is killed" in text
    assert "the hit, decided by the horse's maneuver, harms the rider" in text
    # Bounties: the White Knight killed Bashkar 1 (notoriety 4, wage 2): his first kill, x1.
    assert st.characters["wk"].notoriety == (4, 1) and st.characters["wk"].gold == (2, 1)


def test_8_4_6_repositioning_table_rows() -> None:
    # MR tables: Repositioning Denizens Table. Roll 1: box 1 stays, 2 and 3 swap; roll 4: no change;
    # roll 5: everything moves down one box (1->2, 2->3, 3->1); roll 6: up one (1->3, 2->1, 3->2).
    assert [reposition(1, b) for b in (1, 2, 3)] == [1, 3, 2]
    assert [reposition(4, b) for b in (1, 2, 3)] == [1, 2, 3]
    assert [reposition(5, b) for b in (1, 2, 3)] == [2, 3, 1]
    assert [reposition(6, b) for b in (1, 2, 3)] == [3, 1, 2]
    assert [reposition(2, b) for b in (1, 2, 3)] == [3, 2, 1]
    assert [reposition(3, b) for b in (1, 2, 3)] == [2, 1, 3]


def test_8_4_6_change_tactics_needs_a_six() -> None:
    # MR 8.4.6: "if either die rolls a '6', all of the denizens in that box turn over".
    assert tactics_flip((6, 1)) and tactics_flip((2, 6))
    assert not tactics_flip((5, 5))


def test_missile_table_lowering_below_negligible_eats_stars() -> None:
    # MR tables, Missile Table: "Lowering below Negligible eats sharpness stars instead (e.g. L** -2 -> N*)".
    h = Harm(1, 2)
    h.raise_levels(-2, "test")
    assert (h.level, h.stars) == (0, 1)


def test_fatigue_examples_from_the_tables() -> None:
    # MR tables, Fatigue Step (BK example): MOVE H4** + FIGHT H6 -> 1 asterisk owed;
    # FIGHT M3** to alert + MOVE H6 -> 1 owed (two asterisks less the free one).
    g = Game(WK_SETUP)
    bk = g.state.characters["bk"]
    ids = {ch.label: ch.id for ch in bk.chits}
    assert owed(bk, (ids["MOVE H4**"], ids["FIGHT H6"]))[0] == 1
    assert owed(bk, (ids["FIGHT M3**"], ids["MOVE H6"]))[0] == 1
    assert owed(bk, (ids["MOVE H6"],))[0] == 0


def test_8_4_7_spear_goblin_light_side_does_not_attack() -> None:
    # MR 8.4.7: spear-carrying Goblins do not attack when light side up.
    setup = {"characters": [char("wk", "White Knight")], "denizens": [{"id": "spear", "monster": "Spear Goblin"}],
             "assigned": {"spear": "wk"}}
    g = Game(setup)
    g.encounter(["wk"])
    g.do(c.Target(character="wk"))
    g.do(c.Play(character="wk", place={"spear": 1}))
    g.do(c.Resolve(), {"r1/reposition/wk": (4,), "r1/tactics/wk/box1": (1, 1)})
    assert "it does not attack" in g.text()
    assert all(a.attacker != "spear" for a in g.state.last_melee.melee.attacks)


def test_8_4_7_tremendous_monster_turns_red_and_holds_its_target() -> None:
    # MR 8.4.7: when the Giant hits its target and the target lives, it turns red side up at the end of
    # the round and holds him; he cannot run away. Giant light side: H, time 5; the Black Knight
    # maneuvers with MOVE H6 (time 6): 5 < 6 undercuts; H vs his Heavy suit: armor damaged, one wound.
    setup = {"characters": [char("bk", "Black Knight")], "denizens": [{"id": "giant", "monster": "Giant"}],
             "assigned": {"giant": "bk"}}
    g = Game(setup)
    g.encounter(["bk"])
    g.do(c.Target(character="bk"))
    g.do(c.Play(character="bk", maneuver=1, move="M3", shield=3, place={"giant": 1, "giant-club": 2}))
    g.do(c.Resolve(), {"r1/reposition/bk": (4,), "r1/tactics/bk/box2": (1, 1)})
    g.do(c.Fatigue(character="bk", wounds=("M1",)))
    st = g.state
    assert st.pinned == {"giant": "bk"} and st.denizens["giant"].side == "dark"
    assert st.denizens["giant"].face.harm == RED
    assert st.characters["bk"].armor[0].condition == "damaged"
    g.do(c.Deploy(character="bk")) if st.step == "deploy" else None
    with pytest.raises(IllegalCommand, match="red-side-up"):
        g.do(c.Act(character="bk", kind="run", chit="M2"))


def test_8_4_5_plays_stay_secret_until_every_side_has_played() -> None:
    # MR 8.4.5: the characters make their plays secretly and reveal them simultaneously.
    g = Game({**WK_SETUP, "characters": [char("wk", "White Knight", player="carol"),
                                         char("bk", "Black Knight", player="alice")]})
    _to_plays(g)
    g.do(c.Play(character="wk", attack=1, fight="F2", maneuver=1, move="M2"))
    f = g.folded
    from combatlog.projections.fold import history

    plays = [r.event for r in history(g.store, g.store.list_streams()[0]) if type(r.event).__name__ == "PlaysMade"]
    assert f.ruleset.conceals(plays[0], f.state, "alice")
    assert not f.ruleset.conceals(plays[0], f.state, "carol")
    assert not f.ruleset.conceals(plays[0], f.state, None)
    wk_sheet = next(s for s in g.view("alice")["sheets"] if s["owner"] == "wk")
    assert wk_sheet["plays"] == "secret until every side has played"
    g.do(c.Play(character="bk", maneuver=1, move="M3", shield=1))
    f = g.folded
    assert not f.ruleset.conceals(plays[0], f.state, "alice")


def test_8_4_9_simultaneous_kill_is_shared() -> None:
    # MR 8.4.9 simultaneous hits and MR tables bounties: two Amazons hit the same Axe Goblin with
    # Short Sword (length 3) and Fight M4* (time 4): same length and time, both kill (M* applied H >= M);
    # the bounty (fame 1, notoriety 1) is split: 1/2 each.
    setup = {"first_round_of_day": False,
             "characters": [char("a1", "Amazon"), char("a2", "Amazon")],
             "denizens": [{"id": "goblin", "monster": "Axe Goblin"}], "assigned": {"goblin": "a1"}}
    g = Game(setup)
    g.encounter(["a1", "a2"], attention=(1,))
    g.do(c.Target(character="a1", target="goblin"))
    g.do(c.Target(character="a2", target="goblin"))
    g.do(c.Play(character="a1", attack=1, fight="F3", maneuver=1, move="M1", shield=1, place={"goblin": 1}))
    g.do(c.Play(character="a2", attack=1, fight="F3", shield=1))
    g.do(c.Resolve(), {"r1/reposition/a1": (4,), "r1/tactics/a1/box1": (1, 1)})
    st = g.state
    assert st.characters["a1"].fame == (1, 2) and st.characters["a2"].notoriety == (1, 2)
    assert "simultaneous" in g.text()
