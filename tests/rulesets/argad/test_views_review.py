"""Argad views found wanting by a review: ``figures --json`` showed a figure killed this turn as
"standing" until the turn ended; it is "killed" (out of the fight, removed as dead at the turn's end)."""

from __future__ import annotations

from tests.conftest import Cli
from tests.views_helpers import run_upto


def test_a_figure_killed_this_turn_is_not_standing(cli: Cli) -> None:
    # The seed's worked example, turn 1: the warrior's axe (4, +1 two-handed = 5 > Gob D's 4) kills Gob D.
    run_upto(cli, "argad/warrior-vs-goblins.cmds", "argad strike goblins warrior --at gob-d")
    figures = {f["name"]: f for f in cli("argad", "figures", "goblins", "--json").json()}  # type: ignore[union-attr]
    assert figures["gob-d"]["status"] == "killed" and figures["gob-d"]["this_turn"]["killed"] is True
    assert figures["gob-a"]["status"] == "standing" and figures["warrior"]["status"] == "standing"
    shown = cli("show", "goblins", "--json").json()["state"]["figures"]  # type: ignore[index]
    assert next(f for f in shown if f["name"] == "gob-d")["status"] == "killed"
    assert "killed this turn" in cli("argad", "figures", "goblins").out
    # at the end of the turn the death is applied
    cli("argad", "end-turn", "goblins")
    after = {f["name"]: f for f in cli("argad", "figures", "goblins", "--json").json()}  # type: ignore[union-attr]
    assert after["gob-d"]["status"] == "dead"
