"""``status`` and the top-level ``round`` of ``status --json`` / ``show --json`` name the round being
decided; right after a round ends that is the next round, not the round of the last event (which
``event_round`` keeps). Checked for every ruleset at that boundary, and on the first round."""

from __future__ import annotations

import pytest

from tests.conftest import Cli
from tests.views_helpers import run_upto

# (example file, stream, the command that ends round 1, the round that ended)
BOUNDARIES = [
    ("magic_realm/giant-and-goblins.cmds", "giant-goblins", "mr resolve giant-goblins", 1),
    ("osric/ford.cmds", "ford", "osric end-round ford", 1),
    ("argad/warrior-vs-goblins.cmds", "goblins", "argad end-turn goblins", 1),
    ("classic_fantasy/duel.cmds", "duel", "cfi effects duel Brom", 1),
]


def _check(cli: Cli, name: str, deciding: int, event_round: int) -> None:
    status = cli("status", name, "--json").json()
    assert (status["round"], status["event_round"]) == (deciding, event_round)  # type: ignore[index]
    shown = cli("show", name, "--json").json()
    assert (shown["round"], shown["event_round"]) == (deciding, event_round)  # type: ignore[index]
    assert cli("status", name).out.splitlines()[0].startswith(f"{name}: round {deciding}, ")


@pytest.mark.parametrize(("example", "name", "ender", "ended"), BOUNDARIES)
def test_status_names_the_next_round_right_after_a_round_ends(cli: Cli, example: str, name: str, ender: str,
                                                                ended: int) -> None:
    run_upto(cli, example, ender)
    _check(cli, name, ended + 1, ended)
    # show --round N is still the state at the end of round N (its last event).
    at_end = cli("show", name, "--round", str(ended), "--json").json()
    assert at_end["event_round"] == ended and at_end["round"] == ended + 1  # type: ignore[index]


def test_freeform_round_closed_and_not_yet_reopened(cli: Cli) -> None:
    cli("new", "brawl", "--ruleset", "freeform", "--dice", "local")
    cli("freeform", "join", "brawl", "Aldo", "--side", "a")
    cli("freeform", "join", "brawl", "Bo", "--side", "b")
    _check(cli, "brawl", 0, 0)
    cli("freeform", "round", "brawl")
    _check(cli, "brawl", 1, 1)
    cli("freeform", "end-round", "brawl")
    _check(cli, "brawl", 2, 1)
    cli("freeform", "round", "brawl")
    _check(cli, "brawl", 2, 2)


def test_replay_round_0_is_labelled_round_0_in_every_ruleset(cli: Cli) -> None:
    """The genesis is the set-up, round 0, in every ruleset (projections/fold.py): `replay --round 0` lists it
    under [r0], even in Magic Realm whose state begins in round 1 (it printed [r1] for round 0)."""
    run_upto(cli, "magic_realm/giant-and-goblins.cmds", "mr resolve giant-goblins")
    first = cli("replay", "giant-goblins", "--round", "0").out.splitlines()[0]
    assert first.startswith("#1") and "[r0]" in first and "begins" in first
    rows = cli("replay", "giant-goblins", "--round", "1", "--json").json()["events"]  # type: ignore[index]
    assert rows[0]["seq"] == 2 and {r["round"] for r in rows} == {1}


def test_the_live_page_header_agrees_with_the_sheet_between_two_rounds() -> None:
    """Right after round 1 ends the sheet is drawn at round 1 (the last event's round) while the combat decides
    round 2: the header says both, not "round 2" above a round-1 sheet."""
    from combatlog.rulesets.freeform.ruleset import Freeform
    from combatlog.rulesets.freeform.state import FreeformState
    from combatlog.server.page import _where

    ruleset = Freeform()
    assert _where(ruleset, FreeformState(round=1, in_round=False)) == "round 1 over, round 2 next"
    assert _where(ruleset, FreeformState(round=2, in_round=True)) == "round 2"
    assert _where(ruleset, FreeformState(round=2, ended=True)) == "finished"
