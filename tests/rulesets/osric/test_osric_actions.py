"""Combat actions and modifiers (seed 003 "combatActions"), damage and death, morale (reference 2.4)."""

import pytest

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.commands import parse_declaration as P
from tests.rulesets.osric.osric_helpers import FIGHTER, MAGE, Fight, orc
from tests.rulesets.osric.test_osric_timing import _round

TAM = {"name": "Tam", "side": "party", "class": "fighter", "level": 1, "hp": 9, "armour": "mail", "shield": "medium",
       "weapons": ["spear", "long sword"]}
OGRE = {"name": "ogre", "side": "orcs", "hd": "4+1", "hp": 12, "ac": 5, "size": "L",
        "attacks": [{"name": "club", "damage": "2d6"}]}


def test_set_spear_against_a_charge_double_damage_then_charger_attacks() -> None:
    # Seed "Set Weapon Against Charge": a set spear strikes the charger first for double damage;
    # "Charge": the charger, if it survives, attacks at +2.
    # Tam (B 20) vs ogre AC 5 needs 15: 16 hits; spear vs L is 1d8 -> 5, doubled 10: ogre 12 -> 2.
    # Ogre (4+1 HD -> level 6, B 15) vs Tam AC 4 needs 11: 9 + 2 = 11 hits; 2d6 -> 3+3 = 6: Tam 9 -> 3.
    f = Fight([TAM, OGRE])
    _round(f, 2, 5, party_decl=("Tam=set",), orc_rest="charge")
    out = f.dice(c.Charge(who="ogre", target="Tam"), {"r1/Tam/atk1": 16, "r1/Tam/atk1/dmg": 5,
                                                        "r1/ogre/atk1": 9, "r1/ogre/atk1/dmg": (3, 3)})
    kinds = [r.event.kind for r in out.events if r.event.__class__.__name__ == "AttackRolled"]
    assert kinds == ["counter", "charge"]
    assert f.hp("ogre") == 2 and f.hp("Tam") == 3
    assert any("doubled to 10" in t for t in f.texts())
    # the set weapon cannot attack on its own
    with pytest.raises(IllegalCommand, match="declared set"):
        f.dice(c.Attack(who="Tam"), {"r1/Tam/atk2": 20})


def test_set_weapon_double_damage_with_strength_states_its_reading_in_the_citation() -> None:
    # Seed "Set Weapon Against Charge" says only "double damage"; its mounted lance rule doubles "only the
    # weapon damage". The reading used (the lance's) must be in the citation explain shows, not only in
    # docs/osric.md: Tam with Str 17 (+1 damage) sets his spear; 1d8 vs L -> 6, doubled to 12, +1 = 13.
    from combatlog.rulesets.osric import rules as r
    from combatlog.rulesets.osric.ruleset import Osric

    f = Fight([{**TAM, "str": "17"}, OGRE])
    _round(f, 2, 5, party_decl=("Tam=set",), orc_rest="charge")
    before = f.state
    out = f.dice(c.Charge(who="ogre", target="Tam"), {"r1/Tam/atk1": 16, "r1/Tam/atk1/dmg": 6})
    state, steps = before, []
    for rec in out.events:  # what `combatlog explain` prints for these events
        after = Osric().evolve(state, rec.event, rec.seq)
        steps += Osric().explain(state, rec.event, after, rec.seq)
        state = after
    damage = [x for x in steps if "doubled to 12" in x.text]
    assert len(damage) == 1 and damage[0].text.endswith("doubled to 12 +1 (strength/magic/specialisation) = 13")
    assert damage[0].rule == r.SET_DOUBLED
    assert damage[0].rule.startswith("OSRIC Combat: Set Weapon Against Charge (read as for a mounted lance")
    assert "only the weapon dice are doubled" in damage[0].rule and "6 doubled to 12 +1 = 13" in damage[0].rule
    assert f.hp("ogre") == 12 - 13


def test_charger_slain_by_set_spear_does_not_attack() -> None:
    # Seed "Charge": "Provided the charging character survives" it attacks. 8 doubled = 16 >= 12 hp.
    f = Fight([TAM, OGRE])
    _round(f, 2, 5, party_decl=("Tam=set",), orc_rest="charge")
    out = f.dice(c.Charge(who="ogre", target="Tam"), {"r1/Tam/atk1": 16, "r1/Tam/atk1/dmg": 8})
    assert f.state.live["ogre"].dead
    assert [r.event.attacker for r in out.events if hasattr(r.event, "attacker")] == ["Tam"]


def test_charge_once_per_ten_rounds_and_ac_penalty() -> None:
    # Seed "Charge": once every 10 rounds; the charger gains no Dex bonus (none: AC 1 worse).
    f = Fight([FIGHTER, orc(1, hp=30)])
    _round(f, 5, 2, party_decl=("Brom=charge@orc1",))
    f.dice(c.Charge(who="Brom", target="orc1"), {"r1/Brom/atk1": 1})
    # orc1 (B 19) vs Brom AC 4 + 1 = 5 needs 14: a 14 hits only because of the charge penalty.
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 14, "r1/orc1/atk1/dmg": 1})
    assert f.hp("Brom") == 9
    f.dice(c.Engage(a="Brom", b="orc1", off=True), {})
    f.dice(c.EndRound(), {})
    f.dice(c.StartRound(), {})
    with pytest.raises(IllegalCommand, match="once every 10 rounds"):
        f.dice(c.Declare(side="party", declarations=(P("Brom=charge"),)), {})


def test_impossible_charges_are_refused_at_declaration() -> None:
    # Seed "Charge": "Charging into combat allows an attacker to move and then attack"; the charge "must
    # end within 10 ft melee range of the target"; seed "Closing into Combat": closing (or charging) is
    # for opponents "not within 10 ft range"; seeds "Fighting Retreat" and "Fleeing from Combat" are the
    # ways out of a melee. Brom is engaged with orc1; orc2 is dead (a monster dies at 0 hp).
    f = Fight([FIGHTER, TAM, orc(1), orc(2, hp=3), orc(3)], engaged=[["Brom", "orc1"]])
    f.dice(c.Damage(who="orc2", amount="5"), {})
    f.dice(c.StartRound(), {})
    cases = [
        ("Brom=charge@orc1", "already within 10 ft of orc1"),  # already engaged with the target
        ("Brom=charge@orc3", "in melee with orc1"),  # cannot charge out of a melee
        ("Brom=overbear", "in melee with orc1"),  # an overbearing attack ends a charge
        ("Tam=charge@Brom", "same side"),
        ("Tam=charge@orc2", "out of the fight"),
    ]
    for decl, why in cases:
        with pytest.raises(IllegalCommand, match=why) as err:
            f.dice(c.Declare(side="party", declarations=(P(decl),), rest="melee"), {})
        assert err.value.rule == "OSRIC Combat: Charge", decl
    assert "party" not in f.state.declared  # nothing was recorded
    f.dice(c.Declare(side="party", declarations=(P("Brom=melee"), P("Tam=charge@orc3"))), {})
    assert [d.action for d in f.state.declared["party"]] == ["melee", "charge"]


def test_charge_that_became_impossible_is_refused_when_made() -> None:
    # The same rules when the charge is made: Tam declared a charge at orc3 (legal then), but orc3 closed
    # with him in segment 2 (party rolled 2: the orcs act in 2; orcs rolled 5: the party in 5), so in
    # segment 5 Tam is already within 10 ft of orc3 (seed "Closing into Combat", "Charge").
    f = Fight([FIGHTER, TAM, orc(1), orc(3)], engaged=[["Brom", "orc1"]])
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="party", declarations=(P("Brom=melee"), P("Tam=charge@orc3"))), {})
    f.dice(c.Declare(side="orcs", declarations=(P("orc1=melee"), P("orc3=close@Tam"))), {})
    f.dice(c.RollInitiative(), {"r1/initiative/party": 2, "r1/initiative/orcs": 5})
    f.dice(c.Close(who="orc3", target="Tam"), {})
    with pytest.raises(IllegalCommand, match="already within 10 ft of orc3") as err:
        f.dice(c.Charge(who="Tam", target="orc3"), {"r1/Tam/atk1": 20})
    assert err.value.rule == "OSRIC Combat: Charge"


def test_fleeing_gives_each_opponent_a_free_attack_at_plus_4() -> None:
    # Seed "Fleeing from Combat": opponents make an immediate extra attack at +4.
    # Brom (B 20, Str none) vs orc AC 6 needs 14: 10 + 4 = 14 hits; 1d8 -> 3: orc1 7 -> 4.
    # Tam vs AC 6 needs 14: 9 + 4 = 13 misses. orc1 then flees the combat.
    f = Fight([FIGHTER, TAM, orc(1, hp=7)], engaged=[["Brom", "orc1"], ["Tam", "orc1"]])
    _round(f, 2, 5, party_decl=("Brom=melee", "Tam=melee"), orc_rest="flee")
    out = f.dice(c.Flee(who="orc1"), {"r1/Brom/atk1": 10, "r1/Brom/atk1/dmg": 3, "r1/Tam/atk1": 9})
    frees = [r.event for r in out.events if r.event.__class__.__name__ == "AttackRolled"]
    assert [(x.attacker, x.kind, x.routine) for x in frees] == [("Brom", "free", 0), ("Tam", "free", 0)]
    assert f.hp("orc1") == 4 and f.state.live["orc1"].out == "fled"
    assert f.state.opponents_engaged("Brom") == []
    # the free attack is outside the routines: Brom still has his own attack this round (none engaged now)
    assert f.state.live["Brom"].routines == 0


def test_missile_into_melee_random_target_among_all_participants() -> None:
    # Seed "Missile Attacks": against opponents in melee the target is random among all participants,
    # so the archer may hit an ally. Melee: Brom-orc1, Tam-orc1 -> participants Brom, Tam, orc1 (d3).
    archer = {"name": "Ael", "side": "party", "class": "ranger", "level": 2, "hp": 9, "dex": 17,
              "weapons": ["short bow"]}
    f = Fight([FIGHTER, TAM, archer, orc(1)], engaged=[["Brom", "orc1"], ["Tam", "orc1"]])
    _round(f, 4, 3, party_decl=("Brom=melee", "Tam=melee", "Ael=missile"))
    # d3 = 1 -> Brom. Ael (B 19) vs Brom AC 4 needs 15: 13 + 2 (Dex) = 15 hits; 1d6 -> 4.
    f.dice(c.Shoot(who="Ael", target="orc1", range=20), {"r1/Ael/atk1/target": 1, "r1/Ael/atk1": 13,
                                                          "r1/Ael/atk1/dmg": 4})
    assert f.hp("Brom") == 6
    assert any("chosen at random among Brom, Tam, orc1" in t for t in f.texts())


def test_melee_target_random_among_several_opponents() -> None:
    # Seed "Melee Attack": facing multiple opponents the target is random; --target is refused.
    f = Fight([FIGHTER, orc(1), orc(2)], engaged=[["Brom", "orc1"], ["Brom", "orc2"]])
    _round(f, 4, 3)
    with pytest.raises(IllegalCommand, match="target is random"):
        f.dice(c.Attack(who="Brom", target="orc1"), {"r1/Brom/atk1": 20})
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1/target": 2, "r1/Brom/atk1": 1})
    assert out.events[-1].event.target == "orc2"


def test_melee_target_random_refuses_a_declared_target_the_attack_would_ignore() -> None:
    # Seed 003 "Melee Attack": "When facing multiple opponents, the target of the attack is determined
    # randomly" (reference osric.md: "Against multiple opponents the target is random"); neither text
    # lets a declaration choose it. Under the option melee_target=random (the default) Brom, facing orc1
    # and orc2, declaring melee@orc1 was shown by status and then ignored by the d2: it is refused at the
    # declaration with the option named, and nothing is recorded. The same for the other attacks whose
    # target is drawn (unarmed, grapple: osric attack/grapple).
    f = Fight([FIGHTER, orc(1), orc(2)], engaged=[["Brom", "orc1"], ["Brom", "orc2"]])
    f.dice(c.StartRound(), {})
    before = len(f.texts())
    for text in ("Brom=melee@orc1", "Brom=melee:dagger@orc2", "Brom=unarmed@orc1", "Brom=grapple@orc1"):
        with pytest.raises(IllegalCommand, match=r"under the option melee_target=random \(the default\) the target "
                                                 r"is random, not declared; Brom faces orc1, orc2.*melee_target="
                                                 r"declared \(OSRIC Combat: Melee Attack \(option melee_target"):
            f.dice(c.Declare(side="party", declarations=(P(text),)), {})
    assert len(f.texts()) == before and "party" not in f.state.declared
    # without the target the same declaration stands, and the target is drawn (1d2 -> 1: orc1)
    f.dice(c.Declare(side="party", declarations=(P("Brom=melee"),)), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest="melee"), {})
    f.dice(c.RollInitiative(), {"r1/initiative/party": 4, "r1/initiative/orcs": 3})
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1/target": 1, "r1/Brom/atk1": 1})
    assert out.events[-1].event.target == "orc1"


def test_melee_target_random_accepts_the_one_opponent_engaged_and_says_when_it_no_longer_holds() -> None:
    # Against one opponent the attack strikes it (seed 003 "Melee Attack": the target is random only
    # "when facing multiple opponents"), so Brom engaged with orc1 alone may say melee@orc1 (as Ael does
    # in docs/examples/osric/ford.cmds), but not melee@orc2: the attack would strike orc1. A charge names
    # its target (seed "Charge": it "must end within 10 ft melee range of the target") and keeps it.
    f = Fight([FIGHTER, orc(1), orc(2)], engaged=[["Brom", "orc1"]])
    f.dice(c.StartRound(), {})
    with pytest.raises(IllegalCommand, match="Brom is engaged with orc1 alone: its melee attack strikes orc1"):
        f.dice(c.Declare(side="party", declarations=(P("Brom=melee@orc2"),)), {})
    f.dice(c.Declare(side="party", declarations=(P("Brom=melee@orc1"),)), {})
    assert f.state.declared["party"][0].target == "orc1"
    # orc2 then closes in (a referee's ruling, before initiative): Brom faces two, the target is drawn
    # (1d2 -> 2: orc2), and the log says the declared orc1 gave way instead of dropping it silently.
    f.dice(c.Engage(a="orc2", b="Brom", reason="orc2 wades in"), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest="melee"), {})
    f.dice(c.RollInitiative(), {"r1/initiative/party": 4, "r1/initiative/orcs": 3})
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1/target": 2, "r1/Brom/atk1": 1})
    assert out.events[-1].event.target == "orc2"
    texts = f.texts()
    note = texts.index("Brom declared orc1, but under the option melee_target=random the target is not chosen: "
                       "it is drawn")
    assert texts[note + 1].startswith("Brom's target is chosen at random among orc1, orc2: d2 2 -> orc2")
    g = Fight([FIGHTER, TAM, orc(1)], engaged=[["Brom", "orc1"]])
    g.dice(c.StartRound(), {})
    g.dice(c.Declare(side="party", declarations=(P("Brom=melee@orc1"), P("Tam=charge@orc1"))), {})
    assert [d.target for d in g.state.declared["party"]] == ["orc1", "orc1"]


def _declared_target_fight() -> Fight:
    # Option melee_target=declared (docs/osric.md "Options": the table lets the attacker choose) with
    # Brom engaged by orc1 and orc2; Brom declares melee at orc1. Party 5, orcs 2: Brom acts in segment 2.
    f = Fight([FIGHTER, orc(1, hp=6), orc(2, hp=6)], options={"melee_target": "declared"},
              engaged=[["Brom", "orc1"], ["Brom", "orc2"]])
    _round(f, 5, 2, party_decl=("Brom=melee@orc1",))
    return f


def test_melee_target_declared_strikes_the_declared_target() -> None:
    # Without --target the declared orc1 is struck, with no target die. Brom (B 20) vs AC 6 needs 14:
    # 15 hits, long sword 1d8 -> 4: orc1 6 -> 2.
    f = _declared_target_fight()
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 4})
    assert out.events[-1].event.target == "orc1" and f.hp("orc1") == 2 and f.hp("orc2") == 6
    assert "r1/Brom/atk1/target" not in [r.event.label for r in out.events if hasattr(r.event, "notation")]


def test_melee_target_declared_may_be_changed_by_a_non_caster() -> None:
    # Seed "Declare Spells and General Actions": only casters "cannot substitute the declared action"
    # ("the mental preparations for casting a spell are too taxing"); a non-caster outlines his action
    # "in general terms", so --target may name the other engaged opponent. 15 hits, 1d8 -> 4: orc2 6 -> 2.
    f = _declared_target_fight()
    out = f.dice(c.Attack(who="Brom", target="orc2"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 4})
    assert out.events[-1].event.target == "orc2" and f.hp("orc2") == 2 and f.hp("orc1") == 6


def test_melee_target_declared_asks_for_a_target_once_the_declared_one_is_down() -> None:
    # orc1 is slain before Brom acts (the referee's 6 damage: a monster dies at 0 hp); Brom still faces
    # orc2 alone, who is then the target (as with one opponent engaged). With orc1 down and a third orc
    # engaged, Brom must name one.
    f = _declared_target_fight()
    f.dice(c.Damage(who="orc1", amount="6", source="falling rock"), {})
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 1})
    assert out.events[-1].event.target == "orc2"
    f = Fight([FIGHTER, orc(1, hp=6), orc(2, hp=6), orc(3, hp=6)], options={"melee_target": "declared"},
              engaged=[["Brom", "orc1"], ["Brom", "orc2"], ["Brom", "orc3"]])
    _round(f, 5, 2, party_decl=("Brom=melee@orc1",))
    f.dice(c.Damage(who="orc1", amount="6", source="falling rock"), {})
    with pytest.raises(InvalidCommand, match=r"\(the declared orc1 is not among them\): name the target"):
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 1})


def test_two_weapon_fighting_penalties_never_a_bonus() -> None:
    # Seed "Two-Weapon Fighting": main -2, off hand -4, Dex missile adjustment on both, never a bonus.
    # Dex 16 (+1): main -1, off -3. Brom (B 20) vs AC 6 needs 14: main 15 - 1 = 14 hits, off 16 - 3 = 13 misses.
    f = Fight([{**FIGHTER, "dex": 16}, orc(1, hp=30)], engaged=[["Brom", "orc1"]])
    _round(f, 4, 3)
    f.dice(c.Attack(who="Brom", offhand="dagger"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 2, "r1/Brom/atk2": 16})
    texts = f.texts()
    assert any(t.startswith("-1 main hand") for t in texts) and any(t.startswith("-3 off hand") for t in texts)
    assert f.hp("orc1") == 28
    # Dex 18 (+3): main -2 + 3 would be a bonus, so 0; off hand -4 + 3 = -1.
    g = Fight([{**FIGHTER, "dex": 18}, orc(1, hp=30)], engaged=[["Brom", "orc1"]])
    _round(g, 4, 3)
    g.dice(c.Attack(who="Brom", offhand="dagger"), {"r1/Brom/atk1": 1, "r1/Brom/atk2": 1})
    assert not any("main hand" in t for t in g.texts()) and any(t.startswith("-1 off hand") for t in g.texts())
    with pytest.raises(IllegalCommand, match="dagger or a hand axe"):
        h = Fight([{**FIGHTER, "weapons": ["long sword", "short sword"]}, orc(1)], engaged=[["Brom", "orc1"]])
        _round(h, 4, 3)
        h.dice(c.Attack(who="Brom", offhand="short sword"), {})


def test_grapple_restrains_and_overbear_knocks_prone() -> None:
    # Seed "Grappling Attack": 1d2-1 damage and the target is restrained (cannot fight).
    # Brom vs AC 6 needs 14: 14 hits; 1d2-1 with a 2 -> 1 damage.
    f = Fight([FIGHTER, orc(1, hp=6)], engaged=[["Brom", "orc1"]])
    _round(f, 4, 3, party_decl=("Brom=grapple",))
    f.dice(c.Grapple(who="Brom"), {"r1/Brom/atk1": 14, "r1/Brom/atk1/dmg": 2})
    assert f.hp("orc1") == 5 and f.state.live["orc1"].restrained_by == "Brom"
    with pytest.raises(IllegalCommand, match="restrained"):
        f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 20})
    # Seed "Overbearing Attack": a grapple at the end of a charge; success leaves the target prone.
    g = Fight([FIGHTER, orc(1, hp=6)])
    _round(g, 4, 3, party_decl=("Brom=overbear",))
    g.dice(c.Charge(who="Brom", target="orc1", overbear=True), {"r1/Brom/atk1": 12, "r1/Brom/atk1/dmg": 1})
    assert "prone" in g.state.live["orc1"].conditions and g.hp("orc1") == 6  # 12 + 2 (charge) = 14 hits; 1-1 = 0


def test_closing_bars_attacks_between_the_two_until_next_round() -> None:
    # Seed "Closing into Combat": no attack for the closer that round, nor for the opponent on it.
    f = Fight([FIGHTER, orc(1)])
    _round(f, 4, 3, party_decl=("Brom=close@orc1",))
    f.dice(c.Close(who="Brom", target="orc1"), {})
    with pytest.raises(IllegalCommand, match="Brom closed with orc1"):
        f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 20})
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="party", declarations=(P("Brom=melee"),)), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest="melee"), {})
    f.dice(c.RollInitiative(), {"r2/initiative/party": 3, "r2/initiative/orcs": 4})  # orcs first, segment 3
    f.dice(c.Attack(who="orc1"), {"r2/orc1/atk1": 1})  # allowed in the next round


def test_parry_subtracts_the_parriers_to_hit_bonus() -> None:
    # Seed "Parrying": forgo the attack and subtract one's to-hit bonus (Str 18/51: +2) from the roll.
    # orc1 (B 19) vs Brom AC 4 needs 15: 16 - 2 = 14 misses.
    f = Fight([{**FIGHTER, "str": "18/51"}, orc(1)], engaged=[["Brom", "orc1"]])
    _round(f, 3, 4, party_decl=("Brom=parry",))
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 16})
    assert f.hp("Brom") == 10 and any("-2 Brom parries" == t for t in f.texts())
    with pytest.raises(IllegalCommand, match="declared parry"):
        f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 20})


@pytest.mark.parametrize("flags, conds, ac, bonus", [
    # Brom: mail 5, medium shield -1, Dex 16 -2 -> AC 2 (shield_ac 1, dex_ac -2).
    ((), (), 2, 0),
    (("rear",), (), 5, 2),            # seed "Rear Attack": no shield, no Dex, +2
    (("flank",), (), 3, 0),           # seed "Flank Attack": no shield
    ((), ("prone",), 5, 4),           # seed "Prone Opponent": no shield or Dex, +4
    ((), ("stunned",), 5, 4),         # seed "Stunned Opponent": no shield or Dex, +4
    ((), ("invisible",), 2, -4),      # seed "Invisible Opponent": -4
    (("cover:50",), (), -2, 0),       # seed "Cover": 50% -> AC -4
    (("concealment:half",), (), 0, 0),  # seed "Concealment": half -> AC -2
])
def test_modifiers(flags, conds, ac, bonus) -> None:
    from combatlog.rulesets.osric.events import AttackRolled
    from combatlog.rulesets.osric.rules import calc_attack

    f = Fight([{**FIGHTER, "dex": 16}, orc(1)], engaged=[["Brom", "orc1"]])
    for cond in conds:
        f.dice(c.SetCondition(who="Brom", condition=cond), {})
    _round(f, 4, 3)
    ev = AttackRolled(segment=4, attacker="orc1", target="Brom", kind="melee", form="spear", routine=1, roll=10,
                      label="x", flags=flags)
    calc = calc_attack(f.state, ev)
    assert (calc.ac, calc.bonus) == (ac, bonus)


def test_invisible_cannot_be_attacked_from_rear_or_flank() -> None:
    f = Fight([FIGHTER, orc(1)], engaged=[["Brom", "orc1"]])
    f.dice(c.SetCondition(who="orc1", condition="invisible"), {})
    _round(f, 4, 3)
    with pytest.raises(IllegalCommand, match="invisible"):
        f.dice(c.Attack(who="Brom", flags=("rear",)), {"r1/Brom/atk1": 20})


def test_small_shield_counts_against_one_attacker_a_round() -> None:
    # reference 2.2 / OSRIC armour notes: a small shield counts against 1 attacker per round.
    # Brom with a small shield: AC 4. orc1 (first attacker) needs 15; orc2 meets AC 5: needs 14.
    # Party 3, orcs 4: the orcs act first, in segment 3 (seed "Determine Initiative").
    f = Fight([{**FIGHTER, "shield": "small"}, orc(1), orc(2)], engaged=[["Brom", "orc1"], ["Brom", "orc2"]])
    _round(f, 3, 4)
    f.dice(c.Attack(who="orc1"), {"r1/orc1/atk1": 1})
    f.dice(c.Attack(who="orc2"), {"r1/orc2/atk1": 1})
    assert [t for t in f.texts() if "needs 1" in t and "against AC" in t] == [
        "against AC 4 orc1 needs 15", "against AC 5 orc2 needs 14"]


def test_damage_by_target_size() -> None:
    # reference 2.4: a long sword does 1d8 to S/M and 1d12 to L: the ogre's damage die is a d12.
    f = Fight([FIGHTER, OGRE], engaged=[["Brom", "ogre"]])
    _round(f, 4, 3)
    out = f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 20, "r1/Brom/atk1/dmg": 11})
    rolled = [r.event for r in out.events if r.event.__class__.__name__ == "DiceRolled"]
    assert rolled[-1].notation == "1d12" and f.hp("ogre") == 1


def test_zero_hp_bleeding_aid_and_death() -> None:
    # reference 2.4: 0 hp -> unconscious, losing 1 hp a round until -10 (dead); aid stops it;
    # further damage kills. Brom 10 hp takes 12 -> -2: unconscious; round ends: -3; aided: stays -3.
    f = Fight([FIGHTER, orc(1)], engaged=[["Brom", "orc1"]])
    _round(f, 4, 3)
    f.dice(c.Damage(who="Brom", amount="12", source="troll"), {})
    assert f.hp("Brom") == -2 and not f.state.live["Brom"].dead
    f.dice(c.EndRound(), {})  # Decision: bleeding starts the round after the fall
    assert f.hp("Brom") == -2
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest="none"), {})
    f.dice(c.RollInitiative(), {"r2/initiative/party": 1, "r2/initiative/orcs": 1})
    f.dice(c.EndRound(), {})
    assert f.hp("Brom") == -3
    f.dice(c.Aid(who="Brom", by="Tam"), {})
    f.dice(c.StartRound(), {})
    f.dice(c.Declare(side="orcs", declarations=(), rest="none"), {})
    f.dice(c.RollInitiative(), {"r3/initiative/party": 1, "r3/initiative/orcs": 1})
    f.dice(c.EndRound(), {})
    assert f.hp("Brom") == -3
    f.dice(c.Damage(who="Brom", amount="1"), {})
    assert f.state.live["Brom"].dead


def test_death_at_minus_ten() -> None:
    f = Fight([FIGHTER, orc(1)])
    f.dice(c.Damage(who="Brom", amount="20"), {})
    assert f.state.live["Brom"].dead and f.hp("Brom") == -10


@pytest.mark.parametrize("roll, result", [(55, ""), (56, "withdraw"), (80, "withdraw"), (81, "flee"),
                                          (105 - 5, "flee"), (100, "flee")])
def test_morale_results(roll: int, result: str) -> None:
    # reference 2.4 Morale: 50% + 5% per HD (1 HD: 55%); fail by <= 25 withdraw, 26-50 flee, 51+ surrender.
    # 56 fails by 1; 80 by 25; 81 by 26; 100 by 45.
    f = Fight([FIGHTER, orc(1)])
    f.dice(c.Morale(who=("orc1",)), {"r0/morale/orc1": roll})
    assert f.state.live["orc1"].morale == result


def test_morale_surrender_two_checks_and_no_pcs() -> None:
    # -30% modifier: 25%; 77 fails by 52 -> surrender. Two passes -> fights to the death, no third check.
    f = Fight([FIGHTER, orc(1), orc(2)])
    f.dice(c.Morale(who=("orc1",), modifier=-30), {"r0/morale/orc1": 77})
    assert f.state.live["orc1"].out == "surrendered"
    f.dice(c.Morale(who=("orc2",)), {"r0/morale/orc2": 10})
    f.dice(c.Morale(who=("orc2",)), {"r0/morale/orc2#2": 10})
    assert f.state.live["orc2"].morale == "to_death"
    with pytest.raises(IllegalCommand, match="two morale checks"):
        f.dice(c.Morale(who=("orc2",)), {"r0/morale/orc2#3": 10})
    with pytest.raises(IllegalCommand, match="PCs never check morale"):
        f.dice(c.Morale(who=("Brom",)), {})


def test_morale_names_each_combatant_once() -> None:
    # Two checks for one monster in one command would both be judged against the state before either
    # (so a third check could slip in), and the second die would be labelled #2 before the first is used.
    f = Fight([FIGHTER, orc(1)])
    with pytest.raises(InvalidCommand, match="name each combatant once"):
        f.dice(c.Morale(who=("orc1", "orc1")), {"r0/morale/orc1": 10, "r0/morale/orc1#2": 10})
    assert f.state.live["orc1"].morale_checks == 0


def test_negotiation_is_a_logged_outcome_that_may_end_the_combat() -> None:
    # Seed "Negotiation and Diplomacy".
    f = Fight([MAGE, orc(1)])
    f.dice(c.Negotiate(by="Halvaine", outcome="the orcs accept 20 gp and leave", ends=True), {})
    assert f.state.ended and f.state.outcome.startswith("the orcs")


def test_bad_input_appends_nothing() -> None:
    f = Fight([FIGHTER, orc(1)])
    before = len(f.state.log)
    with pytest.raises(InvalidCommand):
        f.dice(c.Damage(who="nobody", amount="3"), {})
    with pytest.raises(IllegalCommand):
        f.dice(c.Attack(who="Brom"), {})
    with pytest.raises(InvalidCommand):
        c.parse_declaration("Brom=dance")
    assert len(f.state.log) == before


def test_setup_validation() -> None:
    from combatlog.rulesets.osric.setup import build_combatant, validate_setup

    with pytest.raises(InvalidCommand, match="exactly two sides"):
        validate_setup({"combatants": [FIGHTER]})
    with pytest.raises(InvalidCommand, match="percentile"):
        validate_setup({"combatants": [{**MAGE, "str": "18/50"}, orc(1)]})
    with pytest.raises(InvalidCommand, match="spell_timing"):
        validate_setup({"combatants": [FIGHTER, orc(1)], "options": {"spell_timing": "never"}})
    # damage_large was parsed unchecked: a list there ended in an internal TypeError, not a refusal
    for bad in ([1], {"d": 8}, 8):
        ogre = {**orc(2), "weapons": [], "attacks": [{"name": "club", "damage": "1d6", "damage_large": bad}]}
        with pytest.raises(InvalidCommand, match="damage_large is dice"):
            validate_setup({"combatants": [FIGHTER, ogre]})
    # AC from armour, shield, Dex and magic (reference 2.4): plate 3, shield -1, +1 armour, Dex 17 -3 -> -2.
    norm = validate_setup({"combatants": [{**FIGHTER, "armour": "plate", "armour_magic": 1, "dex": 17}, orc(1)]})
    assert build_combatant(norm["combatants"][0]).ac == -2
    assert norm["options"]["spell_timing"] == "first_segment"


def test_a_declared_negotiation_ruled_by_the_referee_is_the_negotiators_action() -> None:
    # Seed "Negotiation and Diplomacy" with "Declare Spells and General Actions": Halvaine declares that he
    # negotiates; the orcs attack. The referee's ruling on the talk is Halvaine's action for the round: he is
    # no longer listed as due (before, he stayed due until a second, redundant `osric act`).
    from combatlog.rulesets.osric.views import pending

    f = Fight([MAGE, orc(1)])
    _round(f, 6, 1, party_decl=("Halvaine=negotiate",))
    assert "Halvaine" in [p.who for p in pending(f.state)]
    cursor = f.state.cursor
    f.dice(c.Negotiate(by="Halvaine", outcome="the orcs listen, but keep their blades out"), {})
    assert "Halvaine" not in [p.who for p in pending(f.state)]
    assert "orc1" in [p.who for p in pending(f.state)] and not f.state.ended
    assert f.state.cursor == cursor  # the talk stands outside the segment timeline


def test_a_negotiation_by_someone_who_declared_another_action_leaves_that_action_due() -> None:
    from combatlog.rulesets.osric.views import pending

    f = Fight([MAGE, orc(1)])
    _round(f, 6, 1, party_decl=("Halvaine=other:reads the scroll aloud",))
    f.dice(c.Negotiate(by="Halvaine", outcome="he shouts an offer while he works"), {})
    assert "Halvaine" in [p.who for p in pending(f.state)]
