"""Writing a command's output, without click or typer (cli/common.py re-exports these for the commands;
the fast path of ``status``, cli/fast.py, uses them directly)."""

from __future__ import annotations

import sys
from typing import Any

from combatlog.text import printable


def print_json(value: Any) -> None:
    import msgspec

    sys.stdout.write(msgspec.json.encode(value).decode() + "\n")


def echo(text: str = "") -> None:
    """Human output: any control character from the log is shown escaped (combatlog.text)."""
    sys.stdout.write(printable(text) + "\n")


def terminal_width() -> int | None:
    """The columns human views wrap at: the terminal's width (``COLUMNS`` when set) when stdout is
    a terminal; None (no wrapping) when it is a pipe or a file."""
    if not sys.stdout.isatty():
        return None
    import shutil  # (after the test: it costs a few ms of start-up, and a pipe needs no width)

    return shutil.get_terminal_size().columns


def echo_view(text: str = "") -> None:
    """A view's text for people (show, status, explain, sheets...): as ``echo``, and on a terminal
    every line longer than its width wrapped, continuation lines indented (``combatlog.text.wrap``);
    then each right-to-left stretch isolated (``combatlog.text.isolated``), so that a name in Hebrew
    cannot reorder the words and numbers beside it (a line without one is left as it is)."""
    sys.stdout.write(view_text(text))


def view_text(text: str) -> str:
    """What ``echo_view`` writes for ``text`` (escaped, wrapped on a terminal, right-to-left text
    isolated line by line), without writing it."""
    from combatlog.text import isolated, wrap

    out = printable(text)
    width = terminal_width()
    return isolated(wrap(out, width) if width else out) + "\n"


def note(text: str) -> None:
    """Diagnostics and progress go to stderr, so stdout stays data."""
    sys.stderr.write(printable(text) + "\n")


def pending_json(p: Any, commands: list[str]) -> dict[str, Any]:
    """A pending decision as JSON: the prose (``what``) and beside it its parts: the ``player`` (and the
    ``character`` of "bob (Amazon)"), the command lines that answer it (``commands``: the legal moves that
    answer it, where the ruleset lists them: cli/status.py), and its ``kind``, the command (``mr play``) or null
    when none is named."""
    who = p.who
    player, _, character = who.partition(" (")
    unplayed = character == "no player)"  # "carl (no player)": a piece no player plays, not carl's "no player"
    if unplayed:
        player, character = "", f"{player})"
    kind = " ".join(commands[0].split()[1:3]) if commands else None
    return {"who": who, "what": p.what, "options": list(p.options), "rule": p.rule, "player": player or None,
            "character": character[:-1] if character.endswith(")") else None, "kind": kind,
            "command": commands[0] if commands else None, "commands": commands}
