"""Docs stay true: the CLI reference and event catalogue are current; every command has an example."""

from __future__ import annotations

from pathlib import Path

import click

from combatlog.cli.app import root_command
from combatlog.tools.gendocs import _walk, cli_reference, event_catalogue

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_cli_reference_is_current() -> None:
    assert (DOCS / "cli.md").read_text() == cli_reference() + "\n", "run `make docs`"


def test_event_catalogue_is_current() -> None:
    assert (DOCS / "events.md").read_text() == event_catalogue() + "\n", "run `make docs`"


def test_every_command_has_an_example() -> None:
    missing = [" ".join(path) for path, cmd in _walk(root_command(), ["combatlog"])
               if not isinstance(cmd, click.Group) and "Example: combatlog" not in (cmd.help or "")]
    assert not missing, f"commands without an 'Example: combatlog ...' line: {missing}"
