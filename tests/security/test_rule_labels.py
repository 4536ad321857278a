"""The rules own their labels (issue 37, item 6): a die a player names may not take a label the rules draw.

A free ``roll`` under ``r1/reposition/bk`` in a Magic Realm fight used to be accepted; the rules' own roll
of that die was then refused ("already drawn") for ever, so any player could freeze any combat. Each
ruleset says which labels are its own (``Ruleset.owns_label``, beside the code that builds them); the write
path refuses a free roll or a command's ``--label`` there, and ``verify``/``import`` refuse such a free roll
made by a modified client.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest

from combatlog.events.envelope import decode_envelope
from combatlog.rulesets import load_ruleset
from tests.conftest import REPO, Cli
from tests.security.forge import log_fingerprint, read, reforge, write

EXAMPLES = REPO / "docs" / "examples"

# ruleset -> (set-up file or None, a label its rules draw)
ATTACKS = {
    "freeform": (None, "r1/Bo/act"),
    "magic_realm": ("magic_realm/giant-and-goblins.json", "r1/reposition/bk"),
    "classic_fantasy": ("classic_fantasy/duel.json", "r1/init/Brom"),
    "osric": ("osric/bridge.json", "surprise/party"),
    "argad": ("argad/warrior-vs-goblins.json", "t1/melee/gob-d/warrior"),
}


def _new(cli: Cli, ruleset: str, dice: str = "local") -> None:
    setup, _label = ATTACKS[ruleset]
    cli("new", "fight", "--ruleset", ruleset, "--dice", dice, *(["--setup", str(EXAMPLES / setup)] if setup else []))


@pytest.mark.parametrize("ruleset", sorted(ATTACKS))
def test_a_free_roll_cannot_take_a_label_the_rules_draw(cli: Cli, ruleset: str) -> None:
    _new(cli, ruleset)
    label = ATTACKS[ruleset][1]
    before = log_fingerprint(cli.db)
    result = cli("roll", "fight", "1d6", "--label", label, ok=False)
    assert result.code == 4, result.err
    assert f"{label!r} is a label the {ruleset} rules draw" in result.err
    assert "core: the rules own their labels" in result.err
    assert log_fingerprint(cli.db) == before
    # manual faces change nothing
    result = cli("roll", "fight", "1d6", "--label", label, "--face", "3", ok=False)
    assert result.code == 4 and "core: the rules own their labels" in result.err
    assert log_fingerprint(cli.db) == before
    # a label of the player's own still rolls
    cli("roll", "fight", "1d6", "--label", "table/house-rule-1")


def test_the_magic_realm_freeze_is_gone(cli: Cli) -> None:
    """The attack of the issue: the fight resolves with its own repositioning die."""
    lines = (EXAMPLES / "magic_realm" / "giant-and-goblins.cmds").read_text().splitlines()
    first_resolve = next(i for i, line in enumerate(lines) if line.startswith("mr resolve"))
    script = cli.db.parent / "to-resolve.cmds"
    script.write_text("\n".join(line.replace("--setup giant-and-goblins.json",
                                             f"--setup {EXAMPLES / 'magic_realm' / 'giant-and-goblins.json'}")
                                for line in lines[:first_resolve]) + "\n")
    cli("run", "-q", str(script))
    before = log_fingerprint(cli.db)
    result = cli("roll", "giant-goblins", "1d6", "--label", "r1/reposition/bk", "--face", "6", ok=False)
    assert result.code == 4 and "core: the rules own their labels" in result.err
    assert log_fingerprint(cli.db) == before
    cli(*lines[first_resolve].split())  # the rules still draw their die


def test_a_commands_chosen_label_cannot_be_the_rules_own(cli: Cli) -> None:
    _new(cli, "freeform")
    cli("freeform", "join", "fight", "Aldo", "--side", "a", "--hp", "10")
    cli("freeform", "join", "fight", "Bo", "--side", "b", "--hp", "10")
    cli("freeform", "round", "fight")
    before = log_fingerprint(cli.db)
    for args in (("act", "fight", "Aldo", "swings", "--roll", "1d20", "--label", "r1/Bo/act"),
                 ("damage", "fight", "Bo", "1d6", "--label", "r1/Bo/heal")):
        result = cli("freeform", *args, ok=False)
        assert result.code == 4 and "core: the rules own their labels" in result.err, result.err
    assert log_fingerprint(cli.db) == before
    cli("freeform", "act", "fight", "Aldo", "swings", "--roll", "1d20", "--label", "aldo-swing-1")


def test_osric_damage_cannot_take_a_rules_label(cli: Cli) -> None:
    _new(cli, "osric")
    before = log_fingerprint(cli.db)
    result = cli("osric", "damage", "fight", "Tam", "1d6", "--label", "r0/morale/Tam", ok=False)
    assert result.code == 4 and "core: the rules own their labels" in result.err, result.err
    assert log_fingerprint(cli.db) == before


@pytest.mark.parametrize("ruleset", sorted(ATTACKS))
def test_a_forged_free_roll_under_a_rules_label_is_refused_by_verify_and_import(
        tmp_path: Path, make_cli, ruleset: str) -> None:  # type: ignore[no-untyped-def]
    """A modified client appends the free roll anyway: every other machine refuses it."""
    maker, other = make_cli("maker"), make_cli("other")
    _new(maker, ruleset)
    maker("roll", "fight", "1d6", "--label", "placeholder")
    honest = tmp_path / "honest.jsonl"
    maker("export", "fight", "-o", str(honest))
    lines = read(honest)
    seq = next(decode_envelope(line).seq for line in lines[1:] if b'"placeholder"' in line)
    label = ATTACKS[ruleset][1]
    forged = write(tmp_path / "forged.jsonl", reforge(lines, {seq: lambda d: d.update(label=label)}))
    result = other("verify", str(forged), ok=False)
    assert result.code != 0 and f"a free roll under {label!r}" in result.err, result.err
    assert "core: the rules own their labels" in result.err
    before = log_fingerprint(other.db)
    result = other("import", str(forged), ok=False)
    assert result.code != 0 and f"a free roll under {label!r}" in result.err
    assert log_fingerprint(other.db) == before
    other("verify", str(honest))  # the honest one verifies


@pytest.mark.parametrize("example", ["freeform/tavern-brawl.cmds", "magic_realm/giant-and-goblins.cmds",
                                     "classic_fantasy/skirmish.cmds", "osric/bridge.cmds",
                                     "argad/band-vs-ogre-and-troll.cmds"])
def test_every_die_the_rules_draw_in_the_examples_is_theirs(tmp_path_factory: pytest.TempPathFactory,
                                                            example: str) -> None:
    """``owns_label`` covers what the rules draw (a label it missed could still be taken by a free roll)."""
    from tests.played import played_log

    db = played_log(tmp_path_factory, EXAMPLES / example)
    conn = sqlite3.connect(db)
    try:
        bodies = [row[0] for row in conn.execute("SELECT body FROM events ORDER BY position")]
    finally:
        conn.close()
    ruleset = load_ruleset(example.split("/")[0])
    in_command, cid, drawn = False, "", 0
    for body in bodies:
        env = decode_envelope(body)
        if env.command is not msgspec.UNSET:  # a ruleset command's batch begins
            in_command, cid = True, env.command_id
        elif env.command_id != cid:
            in_command, cid = False, env.command_id
        if env.type == "core.dice_rolled" and in_command:
            label = env.payload().label
            assert ruleset.owns_label(label), f"{example}: the rules drew {label!r}, which owns_label does not claim"
            drawn += 1
    assert drawn > 0
