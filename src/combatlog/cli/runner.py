"""``run FILE``: play a file of commands, one CLI invocation per line.

Each line is what you would type after ``combatlog``; ``#`` starts a comment.
Every command gets an id chained from the commands before it
(id_n = SHA-256(id_n-1, line_n)), so running a file again records nothing
twice, and after fixing a failed line the lines before it are recognised as
done while the fixed line and those after it run. ``--fresh`` records every
line anew (for a file meant to be played more than once).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from combatlog.cli.argv import hoist
from combatlog.cli.common import app_state, echo
from combatlog.cli.progress import progress, shown_here
from combatlog.errors import CombatlogError, InvalidCommand, NotFound

_DEPTH = {"n": 0}
MAX_COMMAND_FILE = 16 * 1024 * 1024


def run(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="A command file (see docs/examples/), or - for standard input. Relative "
                                          "paths in it are read from its own folder (from here for -)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not echo each command before its output."),
    fresh: bool = typer.Option(False, "--fresh", help="Record every line anew instead of skipping lines already run."),
) -> None:
    """Apply a file of commands, stopping at the first error with its line number.

    Example: combatlog run docs/examples/freeform/tavern-brawl.cmds
    """
    import hashlib
    import secrets
    import shlex

    import click

    if _DEPTH["n"] > 0:
        raise InvalidCommand("a command file cannot run another command file")
    stdin = str(file) == "-"
    raw = _read_stdin() if stdin else _read_file(file)
    name = "standard input" if stdin else str(file)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InvalidCommand(f"not UTF-8 text (byte {exc.start} cannot be read)", where=f"{name}:{line}") from None
    # Relative paths in the file (--setup, -o, import FILE...) are the file's own, wherever it is run
    # from: the lines run in its folder, with the log and key home fixed first (docs/guide.md).
    folder = Path.cwd() if stdin else file.resolve().parent
    st = app_state(ctx)
    # Ids are scoped to the actor: another player running the same line must not be told
    # "already recorded" (the write path also refuses a command id reused across actors).
    chain = secrets.token_hex(16) if fresh else f"combatlog-run/v2\n{st.actor}"
    from combatlog.store import default_url

    group = ctx.find_root().command  # the root group that is running this command
    db = _absolute(st.db or default_url())
    home, cwd = os.environ.get("COMBATLOG_HOME"), os.getcwd()
    _DEPTH["n"] += 1
    lines = text.splitlines()
    # the commands' own output goes to stdout: a bar beside it on the same terminal would garble it
    bar = progress("running", "lines", shown=shown_here() and not sys.stdout.isatty())
    try:
        if home:
            os.environ["COMBATLOG_HOME"] = _absolute(home)
        os.chdir(folder)
        for lineno, line in enumerate(lines, start=1):
            bar.on_progress(lineno - 1, len(lines))
            where = f"{name}:{lineno}"
            try:
                args = shlex.split(strip_comment(line))
            except ValueError as exc:
                raise InvalidCommand(f"cannot parse the line: {exc}", where=where) from None
            if not args:
                continue
            if args[0] == "combatlog":
                args = args[1:]
            if not quiet:
                echo(f"$ combatlog {shlex.join(args)}")
            chain = hashlib.sha256(f"{chain}\n{shlex.join(args)}".encode()).hexdigest()
            base = ["--db", db, "--command-id", f"run:{chain[:32]}"]
            base += ["--as", st.actor]  # the run's actor, even gm on a machine whose only key would be the default
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
        bar.close()
        _DEPTH["n"] -= 1
        os.chdir(cwd)
        if home:
            os.environ["COMBATLOG_HOME"] = home


def _read_file(file: Path) -> bytes:
    try:
        if file.stat().st_size > MAX_COMMAND_FILE:
            raise InvalidCommand(f"{file} is over {MAX_COMMAND_FILE} bytes: not a command file")
        return file.read_bytes()
    except OSError as exc:
        raise NotFound(f"cannot read {file}: {exc.strerror}") from None


def _read_stdin() -> bytes:
    """``run -``: the commands piped in, bounded as a file is."""
    import io
    import sys

    buffer = getattr(sys.stdin, "buffer", None) or io.BytesIO(sys.stdin.read().encode("utf-8"))
    data = buffer.read(MAX_COMMAND_FILE + 1)
    if len(data) > MAX_COMMAND_FILE:
        raise InvalidCommand(f"standard input is over {MAX_COMMAND_FILE} bytes: not a command file")
    return data


def _absolute(where: str) -> str:
    """A path made absolute before the lines run in the command file's folder; URLs stay as given."""
    if "://" in where or where in ("memory:", ":memory:"):
        return where
    return str(Path(where).resolve())


def strip_comment(line: str) -> str:
    """Cut a ``#`` comment as bash does: only where ``#`` starts a word outside quotes,
    so dice labels such as ``reroll#1`` need no quoting."""
    quote, escaped = "", False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line
