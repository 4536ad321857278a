"""``run FILE``: play a file of commands, one CLI invocation per line.

Each line is what you would type after ``combatlog``; ``#`` starts a comment.
Every line gets a command id derived from the file's content and the line
number, so running the same file again after a failure resumes where it
stopped instead of recording the earlier lines twice.
"""

from __future__ import annotations

import hashlib
import shlex
from pathlib import Path

import typer

from combatlog.cli.common import app_state, echo
from combatlog.errors import CombatlogError, InvalidCommand, NotFound

_DEPTH = {"n": 0}


def run(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="A command file (see docs/examples/)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not echo each command before its output."),
) -> None:
    """Apply a file of commands, stopping at the first error with its line number.

    Example: combatlog run docs/examples/freeform/tavern-brawl.cmds
    """
    import click

    from combatlog.cli.app import hoist, root_command

    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise NotFound(f"cannot read {file}: {exc.strerror}") from None
    if _DEPTH["n"] > 0:
        raise InvalidCommand("a command file cannot run another command file")
    st = app_state(ctx)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    group = root_command()
    _DEPTH["n"] += 1
    try:
        for lineno, line in enumerate(text.splitlines(), start=1):
            where = f"{file}:{lineno}"
            try:
                args = shlex.split(line, comments=True)
            except ValueError as exc:
                raise InvalidCommand(f"cannot parse the line: {exc}", where=where) from None
            if not args:
                continue
            if args[0] == "combatlog":
                args = args[1:]
            if not quiet:
                echo(f"$ combatlog {shlex.join(args)}")
            base = ["--command-id", f"run:{digest}:{lineno}"]
            if st.db:
                base = ["--db", st.db, *base]
            if st.actor != "gm":
                base += ["--as", st.actor]
            try:
                group.main(args=base + hoist(args), prog_name="combatlog", standalone_mode=False)
            except CombatlogError as exc:
                exc.where = where if not exc.where else f"{where}: {exc.where}"
                raise
            except click.exceptions.Exit as exc:
                if exc.exit_code:
                    raise InvalidCommand(f"the command exited with status {exc.exit_code}", where=where) from None
            except click.ClickException as exc:
                raise InvalidCommand(exc.format_message(), where=where) from None
    finally:
        _DEPTH["n"] -= 1
