"""Spells beyond the Attack spells (MR 8.4.2, 8.4.3, 8.4.4): completion time 0 (alerted Magic
chits, Artifacts and Spell Books), spells that prevent attacks (Peace), pacification and its
breaking (Deal with Goblins, Persuade), magic protection, spells lasting beyond the round.

Each test names the seed bullet it checks; the expected values are worked out in the comments.
"""

from __future__ import annotations

import pytest
from tests.rulesets.magic_realm.mr_helpers import Game, char

from combatlog.errors import IllegalCommand
from combatlog.rulesets.magic_realm import commands as c


def _chit(g: Game, cid: str, label: str) -> str:
    return next(ch.id for ch in g.state.characters[cid].chits if ch.label == label)


def _status(g: Game, cid: str, chit: str) -> str:
    return next(ch.status for ch in g.state.characters[cid].chits if ch.id == chit)


# -- completion time 0 (MR 8.4.3) ------------------------------------------------------------

DUEL = {
    "clearing": {"color_magic": "purple"},
    "first_round_of_day": False,
    "characters": [char("sorc", "Sorceror", spells=["Fiery Blast"], chits={"X1": "alerted"}),
                   char("wking", "Witch King", spells=["Fiery Blast"],
                        artifacts=[{"name": "Book of Lore", "magic_type": "IV", "spells": ["Fiery Blast"]}])],
    "denizens": [],
}


def _duel(g: Game, sorc: dict, wking: dict) -> None:
    g.do(c.Deploy(character="sorc"))
    g.do(c.Deploy(character="wking"))
    g.do(c.Act(character="sorc", kind="cast", spell="Fiery Blast", **sorc))
    g.do(c.Act(character="wking", kind="cast", spell="Fiery Blast", **wking))
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})  # pool [sorc, wking]: sorc first
    g.do(c.Target(character="sorc", spell_targets=("wking",)))
    g.do(c.Target(character="wking", spell_targets=("sorc",)))


def test_8_4_3_alerted_magic_chit_has_completion_time_zero() -> None:
    # MR 8.4.3: "alerted Magic chits automatically have a time number of zero instead of the number
    # printed on the chit". The Sorceror's alerted X1 MAGIC IV4* casts at time 0; the Witch King's
    # MAGIC IV3* (time 3) aims at him: 0 < 3, so the Witch King's spell is cancelled (his chit fatigues)
    # and the Sorceror's is not.
    g = Game(DUEL)
    wk = _chit(g, "wking", "MAGIC IV3*")
    _duel(g, {"chit": "X1"}, {"chit": wk})
    spells = {s.caster: s for s in g.state.spells}
    assert spells["sorc"].time == 0 and spells["sorc"].status == "working"
    assert spells["wking"].status == "cancelled"
    assert _status(g, "wking", wk) == "fatigued"


def test_8_4_3_artifact_spell_has_completion_time_zero_and_its_card_returns() -> None:
    # MR 8.4.3: "A Spell card cast by an Artifact or Spell Book also has a completion time of zero."
    # The Witch King casts Fiery Blast from his Book of Lore (time 0) at the Sorceror, who casts with
    # MAGIC IV3* (time 3): 0 < 3, the Sorceror's spell is cancelled. No Magic chit of the Witch King is
    # played, so none fatigues; the Spell card returns to the book when the spell ends.
    g = Game(DUEL)
    sorc = _chit(g, "sorc", "MAGIC IV3*")
    _duel(g, {"chit": sorc}, {"items": ("Book of Lore",)})
    spells = {s.caster: s for s in g.state.spells}
    assert spells["wking"].time == 0 and spells["wking"].item == "Book of Lore"
    assert spells["sorc"].status == "cancelled"
    # The Witch King places no attack: his Attack spell expires unused at the end of the round
    # (MR 8.4.4); nobody owes fatigue, so the round ends at once.
    g.do(c.Play(character="sorc"))
    g.do(c.Play(character="wking"))
    g.do(c.Resolve())
    assert all(ch.status == "active" for ch in g.state.characters["wking"].chits)
    assert "its Spell card returns to the Book of Lore" in g.text()


def test_8_4_3_an_alerted_chit_stops_being_alerted_when_its_spell_ends() -> None:
    # MR 8.4.3: "When the spell ends, the Magic chit returns to its owner and fatigues." An Attack spell
    # ends with its round (MR 8.4.4); the chit is fatigued and no longer alerted.
    g = Game(DUEL)
    _duel(g, {"chit": "X1"}, {"chit": _chit(g, "wking", "MAGIC IV4*")})
    g.do(c.Play(character="sorc"))  # no attack placed: the spell expires unused (MR 8.4.4)
    g.do(c.Play(character="wking"))
    g.do(c.Resolve())
    x1 = next(ch for ch in g.state.characters["sorc"].chits if ch.id == "X1")
    assert x1.status == "fatigued" and not x1.alerted


# -- Peace: spells that prevent attacks (MR 8.4.4) ---------------------------------------------

PEACE = {
    "clearing": {"color_magic": "white"},
    "first_round_of_day": False,
    "characters": [char("pilgrim", "Pilgrim", spells=["Peace", "Peace"]), char("swords", "Swordsman")],
    "denizens": [{"id": "giant", "monster": "Giant"}],
    "assigned": {"giant": "pilgrim"},
}


def _round_start(g: Game, acts: dict[str, c.Act]) -> None:
    for who in ("pilgrim", "swords"):
        if g.state.step == "deploy":
            g.do(c.Deploy(character=who))
    for who in ("pilgrim", "swords"):
        g.do(acts.get(who) or c.Act(character=who, kind="none"))


def test_8_4_4_peace_unassigns_a_denizen_and_lasts_beyond_the_round() -> None:
    # MR 8.4.4 Preventing Attacks: "If the spell forbids a denizen from attacking a target it is already
    # assigned to, the denizen becomes unassigned". The Pilgrim casts Peace (I, white; his MAGIC I4*,
    # time 4) at the Giant assigned to him; nobody else attacks the Giant, so it takes effect
    # (MR spells: Peace). The Giant and its club leave his sheet and do not attack.
    g = Game(PEACE)
    x3 = _chit(g, "pilgrim", "MAGIC I4*")
    _round_start(g, {"pilgrim": c.Act(character="pilgrim", kind="cast", spell="Peace", chit=x3)})
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})  # pool [pilgrim, swords]: the Pilgrim first
    g.do(c.Target(character="pilgrim", spell_targets=("giant",)))
    g.do(c.Target(character="swords"))
    assert "giant" not in g.state.assigned
    # MR 8.4.5: having cast a spell that came to life, he cannot attack with a weapon.
    with pytest.raises(IllegalCommand, match="came to life"):
        g.do(c.Play(character="pilgrim", attack=1, fight="F1"))
    g.do(c.Play(character="pilgrim"))
    g.do(c.Play(character="swords"))
    g.do(c.Resolve())  # nobody is on any sheet: no dice
    assert not [a for a in g.state.last_melee.melee.attacks if a.attacker.startswith("giant")]
    # MR 8.4.3: the spell remains on its target; the Magic chit stays committed (not fatigued).
    st = g.state
    assert st.round == 2 and [(s.spell, s.status) for s in st.spells] == [("Peace", "working")]
    assert _status(g, "pilgrim", x3) == "active"
    # Round 2: the Giant under Peace cannot be assigned, so there is nothing to lure or assign.
    assert st.step == "deploy" and "giant" not in st.assigned
    # MR 8.4.3: the committed chit cannot be used, and a spell in effect cannot be cast again; the
    # duplicate in his second spell box can be (with another chit).
    g.do(c.Deploy(character="pilgrim"))
    g.do(c.Deploy(character="swords"))
    with pytest.raises(IllegalCommand, match="committed to his Peace"):
        g.do(c.Act(character="pilgrim", kind="cast", spell="Peace", chit=x3))
    g.do(c.Act(character="pilgrim", kind="cast", spell="Peace", chit=_chit(g, "pilgrim", "MAGIC I6*")))


def test_8_4_3_a_spell_in_effect_cannot_be_cast_again() -> None:
    # MR 8.4.3: "The spell cannot be cast again ... until the spell ends." With Peace in one spell box
    # only, the Pilgrim cannot cast it in round 2 while it bewitches the Giant, even with another chit.
    g = Game({**PEACE, "characters": [char("pilgrim", "Pilgrim", spells=["Peace"]), char("swords", "Swordsman")]})
    _round_start(g, {"pilgrim": c.Act(character="pilgrim", kind="cast", spell="Peace",
                                      chit=_chit(g, "pilgrim", "MAGIC I4*"))})
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})
    g.do(c.Target(character="pilgrim", spell_targets=("giant",)))
    g.do(c.Target(character="swords"))
    g.do(c.Play(character="pilgrim"))
    g.do(c.Play(character="swords"))
    g.do(c.Resolve())
    g.do(c.Deploy(character="pilgrim"))
    g.do(c.Deploy(character="swords"))
    with pytest.raises(IllegalCommand, match="still in effect"):
        g.do(c.Act(character="pilgrim", kind="cast", spell="Peace", chit=_chit(g, "pilgrim", "MAGIC I6*")))


def test_8_4_4_peace_is_broken_when_its_target_is_named() -> None:
    # MR spells: Peace ("naming it as the target of any attack or spell breaks the spell"). Round 2:
    # the Swordsman puts his Attention chit on the Giant: the spell is broken and the Pilgrim's
    # Magic chit returns and fatigues (MR 8.4.3).
    g = Game(PEACE)
    x3 = _chit(g, "pilgrim", "MAGIC I4*")
    _round_start(g, {"pilgrim": c.Act(character="pilgrim", kind="cast", spell="Peace", chit=x3)})
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})
    g.do(c.Target(character="pilgrim", spell_targets=("giant",)))
    g.do(c.Target(character="swords"))
    g.do(c.Play(character="pilgrim"))
    g.do(c.Play(character="swords"))
    g.do(c.Resolve())
    _round_start(g, {})
    g.do(c.StartMelee(), {"r2/attention/1": (2,)})  # pool [pilgrim, swords]: the Swordsman first
    g.do(c.Target(character="swords", target="giant"))
    assert g.state.spells[0].status == "broken"
    assert _status(g, "pilgrim", x3) == "fatigued"


def test_peace_has_no_effect_when_someone_else_already_attacks_the_target() -> None:
    # MR spells: Peace takes effect only "if nobody other than the caster is already attacking the
    # target". The Swordsman targets the Giant in the same round (target selection comes before the
    # spells come to life, MR 8.4.3): the Giant stays assigned to the Pilgrim.
    g = Game(PEACE)
    x3 = _chit(g, "pilgrim", "MAGIC I4*")
    _round_start(g, {"pilgrim": c.Act(character="pilgrim", kind="cast", spell="Peace", chit=x3)})
    g.do(c.StartMelee(), {"r1/attention/1": (2,)})
    g.do(c.Target(character="swords", target="giant"))
    g.do(c.Target(character="pilgrim", spell_targets=("giant",)))
    assert g.state.assigned.get("giant") == "pilgrim"
    assert "Peace has no effect" in g.text()


def test_8_4_4_peace_on_a_character_cancels_his_charge_and_his_target() -> None:
    # MR 8.4.4 Preventing Attacks: "If a spell prohibits a character from specifying a target, and he
    # has already played a charge against that target, his charge is cancelled. If he has already
    # specified that individual as his target, his specification of that target is cancelled and he
    # cannot specify a new target until the next round." The Swordsman charges the Pilgrim (MOVE L4);
    # the Pilgrim casts Peace on him. After the spells: no charge, no target, so his Fight play fails.
    setup = {**PEACE, "denizens": [], "assigned": {}}
    g = Game(setup)
    x3 = _chit(g, "pilgrim", "MAGIC I4*")
    g.do(c.Deploy(character="pilgrim"))
    g.do(c.Deploy(character="swords", charge="pilgrim", chit="M1"))
    g.do(c.Act(character="pilgrim", kind="cast", spell="Peace", chit=x3))
    g.do(c.StartMelee(), {"r1/attention/1": (2,)})
    g.do(c.Target(character="swords", target="pilgrim"))
    g.do(c.Target(character="pilgrim", spell_targets=("swords",)))
    assert "swords" not in g.state.charges and "swords" not in g.state.targets
    with pytest.raises(IllegalCommand, match="selected no target"):
        g.do(c.Play(character="swords", attack=1, fight="F1"))


# -- pacification (MR 8.4.2, 8.4.4) ------------------------------------------------------------

GOBLINS = {
    "clearing": {"color_magic": "black"},
    "first_round_of_day": False,
    "characters": [char("witch", "Witch", spells=["Deal with Goblins"],
                        hirelings=[{"id": "bash", "native": "Bashkar 1"}]),
                   char("amazon", "Amazon")],
    "denizens": [{"id": "goblin-1", "monster": "Axe Goblin"}, {"id": "goblin-2", "monster": "Axe Goblin"}],
    "assigned": {"goblin-1": "witch", "goblin-2": "amazon"},
}


def _goblin_round_1(g: Game, deploy: dict[str, str] | None = None) -> str:
    x1 = _chit(g, "witch", "MAGIC VIII4*")
    g.do(c.Deploy(character="amazon"))
    g.do(c.Deploy(character="witch", hirelings=deploy or {}))
    g.do(c.Act(character="amazon", kind="none"))
    g.do(c.Act(character="witch", kind="cast", spell="Deal with Goblins", chit=x1))
    g.do(c.StartMelee(), {"r1/attention/1": (2,)})  # pool [amazon, witch]: the Witch first
    # A 'Goblins' target must include all the uncontrolled Goblins in the clearing (MR 8.4.2):
    with pytest.raises(IllegalCommand, match="must include all"):
        g.do(c.Target(character="witch", spell_targets=("goblin-1",)))
    g.do(c.Target(character="witch"))
    return x1


def _amazon_dodges(g: Game) -> None:
    """goblin-2 in her box 1 (Thrust, time 4); reposition 4 = no change, tactics (1, 1) = no change
    (MR 8.4.6). She dodges with MOVE M3* (time 3): 4 is not below 3 and Thrust does not intercept
    Dodge, so it misses (MR 8.4.8). One asterisk is free: no fatigue, the round ends."""
    g.do(c.Play(character="amazon", place={"goblin-2": 1}, maneuver=2, move="M2", shield=1))
    g.do(c.Play(character="witch"))
    g.do(c.Resolve(), {"r1/reposition/amazon": (4,), "r1/tactics/amazon/box1": (1, 1)})


def test_8_4_4_pacification_unassigns_denizens_attacking_the_caster() -> None:
    # MR 8.4.4 Pacification spells: "all of its targets who are assigned to attack the spellcaster or
    # his hirelings become unassigned"; "they continue to ... attack other characters normally".
    # Deal with Goblins (VIII, black, MAGIC VIII4*) targets both Goblins (filled in: MR 8.4.2):
    # goblin-1 leaves the Witch; goblin-2 stays on the Amazon.
    g = Game(GOBLINS)
    _goblin_round_1(g)
    g.do(c.Target(character="amazon"))
    st = g.state
    assert st.spells[0].targets == ("goblin-1", "goblin-2") and st.spells[0].status == "working"
    assert "goblin-1" not in st.assigned and st.assigned["goblin-2"] == "amazon"


def test_8_4_4_pacified_denizens_are_not_randomly_assigned_to_the_caster() -> None:
    # MR 8.4.4: pacified denizens "stop attacking ... him and his hirelings". Round 2: goblin-1 is
    # unassigned; random assignment (MR 001) may give it only to the Amazon (the Witch and her Bashkar
    # are spared), so no die is rolled. The spell lasts the day (MR 8.4.3).
    g = Game(GOBLINS)
    _goblin_round_1(g)
    g.do(c.Target(character="amazon"))
    _amazon_dodges(g)
    assert g.state.round == 2 and g.state.step == "lure"
    g.do(c.Lure(character="amazon"))
    g.do(c.Lure(character="witch"))
    g.do(c.Assign())
    assert g.state.assigned["goblin-1"] == "amazon"
    assert g.state.spells[0].status == "working"


def test_8_4_2_luring_a_pacified_denizen_breaks_the_spell() -> None:
    # MR 8.4.2 Breaking Pacification: the spell breaks when the caster assigns one of its targets to
    # attack himself or his hireling (MR spells: Deal with Goblins, "luring them breaks the spell").
    # Round 2: the Witch lures goblin-1; the spell is broken and her Magic chit fatigues (MR 8.4.3).
    g = Game(GOBLINS)
    x1 = _goblin_round_1(g)
    g.do(c.Target(character="amazon"))
    _amazon_dodges(g)
    g.do(c.Lure(character="witch", denizens=("goblin-1",)))
    assert g.state.spells == () or g.state.spells[0].status == "broken"
    assert _status(g, "witch", x1) == "fatigued"
    assert g.state.assigned["goblin-1"] == "witch"


def test_8_4_2_hireling_attacking_a_target_cancels_the_pacification() -> None:
    # MR 8.4.2 / 8.4.4: "If any of the spellcaster's hirelings are assigned to attack any of the spell's
    # targets at the moment when the spell goes into effect, then the spell is stopped from going into
    # effect. The spell is cancelled." The Witch deploys her Bashkar against goblin-2 first.
    g = Game(GOBLINS)
    x1 = _goblin_round_1(g, deploy={"bash": "goblin-2"})
    g.do(c.Target(character="amazon"))
    assert g.state.spells[0].status == "cancelled"
    assert _status(g, "witch", x1) == "fatigued"
    assert g.state.assigned["goblin-1"] == "witch"  # nothing was unassigned


def test_8_4_2_persuade_needs_a_whole_human_group() -> None:
    # MR 8.4.2: "A 'human group' is either one native group, or all of the Giants in the spellcaster's
    # clearing, or all of the Ogres". Persuade (III, gold) by the Elf (MAGIC III3*) on one Giant of two
    # is refused; on both it works.
    setup = {"clearing": {"color_magic": "gold"}, "first_round_of_day": False,
             "characters": [char("elf", "Elf", spells=["Persuade"])],
             "denizens": [{"id": "giant-1", "monster": "Giant"}, {"id": "giant-2", "monster": "Giant"}],
             "assigned": {"giant-1": "elf", "giant-2": "elf"}}
    g = Game(setup)
    g.do(c.Act(character="elf", kind="cast", spell="Persuade", chit="X1"))
    g.do(c.StartMelee())
    with pytest.raises(IllegalCommand, match="human group"):
        g.do(c.Target(character="elf", spell_targets=("giant-1",)))
    g.do(c.Target(character="elf", spell_targets=("giant-1", "giant-2")))
    assert g.state.assigned == {} and g.state.pinned == {}


# -- magic protection ------------------------------------------------------------------------------


def test_protection_from_magic_stops_a_slower_attack_spell() -> None:
    # MR 8.4.3 order: the Elf's Protection from Magic (VII, gold; MAGIC VII3*, time 3) on himself comes
    # to life before the Witch King's Fiery Blast (MAGIC IV4*, time 4) aimed at him; with magic
    # protection "no new spell aimed at him takes effect" (MR spells: Protection from Magic), so the
    # Fiery Blast makes no attack on him. Protection lasts one round ('phase').
    setup = {"clearing": {"color_magic": "gold,purple"}, "first_round_of_day": False,
             "characters": [char("elf", "Elf", spells=["Protection from Magic"]),
                            char("wking", "Witch King", spells=["Fiery Blast"])], "denizens": []}
    g = Game(setup)
    g.do(c.Deploy(character="elf"))
    g.do(c.Deploy(character="wking"))
    g.do(c.Act(character="elf", kind="cast", spell="Protection from Magic", chit="X4"))
    g.do(c.Act(character="wking", kind="cast", spell="Fiery Blast", chit="X1"))
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})
    g.do(c.Target(character="elf", spell_targets=("elf",)))
    g.do(c.Target(character="wking", spell_targets=("elf",)))
    g.do(c.Play(character="elf"))
    g.do(c.Play(character="wking", attack=1))
    g.do(c.Resolve())  # no missile roll is needed: there is no attack
    assert g.state.last_melee.melee.attacks == ()
    assert g.state.spells == ()  # both ended with the round


# -- rebels (MR 8.4.2 treachery) ---------------------------------------------------------------


def test_8_4_2_rebels_battle_the_character_they_rebelled_against() -> None:
    # MR 8.4.2 treachery: the Amazon puts her Attention chit on her own Lancer 1: both Lancers rebel and
    # become unhired. "Rebels are automatically battling all characters and hirelings who are attacking
    # them": in round 2 they are unassigned denizens again, and random assignment (MR 001) can give
    # them only to the Amazon (the Swordsman is not fighting them), so no die is rolled.
    setup = {"first_round_of_day": False,
             "characters": [char("amazon", "Amazon", hirelings=[{"id": "lancer-hq", "native": "Lancer HQ"},
                                                                {"id": "lancer-1", "native": "Lancer 1"}]),
                            char("swords", "Swordsman")],
             "denizens": []}
    g = Game(setup)
    g.do(c.Deploy(character="amazon"))
    g.do(c.Deploy(character="swords"))
    g.do(c.Act(character="amazon", kind="none"))
    g.do(c.Act(character="swords", kind="none"))
    g.do(c.StartMelee(), {"r1/attention/1": (1,)})  # pool [amazon, swords]: the Amazon first
    g.do(c.Target(character="amazon", target="lancer-1"))
    g.do(c.Target(character="swords"))
    assert g.state.denizens["lancer-hq"].rebel and g.state.denizens["lancer-hq"].foes == ("amazon",)
    g.do(c.Play(character="amazon", shield=1))  # no attack: nobody is harmed
    g.do(c.Play(character="swords"))
    g.do(c.Resolve())
    assert g.state.round == 2
    g.do(c.Lure(character="amazon"))
    g.do(c.Lure(character="swords"))
    g.do(c.Assign())
    assert g.state.assigned == {"lancer-1": "amazon", "lancer-hq": "amazon"}


# -- controlling monsters (MR 8.4.4) ----------------------------------------------------------------

BATS = {
    "clearing": {"color_magic": "gold"},
    "first_round_of_day": False,
    "characters": [char("elf", "Elf", spells=["Control Bats"])],
    "denizens": [{"id": "bat", "monster": "Giant Bat"}, {"id": "goblin", "monster": "Axe Goblin"}],
    "assigned": {"bat": "elf", "goblin": "elf"},
}


def _control_round_1(g: Game) -> None:
    # Control Bats (VII, any colour) with the Elf's MAGIC VII3* (X4); the 'Bats' target is every
    # uncontrolled Bat in the clearing (MR 8.4.2), filled in. The goblin stays; the Elf dodges it:
    # goblin in box 1 (Thrust, time 4), reposition 4 and tactics (1, 1) change nothing, MOVE M4 (M2,
    # time 4) in the Dodge square: 4 is not below 4 and Thrust does not intercept Dodge: a miss.
    g.do(c.Act(character="elf", kind="cast", spell="Control Bats", chit="X4"))
    g.do(c.StartMelee())
    g.do(c.Target(character="elf"))
    g.do(c.Play(character="elf", maneuver=2, move="M2", place={"goblin": 1}))
    g.do(c.Resolve(), {"r1/reposition/elf": (4,), "r1/tactics/elf/box1": (1, 1)})


def test_8_4_4_a_controlled_monster_is_unassigned_then_fights_for_the_caster() -> None:
    # MR 8.4.4 Controlling Monsters: "the spellcaster can cancel the assignments of any or all of the
    # target monsters. He cannot assign the monsters to new targets until the next round." The Bat
    # leaves the Elf's sheet and makes no attack in round 1; in round 2 the Elf deploys it like a
    # hireling against the goblin on his sheet (MR 001 Deployment), and it attacks the goblin.
    from combatlog.rulesets.magic_realm import rules as q

    g = Game(BATS)
    _control_round_1(g)
    r1 = g.state.last_melee.melee.attacks
    assert [a.attacker for a in r1] == ["goblin"]
    st = g.state
    assert st.round == 2 and st.denizens["bat"].owner == "elf" and "bat" not in st.assigned
    assert st.spells[0].spell == "Control Bats" and st.spells[0].status == "working"
    g.do(c.Deploy(character="elf", hirelings={"bat": "goblin"}))
    assert q.target_of(g.state, "bat") == "goblin"


def test_8_4_2_targeting_a_controlled_monster_breaks_control() -> None:
    # MR 8.4.2 Breaking Pacification Spells: "A spell that pacifies or controls a group of denizens is
    # instantly broken when the spellcaster specifies one of the spell's targets as a target for himself"
    # and "all of the targets revert to normal behavior". No treachery: the Bat is not a hired native.
    g = Game(BATS)
    _control_round_1(g)
    fame = g.state.characters["elf"].fame
    g.do(c.Deploy(character="elf"))
    g.do(c.Act(character="elf", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="elf", target="bat"))
    st = g.state
    assert st.spells[0].status == "broken" and st.denizens["bat"].owner == ""
    assert not st.denizens["bat"].rebel and st.characters["elf"].fame == fame


def test_8_4_7_a_hired_tremendous_monster_turns_red_side_up_when_it_hits() -> None:
    # MR 8.4.7: "Controlled or hired Tremendous monsters turn red side up if they (or their head or club)
    # hit and behave just as uncontrolled red-side-up Tremendous monsters do." The Amazon's hired T Troll
    # (light side: attack 4, H) is deployed against the Giant assigned to her. On her sheet: Giant box 1,
    # Troll box 2, club box 3; reposition 4 and club tactics (1, 1) change nothing. The Troll's attack
    # time 4 undercuts the Giant's move 5 (MR 8.4.8): H < T, no harm, but it hit a living target, so at
    # the end of the round it turns red side up and holds the Giant, staying deployed against it in
    # round 2 (MR 8.4.7 "it cannot change targets"). The Giant (time 5) and club (time 6) miss the
    # Amazon's Dodge at time 4 (MOVE M4): not faster, and Thrust / Smash do not intercept Dodge.
    from combatlog.rulesets.magic_realm import rules as q

    g = Game({"first_round_of_day": False,
              "characters": [char("amazon", "Amazon", hirelings=[{"id": "troll", "monster": "T Troll"}])],
              "denizens": [{"id": "giant", "monster": "Giant"}], "assigned": {"giant": "amazon"}})
    g.do(c.Deploy(character="amazon", hirelings={"troll": "giant"}))
    g.do(c.Act(character="amazon", kind="none"))
    g.do(c.StartMelee())
    g.do(c.Target(character="amazon"))
    g.do(c.Play(character="amazon", maneuver=2, move="M1", shield=1,
                place={"giant": 1, "troll": 2, "giant-club": 3}))
    g.do(c.Resolve(), {"r1/reposition/amazon": (4,), "r1/tactics/amazon/box3": (1, 1)})
    st = g.state
    assert st.round == 2 and st.pinned == {"troll": "giant"} and st.denizens["troll"].side == "dark"
    assert q.target_of(st, "troll") == "giant" and "troll" not in st.assigned
