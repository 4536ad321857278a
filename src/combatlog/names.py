"""What a combat's name and a stream's id may be, wherever they come from.

A name travels in export headers and is printed by every view, so a name with
control characters could rewrite a player's terminal: names are checked the
same way on ``new``, ``fork`` and ``import``.
"""

from __future__ import annotations

import re

from combatlog.errors import InvalidCommand

MAX_NAME = 100
# Free text a player types into an event (an action, a reason, a note): long enough for a paragraph,
# short enough that one event cannot fill a log, a mail or a terminal.
MAX_TEXT = 2000
_STREAM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def name_problem(name: str) -> str:
    """Why ``name`` cannot name a combat ("" when it can)."""
    if not name or len(name) > MAX_NAME:
        return f"1-{MAX_NAME} characters"
    if any(c.isspace() for c in name):
        return "no spaces"
    if not name.isprintable():
        return "no control characters"
    return ""


def check_name(name: str) -> str:
    problem = name_problem(name)
    if problem:
        raise InvalidCommand(f"combat name {name!r}: {problem} (1-{MAX_NAME} printable characters without spaces)")
    return name


def is_stream_id(value: str) -> bool:
    return bool(_STREAM_ID.match(value))


def check_text(what: str, text: str, *, required: bool = False) -> str:
    """Free text for an event: at most MAX_TEXT characters, and not blank when ``required``."""
    if required and not text.strip():
        raise InvalidCommand(f"{what} is empty: say it in words")
    if len(text) > MAX_TEXT:
        raise InvalidCommand(f"{what} is {len(text)} characters long; at most {MAX_TEXT}")
    return text
