"""What ``status`` and ``status --mine`` tell an Argad player, by the real CLI.

Ending a game turn gives up the blows still open (seed 004 'Wounds': a creature wounded "before it could
strike" does not strike that turn; the Goblin example of 'Natural dice maximum rule': the blows of one step
land "at the same time", "Then" the shorter ones), so where players are bound to the sides only they, or the
referee, may end it before those figures have struck or held (argad/authority.py). In a hot seat nothing is
enforced: one person types everything.
"""

from __future__ import annotations

from tests.conftest import REPO, Cli

GOBLINS = str(REPO / "docs/examples/argad/warrior-vs-goblins.json")


def test_a_hot_seat_is_not_told_that_only_the_players_may_end_the_turn(cli: Cli) -> None:
    cli("new", "g", "--ruleset", "argad", "--setup", GOBLINS, "--dice", "manual")
    cli("argad", "turn", "g")
    status = cli("status", "g").out
    assert "end game turn 1 once warrior, gob-a, gob-b, gob-c, gob-d, gob-e, gob-f have struck or held" in status
    assert "before that, only" not in status and "may end it" not in status
    cli("argad", "end-turn", "g", "--as", "gob-player")  # and indeed anyone may end it
