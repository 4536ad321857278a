"""Surprise, initiative, the segment timeline and spells (seed 003 "combatSequence")."""

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.commands import parse_declaration as P
from combatlog.rulesets.osric.state import END, LATE, tick
from tests.rulesets.osric.osric_helpers import FIGHTER, MAGE, Fight, orc

ELF = {"name": "Ael", "side": "party", "class": "ranger", "level": 2, "hp": 14, "dex": 17, "armour": "leather",
       "weapons": ["long bow", "short sword"]}


def _surprise(party: int, orcs: int, combatants=None, alert=()) -> Fight:
    f = Fight(combatants or [FIGHTER, orc(1)])
    faces = {f"surprise/{s}": v for s, v in (("party", party), ("orcs", orcs)) if s not in alert}
    f.dice(c.CheckSurprise(alert=tuple(alert)), faces)
    return f


@pytest.mark.parametrize("roll, segments", [(1, 1), (2, 2), (3, 0), (4, 0), (5, 0), (6, 0)])
def test_surprise_each_result(roll: int, segments: int) -> None:
    # Seed "Determine Surprise": d6 per side; 1 -> surprised 1 segment, 2 -> 2 segments, 3-6 -> none.
    f = _surprise(roll, 6)
    assert f.state.surprised["Brom"] == segments
    assert f.state.surprised["orc1"] == 0
    assert f.state.surprise_len == segments
    assert f.state.phase == ("surprise" if segments else "setup")


def test_surprise_individual_dex_bonus_seed_example() -> None:
    # Seed "individualSurpriseBonus": the party rolls 2; a member with +2 (Dex 17) negates it and acts
    # normally; the rest stay surprised for 2 segments.
    f = _surprise(2, 5, [FIGHTER, ELF, orc(1)])
    assert f.state.surprised == {"Brom": 2, "Ael": 0, "orc1": 0}
    # reference 2.1: a negative bonus adds segments (Dex 5: -1 -> 3) but Dex never creates surprise.
    clumsy = {**FIGHTER, "name": "Clod", "dex": 5}
    f = _surprise(2, 5, [clumsy, orc(1)])
    assert f.state.surprised["Clod"] == 3
    f = _surprise(3, 5, [clumsy, orc(1)])
    assert f.state.surprised["Clod"] == 0


def test_monster_surprising_on_1_to_3() -> None:
    # Seed "advancedMonsterSurprise": a monster that surprises on 1-3, opposition rolls 3 -> 3 segments.
    f = _surprise(3, 6, [FIGHTER, orc(1, surprises_on=3)])
    assert f.state.surprised["Brom"] == 3 and f.state.surprise_len == 3


def test_alert_side_does_not_roll_and_never_surprised() -> None:
    # Seed "specialRules": an alerted side does not roll; some monsters cannot be surprised.
    f = _surprise(2, 0, [FIGHTER, orc(1)], alert=("orcs",))
    assert f.state.surprise_rolls == {"party": 2} and f.state.surprised["orc1"] == 0
    f = _surprise(2, 1, [FIGHTER, orc(1, never_surprised=True)])
    assert f.state.surprised["orc1"] == 0 and f.state.surprised["Brom"] == 2


def test_alert_side_acts_in_surprise_segments() -> None:
    # Seed "combatFlow": the alert side acts during the surprise segments; the surprised side does not.
    f = _surprise(2, 5, [FIGHTER, {**MAGE, "dex": 16}, orc(1)])
    f.dice(c.Engage(a="Brom", b="orc1"), {})
    with pytest.raises(IllegalCommand, match="surprised in segment 1"):
        f.dice(c.Attack(who="Brom"), {"r0/Brom/atk1": 20})
    # orc1 (level 2, B 19) vs Brom AC 4 needs 15: a 15 hits; 1d8 -> 3.
    f.dice(c.Attack(who="orc1"), {"r0/orc1/atk1": 15, "r0/orc1/atk1/dmg": 3})
    assert f.hp("Brom") == 7
    # Halvaine (Dex 16, +1) is surprised only in segment 1: she may act in segment 2.
    f.dice(c.ReachSegment(segment=2), {})
    f.dice(c.NoteAction(who="Halvaine", text="shouts a warning"), {})
    with pytest.raises(IllegalCommand, match="surprised in segment 2"):
        f.dice(c.NoteAction(who="Brom", text="draws"), {})


def _round(f: Fight, party: int, orcs: int, party_decl=("Brom=melee",), orc_rest="melee") -> None:
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="party", declarations=tuple(P(x) for x in party_decl)), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest=orc_rest), {})
    f.dice(c.RollInitiative(), {"r%d/initiative/party" % f.state.round: party,
                                "r%d/initiative/orcs" % f.state.round: orcs})


def test_initiative_seed_example_party_6_monsters_1() -> None:
    # Seed "Determine Initiative" example: the party rolls 6 and the monsters 1: the party acts in
    # segment 1, the monsters not until segment 6 (the higher roll is better; reference 2.5 pitfall).
    f = Fight([FIGHTER, orc(1)], engaged=[["Brom", "orc1"]])
    _round(f, 6, 1)
    sched = {x["who"]: x["segment"] for x in __import__("combatlog.rulesets.osric.views", fromlist=["x"]).schedule(
        f.state)}
    assert sched == {"Brom": 1, "orc1": 6}
    # Seed steps 4-5 ("First Party Acts", then "Second Party Acts"): the monsters' segment-6 blow is
    # refused while Brom's segment-1 action is due, naming him; the timeline does not move.
    with pytest.raises(IllegalCommand, match=r"Brom \(party\) must act first, in segment 1") as refused:
        f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})
    assert refused.value.rule == "OSRIC Combat: First Party Acts" and f.state.cursor < tick(1, 1, LATE)
    # If Brom takes no action, the referee moves the timeline past segment 1; his action is then past.
    f.dice(c.ReachSegment(segment=1, end=True), {})
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})
    with pytest.raises(IllegalCommand, match="timeline has reached segment 6"):
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})


def test_declarations_must_precede_initiative_and_bind_casters() -> None:
    # Seed step 2: declarations come before initiative; a caster may decline but not switch.
    f = Fight([FIGHTER, MAGE, orc(1)], engaged=[["Brom", "orc1"]])
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="party", declarations=(P("Brom=melee"), P("Halvaine=spell:sleep:1"))), {})
    with pytest.raises(IllegalCommand, match="must declare first"):
        f.dice(c.RollInitiative(), {"r1/initiative/party": 3, "r1/initiative/orcs": 3})
    f.dice(c.Declare(side="orcs", declarations=(), rest="melee"), {})
    f.dice(c.RollInitiative(), {"r1/initiative/party": 3, "r1/initiative/orcs": 4})
    with pytest.raises(IllegalCommand, match="declared sleep"):
        f.dice(c.Cast(who="Halvaine", spell="magic missile"), {})
    with pytest.raises(IllegalCommand, match="not open"):
        f.dice(c.NoteAction(who="Halvaine", text="throws a dagger") if False else c.Attack(who="Halvaine"), {})
    f.dice(c.Decline(who="Halvaine"), {})
    with pytest.raises(IllegalCommand):
        f.dice(c.Cast(who="Halvaine"), {})


def _halvaine(option: str) -> Fight:
    # Seed "exampleScenario": Halvaine declares a 2-segment spell; the party rolls 5, the orcs 4:
    # Halvaine begins casting in segment 4 and the orcs act in segment 5.
    f = Fight([{**MAGE, "hp": 6}, orc(1)], options={"spell_timing": option}, engaged=[["Halvaine", "orc1"]])
    _round(f, 5, 4, party_decl=("Halvaine=spell:web:2",))
    f.dice(c.Cast(who="Halvaine"), {})
    return f


@pytest.mark.parametrize("option, goes_off", [("first_segment", tick(1, 5, END)), ("halvaine", tick(1, 6))])
def test_halvaine_example_uninterrupted(option: str, goes_off: int) -> None:
    # first_segment: segment 4 is the first casting segment, so 2 segments end with segment 5.
    # halvaine: the example's own count, 4 + 2 = segment 6.
    f = _halvaine(option)
    cast = f.state.live["Halvaine"].casting
    assert cast.start == tick(1, 4) and cast.complete == goes_off
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 3})  # segment 5: a miss (needs 19 - 8 = 11)
    assert f.state.live["Halvaine"].casting.status == "casting"
    f.dice(c.ReachSegment(segment=6), {})
    assert f.state.live["Halvaine"].casting.status == "done"
    went = [x for x in f.state.log if "s web goes off" in x.text][0]
    assert went.segment == (5 if option == "first_segment" else 6)


@pytest.mark.parametrize("option", ["first_segment", "halvaine"])
def test_halvaine_example_caster_hit_in_segment_5_loses_spell(option: str) -> None:
    # Seed: "if uninterrupted, the spell goes off in segment 6. Meanwhile, the monsters act during
    # segment 5": a hit in segment 5 lands while Halvaine is casting, under either reading.
    # orc1 (B 19) vs Halvaine AC 8 -> 10 while casting (no Dex bonus, seed "Spells"): needs 9; 12 hits.
    f = _halvaine(option)
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 12, "r1/orc1/atk1/dmg": 2})
    assert f.hp("Halvaine") == 4
    assert f.state.live["Halvaine"].casting.status == "lost"
    assert any("needs 9" in t for t in f.texts())


@pytest.mark.parametrize("option, orc_may_act", [("first_segment", False), ("halvaine", True)])
def test_spell_timing_against_actions_in_the_completion_segment(option: str, orc_may_act: bool) -> None:
    # The options differ for whoever acts in the segment after the casting segments: party rolls 6
    # (orcs act in 6), orcs roll 4 (Halvaine casts in 4). first_segment: the spell lands at the end of
    # segment 5, before the orcs; halvaine: it lands in segment 6, simultaneously with them.
    f = Fight([MAGE, orc(1)], options={"spell_timing": option}, engaged=[["Halvaine", "orc1"]])
    _round(f, 6, 4, party_decl=("Halvaine=spell:sleep:2",))
    f.dice(c.Cast(who="Halvaine"), {})
    f.dice(c.ReachSegment(segment=5, end=True) if option == "first_segment" else c.ReachSegment(segment=6), {})
    assert f.state.live["Halvaine"].casting.status == "done"
    f.dice(c.SetCondition(who="orc1", condition="sleeping", reason="sleep"), {})
    if orc_may_act:
        f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 1})
    else:
        with pytest.raises(IllegalCommand, match="sleeping"):
            f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 1})


OGRE = {"name": "ogre", "side": "orcs", "hd": "4+1", "hp": 3, "ac": 5, "size": "L",
        "attacks": [{"name": "club", "damage": "3d6"}]}


def test_simultaneous_initiative_mutual_destruction() -> None:
    # Seed "tieResolution": on a tie both sides act simultaneously; damage lands even if one dies,
    # so mutual destruction is possible. Brom (1 hp) and the ogre (3 hp) both roll 3.
    # Brom (B 20) vs AC 5 needs 15: 15 hits, long sword vs L 1d12 -> 5: the ogre is slain (monsters die at 0).
    # The ogre (4+1 HD = level 6, B 15) vs Brom AC 4 needs 11: 12 hits, 3d6 -> 11: Brom 1 -> -10, dead.
    f = Fight([{**FIGHTER, "hp": 1, "max_hp": 10}, OGRE], engaged=[["Brom", "ogre"]])
    _round(f, 3, 3)
    f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 5})
    assert f.state.live["ogre"].dead
    f.dice(c.Attack(who="ogre", target="Brom"), {"r1/ogre/atk1": 12, "r1/ogre/atk1/dmg": (3, 4, 4)})
    assert f.state.live["Brom"].dead and f.hp("Brom") == -10


def test_no_simultaneity_without_a_tie() -> None:
    # Control: party 3, orcs 2 -> Brom acts in segment 2, the ogre in 3; the slain ogre never acts.
    f = Fight([FIGHTER, OGRE], engaged=[["Brom", "ogre"]])
    _round(f, 3, 2)
    f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 5})
    with pytest.raises(IllegalCommand, match="cannot act"):
        f.dice(c.Attack(who="ogre"), {"r1/ogre/atk1": 12})


def test_extra_routine_only_after_the_other_sides_segment() -> None:
    # Seed "multipleAttackRoutines": a 7th-level fighter (3/2: 2 attacks in odd rounds) acts in segment 2
    # (orcs rolled 2); his second routine "cannot be used until after the opposing side's initiative
    # segment has been resolved": orc1 acts in segment 5 (the party rolled 5). Logged early, it is
    # refused with that rule and the timeline stays in segment 2, so orc1's attack in segment 5 still
    # stands; after it, the routine falls after the orcs' actions in segment 5 (late).
    # Rolls of 2 miss (Wulf B 14 vs AC 6 needs 8; orc1 B 19 vs AC 4 needs 15): no damage dice.
    wulf = {**FIGHTER, "name": "Wulf", "level": 7, "hp": 40}
    f = Fight([wulf, orc(1, hp=30)], engaged=[["Wulf", "orc1"]])
    _round(f, 5, 2, party_decl=("Wulf=melee",))
    f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk1": 2})
    with pytest.raises(IllegalCommand, match="orc1 still to act") as err:
        f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk2": 2})
    assert err.value.rule == "OSRIC Combat: Determine Initiative (multiple attack routines)"
    assert f.state.cursor == tick(1, 2) and f.state.live["Wulf"].routines == 1
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})  # refused before the fix: the timeline had jumped
    out = f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk2": 2})
    ev = out.events[-1].event
    assert (ev.segment, ev.late, ev.routine) == (5, True, 2)
    with pytest.raises(IllegalCommand, match="attack routine"):
        f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk3": 2})
    assert f.state.cursor == tick(1, 5, LATE)


def test_extra_routine_refused_even_at_a_later_named_segment_until_resolved() -> None:
    # Seed "multipleAttackRoutines": naming a later segment does not get round the rule (it would jump
    # the timeline past orc1's segment 5 just the same). When the orcs take no action, the referee moves
    # the timeline past their segment (segment 5 --end); the routine then falls at the timeline's
    # present, the next segment (Decision, docs/osric.md). Same fighters and misses as above.
    wulf = {**FIGHTER, "name": "Wulf", "level": 7, "hp": 40}
    f = Fight([wulf, orc(1, hp=30)], engaged=[["Wulf", "orc1"]])
    _round(f, 5, 2, party_decl=("Wulf=melee",))
    f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk1": 2})
    with pytest.raises(IllegalCommand, match="segment 5"):
        f.dice(c.Attack(who="Wulf", segment=7), {"r1/Wulf/atk2": 2})
    f.dice(c.ReachSegment(segment=5, end=True), {})
    out = f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk2": 2})
    ev = out.events[-1].event
    assert (ev.segment, ev.late, ev.routine) == (6, False, 2)


def test_missile_bonus_to_initiative() -> None:
    # Seed "missileBonus": a missile user adds the missile bonus to initiative. Party 3, orcs 4:
    # the party acts in 4, the orcs in 3; Ael (Dex 17, +2) with a bow in hand acts in 4 - 2 = 2,
    # before the orcs, although his side lost.
    f = Fight([FIGHTER, ELF, orc(1)], engaged=[["Brom", "orc1"]])
    _round(f, 3, 4, party_decl=("Brom=melee", "Ael=missile"))
    from combatlog.rulesets.osric.views import schedule

    assert {x["who"]: x["segment"] for x in schedule(f.state)} == {"Ael": 2, "orc1": 3, "Brom": 4}


def _holding() -> Fight:
    # Party 5, orcs 2: the party acts in segment 2, the orcs in segment 5. Brom holds initiative;
    # Cade fights orc2 in the party's segment 2. Rolls of 2 miss (B 14 vs AC 6 needs 8; the orcs'
    # B 19 vs AC 4 needs 15): no damage dice.
    f = Fight([FIGHTER, {**FIGHTER, "name": "Cade"}, orc(1), orc(2)], engaged=[["Brom", "orc1"], ["Cade", "orc2"]])
    _round(f, 5, 2, party_decl=("Brom=hold", "Cade=melee"))
    f.dice(c.Attack(who="Cade"), {"r1/Cade/atk1": 2})
    return f


def test_a_holder_waits_for_the_other_sides_segment() -> None:
    # Seed 003 "Hold Initiative": "the character waits until the other side's initiative segment has been
    # resolved before taking any action." Before the fix Brom's attack went in at "segment 5, late"
    # ahead of orc1 and orc2, and their own segment-5 attacks were then refused (the timeline had
    # reached segment 5). Refused, the timeline stays in segment 2.
    f = _holding()
    with pytest.raises(IllegalCommand, match="orc1, orc2 still to act") as err:
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})
    assert err.value.rule == "OSRIC Combat: Hold Initiative"
    assert f.state.cursor == tick(1, 2) and f.state.live["Brom"].routines == 0
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})
    with pytest.raises(IllegalCommand, match="orc2 still to act"):
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})
    out = f.dice(c.Attack(who="orc2"), {"r1/orc2/atk1": 2})
    assert (out.events[-1].event.segment, out.events[-1].event.late) == (5, False)
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})
    ev = out.events[-1].event
    assert (ev.segment, ev.late) == (5, True)  # after the orcs' segment 5
    assert f.state.cursor == tick(1, 5, LATE)


def test_a_holder_acts_at_the_present_once_the_orcs_segment_is_ended() -> None:
    # The orcs take no action: the referee ends their segment (segment 5 --end), which resolves it;
    # the held action then falls at the timeline's present, segment 6 (Decision, docs/osric.md).
    f = _holding()
    f.dice(c.ReachSegment(segment=5, end=True), {})
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})
    ev = out.events[-1].event
    assert (ev.segment, ev.late) == (6, False)


def _ogre_fight() -> Fight:
    # Party 5, orcs 2: each roll is the segment the OTHER side acts in (seed "Determine Initiative"),
    # so the party acts in segment 2 and the orcs in segment 5.
    brom = {k: v for k, v in FIGHTER.items() if k != "shield"}  # mail alone: AC 5
    ogre = {**OGRE, "hp": 20, "size": "M", "attacks": [{"name": "club", "damage": "1d10"}]}
    f = Fight([brom, ogre], engaged=[["Brom", "ogre"]])
    _round(f, 5, 2)
    return f


def _pending(f: Fight) -> list[str]:
    from combatlog.rulesets.osric.views import pending

    return [f"{p.who}: {p.what}" for p in pending(f.state)]


def test_the_winners_act_before_the_losers() -> None:
    # Seed steps 4 "First Party Acts" and 5 "Second Party Acts" (reference 2.1 "side that won acts ->
    # side that lost acts"): the ogre's segment-5 blow is refused while Brom's segment-2 action is due,
    # naming Brom, and the timeline stays where it is. status lists Brom as the next actor, not the ogre.
    f = _ogre_fight()
    assert _pending(f)[:-1] == ["Brom: melee in segment 2 (next attack die r1/Brom/atk1)"]
    with pytest.raises(IllegalCommand, match=r"ogre's action falls in segment 5, but Brom \(party\) must act "
                                             r"first, in segment 2") as refused:
        f.dice(c.Attack(who="ogre"), {"r1/ogre/atk1": 17, "r1/ogre/atk1/dmg": 10})
    assert refused.value.rule == "OSRIC Combat: First Party Acts"
    assert f.state.cursor < tick(1, 2) and f.hp("Brom") == 10
    # Brom (fighter 1, B 20) vs AC 5 needs 15: 15 hits, 1d8 -> 5: ogre 20 -> 15.
    f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 5})
    assert f.hp("ogre") == 15
    assert _pending(f)[:-1] == ["ogre: melee in segment 5 (next attack die r1/ogre/atk1)"]
    # The ogre (4+1 HD = level 6, B 15) vs Brom AC 5 needs 10: 17 hits, 1d10 -> 10: Brom 10 -> 0.
    out = f.dice(c.Attack(who="ogre"), {"r1/ogre/atk1": 17, "r1/ogre/atk1/dmg": 10})
    assert out.events[-1].event.segment == 5 and f.hp("Brom") == 0
    assert _pending(f) == ["gm: end round 1 (osric end-round) when every action is resolved"]


def test_an_earlier_member_of_ones_own_side_acts_first() -> None:
    # Seed "missileBonus": party 3, orcs 4; Ael (Dex 17, +2) with a bow acts in 4 - 2 = 2, orc1 in 3,
    # Brom in 4. Brom's segment-4 blow waits for Ael (his own side: the rule cited is Determine
    # Initiative) and for orc1; ending segment 2 without Ael's shot lets orc1, then Brom, act.
    # orc1 (B 19) vs Brom AC 4 needs 15 and Brom (B 20) vs AC 6 needs 14: rolls of 2 miss.
    f = Fight([FIGHTER, ELF, orc(1)], engaged=[["Brom", "orc1"]])
    _round(f, 3, 4, party_decl=("Brom=melee", "Ael=missile"))
    with pytest.raises(IllegalCommand, match=r"but Ael \(party\) must act first, in segment 2") as refused:
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})
    assert refused.value.rule == "OSRIC Combat: Determine Initiative"
    f.dice(c.ReachSegment(segment=2, end=True), {})
    with pytest.raises(IllegalCommand, match=r"but orc1 \(orcs\) must act first, in segment 3"):
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2})
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})
    assert f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 2}).events[-1].event.segment == 4


def test_status_lists_the_attack_routines_still_due() -> None:
    # reference 2.4 "Against creatures below 1 HD: attacks = level": a 3rd-level fighter has 3 routines
    # against a 1/2 HD kobold; seed "multipleAttackRoutines": the 2nd and 3rd only after the kobold's
    # segment. Tie 4-4: both act in segment 4. F (B 18) vs AC 7 needs 11 and k (B 21, level 0) vs AC 10
    # needs 11: rolls of 2 miss, no damage dice.
    fighter = {"name": "F", "side": "party", "class": "fighter", "level": 3, "hp": 20, "weapons": ["long sword"]}
    kobold = {"name": "k", "side": "orcs", "hd": "1/2", "hp": 50, "ac": 7, "weapons": ["club"]}
    f = Fight([fighter, kobold], engaged=[["F", "k"]])
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="party", declarations=(), rest="melee"), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest="melee"), {})
    f.dice(c.RollInitiative(), {"r1/initiative/party": 4, "r1/initiative/orcs": 4})
    f.dice(c.Attack(who="F"), {"r1/F/atk1": 2})
    assert [x for x in _pending(f) if x.startswith("F")] == []  # k's segment is not resolved yet
    f.dice(c.Attack(who="k"), {"r1/k/atk1": 2})
    assert _pending(f)[:-1] == ["F: may attack again from segment 4+: routine 2 of 3 (next attack die r1/F/atk2)"]
    f.dice(c.Attack(who="F"), {"r1/F/atk2": 2})
    assert _pending(f)[:-1] == ["F: may attack again from segment 4+: routine 3 of 3 (next attack die r1/F/atk3)"]
    f.dice(c.Attack(who="F"), {"r1/F/atk3": 2})
    assert _pending(f)[:-1] == []


def test_status_lists_a_7th_level_fighters_second_attack() -> None:
    # reference 2.4: fighters of level 7-12 attack 3/2, the half attack in odd rounds: 2 routines in
    # round 1. Same fight as test_extra_routine_only_after_the_other_sides_segment (rolls of 2 miss).
    wulf = {**FIGHTER, "name": "Wulf", "level": 7, "hp": 40}
    f = Fight([wulf, orc(1, hp=30)], engaged=[["Wulf", "orc1"]])
    _round(f, 5, 2, party_decl=("Wulf=melee",))
    f.dice(c.Attack(who="Wulf"), {"r1/Wulf/atk1": 2})
    assert _pending(f)[:-1] == ["orc1: melee in segment 5 (next attack die r1/orc1/atk1)"]
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})
    assert _pending(f)[:-1] == ["Wulf: may attack again from segment 5+: routine 2 of 2 (next attack die r1/Wulf/atk2)"]


def test_status_lists_a_held_action_once_the_other_sides_segment_is_resolved() -> None:
    # Seed "Hold Initiative" (same fight as _holding: the party acts in segment 2, the orcs in 5; Brom
    # holds, Cade has attacked): status leaves Brom out while orc1 and orc2 are due in segment 5, then
    # offers his held action after them (5+); once segment 5 is ended, it falls in segment 6.
    f = _holding()
    assert _pending(f)[:-1] == ["orc1: melee in segment 5 (next attack die r1/orc1/atk1)",
                                "orc2: melee in segment 5 (next attack die r1/orc2/atk1)"]
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 2})
    f.dice(c.Attack(who="orc2"), {"r1/orc2/atk1": 2})
    assert _pending(f)[:-1] == ["Brom: hold: may act from segment 5+ (next attack die r1/Brom/atk1)"]
    f.dice(c.ReachSegment(segment=5, end=True), {})
    assert _pending(f)[:-1] == ["Brom: hold: may act from segment 6 (next attack die r1/Brom/atk1)"]


def test_status_offers_no_second_routine_to_a_set_spear() -> None:
    # Seed "Set Weapon Against Charge": a set weapon "may not initiate an attack"; its strike at the
    # charger is its only one, so a 7th-level fighter's 3/2 second routine (reference 2.4) is not offered.
    # Tie 3-3. Tam (B 14) vs the charging ogre AC 5 + 1 (it has no Dex bonus) needs 8: 2 misses; the ogre
    # (4+1 HD = level 6, B 15) vs Tam AC 4 needs 11: 2 + 2 charging misses.
    tam = {**FIGHTER, "name": "Tam", "level": 7, "hp": 40, "weapons": ["spear"]}
    ogre = {**OGRE, "hp": 20}
    f = Fight([tam, ogre])
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="party", declarations=(P("Tam=set"),)), {})
    f.dice(c.Declare(side="orcs", declarations=(P("ogre=charge@Tam"),)), {})
    f.dice(c.RollInitiative(), {"r1/initiative/party": 3, "r1/initiative/orcs": 3})
    f.dice(c.Charge(who="ogre", target="Tam"), {"r1/Tam/atk1": 2, "r1/ogre/atk1": 2})
    assert f.state.live["Tam"].routines == 1
    assert _pending(f) == ["gm: end round 1 (osric end-round) when every action is resolved"]


def test_moving_past_a_surprise_segment_passes_the_unsurprised_who_have_not_acted() -> None:
    # Seed "Determine Surprise": the party rolls 2 (surprised 2 segments), the orcs 5: in each surprise
    # segment the unsurprised orc may act. A step that moves on before it has (osric segment 2, or
    # osric round) forgoes that: commands/authority asks its side's players or the referee (found by an
    # exploratory test: the surprised side's player ran `osric round` and wiped out the orcs' free segments).
    from combatlog.rulesets.osric.authority import authority

    f = Fight([FIGHTER, orc(1)], engaged=[["Brom", "orc1"]])
    f.dice(c.CheckSurprise(), {"surprise/party": 2, "surprise/orcs": 5})
    st = f.state
    for step in (c.StartRound(), c.ReachSegment(segment=2)):
        need = authority(st, step)
        assert need.kind == "pieces" and need.referee_too and [p for p, _ in need.owners] == ["orc1"], need
    f.do(c.Attack(who="orc1"), r0__orc1__atk1=1)  # the orc takes its free segment (a miss: face 1)
    assert authority(f.state, c.ReachSegment(segment=2)).kind == "anyone"


def test_moving_past_a_due_declared_action_passes_it_but_not_past_one_taken() -> None:
    # Seed "First Party Acts": the party rolled 5, the orcs 2, so the party acts in segment 2, the orcs in 5.
    from combatlog.rulesets.osric.authority import authority

    f = Fight([FIGHTER, orc(1)], engaged=[["Brom", "orc1"]])
    f.do(c.StartRound())
    f.do(c.Declare(side="party", declarations=(P("Brom=melee"),)))
    f.do(c.Declare(side="orcs", declarations=(P("orc1=melee"),)))
    f.dice(c.RollInitiative(), {"r1/initiative/party": 5, "r1/initiative/orcs": 2})
    assert [p for p, _ in authority(f.state, c.ReachSegment(segment=2, end=True)).owners] == ["Brom"]
    assert [p for p, _ in authority(f.state, c.EndRound()).owners] == ["Brom", "orc1"]
    assert authority(f.state, c.ReachSegment(segment=2)).kind == "anyone"  # to its start: nothing passed
    f.do(c.Attack(who="Brom"), r1__Brom__atk1=1)
    assert [p for p, _ in authority(f.state, c.EndRound()).owners] == ["orc1"]
