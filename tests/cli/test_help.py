"""Help everywhere (issue #21): ``-h`` is ``--help`` on every command, and every argument says what it is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from tests.cli.inproc import InProcessCli


def _commands() -> Iterator[tuple[list[str], click.Command]]:
    """Every command and group of the CLI, the lazily loaded ones too, with its path."""
    from combatlog.cli.app import root_command

    def walk(command: click.Command, path: list[str]) -> Iterator[tuple[list[str], click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    yield from walk(sub, [*path, name])

    return walk(root_command(), [])


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    return InProcessCli(tmp_path / "log.db", monkeypatch, capsys)


def test_dash_h_is_help_on_every_command(cli: InProcessCli) -> None:
    paths = [path for path, _ in _commands()]
    assert len(paths) > 60  # the walk reached the ruleset groups and the optional parts
    for path in paths:
        short, long = cli(*path, "-h"), cli(*path, "--help")
        assert short.out == long.out, path
        assert short.out.startswith("Usage: combatlog"), path
        assert "-h, --help" in long.out, path  # and the help says so


def test_dash_h_works_after_arguments_too(cli: InProcessCli) -> None:
    assert cli("log", "duel", "-h").out.startswith("Usage: combatlog log")


def test_every_argument_has_a_description() -> None:
    missing = [(" ".join(path), p.name) for path, command in _commands() for p in command.params
               if isinstance(p, click.Argument) and not getattr(p, "help", None)]
    assert missing == []


def test_stream_arguments_share_one_description(cli: InProcessCli) -> None:
    from combatlog.cli.common import STREAM_HELP

    for path in (["log"], ["show"], ["export"], ["osric", "attack"], ["mr", "play"]):
        out = cli(*path, "--help").out
        line = next(line for line in out.splitlines() if line.strip().startswith("STREAM"))
        assert STREAM_HELP.split()[0] in line, (path, line)
        assert " ".join(out.split()).count(STREAM_HELP) == 1, path
