"""Who rolled a Classic Fantasy die, in the dice ledger (``combatlog dice``, its JSON, the report's table).

``DiceRolled.by`` is "who rolled or entered the faces" (events/core.py); every ruleset but Classic Fantasy
records the player there (the command's actor, or Magic Realm's character's player). Classic Fantasy
records the combatant the die is rolled for, and its rules read it (CFI Ch.7 Cheat Fate: a Luck Point
re-rolls only a roll its spender made, outcome.py ``Recording``), so the recorded events stay as they are
(changing them would change the log's bytes and what ``verify`` re-decides): the views show the player
who rolled as ``by`` and the combatant as ``for``. Found by an exploratory test: the ledger said
"by Grak" for bob's roll, where every other ruleset names the player.

The duel is docs/examples/classic_fantasy/duel.cmds's first exchange, with --as naming who typed each
command (no pinned players: --as is a label, as at one table).
"""

from __future__ import annotations

import html
from pathlib import Path

from tests.conftest import REPO, Cli

SETUP = REPO / "docs" / "examples" / "classic_fantasy" / "duel.json"


def _duel(cli: Cli) -> None:
    cli("new", "duel", "--ruleset", "classic_fantasy", "--setup", str(SETUP), "--dice", "manual")
    cli("cfi", "round", "duel", "--face", "r1/init/Brom=6", "--face", "r1/init/Grak=8", "--as", "gm")
    cli("cfi", "attack", "duel", "Grak", "Brom", "--moving", "--face", "r1/a1/attack=23", "--as", "bob")
    cli("cfi", "parry", "duel", "Brom", "--weapon", "heater", "--face", "r1/a1/parry=18", "--face",
        "r1/a1/location=11", "--face", "r1/a1/damage=3,4", "--face", "r1/a1/dm=2", "--as", "alice")


def test_the_ledger_names_the_player_who_rolled_and_the_combatant_it_was_for(cli: Cli, tmp_path: Path) -> None:
    _duel(cli)
    ledger = cli("dice", "duel", "--json").json()
    rows = {r["label"]: (r["by"], r["for"]) for r in ledger["rolls"]}  # type: ignore[index]
    assert rows == {"r1/init/Brom": ("gm", "Brom"), "r1/init/Grak": ("gm", "Grak"),
                    "r1/a1/attack": ("bob", "Grak"), "r1/a1/parry": ("alice", "Brom"),
                    # drawn by alice's parry, for the blow Grak lands (exchange.py: the attacker's dice)
                    "r1/a1/location": ("alice", "Grak"), "r1/a1/damage": ("alice", "Grak"),
                    "r1/a1/dm": ("alice", "Grak")}
    # the statistics are per roller, as in every ruleset: the players, not the combatants
    assert sorted(ledger["by_roller"]) == ["alice", "bob", "gm"]  # type: ignore[index]
    text = cli("dice", "duel").out
    line = next(x for x in text.splitlines() if "r1/a1/attack" in x)
    assert line.rstrip().endswith("by bob for Grak"), line
    # the report's dice table: a "rolled by" column with the player, and the combatant beside him
    page = tmp_path / "duel.html"
    cli("report", "duel", "-o", str(page))
    body = html.unescape(page.read_text())
    assert "<th>rolled by</th>" in body
    assert '<td>bob (for Grak)</td>' in body and "<td>Grak</td>" not in body


def test_other_rulesets_keep_the_roller_and_give_no_combatant(cli: Cli) -> None:
    # OSRIC records the actor as the roller (dice/port.py: ``by or self.actor``): nothing to add
    cli("new", "ford", "--ruleset", "osric", "--setup", str(REPO / "docs/examples/osric/ford.json"),
        "--dice", "manual")
    cli("osric", "surprise", "ford", "--face", "surprise/party=2", "--face", "surprise/orcs=4", "--as", "gm")
    rolls = cli("dice", "ford", "--json").json()["rolls"]  # type: ignore[index]
    assert {(r["by"], r["for"]) for r in rolls} == {("gm", "")}
    assert all(line.rstrip().endswith("by gm") for line in cli("dice", "ford").out.splitlines()[:2])
