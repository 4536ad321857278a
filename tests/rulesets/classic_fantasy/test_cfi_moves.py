"""Classic Fantasy and the legal-moves framework: defects the random playouts found (each citing its rule),
and the offered moves' command lines parsing into exactly the proposed commands."""

from __future__ import annotations

from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter
from combatlog.rulesets.classic_fantasy import commands as c

INIT = {"r1/init/A": 9, "r1/init/D": 1}  # A 22, D 14: A acts first


def test_an_interrupted_turn_without_action_points_passes_on() -> None:
    # CFI Ch.8 Interrupt: the interrupted Turn continues after the delayed Action; CFI Ch.8 Turns: a
    # participant with no Action Points left takes no Turn. D spends his last Action Point parrying the
    # Interrupt's attack, so his Turn does not resume: the Round is over (no one else has any left).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    assert fight.who("A").ap == 2 and fight.who("D").ap == 2
    fight.act("A", "delay")
    fight.attack("D", "A", {"r1/a2/attack": 95}, moving=True)
    fight.parry("A", {"r1/a2/parry": 95})  # both fail: nothing lands
    assert fight.state.turn == "D" and fight.who("D").ap == 1 and fight.who("A").ap == 1
    fight.act("A", "interrupt")
    fight.attack("A", "D", {"r1/a3/attack": 95})
    fight.parry("D", {"r1/a3/parry": 95})
    assert fight.who("D").ap == 0 and fight.who("A").ap == 0
    assert fight.state.turn == "" and fight.state.interrupted == ""
    fight.round({})  # the next Round starts without forcing
