"""Round machinery: spells (MR 8.4.3-8.4.4), fatigue choices, bounties, end of combat, errors."""

from __future__ import annotations

import msgspec
import pytest

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.fatigue import options
from tests.rulesets.magic_realm.mr_helpers import Game, char

DUEL = {
    "clearing": {"color_magic": "purple"},
    "first_round_of_day": False,
    "characters": [char("sorc", "Sorceror", spells=["Fiery Blast"]),
                   char("wking", "Witch King", spells=["Fiery Blast"])],
    "denizens": [],
}


def _cast_both(g: Game, sorc_chit: str, wk_chit: str) -> None:
    g.do(c.Deploy(character="sorc"))
    g.do(c.Deploy(character="wking"))
    g.do(c.Act(character="sorc", kind="cast", spell="Fiery Blast", chit=sorc_chit))
    g.do(c.Act(character="wking", kind="cast", spell="Fiery Blast", chit=wk_chit))
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})  # pool [sorc, wking]: sorc first
    g.do(c.Target(character="sorc", spell_targets=("wking",)))
    g.do(c.Target(character="wking", spell_targets=("sorc",)))


def test_8_4_3_faster_spell_cancels_slower_spell_of_its_target() -> None:
    # MR 8.4.3: the Sorceror's Fiery Blast with MAGIC IV3* (time 3) aims at the Witch King, who casts
    # with MAGIC IV4* (time 4): 3 < 4, the Witch King's spell is cancelled; his chit fatigues.
    g = Game(DUEL)
    sorc = g.state.characters["sorc"]
    fast = next(ch.id for ch in sorc.chits if ch.label == "MAGIC IV3*")
    slow = next(ch.id for ch in g.state.characters["wking"].chits if ch.label == "MAGIC IV4*")
    _cast_both(g, fast, slow)
    spells = {s.caster: s for s in g.state.spells}
    assert spells["sorc"].status == "working"
    assert spells["wking"].status == "cancelled"
    assert next(ch for ch in g.state.characters["wking"].chits if ch.id == slow).status == "fatigued"


def test_8_4_3_equal_times_do_not_cancel() -> None:
    # MR 8.4.3: "If the times are equal ... the target's spell is not cancelled."
    g = Game(DUEL)
    a = next(ch.id for ch in g.state.characters["sorc"].chits if ch.label == "MAGIC IV4*")
    b = next(ch.id for ch in g.state.characters["wking"].chits if ch.label == "MAGIC IV4*")
    _cast_both(g, a, b)
    assert {s.status for s in g.state.spells} == {"working"}


def test_8_4_4_attack_spell_attacks_like_a_weapon() -> None:
    # MR 8.4.4: Fiery Blast (L***, missile, length 13) cast with MAGIC IV3* attacks at time 3.
    # Target: an Axe Goblin assigned to the Sorceror, light side move 3: 3 is not < 3, so it must
    # intercept: the spell is placed in the Thrust circle, the goblin in box 1 (Charge). Missile roll
    # [3, 1]: high 3, change 0: L*** applied T >= M: killed. The Sorceror cannot also attack with a
    # weapon (MR 8.4.5).
    setup = {"clearing": {"color_magic": "purple"}, "first_round_of_day": False,
             "characters": [char("sorc", "Sorceror", spells=["Fiery Blast"])],
             "denizens": [{"id": "goblin", "monster": "Axe Goblin"}], "assigned": {"goblin": "sorc"}}
    g = Game(setup)
    fast = next(ch.id for ch in g.state.characters["sorc"].chits if ch.label == "MAGIC IV3*")
    g.do(c.Act(character="sorc", kind="cast", spell="Fiery Blast", chit=fast))
    g.do(c.StartMelee())
    g.do(c.Target(character="sorc", spell_targets=("goblin",)))
    with pytest.raises(IllegalCommand, match="came to life"):
        g.do(c.Play(character="sorc", attack=1, fight="F1"))
    g.do(c.Play(character="sorc", attack=1, place={"goblin": 1}))
    g.do(c.Resolve(), {"r1/reposition/sorc": (4,), "r1/tactics/sorc/box1": (1, 1),
                       "r1/missile/sorc/goblin": (3, 1)})
    assert not g.state.denizens["goblin"].alive
    assert "intercepts" in g.text() and "killed" in g.text()


def test_uncast_spells_are_refused_clearly() -> None:
    # Only the spells listed in docs/magic_realm.md are modelled; others (here Transform, whose
    # transmorphizing the seeds do not describe) are an error, not a stub.
    g = Game({**DUEL, "characters": [char("sorc", "Sorceror", spells=["Fiery Blast", "Transform"])]})
    with pytest.raises(IllegalCommand, match="only these spells are modelled"):
        g.do(c.Act(character="sorc", kind="cast", spell="Transform", chit="X1"))


def test_fatigue_making_change_is_offered_only_when_it_is_needed() -> None:
    # MR tables, Fatigue Step: owing 1 asterisk with a FIGHT * chit active, the exact payment is offered;
    # with only FIGHT ** chits active and a fatigued FIGHT * chit, the ** chit pays with change.
    g = Game({"characters": [char("bk", "Black Knight", chits={"F1": "fatigued", "F3": "fatigued",
                                                                "F4": "fatigued"})], "denizens": []})
    bk = g.state.characters["bk"]
    opts = options(bk, 1, {"FIGHT": 2})  # FIGHT M3** played to alert + MOVE H6: owes 1 FIGHT asterisk
    # Active FIGHT chits with asterisks: F6 H4**, F7 M3**; fatigued one-asterisk FIGHT: F1 H5*, F3/F4 M4*.
    assert all(o.change for o in opts)
    assert {tuple(o.fatigue) for o in opts} == {("F6",), ("F7",)}


def _white_knight_over_the_effort_limit(chits: dict[str, str] | None = None) -> Game:
    """MR 8.4.5 example: "If the White Knight plays his Move H4** chit to maneuver, he cannot play his Fight
    T5* chit" (here to alert his weapon): the Fight play is cancelled, and "their effort asterisks do count
    towards their owner's effort limit and fatigue" (MR 8.4.5 illegal plays)."""
    g = Game({"characters": [char("wk", "White Knight", chits=chits or {})], "denizens": []})
    g.do(c.Act(character="wk", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="wk"))
    g.do(c.Play(character="wk", fight="F7", maneuver=1, move="M3"))  # F7 FIGHT T5*, M3 MOVE H4**
    g.do(c.Resolve())
    assert "effort limit" in g.state.cancelled["wk/attack"]
    return g


def test_fatigue_asterisks_are_paid_by_type() -> None:
    # MR tables, Fatigue Step: "MOVE asterisks paid with MOVE chits, FIGHT with FIGHT chits".
    # Hand calculation: played MOVE 2 (MOVE H4**) + FIGHT 1 (FIGHT T5*, cancelled) = 3, less the free one:
    # owes 2. FIGHT chits pay at most the 1 FIGHT asterisk played, so FIGHT H4** cannot pay both; the legal
    # payments are MOVE H4**, two MOVE * chits (H5*, T6*), or one MOVE * and one FIGHT * (H5*, T5*).
    g = _white_knight_over_the_effort_limit()
    st = g.state
    assert st.step == "fatigue" and st.owed == {"wk": 2}
    with pytest.raises(IllegalCommand, match="each type is paid with its own chits"):
        g.do(c.Fatigue(character="wk", fatigue=("F3",)))  # F3 FIGHT H4**
    with pytest.raises(IllegalCommand):
        g.do(c.Fatigue(character="wk", fatigue=("F1", "F5")))  # two FIGHT H5*: 2 FIGHT asterisks
    (pending,) = g.folded.ruleset.pending(st)
    assert "played: FIGHT 1, MOVE 2" in pending.what
    assert set(pending.options) == {
        "fatigue M3 MOVE H4**",
        "fatigue M1 MOVE H5* + M4 MOVE T6*",
        "fatigue M1 MOVE H5* + F1 FIGHT H5*", "fatigue M1 MOVE H5* + F7 FIGHT T5*",
        "fatigue F1 FIGHT H5* + M4 MOVE T6*", "fatigue M4 MOVE T6* + F7 FIGHT T5*",
    }
    g.do(c.Fatigue(character="wk", fatigue=("M1", "F7")))
    wk = g.state.characters["wk"]
    assert {ch.id for ch in wk.chits if ch.status == "fatigued"} == {"M1", "F7"}


def test_fatigue_change_is_made_in_the_type_that_went_over() -> None:
    # MR tables, Fatigue Step: "you may overpay by one and then 'make change' by returning a fatigued
    # one-asterisk chit of the same type". Same round as above (owes 2: at most 2 MOVE and 1 FIGHT), with
    # F1 and F5 (FIGHT H5*) fatigued beforehand. Hand calculation: FIGHT H4** + MOVE H5* = 3 goes one over,
    # in FIGHT (2 > 1): returning F1 FIGHT H5* leaves FIGHT 1 + MOVE 1 = 2, legal. FIGHT H4** with change
    # and nothing else pays 1 of 2: refused. MOVE H4** + FIGHT T5* is one over too, but change needs a
    # MOVE * to return (none is fatigued) or a FIGHT chit worth two in the payment (T5* is worth one).
    g = _white_knight_over_the_effort_limit({"F1": "fatigued", "F5": "fatigued"})
    wk = g.state.characters["wk"]
    opts = {(tuple(sorted(o.fatigue)), o.change) for o in options(wk, 2, {"MOVE": 2, "FIGHT": 1})}
    assert {(("F3", "M1"), "F1"), (("F3", "M4"), "F1"), (("F6", "M1"), "F1"), (("F6", "M4"), "F1")} <= opts
    assert {change for _f, change in opts} == {"", "F1"}
    assert all(f != ("F7", "M3") or not change for f, change in opts)
    with pytest.raises(IllegalCommand):
        g.do(c.Fatigue(character="wk", fatigue=("F3",), change="F1"))
    g.do(c.Fatigue(character="wk", fatigue=("F3", "M1"), change="F1"))
    status = {ch.id: ch.status for ch in g.state.characters["wk"].chits}
    assert (status["F3"], status["M1"], status["F1"], status["F5"]) == ("fatigued", "fatigued", "active", "fatigued")


def test_fatigue_share_without_chits_of_its_type_is_paid_by_wounds() -> None:
    # MR tables, Fatigue Step: "If no active chit with asterisks (of the needed type) is left, each remaining
    # asterisk is paid by WOUNDING an already-fatigued chit". Owes 2 (at most 2 MOVE, 1 FIGHT) with every MOVE
    # chit with asterisks fatigued and FIGHT H5*, H5*, T5* fatigued: the active FIGHT ** chits pay the FIGHT
    # asterisk, going one over its share, so change is made with a fatigued FIGHT * when one is there;
    # the MOVE asterisk is left to a wound. Hand calculation: FIGHT H4** (2) - change (1) = 1 paid, 1 unpaid.
    chits = {"M1": "fatigued", "M3": "fatigued", "M4": "fatigued", "F1": "fatigued", "F5": "fatigued",
             "F7": "fatigued"}
    g = Game({"characters": [char("wk", "White Knight", chits=chits)], "denizens": []})
    wk = g.state.characters["wk"]
    opts = options(wk, 2, {"MOVE": 2, "FIGHT": 1})
    assert {(o.fatigue, o.change, o.shortfall) for o in opts} == {
        (("F3",), "F1", 1), (("F3",), "F7", 1), (("F6",), "F1", 1), (("F6",), "F7", 1)}
    # With no FIGHT * to return, the second FIGHT asterisk of FIGHT H4** is lost: still 1 unpaid.
    g = Game({"characters": [char("wk", "White Knight", chits={**chits, "F1": "wounded", "F5": "wounded",
                                                                "F7": "wounded"})], "denizens": []})
    wk = g.state.characters["wk"]
    assert {(o.fatigue, o.change, o.shortfall) for o in options(wk, 2, {"MOVE": 2, "FIGHT": 1})} == {
        (("F3",), "", 1), (("F6",), "", 1)}


def test_end_of_combat_after_two_quiet_rounds() -> None:
    # MR tables, End of combat: two consecutive rounds without harm, fatigue or spells end the combat.
    g = Game({"characters": [char("wk", "White Knight")], "denizens": []})
    for rnd in (1, 2):
        g.do(c.Act(character="wk", kind="none"))
        g.do(c.StartMelee())
        g.do(c.Target(character="wk"))
        g.do(c.Play(character="wk"))
        g.do(c.Resolve())
    assert g.state.ended and "two consecutive rounds" in g.state.end_reason
    with pytest.raises(IllegalCommand, match="ended"):
        g.do(c.StartMelee())


def test_wrong_turn_and_unknown_chit_append_nothing() -> None:
    g = Game({"characters": [char("wk", "White Knight"), char("bk", "Black Knight")], "denizens": []})
    before = g.folded.core.head_seq
    with pytest.raises(IllegalCommand):
        g.do(c.Play(character="wk"))  # wrong step
    g.do(c.Deploy(character="wk"))
    g.do(c.Deploy(character="bk"))
    with pytest.raises(InvalidCommand):
        g.do(c.Act(character="wk", kind="alert", chit="F99"))
    with pytest.raises(IllegalCommand, match="weaker"):
        g.do(c.Act(character="bk", kind="run", chit="M1"))  # MOVE M5 vs Heavy armor (MR 8.4.5)
    assert g.folded.core.head_seq == before + 2


def test_treachery_rebels_and_fame_loss() -> None:
    # MR 8.4.2 treachery: targeting his own hired native makes that native's hired group rebel and
    # costs fame equal to each rebel's notoriety bounty: two Lancers, notoriety 4 each: -8 fame.
    setup = {"characters": [char("am", "Amazon", fame=10, hirelings=[{"id": "l1", "native": "Lancer 1"},
                                                                     {"id": "l2", "native": "Lancer 2"}])],
             "denizens": []}
    g = Game(setup)
    g.do(c.Deploy(character="am"))
    g.do(c.Act(character="am", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="am", target="l1"))
    st = g.state
    assert st.denizens["l1"].rebel and st.denizens["l2"].rebel
    assert st.characters["am"].fame == (2, 1)


def test_kill_multiplier_orders_kills_by_notoriety() -> None:
    # MR tables, bounties: several kills by one character in one combat are ordered from the highest
    # notoriety; the n-th kill's fame and notoriety are multiplied by n.
    from combatlog.rulesets.magic_realm.bounty import credit
    from combatlog.rulesets.magic_realm.work import Work

    g = Game({"characters": [char("wk", "White Knight")],
              "denizens": [{"id": "gob", "monster": "Axe Goblin"}, {"id": "bat", "monster": "Giant Bat"}]})
    w = Work(g.state, 99)
    credit(w, [("gob", "wk", 0), ("bat", "wk", 0)])
    # Giant Bat (fame 3, notoriety 3) first: x1 -> 3/3; Axe Goblin (1, 1) second: x2 -> 2/2. Totals 5/5.
    st = w.freeze()
    assert st.characters["wk"].fame == (5, 1) and st.characters["wk"].notoriety == (5, 1)
    assert st.kills == {"wk": 2}


GIANT_ON_GUARD = {"first_round_of_day": True,
                  "characters": [char("amazon", "Amazon", hirelings=[{"id": "guard-hq", "native": "Guard HQ"}])],
                  "denizens": [{"id": "giant", "monster": "Giant"}], "assigned": {"giant": "guard-hq"}}


def test_8_4_2_heads_and_clubs_are_positioned_on_a_hirelings_sheet() -> None:
    # MR 8.4.2: "The character puts the hireling's target in the Maneuver boxes and puts the other attackers in
    # the Attack circles"; MR 001: players "distribute all denizens ... on the sheets of their minions". The Giant
    # (and so its club, MR 8.4.7 "its head or club") is assigned to the Amazon's Guard HQ: the Giant, its target,
    # goes in square 1, the club in circle 2; the Guard in red box 3.
    # Hand calculation (data: Giant light move 5, attack 5; club light H, time 6, length 8; Guard HQ light
    # move 5, H* time 5, length 8, armored, vulnerability H): repositioning (MR tables) target die 4: no change;
    # attackers die 1: "box 1 stays; 2 and 3 swap": the club goes 2 -> 3 (Smash). The club intercepts the Guard
    # in box 3 (Duck and Smash, MR 8.4.8) and H >= H kills him (MR 8.4.9). Placed in circle 1 (as before the
    # fix), die 1 leaves it in Thrust, which misses the Guard's duck (time 6 does not undercut 5).
    g = Game(GIANT_ON_GUARD)
    g.encounter(["amazon"])
    g.do(c.Target(character="amazon", hirelings={"guard-hq": "giant"}, positions={"giant": 1, "giant-club": 2}))
    g.do(c.Play(character="amazon", hirelings={"guard-hq": 3}, shield=1))
    g.do(c.Resolve(), {"r1/reposition/guard-hq/target": (4,), "r1/reposition/guard-hq/attackers": (1,),
                       "r1/tactics/guard-hq/circle3": (1, 1)})
    st = g.state
    assert st.last_melee.melee.positions["giant-club"] == ("guard-hq", "circle", 3)
    assert st.last_melee.melee.positions["giant"] == ("guard-hq", "square", 1)
    assert "giant-club (Giant Club) 2->3" in g.text()
    assert "giant-club (Giant Club) smash at time 6 on guard-hq (Guard HQ): intercepts duck" in g.text()
    assert not st.denizens["guard-hq"].alive


def test_8_4_7_a_hired_monsters_own_club_is_placed_with_its_plays_not_positioned() -> None:
    # MR 8.4.7 (hired Tremendous monsters: "their head or club can be played either side up"): the hired
    # Giant's own club is part of the defender, placed with --hireling-box; --position is for the attackers.
    setup = {"characters": [char("amazon", "Amazon", hirelings=[{"id": "hg", "monster": "Giant"}])],
             "denizens": [{"id": "goblin", "monster": "Axe Goblin"}], "assigned": {"goblin": "hg"}}
    g = Game(setup)
    g.encounter(["amazon"])
    with pytest.raises(IllegalCommand, match="cannot position hg-club"):
        g.do(c.Target(character="amazon", hirelings={"hg": "goblin"}, positions={"hg-club": 2}))
    g.do(c.Target(character="amazon", hirelings={"hg": "goblin"}, positions={"goblin": 2}))


def test_001_a_character_who_runs_away_pays_his_fatigue() -> None:
    # MR 001 Fatigue Step: "Each character pays for his fatigue and wounds"; MR 8.4.5: the effort limit
    # (and so fatigue) counts the chits played "per round of combat"; MR tables, Fatigue Step: "round
    # fatigue (+ running-away fatigue)". The Black Knight runs away with MOVE H4** (M5): 2 asterisks, less
    # the free one: he owes 1, paid with a MOVE * chit (M2 MOVE H5* or M4 MOVE M4*), though he left.
    g = Game({"characters": [char("wk", "White Knight"), char("bk", "Black Knight")], "denizens": []})
    g.do(c.Deploy(character="bk"))
    g.do(c.Deploy(character="wk"))
    g.do(c.Act(character="bk", kind="run", chit="M5"))
    g.do(c.Act(character="wk", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="wk"))
    g.do(c.Play(character="wk"))
    g.do(c.Resolve())
    st = g.state
    assert st.step == "fatigue" and st.owed == {"bk": 1, "wk": 0}
    (pending,) = g.folded.ruleset.pending(st)
    # (the set-up names no player for bk: the referee's or anyone's piece, "no player", not a player "bk")
    assert pending.who == "bk (no player)" and set(pending.options) == {"fatigue M2 MOVE H5*", "fatigue M4 MOVE M4*"}
    g.do(c.Fatigue(character="bk", fatigue=("M2",)))
    st = g.state
    assert st.round == 2 and next(ch for ch in st.characters["bk"].chits if ch.id == "M2").status == "fatigued"


def _everyone_runs(bk_chit: str) -> Game:
    g = Game({"characters": [char("wk", "White Knight"), char("bk", "Black Knight")],
              "denizens": [{"id": "giant", "monster": "Giant"}], "assigned": {"giant": "bk"}})
    g.do(c.Deploy(character="bk"))
    g.do(c.Deploy(character="wk"))
    g.do(c.Act(character="bk", kind="run", chit=bk_chit))
    g.do(c.Act(character="wk", kind="run", chit="M2"))  # M2 MOVE H6 (no asterisk)
    return g


def test_001_when_everyone_runs_away_the_combat_ends_without_a_melee_step() -> None:
    # MR 001 Encounter Step: "Only the characters, monsters, and natives in the clearing take part in combat";
    # Actions: "Characters who run or fly away leave the clearing immediately, and denizens attacking them
    # become unassigned"; MR 8.4.2: Attention chits are drawn by the characters in the clearing and those with
    # hirelings there, and "Unhired natives and monsters cannot target each other". Both knights run: nobody is
    # left, so no `mr melee` / `mr resolve`; the Fatigue Step still comes (MR 001), then the combat ends
    # (MR tables: End of combat, "no characters ... remain in the battle"). Hand calculation: the Black Knight
    # ran with MOVE H4** (M5): owes 2 - 1 = 1; the White Knight's MOVE H6 owes nothing.
    g = _everyone_runs("M5")
    st = g.state
    assert st.assigned == {} and st.step == "fatigue" and st.owed == {"bk": 1, "wk": 0}
    assert "nobody draws an Attention chit, there is no Melee Step" in g.text()
    with pytest.raises(IllegalCommand):
        g.do(c.StartMelee())
    g.do(c.Fatigue(character="bk", fatigue=("M4",)))  # M4 MOVE M4*
    st = g.state
    assert st.ended and st.step == "over" and st.end_reason == "no character takes part any more"
    assert st.round == 1 and st.melee is None and st.last_melee is None
    assert g.folded.ruleset.pending(st) == []


def test_001_when_everyone_runs_away_owing_nothing_the_combat_ends_at_once() -> None:
    # As above (MR 001, MR 8.4.2, MR tables: End of combat). Hand calculation: the Black Knight runs with
    # MOVE H5* (M2): 1 asterisk less the free one, owes 0; nobody owes fatigue, so the round and the combat
    # end with the last action.
    g = _everyone_runs("M2")
    st = g.state
    assert st.ended and st.end_reason == "no character takes part any more" and st.round == 1
    assert g.folded.ruleset.pending(st) == []
    with pytest.raises(IllegalCommand, match="ended"):
        g.do(c.StartMelee())


def test_001_a_runner_with_hirelings_in_the_clearing_still_takes_part() -> None:
    # MR 8.4.2: "the characters with hirelings in the clearing" draw Attention chits too: the Amazon runs, her
    # Guard HQ stays (the Giant attacks it), so the Melee Step is played.
    g = Game(GIANT_ON_GUARD)
    g.do(c.Act(character="amazon", kind="run", chit="M1"))
    st = g.state
    assert st.step == "actions" and not st.ended
    g.do(c.StartMelee())
    assert g.state.step == "targets" and g.state.attention == ("amazon",)


def test_the_last_fatigue_options_are_given_again_only_for_the_same_question() -> None:
    """``options`` gives its last answer again when asked of the same character object with the same asterisks
    (the fold of a payment and the decision that made it ask the same), and asks afresh otherwise: another
    need, other types played, another character, or a copy of the same one. Each answer is compared with a
    fresh ``legal_options``; the White Knight cases of the two tests above (hand calculations there)."""
    from combatlog.rulesets.magic_realm.fatigue import legal_options

    def same(a: list, b: list) -> bool:  # type: ignore[type-arg]
        return [(o.fatigue, o.change, o.shortfall) for o in a] == [(o.fatigue, o.change, o.shortfall) for o in b]

    over = _white_knight_over_the_effort_limit({"F1": "fatigued", "F5": "fatigued"}).state.characters["wk"]
    short = Game({"characters": [char("wk", "White Knight", chits={
        "M1": "fatigued", "M3": "fatigued", "M4": "fatigued", "F1": "fatigued", "F5": "fatigued",
        "F7": "fatigued"})], "denizens": []}).state.characters["wk"]
    questions = [(over, 2, {"MOVE": 2, "FIGHT": 1}), (over, 2, {"MOVE": 2, "FIGHT": 1}), (over, 1, {"MOVE": 2, "FIGHT": 1}),
                 (over, 1, {"MOVE": 2}), (short, 1, {"MOVE": 2}), (msgspec.structs.replace(short), 1, {"MOVE": 2}),
                 (short, 2, {"MOVE": 2, "FIGHT": 1})]
    answers = []
    for who, need, played in questions:
        answer = options(who, need, played)
        assert same(answer, legal_options(who, need, played)), (need, played)
        answer.clear()  # a reader that changes its list does not change the next answer
        answers.append(options(who, need, played))
        assert same(answers[-1], legal_options(who, need, played))
    assert not same(answers[0], answers[2]) and not same(answers[3], answers[4])  # the questions differ in answer
