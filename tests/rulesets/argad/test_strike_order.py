"""Strike order between opponents: longer weapons strike first (tester's defect report, turn 1).

Seed 004 'Wounds': "If a creature is wounded in melee before it could strike its opponent(s) the
wound prevents it to strike in the same game turn." Seed 004 Goblin example: the spears and the axe
(half-long) strike "at the same time", "Then" the swords (short). Reference 3.1: "longer weapons
strike first". The order binds a figure and its opponents, so a blow at a figure waits for that
figure's own blow when its weapon is longer.
"""

from __future__ import annotations

import pytest
from tests.rulesets.argad.argad_helpers import Fight

from combatlog.errors import IllegalCommand
from combatlog.rulesets.argad import RULESET
from combatlog.rulesets.argad import commands as c


def spear_and_ogre() -> Fight:
    # The tester's set-up: a human spearman (spear: long for humans, docs/argad.md Decisions) class 4
    # armour 4, and an Ogre (++H, 1D10, hide +2: armour 3 + 2 = 5) with a two-handed axe (half-long).
    f = Fight([{"name": "spear", "side": "band", "species": "human", "class": 4, "worn": 4, "weapon": "spear"},
               {"name": "ogre", "side": "monsters", "species": "ogre", "class": 3, "worn": 3,
                "weapon": "two_handed_axe"}])
    f.turn()
    return f


def pending(f: Fight) -> dict[str, str]:
    return {p.who: p.what for p in RULESET.pending(f.state)}


def test_half_long_blow_waits_for_the_targets_long_weapon() -> None:
    # The Ogre's axe (half-long) at the spearman is refused while the spear (long) has not struck;
    # nothing is recorded, and the spearman's blow is then accepted (1D6 3 vs class 3 / armour 5:
    # 3 < 5, no effect), after which the Ogre strikes (1D10 9 +1 axe = 10 > 4: the spearman is killed).
    f = spear_and_ogre()
    with pytest.raises(IllegalCommand, match="strike order: spear strikes first"):
        f.strike("ogre", "spear", {"t1/melee/spear/ogre": 9})
    assert f.state.turn.strikes == ()
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 3})
    assert f.last_strike().result == "none"
    f.strike("ogre", "spear", {"t1/melee/spear/ogre": 9})
    assert (f.last_strike().best2, f.last_strike().result) == (20, "kill")


def test_a_wounded_ogre_cannot_strike_back() -> None:
    # Seed 'Wounds': the spear strikes first; 1D6 6 > 5 (class 3, armour 3 + hide 2):
    # a kill result, a wound on a 1D3 creature, so the Ogre cannot strike this turn.
    f = spear_and_ogre()
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 6})
    assert f.last_strike().result == "wound"
    with pytest.raises(IllegalCommand, match="wounded before it could strike"):
        f.strike("ogre", "spear", {"t1/melee/spear/ogre": 9})


def test_status_names_who_strikes_first() -> None:
    # Before any blow the spear (long step) is listed first and the Ogre (half-long) waits for it.
    f = spear_and_ogre()
    whos = [p.who for p in RULESET.pending(f.state)]
    assert whos == ["spear", "ogre", "gm"]
    assert pending(f)["spear"] == "may strike in melee (long step), or hold its blow"
    assert "after spear" in pending(f)["ogre"]
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 3})
    # a hot seat (no pinned player, no referee): anyone may end the turn, so no "only its players" is said
    assert pending(f) == {"ogre": "may strike in melee (half-long step), or hold its blow",
                          "gm": "end game turn 1 once ogre has struck or held"}
    f.strike("ogre", "spear", {"t1/melee/spear/ogre": 1})  # 1D10 1 +1 = 2 < 4: nothing
    assert pending(f) == {"gm": "end game turn 1"}


def test_strikes_elsewhere_in_the_melee_need_no_global_order() -> None:
    # Only opponents wait on each other: the Ogre's axe may strike a Goblin's sword (short) before a
    # second spearman, who fights someone else, has struck. 1D10 1 +1 = 2 < 3 (Goblin class/armour 3).
    f = Fight([{"name": "spear", "side": "band", "species": "human", "weapon": "spear"},
               {"name": "gob", "side": "monsters", "species": "goblin", "class": 3, "worn": 3, "weapon": "short"},
               {"name": "ogre", "side": "band", "species": "ogre", "weapon": "two_handed_axe"},
               {"name": "orc", "side": "monsters", "species": "orcq", "weapon": "short"}])
    f.turn()
    f.strike("ogre", "gob", {"t1/melee/gob/ogre": 1})
    f.strike("spear", "orc", {"t1/melee/orc/spear": 1})
    assert [s.attackers for s in f.state.turn.strikes] == [("ogre",), ("spear",)]


def test_a_longer_blow_at_a_figure_that_already_struck_is_refused() -> None:
    # The Ogre struck the Goblin at the half-long step; the spearman's spear (long) at the Ogre would
    # have come before that blow (seed 'Wounds'), so it cannot be recorded after it.
    f = Fight([{"name": "spear", "side": "band", "species": "human", "weapon": "spear"},
               {"name": "gob", "side": "band", "species": "goblin", "weapon": "short"},
               {"name": "ogre", "side": "monsters", "species": "ogre", "weapon": "two_handed_axe"}])
    f.turn()
    f.strike("ogre", "gob", {"t1/melee/gob/ogre": 1})
    with pytest.raises(IllegalCommand, match="ogre already struck at the half-long step"):
        f.strike("spear", "ogre", {"t1/melee/ogre/spear": 1})


def test_end_combat_in_an_open_turn_names_only_the_rolls_due() -> None:
    # Seed 'Wounds': survival rolls are made at the end of the turn, and only by wounded creatures.
    f = spear_and_ogre()
    with pytest.raises(IllegalCommand) as no_rolls:
        f.run(c.EndCombat(outcome="x"))
    assert "end-turn" in str(no_rolls.value) and "survival" not in str(no_rolls.value)
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 6})  # 6 > 5: a wound (see above)
    with pytest.raises(IllegalCommand, match="survival rolls are due for ogre"):
        f.run(c.EndCombat(outcome="x"))
    assert pending(f)["gm"] == "end game turn 1 (survival rolls: ogre)"


def test_no_wait_for_a_figure_barred_from_striking_back_by_charging_cavalry() -> None:
    # Seed, Melee peculiarities (knight vs Troll): "No other character can strike a same enemy in the same
    # game turn as charging cavalry". The knight's couched lance in a charge (1D6 1 +3 = 4 < 5, class 5
    # armour 5: nothing) fights the Orcq first, so the spearman can never strike the Orcq this turn: the
    # Orcq's sword at him does not wait for his spear. Without a knight, it waits.
    figures = [{"name": "knight", "side": "men", "species": "human", "class": 5, "worn": 5, "mounted": True,
                "weapon": "lance"},
               {"name": "spear", "side": "men", "species": "human", "weapon": "spear"},
               {"name": "orcq", "side": "orcqs", "species": "orcq", "class": 5, "worn": 5, "weapon": "short"}]
    f = Fight(figures)
    f.turn()
    f.run(c.Move(figure="knight", charge=True))
    f.strike("knight", "orcq", {"t1/melee/orcq/knight": 1})
    assert f.last_strike().result == "none"
    f.strike("orcq", "spear", {"t1/melee/spear/orcq": 1})
    assert f.last_strike().attackers == ("orcq",)
    g = Fight(figures[1:])
    g.turn()
    with pytest.raises(IllegalCommand, match="strike order: spear strikes first"):
        g.strike("orcq", "spear", {"t1/melee/spear/orcq": 1})
