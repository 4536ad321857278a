"""``run FILE``: play a file of commands, one CLI invocation per line.

Each line is what you would type after ``combatlog``; ``#`` starts a comment.
Every command gets an id chained from the commands before it
(id_n = SHA-256(id_n-1, line_n)), from a seed of the actor and the file's
path, so running a file again records nothing twice, and after fixing a failed
line the lines before it are recognised as done while the fixed line and those
after it run. Another file (a later round's, which may begin with the same
lines) has other ids: nothing of it is taken for a retry of this one. A line
found already recorded is said, even with ``--quiet``. ``--fresh`` records
every line anew (for a file meant to be played more than once).

A line does not redo what the line before it did: the lines share one open log, the combats they resolved
and their signers, the root's options (a line without its own runs under the run's, ``_invoke``), and each
combat's folded state at its head (``cli.common.execute_keeping``; ``execute`` uses a kept state only when it
ends at the log's head, so another writer in between costs a fold, never a wrong state). Each line is still
its own transaction; on SQLite the run syncs its commits every 0.1 s and at the end
(``SQLiteStore.synced_every``) instead of an fsync per line: a killed process loses nothing committed, a
power cut at most the last 0.1 s, which running the file again replays (the ids are chained).
"""

from __future__ import annotations

import os
import re
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import click
import typer

from combatlog.cli.argv import hoist
from combatlog.cli.common import AppState, RunMemo, app_state, echo
from combatlog.cli.progress import progress, shown_here
from combatlog.errors import CombatlogError, InvalidCommand, NotFound

_DEPTH = {"n": 0}
MAX_COMMAND_FILE = 16 * 1024 * 1024
# How often a run's commits reach the disk (SQLite): a power loss costs at most this much of a run.
SYNC_EVERY_S = 0.1


def run(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="A command file (see docs/examples/), or - for standard input. Relative "
                                          "paths in it are read from its own folder (from here for -)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not echo each command before its output."),
    fresh: bool = typer.Option(False, "--fresh", help="Record every line anew instead of skipping lines already run."),
    as_json: bool = typer.Option(False, "--json", help="An error is JSON on stderr, with \"where\": \"FILE:LINE\" "
                                 "(as a failing line's own --json makes it); each line's output is as it asks."),
) -> None:
    """Apply a file of commands, stopping at the first error with its line number.

    Example: combatlog run docs/examples/freeform/tavern-brawl.cmds
    """
    import secrets

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
    # Ids are scoped to the actor (another player running the same line must not be told "already recorded"; the
    # write path also refuses a command id reused across actors) and to the file: a retry runs the same path again,
    # and another file that begins with the same lines (a per-round file) is another run.
    identity = "standard input" if stdin else str(file.resolve())
    chain = secrets.token_hex(16) if fresh else f"combatlog-run/v3\n{st.actor}\n{identity}"
    from combatlog.store import default_url

    st.db = _absolute(st.db or default_url())  # before the log is opened and before the lines move folder
    home, cwd = os.environ.get("COMBATLOG_HOME"), os.getcwd()
    # The lines share this run's open log and memo (folded heads, combats, signers); each line is still its own
    # command and transaction; the write path uses a kept head only if it is still the log's head).
    st.run = RunMemo()
    _DEPTH["n"] += 1
    lines = text.splitlines()
    # the commands' own output goes to stdout: a bar beside it on the same terminal would garble it
    bar = progress("running", "lines", shown=shown_here() and not sys.stdout.isatty())
    try:
        if home:
            os.environ["COMBATLOG_HOME"] = _absolute(home)
        os.chdir(folder)
        with _synced_every(st, SYNC_EVERY_S):
            _run_lines(ctx, lines, name, quiet, chain, bar.on_progress, say_retries=quiet and not as_json)
    finally:
        bar.close()
        _DEPTH["n"] -= 1
        st.run = None
        os.chdir(cwd)
        if home:
            os.environ["COMBATLOG_HOME"] = home


def _synced_every(st: AppState, seconds: float) -> AbstractContextManager[None]:
    """A SQLite log puts the lines' commits on disk every ``seconds`` and at the end, not with an fsync per
    line (SQLiteStore.synced_every); other logs commit and sync each line as any command does."""
    if st.db and st.db.startswith(("http://", "https://")):  # a replica: each line opens it and syncs
        return nullcontext()
    group = getattr(st.store(), "synced_every", None)
    return group(seconds) if group is not None else nullcontext()  # type: ignore[no-any-return]


def _run_lines(ctx: typer.Context, lines: list[str], name: str, quiet: bool, chain: str, on_progress: Any, *,
               say_retries: bool = False) -> None:
    """``say_retries``: say on stderr each line found already recorded (--quiet hides the line's own output, which
    says it; a line's or the run's --json has it in the line's JSON), once the run ends, or before its error unless
    that is JSON (stderr is then JSON only)."""
    retries: list[str] = []
    try:
        _each_line(ctx, lines, name, quiet, chain, on_progress, retries if say_retries else None)
    except CombatlogError as exc:
        if not exc.as_json:
            _say(retries)
        raise
    _say(retries)


def _say(retries: list[str]) -> None:
    for where in retries:
        typer.echo(f"{where}: already recorded by an earlier run of this file (a retry): not recorded again", err=True)


def _each_line(ctx: typer.Context, lines: list[str], name: str, quiet: bool, chain: str, on_progress: Any,
               retries: list[str] | None) -> None:
    import hashlib
    import shlex

    st = app_state(ctx)
    group = ctx.find_root().command  # the root group that is running this command
    for lineno, line in enumerate(lines, start=1):
        on_progress(lineno - 1, len(lines))
        where = f"{name}:{lineno}"
        try:
            args = split_line(line, shlex.split)
        except ValueError as exc:
            raise InvalidCommand(f"cannot parse the line: {exc}", where=where) from None
        if not args:
            continue
        if args[0] == "combatlog":
            args = args[1:]
        typed = shlex.join(args)
        if not quiet:
            echo(f"$ combatlog {typed}")
        chain = hashlib.sha256(f"{chain}\n{typed}".encode()).hexdigest()
        command_id = f"run:{chain[:32]}"
        args = hoist(args)
        # the run's actor, even gm on a machine whose only key would be the default
        line_state = st.for_line(st.db, st.actor, command_id) if not args[0].startswith("-") else None
        skipped = st.run.skipped if st.run is not None else 0
        try:
            if line_state is not None:  # no root option on the line: the run's own, nothing to parse there
                _invoke(group, line_state, args)
            else:  # obj: the line is given this run's state (its open log and memo; app.root)
                base = [*(["--db", st.db] if st.db else []), "--command-id", command_id, "--as", st.actor]
                group.main(args=base + args, prog_name="combatlog", standalone_mode=False, obj=st)
        except CombatlogError as exc:
            exc.where = where if not exc.where else f"{where}: {exc.where}"
            exc.as_json = exc.as_json or "--json" in args  # the line asked for JSON: so is its error (app.main)
            raise
        except click.exceptions.Exit as exc:
            if exc.exit_code:
                raise _line_error(f"the command exited with status {exc.exit_code}", where, args) from None
        except click.ClickException as exc:
            raise _line_error(exc.format_message(), where, args) from None
        if retries is not None and "--json" not in args and st.run is not None and st.run.skipped > skipped:
            retries.append(where)  # (without --quiet the line's own output says so)


def _line_error(message: str, where: str, args: list[str]) -> InvalidCommand:
    error = InvalidCommand(message, where=where)
    error.as_json = "--json" in args
    return error


def _invoke(group: click.Group, state: AppState, args: list[str]) -> None:
    """Run one line as ``group.main`` would, without parsing the root's options (--db, --as, --command-id):
    ``state`` holds the run's, as the root's callback would have made it. Parsing them again on every line
    was a third of what click cost a line."""
    root = click.Context(group, info_name="combatlog", obj=state, **group.context_settings)
    root.params = {"db": state.db, "actor": state.actor, "command_id": state.command_id}
    with root:
        name, command, rest = group.resolve_command(root, args)
        assert command is not None  # resolve_command raises a usage error for an unknown command
        root.invoked_subcommand = name
        with command.make_context(name, rest, parent=root) as sub:
            command.invoke(sub)


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


# A line of printable ASCII with no quote, backslash or ``#``: its words are what shlex makes of it (spaces and
# tabs separate them, nothing else is special), read without shlex's character-by-character scan.
_PLAIN_LINE = re.compile(r"[ \t!$-&(-\[\]-~]*")
# The same with double-quoted parts holding no quote or backslash (``freeform act duel Bo "swings at Al"``):
# inside such a part every character is itself, so a word is its characters with the quotes taken out.
_PLAIN_CHAR = r"[!$-&(-\[\]-~]"
_PLAIN_QUOTED = r'"[ \t!#-\[\]-~]*"'
_QUOTED_WORD = re.compile(rf"(?:{_PLAIN_CHAR}|{_PLAIN_QUOTED})++")
# Words apart by blanks, every repeat possessive: a line that does not match fails without backtracking, in
# linear time (a pattern that let a word split anywhere would backtrack exponentially on ``aaa...a\``).
_QUOTED_LINE = re.compile(rf"[ \t]*+(?:{_QUOTED_WORD.pattern}(?:[ \t]++{_QUOTED_WORD.pattern})*+)?+[ \t]*+")


def split_line(line: str, shell_split: Any) -> list[str]:
    """The words of a line as the shell would read them (``shell_split``: ``shlex.split``), its comment cut."""
    if _PLAIN_LINE.fullmatch(line):
        return line.split()
    if _QUOTED_LINE.fullmatch(line):
        return [word.replace('"', "") for word in _QUOTED_WORD.findall(line)]
    return shell_split(strip_comment(line))  # type: ignore[no-any-return]


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
