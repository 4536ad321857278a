"""Rule tests beyond the worked examples: natural maxima, H2 creatures, recoil, options.

Each case cites the seed passage it applies; expected values are hand calculations shown in comments.
"""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.argad import commands as c
from tests.rulesets.argad.argad_helpers import Fight


def wight(**options: str) -> Fight:
    f = Fight([
        {"name": "warrior", "side": "living", "species": "human", "class": 4, "worn": 4},
        {"name": "halfling", "side": "living", "species": "halfling", "class": 3},
        {"name": "gob-1", "side": "living", "species": "goblin"},
        {"name": "gob-2", "side": "living", "species": "goblin"},
        {"name": "gob-3", "side": "living", "species": "goblin"},
        {"name": "wight", "side": "dead", "strength": "=H", "class": 5, "worn": 5, "armour": 7},
        {"name": "ogre", "side": "dead", "species": "ogre", "class": 3},
    ], options=options or None)
    f.turn()
    return f


def test_two_maxima_of_different_dice_help_one_another() -> None:
    # Seed: "a human female warrior fighting a wight in melee rolls a natural 6 with her D6, and a Halfling
    # rolls a 4 with his D4 against this same wight in the same melee turn, we can say that the female
    # human rolled a natural 7."
    f = wight()
    f.strike(("warrior", "halfling"), "wight", {"t1/melee/wight/warrior": 6, "t1/melee/wight/halfling": 4})
    s = f.last_strike()
    warrior = next(d for d in s.dice if d.who == "warrior")
    assert warrior.natural2 == 14 and s.best2 == 14
    # hand check: best 7 against D = max(class 5, armour 7) = 7: a recoil
    assert s.result == "recoil"


def test_triple_maximum_always_hits_in_melee() -> None:
    # Seed: "A triple natural max of the di(c)e (at first roll, or when rerolling) against a same opponent
    # in melee always hits automatically." Three Goblin 4s (4, 5, 6) against armour 7 would fail otherwise.
    f = wight()
    f.strike(("gob-1", "gob-2", "gob-3"), "wight",
             {"t1/melee/wight/gob-1": 4, "t1/melee/wight/gob-2": 4, "t1/melee/wight/gob-3": 4})
    s = f.last_strike()
    assert s.best2 == 12 and s.auto_hit and s.result == "kill"


def test_triple_maximum_by_rerolls() -> None:
    # "at first roll, or when rerolling": a lone 4, re-rolled 4, re-rolled 4 = triple maximum.
    f = wight()
    f.strike("gob-1", "wight", {"t1/melee/wight/gob-1": 4, "t1/melee/wight/reroll#1": 4,
                                "t1/melee/wight/reroll#2": 4})
    s = f.last_strike()
    assert s.rerolls == ("t1/melee/wight/reroll#1", "t1/melee/wight/reroll#2") and s.auto_hit


def test_reroll_stops_when_sufficient() -> None:
    # Seed: a single natural maximum "can be rerolled if not sufficient to hit": a human 6 against an Ogre
    # in light clothing (D 5) already kills; no re-roll label is drawn.
    f = wight()
    out = f.strike("warrior", "ogre", {"t1/melee/ogre/warrior": 6})
    assert f.last_strike().rerolls == () and f.last_strike().result == "wound"
    assert [e.event.label for e in out.events if e.env.type == "core.dice_rolled"] == ["t1/melee/ogre/warrior"]


@pytest.mark.parametrize("option, result", [("plus_one", "recoil"), ("half", "none")])
def test_two_maxima_option(option: str, result: str) -> None:
    # Reference notes 3.2, ambiguity 1: "two 4s equals 4 and 5" read as max+1 (5) or as "4 and a half".
    # Against D 5 (the Ogre in light clothing): 5 = 5 recoils; 4.5 < 5 does nothing. (Re-rolls only
    # follow a single maximum, so none here.)
    f = wight(two_maxima=option)
    f.strike(("gob-1", "gob-2"), "ogre", {"t1/melee/ogre/gob-1": 4, "t1/melee/ogre/gob-2": 4})
    s = f.last_strike()
    assert s.best2 == (10 if option == "plus_one" else 9) and s.result == result


def test_chained_maxima_once() -> None:
    # Option chained_maxima=once: the lone maximum is re-rolled once only, so the Orcq archer's triple 4
    # is impossible: 4, re-roll 4 = 5 < 6, no second re-roll.
    f = Fight([{"name": "archer", "side": "o", "species": "orcq", "missile": "simple_bow"},
               {"name": "dwarf", "side": "d", "species": "dwarf", "class": 4, "worn": 4}],
              options={"chained_maxima": "once"})
    f.turn()
    f.run(c.Shoot(shooters=("archer",), targets=("dwarf",)),
          {"t1/shoot/dwarf/archer": 4, "t1/shoot/dwarf/reroll#1": 4})
    shot = f.state.turn.shots[-1]
    assert shot.rerolls == ("t1/shoot/dwarf/reroll#1",) and shot.hits == ()


@pytest.mark.parametrize("band, face, result", [("at_defence", 3, "none"), ("between", 3, "recoil"),
                                                ("between", 4, "recoil"), ("at_defence", 4, "recoil")])
def test_recoil_band_option(band: str, face: int, result: str) -> None:
    # Reference notes 3.2, ambiguity 2: class 3 / armour 5 Ogre; a human D6 with no modifier.
    # at_defence: recoil only at 5; between: recoil from 3 to 5. Face 3 -> 3; face 4 -> 4 (recoil only
    # 'between'); hand check for at_defence face 4: 4 < 5 -> none.
    f = wight(recoil_band=band)
    f.strike("warrior", "ogre", {"t1/melee/ogre/warrior": face})
    expected = result if not (band == "at_defence" and face == 4) else "none"
    assert f.last_strike().result == expected


def test_strength_modifier_option() -> None:
    # Reference 3.1 (An Argader no. 10): "+H creatures strike with +1 on the die and are struck at -1".
    # Option strength=modifier: an Ogre (++H) strikes 1D6+2; the hide bonus is dropped (armour 3),
    # the Ogre is struck at -2. Human 1D6 6 - 2 = 4 > max(class 3, armour 3): kills... a wound (1D3).
    f = wight(strength="modifier")
    f.strike("ogre", "warrior", {"t1/melee/warrior/ogre": 3})
    s = f.last_strike()
    assert s.dice[0].sides == 6 and s.best2 == 2 * (3 + 2)
    g = wight(strength="modifier")
    g.strike("warrior", "ogre", {"t1/melee/ogre/warrior": 4})
    s = g.last_strike()
    assert s.defence == 3 and s.best2 == 2 * (4 - 2) and s.result == "none"


def troll_fight(**options: str) -> Fight:
    f = Fight([
        {"name": "troll", "side": "monsters", "species": "troll_large"},
        {"name": "a", "side": "men", "species": "human", "weapon": "spear"},
        {"name": "b", "side": "men", "species": "human"},
        {"name": "c", "side": "men", "species": "human"},
    ], options=options or None)
    f.turn()
    return f


def test_h2_splits_2d6_between_two_enemies_and_strikes_last() -> None:
    # Seed: H2 creatures "can choose to strike in melee with 1D12 against one enemy, or with 2D6 against
    # two enemies at the same time (1D6 against each of them, these D6 cannot be added)" and "always strike
    # last". Class 3 / armour 3 humans: 4 kills, 3 recoils.
    f = troll_fight()
    f.strike("b", "troll", {"t1/melee/troll/b": 1})
    f.strike("c", "troll", {"t1/melee/troll/c": 1})  # swords (short) before the Troll (last)
    f.strike("troll", ("b", "c"), {"t1/melee/b/troll": 4, "t1/melee/c/troll": 3})
    b, cc = f.state.turn.strikes[-2:]
    assert (b.dice[0].sides, b.result, cc.result) == (6, "kill", "recoil")
    assert b.split and cc.split
    # a blow at the Troll after it struck would have come first: a's spear (long) is out of order now
    with pytest.raises(IllegalCommand, match="strike order: troll already struck at the last step"):
        f.strike("a", "troll", {"t1/melee/troll/a": 1})


def test_h2_ignores_weapon_modifiers_and_no_split_for_others() -> None:
    # Seed: "Ignore their weapon length and weapon strength modifier if any".
    f = Fight([{"name": "troll", "side": "m", "species": "troll_large", "weapon": "two_handed_axe"},
               {"name": "a", "side": "men", "species": "human"}, {"name": "b", "side": "men", "species": "human"}])
    f.turn()
    f.strike("a", "troll", {"t1/melee/troll/a": 1})  # a's sword (short) strikes before the H2 (last)
    f.strike("troll", "a", {"t1/melee/a/troll": 5})
    assert f.last_strike().mods["troll"] == () and f.last_strike().dice[0].sides == 12
    with pytest.raises(IllegalCommand, match="H2"):
        f.strike("a", ("troll", "b"), {})


def test_h2_2d6_option_maximum_is_double_six() -> None:
    # Option h2_single_die=2d6 (reference 3.2 ambiguity 4): 2D6 added; its natural maximum is 12 (6+6).
    # Against a custom armour 12 a lone 12 is not sufficient (12 = 12), so both dice are re-rolled; a new
    # 6+6 adds 1: 13 > 12, a kill result, a wound on a 1D4 creature.
    f = Fight([{"name": "troll", "side": "m", "species": "troll_large"},
               {"name": "golem", "side": "g", "strength": "H2", "class": 5, "armour": 12, "wounds": "1d4"}],
              options={"h2_single_die": "2d6"})
    f.turn()
    f.strike("troll", "golem", {"t1/melee/golem/troll": (6, 6), "t1/melee/golem/reroll#1": (6, 6)})
    s = f.last_strike()
    assert s.best2 == 26 and s.result == "wound"  # 13 > 12: a wound (H2 golem has 1D4 life points)


def test_recoil_refused_by_much_larger_creature_still_stops_its_blow() -> None:
    # Seed, Recoil in melee: "H2 because of +H or weaker" may refuse; and (Dwarves) "the recoil result still
    # forbids the creature to strike even if it's ignored, if the enemy did strike first". Spear (long)
    # strikes before the Troll (last); 1D6 6 re-rolled 6 = 7 = armour 7: recoil, refused.
    f = troll_fight()
    f.strike("a", "troll", {"t1/melee/troll/a": 6, "t1/melee/troll/reroll#1": 6,
                            "t1/melee/troll/reroll#2": 1})
    s = f.last_strike()
    assert s.result == "recoil" and "refuses" in s.recoil_refused
    with pytest.raises(IllegalCommand, match="recoiled"):
        f.strike("troll", "b", {"t1/melee/b/troll": 12})
    g = troll_fight(refused_recoil_blocks_strike="off")
    g.strike("a", "troll", {"t1/melee/troll/a": 6, "t1/melee/troll/reroll#1": 6, "t1/melee/troll/reroll#2": 1})
    g.strike("b", "troll", {"t1/melee/troll/b": 1})  # b (short) strikes before the Troll (last)
    g.strike("troll", "b", {"t1/melee/b/troll": 12})
    assert g.last_strike().result == "kill"


def test_dwarf_on_mineral_ground_ignores_recoil() -> None:
    # Seed: "Dwarves can ignore 'recoil' results in melee when standing on solid mineral ground".
    f = Fight([{"name": "dwarf", "side": "d", "species": "dwarf", "class": 4, "worn": 4},
               {"name": "orcq", "side": "o", "species": "orcq", "weapon": "spear"}])
    f.turn()
    f.run(c.Move(figure="dwarf", stationary=True, ground="mineral"))
    f.strike("orcq", "dwarf", {"t1/melee/dwarf/orcq": 4})  # 4 = 4: recoil
    assert "mineral ground" in f.last_strike().recoil_refused
    with pytest.raises(IllegalCommand, match="recoiled"):
        f.strike("dwarf", "orcq", {"t1/melee/orcq/dwarf": 6})


def test_wounded_before_striking_cannot_strike() -> None:
    # Seed, Wounds: "If a creature is wounded in melee before it could strike its opponent(s) the wound
    # prevents it to strike in the same game turn." A human spear (long) before the Ogre's short weapon:
    # 1D6 6 > 5: a wound.
    f = wight()
    f.strike("warrior", "ogre", {"t1/melee/ogre/warrior": 6})
    f2 = Fight([{"name": "spear", "side": "men", "species": "human", "weapon": "spear"},
                {"name": "ogre", "side": "m", "species": "ogre"}])
    f2.turn()
    f2.strike("spear", "ogre", {"t1/melee/ogre/spear": 6})
    with pytest.raises(IllegalCommand, match="wounded before it could strike"):
        f2.strike("ogre", "spear", {"t1/melee/spear/ogre": 10})


def test_skeleton_and_zombie() -> None:
    # Seed: "Skeletons strike with a die inferior to the usual die of their species (1D4 for human
    # skeletons). Zombies use the die of their species and always strike last."; "zombies and skeletons
    # have -1 protection from shots" (+1 to the shot).
    f = Fight([{"name": "skel", "side": "u", "species": "human_skeleton"},
               {"name": "zed", "side": "u", "species": "human_zombie"},
               {"name": "man", "side": "men", "species": "human", "missile": "simple_bow"},
               {"name": "man2", "side": "men", "species": "human"}])
    f.turn()
    f.run(c.Shoot(shooters=("man",), targets=("skel",), need=5), {"t1/shoot/skel/man": 4})
    shot = f.state.turn.shots[-1]
    assert shot.dice[0].total2 == 10 and shot.hits == ("skel",)
    f.strike("man2", "zed", {"t1/melee/zed/man2": 1})  # man2 (short) strikes before the zombie (last)
    f.strike("zed", "man2", {"t1/melee/man2/zed": 3})
    assert f.last_strike().tier == 5 and f.last_strike().dice[0].sides == 6
    assert f.state.figures["skel"].melee_die == 4


def test_shooting_into_melee_double_one_hits_a_friend() -> None:
    # Seed: "At 0-10 cm maximal range, small humanoids (Goblins, Halflings, etc. and also Dwarves) can shoot
    # at human-sized or taller enemies ... even in a melee ... Every natural double 1 (more than one, or
    # reroll of a single 1) hits a small friend of the shooter".
    f = Fight([{"name": f"gob-{n}", "side": "g", "species": "goblin", "missile": "simple_bow"} for n in (1, 2)]
              + [{"name": "gob-3", "side": "g", "species": "goblin"},
                 {"name": "man", "side": "men", "species": "human"}])
    f.turn()
    with pytest.raises(IllegalCommand, match="0-10 cm"):
        f.run(c.Shoot(shooters=("gob-1",), targets=("man",), need=5, into_melee=True, range_cm=15))
    f.run(c.Shoot(shooters=("gob-1", "gob-2"), targets=("man",), need=5, into_melee=True, range_cm=8,
                  friends=("gob-3",)), {"t1/shoot/man/gob-1": 1, "t1/shoot/man/gob-2": 1})
    shot = f.state.turn.shots[-1]
    assert shot.friend_hits == ("gob-3",) and f.effect("gob-3").killed_at == -1
    g = Fight([{"name": "gob-1", "side": "g", "species": "goblin", "missile": "simple_bow"},
               {"name": "gob-3", "side": "g", "species": "goblin"}, {"name": "man", "side": "men", "species": "human"}])
    g.turn()
    g.run(c.Shoot(shooters=("gob-1",), targets=("man",), need=5, into_melee=True, range_cm=8, friends=("gob-3",)),
          {"t1/shoot/man/gob-1": 1, "t1/shoot/man/one#1": 2})
    assert g.state.turn.shots[-1].friend_hits == ()


def test_bad_input_is_refused() -> None:
    # Clear errors, nothing appended.
    f = wight()
    with pytest.raises(InvalidCommand, match="no figure"):
        f.strike("nobody", "ogre", {})
    with pytest.raises(InvalidCommand, match="attackers' side"):
        f.strike("warrior", "halfling", {})
    with pytest.raises(IllegalCommand, match="no missile weapon"):
        f.run(c.Shoot(shooters=("warrior",), targets=("ogre",)))
    g = Fight([{"name": "bow", "side": "a", "species": "human", "missile": "longbow"},
               {"name": "man", "side": "b", "species": "human"}])
    g.turn()
    with pytest.raises(IllegalCommand, match="given with --need"):  # no seed cell for medium range
        g.run(c.Shoot(shooters=("bow",), targets=("man",), range="medium"))
    assert g.state.turn.shots == () and g.state.turn.phase == "movement"  # nothing appended
    with pytest.raises(InvalidCommand):
        Fight([{"name": "x", "side": "a", "species": "elf"}])
    with pytest.raises(InvalidCommand, match="cannot use"):
        Fight([{"name": "x", "side": "a", "species": "goblin", "missile": "longbow"}])
    with pytest.raises(InvalidCommand, match="unknown Argad option"):
        Fight([{"name": "x", "side": "a", "species": "goblin"}], options={"nonsense": "on"})


def test_options_from_the_genesis_options() -> None:
    # `combatlog new --option two_maxima=half` lands in the genesis options (strings); same effect as in
    # the set-up: two 4s against D 5 are 4.5, no effect (see test_two_maxima_option).
    from combatlog.wiring import create_combat, execute
    from combatlog.projections.fold import state_at
    from combatlog.store import open_store

    store = open_store("memory:")
    create_combat(store, "o", "argad", actor="gm", dice="manual", options={"two_maxima": "half"},
                  setup={"figures": [{"name": "g1", "side": "g", "species": "goblin"},
                                     {"name": "g2", "side": "g", "species": "goblin"},
                                     {"name": "ogre", "side": "o", "species": "ogre"}]})
    execute(store, "o", c.StartTurn(), actor="gm")
    execute(store, "o", c.Strike(attackers=("g1", "g2"), targets=("ogre",)), actor="gm",
            manual_faces={"t1/melee/ogre/g1": (4,), "t1/melee/ogre/g2": (4,)})
    state = state_at(store, store.list_streams()[0]).state
    assert state.options.two_maxima == "half" and state.turn.strikes[-1].result == "none"
    with pytest.raises(InvalidCommand, match="choose one of"):
        create_combat(store, "p", "argad", actor="gm", options={"two_maxima": "third"})


def test_command_radius_option() -> None:
    # Seed, Natural dice maximum rule (optional): figures out of earshot of their chiefs "do not benefit
    # from this rule and do not have any positive modifier to shoot or in melee". A warrior out of command:
    # axe +1 dropped, a 6 is not re-rolled: 6 against the Ogre in mail (D 6) is a recoil (refused).
    f = Fight([{"name": "w", "side": "men", "species": "human", "weapon": "two_handed_axe"},
               {"name": "ogre", "side": "o", "species": "ogre", "class": 4, "worn": 4}],
              options={"command_radius": "on"})
    f.turn()
    f.run(c.Move(figure="w", out_of_command=True))
    f.strike("w", "ogre", {"t1/melee/ogre/w": 6})
    s = f.last_strike()
    assert s.mods["w"] == () and s.rerolls == () and s.result == "recoil"


def test_hero_designates_an_opponent_in_a_pool() -> None:
    # Seed: pooled strikes ignore the priority; "Optional rule: the PJs, and some heroes and very good
    # swordpersons, can designate a peculiar opponent so this priority still applies." The hero (class 4,
    # armour 4) strikes gob-1 alone (5 > 3: kill) while gob-1 and gob-2 strike him together (4, 4 = 5 > 4:
    # kill) at the same (short) step: class 4 > 3, the pool's kill is cancelled.
    f = Fight([{"name": "hero", "side": "men", "species": "human", "class": 4, "worn": 4, "abilities": ["hero"]},
               {"name": "gob-1", "side": "g", "species": "goblin"}, {"name": "gob-2", "side": "g", "species": "goblin"}])
    f.turn()
    f.strike("hero", "gob-1", {"t1/melee/gob-1/hero": 5})
    f.strike(("gob-1", "gob-2"), "hero", {"t1/melee/hero/gob-1": 4, "t1/melee/hero/gob-2": 4})
    s = f.last_strike()
    assert s.result == "kill" and s.cancelled_by == f.state.turn.strikes[0].seq
    assert f.effect("hero").killed_at == -9 and f.effect("gob-1").killed_at != -9
