"""A ruleset's commands on a combat of another ruleset: refused, naming the combat's ruleset, nothing written."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from combatlog.errors import ExitStatus
from tests.cli.inproc import InProcessCli
from tests.conftest import REPO

# One combat per ruleset: (combat name, ruleset, set-up file, how the error names the game, command group).
COMBATS = [
    ("brawl", "freeform", None, "freeform", "freeform"),
    ("cave", "magic_realm", "docs/examples/magic_realm/giant-and-goblins.json", "Magic Realm", "mr"),
    ("duel", "classic_fantasy", "docs/examples/classic_fantasy/duel.json", "Classic Fantasy Imperative", "cfi"),
    ("bridge", "osric", "docs/examples/osric/bridge.json", "OSRIC", "osric"),
    ("goblins", "argad", "docs/examples/argad/warrior-vs-goblins.json", "« Argad ! »", "argad"),
]
# Commands of a ruleset group that read no combat (tables of the rules).
NO_COMBAT = {("osric", "weapons"), ("argad", "species"), ("argad", "options")}


def _group(name: str) -> click.Group:
    from combatlog.cli.app import root_command

    root = root_command()
    group = root.get_command(click.Context(root), name)
    assert isinstance(group, click.Group)
    return group


def _args(command: click.Command, combat: str) -> list[str]:
    """The command's required arguments and options: the combat, then "1" for every other value."""
    args: list[str] = []
    for param in command.params:
        if not param.required:
            continue
        value = combat if param.name == "stream" else "1"
        args += [param.opts[0], value] if isinstance(param, click.Option) else [value]
    return args


@pytest.fixture
def combats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    monkeypatch.chdir(REPO)
    cli = InProcessCli(tmp_path / "log.db", monkeypatch, capsys)
    for name, ruleset, setup, _title, _group_name in COMBATS:
        cli("new", name, "--ruleset", ruleset, *(["--setup", setup] if setup else []), "--dice", "manual")
    return cli


def test_every_ruleset_command_refuses_a_combat_of_another_ruleset(combats: InProcessCli) -> None:
    heads = combats("list", "--json").json()
    tried = 0
    for _name, _ruleset, _setup, _title, group_name in COMBATS:
        group = _group(group_name)
        for command_name, command in group.commands.items():
            if not any(p.name == "stream" for p in command.params):
                assert (group_name, command_name) in NO_COMBAT, f"{group_name} {command_name} takes no combat"
                continue
            for combat, _r, _s, title, own_group in COMBATS:
                if own_group == group_name:
                    continue
                result = combats(group_name, command_name, *_args(command, combat), ok=False)
                assert result.code == ExitStatus.INVALID, (group_name, command_name, combat, result.err)
                article = "an" if title in ("OSRIC", "« Argad ! »") else "a"
                assert f"error[invalid]: {combat} is {article} {title} combat; `{group_name} {command_name}` is for " \
                       in result.err, result.err
                assert f"its commands are under `combatlog {own_group}`" in result.err
                assert "bug" not in result.err
                tried += 1
    assert tried > 250
    assert combats("list", "--json").json() == heads  # nothing was written


def test_the_examples_from_the_review(combats: InProcessCli) -> None:
    for args, said in [
        (("mr", "sheets", "brawl"), "brawl is a freeform combat; `mr sheets` is for Magic Realm combats"),
        (("mr", "chits", "duel"), "duel is a Classic Fantasy Imperative combat; `mr chits` is for Magic Realm"),
        (("mr", "ledger", "bridge"), "bridge is an OSRIC combat; `mr ledger` is for Magic Realm"),
        (("osric", "timeline", "cave"), "cave is a Magic Realm combat; `osric timeline` is for OSRIC combats"),
        (("cfi", "sheet", "goblins"), "goblins is an « Argad ! » combat; `cfi sheet` is for Classic Fantasy"),
        (("argad", "figures", "brawl"), "brawl is a freeform combat; `argad figures` is for « Argad ! » combats"),
    ]:
        result = combats(*args, ok=False)
        assert result.code == ExitStatus.INVALID and said in result.err and result.out == ""


def test_the_own_ruleset_still_works_and_a_missing_combat_is_still_not_found(combats: InProcessCli) -> None:
    assert "warrior" in combats("argad", "figures", "goblins").out
    assert combats("mr", "sheets", "cave", "--json").json()
    missing = combats("mr", "sheets", "nosuch", ok=False)
    assert missing.code == ExitStatus.NOT_FOUND and "no combat 'nosuch'" in missing.err


def test_inside_a_command_file_the_line_is_named(combats: InProcessCli, tmp_path: Path) -> None:
    script = tmp_path / "x.cmds"
    script.write_text("note brawl fine\nmr lure brawl amazon\n")
    result = combats("run", str(script), ok=False)
    assert result.code == ExitStatus.INVALID
    assert f"{script}:2: brawl is a freeform combat; `mr lure` is for Magic Realm combats" in result.err
