"""Holding a blow (``argad hold``) and who may end a game turn while a figure may still strike.

Seed 004 'Wounds': "If a creature is wounded in melee before it could strike its opponent(s) the wound
prevents it to strike in the same game turn"; the Goblin example ('Natural dice maximum rule'): the spears
and the axe "strike at the same time", "Then" the swords. So a blow comes at its step or not at all, and
ending the turn before a figure struck gives its blow up: that is its side's to do (or the referee's).
The engine cannot tell who is in contact, so a side declares the figures that will not strike.
"""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from combatlog.commands.authority import Roles, check_authority
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.argad import RULESET
from combatlog.rulesets.argad import commands as c
from combatlog.rulesets.argad.authority import PASSED
from combatlog.rulesets.argad.decide import R_HOLD
from combatlog.rulesets.argad.events import Held
from tests.conftest import REPO
from tests.rulesets.argad.argad_helpers import Fight

SEED_FIGURES = json.loads((REPO / "docs/examples/argad/warrior-vs-goblins.json").read_text())["figures"]
PLAYERS = {"humans": ("alice",), "goblins": ("bob",)}
PINNED = Roles(players=("alice", "bob"), enforced=True)
REFEREED = Roles(referee="gm", referee_named=True, players=("alice", "bob", "gm"), enforced=True)


def goblins() -> Fight:
    """The seed's warrior (two-handed axe, half-long) against Goblins A-C (swords, short) and D-F (spears,
    half-long for Goblins), game turn 1 open."""
    f = Fight(SEED_FIGURES, name="goblins")
    f.turn()
    return f


def head(f: Fight) -> int:
    return f.store.head(f.store.list_streams()[0].id).seq


def pinned(f: Fight, roles: Roles = Roles()):  # type: ignore[no-untyped-def]
    """The fight's state with the sides played by alice (humans) and bob (goblins), as a set-up's ``players``
    (and the genesis's ``roles``: the state's own, as ``new --player`` or ``--referee`` would make them)."""
    return msgspec.structs.replace(f.state, players=PLAYERS, roles=roles)


def test_hold_refuses_bad_input_and_records_nothing() -> None:
    f = goblins()
    # Seed example turn 1: the axe 4 +1 = 5 > 3 kills Gob D (its spear blow at the same step still counts)
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 4})
    before = head(f)
    cases: list[tuple[c.Hold, type[Exception], str]] = [
        (c.Hold(figures=("nobody",)), InvalidCommand, "no figure 'nobody'"),
        (c.Hold(figures=("gob-a", "warrior")), InvalidCommand, "warrior is of side humans, gob-a of side goblins"),
        (c.Hold(figures=("warrior",)), IllegalCommand, "warrior has already struck this turn: there is no blow left"),
        (c.Hold(figures=("gob-a", "gob-a")), InvalidCommand, "named twice"),
        (c.Hold(figures=("gob-a",), side="goblins"), InvalidCommand, "not both"),
        (c.Hold(side="orcs"), InvalidCommand, "no side 'orcs' (sides: goblins, humans)"),
        (c.Hold(side="humans"), IllegalCommand, "no figure of side humans may still strike"),
        (c.Hold(), InvalidCommand, "name at least one figure to hold"),
    ]
    for command, error, text in cases:
        with pytest.raises(error, match=re.escape(text)):
            f.run(command)
    f.run(c.Hold(figures=("gob-a",)))
    with pytest.raises(IllegalCommand, match="gob-a already holds its blow in game turn 1"):
        f.run(c.Hold(figures=("gob-a",)))
    assert head(f) == before + 1 and f.state.turn.held == {"gob-a": before + 1}


def test_a_dead_figure_or_one_killed_before_its_step_has_no_blow_to_hold() -> None:
    # Seed example: turn 1 the axe kills Gob D (4 +1 = 5 > 3); turn 2 it kills Gob A (3 +1 = 4 > 3) at the
    # half-long step, before Gob A's sword (short): "Gob A is dead before the swords strike".
    f = goblins()
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 4})
    f.run(c.Hold(figures=("gob-d",)))  # killed at its own step: its blow was still its to strike, or to hold
    f.run(c.Hold(side="goblins"))
    f.run(c.EndTurn())
    f.turn()
    f.strike("warrior", "gob-a", {"t2/melee/gob-a/warrior": 3})
    with pytest.raises(IllegalCommand, match="gob-d is no longer on the table: there is no blow left to hold"):
        f.run(c.Hold(figures=("gob-d",)))
    with pytest.raises(IllegalCommand, match=r"gob-a was killed before it could strike: there is no blow left to "
                                             r"hold in game turn 2 \(Argad: Melee peculiarities\)"):
        f.run(c.Hold(figures=("gob-a",)))


def test_a_held_figure_may_not_strike_this_turn_but_may_the_next() -> None:
    f = goblins()
    f.run(c.Hold(figures=("gob-b", "gob-c")))
    with pytest.raises(IllegalCommand, match="gob-b held its blow this turn .argad hold.: it does not strike again "
                                             "before game turn 2"):
        f.strike(("gob-a", "gob-b"), "warrior", {"t1/melee/warrior/gob-a": 1, "t1/melee/warrior/gob-b": 1})
    assert f.state.turn.strikes == ()
    f.run(c.Hold(side="goblins"))
    f.run(c.Hold(figures=("warrior",)))
    f.run(c.EndTurn())
    f.turn()
    # Turn 2, nothing held: the axe first (half-long), then Gob B's sword (short): 1D4 1, nothing against D 4
    f.strike("warrior", "gob-a", {"t2/melee/gob-a/warrior": 1})
    f.strike("gob-b", "warrior", {"t2/melee/warrior/gob-b": 1})
    assert f.last_strike().attackers == ("gob-b",)


def test_holding_a_side_holds_only_the_figures_that_may_still_strike() -> None:
    # Seed example turn 1: the spears (D, E above A's shoulders, F sideways) roll 2, 3, 1: no 4, no effect
    f = goblins()
    f.strike(("gob-d", "gob-e", "gob-f"), "warrior", {"t1/melee/warrior/gob-d": 2, "t1/melee/warrior/gob-e": 3,
                                                      "t1/melee/warrior/gob-f": 1}, ranks=(2, 2, 1), over="gob-a")
    f.run(c.Hold(side="goblins"))
    assert f.state.turn.held.keys() == {"gob-a", "gob-b", "gob-c"}
    assert any(s.rule == R_HOLD and "gob-a, gob-b, gob-c do not strike in game turn 1" in s.text for s in f.steps)


def test_a_shorter_blow_at_a_held_longer_weapon_need_not_wait() -> None:
    # tests/rulesets/argad/test_strike_order.py's spearman (spear: long) and Ogre (axe: half-long). The axe at
    # the spearman waits for the spear; once the spearman's side holds its blow, it no longer does:
    # 1D10 9 +1 = 10 > 4 (class 4, armour 4): the spearman is killed.
    f = Fight([{"name": "spear", "side": "band", "species": "human", "class": 4, "worn": 4, "weapon": "spear"},
               {"name": "ogre", "side": "monsters", "species": "ogre", "class": 3, "worn": 3,
                "weapon": "two_handed_axe"}])
    f.turn()
    with pytest.raises(IllegalCommand, match="strike order: spear strikes first"):
        f.strike("ogre", "spear", {"t1/melee/spear/ogre": 9})
    assert "after spear" in next(p.what for p in RULESET.pending(f.state) if p.who == "ogre")
    f.run(c.Hold(figures=("spear",)))
    assert "after spear" not in next(p.what for p in RULESET.pending(f.state) if p.who == "ogre")
    f.strike("ogre", "spear", {"t1/melee/spear/ogre": 9})
    assert (f.last_strike().best2, f.last_strike().result) == (20, "kill")


def test_end_turn_over_an_open_blow_is_its_sides_or_the_referees() -> None:
    # The attack: alice (humans) strikes with the axe (Gob D killed, 4 +1 = 5 > 3), then ends the turn before
    # the Goblins' spears (the same step) and swords (the next) struck: their blows would be lost.
    f = goblins()
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 4})
    state = pinned(f)
    need = RULESET.authority(state, c.EndTurn())
    assert need.kind == "pieces" and need.referee_too and need.rule == PASSED
    assert [piece for piece, _ in need.owners] == ["gob-a", "gob-b", "gob-c", "gob-d", "gob-e", "gob-f"]
    with pytest.raises(IllegalCommand) as refused:
        check_authority(RULESET, state, PINNED, c.EndTurn(), "alice")
    text = str(refused.value)
    assert "gob-a belongs to bob; alice may not end game turn 1 over the blow still open to it" in text
    assert "may still strike in game turn 1: gob-a, gob-b, gob-c, gob-d, gob-e, gob-f (side goblins: bob)" in text
    assert "combatlog argad hold STREAM --side goblins --as bob" in text
    check_authority(RULESET, state, PINNED, c.EndTurn(), "bob")  # his figures' blows: his to give up
    check_authority(RULESET, state, REFEREED, c.EndTurn(), "gm")  # or the referee's
    with pytest.raises(IllegalCommand, match="belongs to bob; alice may not"):
        check_authority(RULESET, state, REFEREED, c.EndTurn(), "alice")
    # a side no player plays holds nobody up where there is no referee (anyone's), as its moves are anyone's
    unplayed = msgspec.structs.replace(state, players={"humans": ("alice",)})
    check_authority(RULESET, unplayed, PINNED, c.EndTurn(), "alice")


def test_once_held_or_struck_the_end_of_the_turn_is_anyones_again() -> None:
    f = goblins()
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 4})
    f.run(c.Hold(figures=("gob-d", "gob-e", "gob-f")))
    need = RULESET.authority(pinned(f), c.EndTurn())
    assert [piece for piece, _ in need.owners] == ["gob-a", "gob-b", "gob-c"]
    # Seed example: the swords roll 3, 2, 1: no 4, nothing (D 4)
    f.strike(("gob-a", "gob-b", "gob-c"), "warrior", {"t1/melee/warrior/gob-a": 3, "t1/melee/warrior/gob-b": 2,
                                                      "t1/melee/warrior/gob-c": 1})
    assert RULESET.authority(pinned(f), c.EndTurn()).kind == "anyone"
    check_authority(RULESET, pinned(f), PINNED, c.EndTurn(), "alice")
    pending = {p.who: p.what for p in RULESET.pending(f.state)}
    assert pending == {"gm": "end game turn 1"}
    f.run(c.EndTurn())
    assert "held back gob-d, gob-e, gob-f" in f.state.history[-1]


def test_hold_is_its_sides_players_or_the_referees() -> None:
    f = goblins()
    state = pinned(f)
    with pytest.raises(IllegalCommand, match="warrior belongs to alice; bob may not hold the blow of it"):
        check_authority(RULESET, state, PINNED, c.Hold(figures=("warrior",)), "bob")
    with pytest.raises(IllegalCommand, match="side goblins belongs to bob; alice may not hold the blows of it"):
        check_authority(RULESET, state, PINNED, c.Hold(side="goblins"), "alice")
    check_authority(RULESET, state, PINNED, c.Hold(side="goblins"), "bob")
    check_authority(RULESET, state, REFEREED, c.Hold(figures=("warrior",)), "gm")
    # Strike stays its players' alone (as before): the referee holds for a side, he does not strike for it
    with pytest.raises(IllegalCommand, match="warrior belongs to alice; gm may not strike with it"):
        check_authority(RULESET, state, REFEREED, c.Strike(attackers=("warrior",), targets=("gob-a",)), "gm")


def test_pending_says_whom_the_end_of_the_turn_waits_for() -> None:
    f = goblins()
    f.strike("warrior", "gob-d", {"t1/melee/gob-d/warrior": 4})
    open_ = "end game turn 1 once gob-a, gob-b, gob-c, gob-d, gob-e, gob-f have struck or held"
    only = {PINNED: " (before that, only their players may end it)",  # no referee: nobody else may
            REFEREED: " (before that, only their players or the referee may end it)"}
    for roles in (PINNED, REFEREED):  # players bound to the sides, or a referee: the end is theirs to make
        pending = {p.who: p.what for p in RULESET.pending(pinned(f, roles))}
        assert pending["gob-a"].endswith(", or hold its blow")
        assert pending["gm"] == open_ + only[roles]
    # A hot seat (no pinned player, no referee: one person types everything, anyone may end the turn), with or
    # without a set-up's players: it waits for the blows, and says of no one that only they may end it.
    for state in (f.state, pinned(f)):
        assert {p.who: p.what for p in RULESET.pending(state)}["gm"] == open_
    # roles enforced, but the open figures are no player's and there is no referee: anyone's too
    assert {p.who: p.what for p in RULESET.pending(msgspec.structs.replace(f.state, roles=PINNED))}["gm"] == open_


def test_views_and_invariant_know_a_held_figure() -> None:
    f = goblins()
    f.run(c.Hold(figures=("gob-a",)))
    assert RULESET.summarize(Held(turn=1, figures=("gob-a",))) == "gob-a holds its blow this turn"
    view = RULESET.describe(f.state)
    assert view["turn_summary"]["held"] == ["gob-a"]
    assert next(x for x in view["figures"] if x["name"] == "gob-a")["this_turn"]["held"] is True
    assert "holds its blow" in RULESET.render(f.state)
    assert RULESET.check(f.state) == []
    # a log whose strike came after the hold (never accepted by decide): check() names it
    turn = f.state.turn
    strike = msgspec.structs.replace(f.state, turn=msgspec.structs.replace(turn, held={"gob-a": 3}))
    from combatlog.rulesets.argad.state import Strike

    late = Strike(seq=9, attackers=("gob-a",), target="warrior", tier=4, dice=(), rerolls=(), mods={"gob-a": ()},
                  maxima_before=0, maxima=0, best2=2, defence=4, low=4, auto_hit=False, result="none")
    doctored = msgspec.structs.replace(strike, turn=msgspec.structs.replace(strike.turn, strikes=(late,)))
    assert "gob-a struck after its side held its blow in turn 1" in RULESET.check(doctored)
    f.run(c.Hold(side="goblins"))
    f.run(c.Hold(side="humans"))
    f.run(c.EndTurn())
    assert RULESET.describe(f.state)["last_turn_summary"]["held"] == [
        "gob-a", "gob-b", "gob-c", "gob-d", "gob-e", "gob-f", "warrior"]


def test_ending_the_turn_over_ones_own_blows_does_not_let_one_type_anothers_survival_die() -> None:
    # Dice typed in (--face) by anyone but the referee are accepted only for the typist's own pieces' dice
    # (commands/authority.py). bob's spearman wounds alice's Ogre (1D6 6 > 5: class 3, armour 3 + 2 hide; a
    # wound on a 1D3 creature, seed 'Wounds'), so the Ogre rolls for survival at the end of the turn; bob's
    # Goblin may still strike. bob may end the turn (the open blow is his own to give up), but the survival
    # die is the Ogre's: with a referee, only the referee types its face, as before this change.
    f = Fight([{"name": "ogre", "side": "humans", "species": "ogre", "class": 3, "worn": 3,
                "weapon": "two_handed_axe"},
               {"name": "spear", "side": "goblins", "species": "human", "weapon": "spear"},
               {"name": "gob", "side": "goblins", "species": "goblin"}])
    f.turn()
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 6})
    state = pinned(f)
    assert [piece for piece, _ in RULESET.authority(state, c.EndTurn()).owners] == ["gob"]
    check_authority(RULESET, state, REFEREED, c.EndTurn(), "bob")
    with pytest.raises(IllegalCommand, match="only the referee, gm, may enter the faces"):
        check_authority(RULESET, state, REFEREED, c.EndTurn(), "bob", manual_dice=True)
    check_authority(RULESET, state, REFEREED, c.EndTurn(), "gm", manual_dice=True)


def test_a_figure_with_no_enemy_left_to_strike_holds_nobody_up() -> None:
    # Every Goblin flees (argad remove) before the melee: the warrior, which has not struck, has no enemy left
    # on the table, so no blow is open: the end of the turn is anyone's and status offers no blow.
    f = goblins()
    for name in ("gob-a", "gob-b", "gob-c", "gob-d", "gob-e", "gob-f"):
        f.run(c.Remove(figure=name, reason="fled"))
    assert RULESET.authority(pinned(f), c.EndTurn()).kind == "anyone"
    assert {p.who: p.what for p in RULESET.pending(f.state)} == {"gm": "end game turn 1"}
