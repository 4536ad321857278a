"""The fast path of the commonest commands, ``combatlog status NAME``, ``combatlog list``, ``combatlog verify
TARGET`` and, for a game by mail, ``combatlog export NAME -o FILE`` and ``combatlog import FILE...``: run without
click or typer.

Importing click and typer and building a command is more than half of a command's start-up (issue 22:
``status`` took 9.9x ``python -c pass``). This module takes only the plainest command lines of ``status``
(the root's ``--db``, ``--as`` and ``--command-id`` with a value each, once; the combat; ``--mine`` and
``--json`` at most once each), of ``list`` (the root's options; ``--json`` at most once), of ``export`` (the
combat; ``-o``/``--output`` FILE, not ``-``, once; ``--since`` N in digits, ``--for`` PLAYER and ``--json`` at
most once each), of ``import`` (one file or more, none ``-``; ``--json`` at most once) and of ``verify`` (one
target, not ``-``; ``--json`` and ``--allow-rules-mismatch`` at most once each), and returns None
for everything else (help, a missing or unknown option, a value that starts with ``-`` or is blank, shell
completion...), which click then parses and answers as it always did. What it runs is what the typer command runs (cli/status.py
``print_status``, ``print_streams``; cli/bundles.py ``run_export``, ``run_import``, ``run_verify``), with the root's defaults
(cli/root.py ``root``): the output, the errors and the exit statuses are the same
(tests/cli/test_fast_path.py runs both paths side by side).
"""

from __future__ import annotations

import os
from collections.abc import Callable

_ROOT_OPTIONS = {"--db": "db", "--as": "actor", "--command-id": "command_id"}
_ENVVARS = {"db": "COMBATLOG_DB", "actor": "COMBATLOG_ACTOR"}  # as the root's options declare them
# command -> its flags, its options that take a value, and how many words it takes (at least, at most)
_COMMANDS: dict[str, tuple[dict[str, str], dict[str, str], int, int]] = {
    "status": ({"--mine": "mine", "--json": "as_json"}, {}, 1, 1),
    "list": ({"--json": "as_json"}, {}, 0, 0),
    "export": ({"--json": "as_json"}, {"-o": "output", "--output": "output", "--since": "since", "--for": "for_player"},
               1, 1),
    "import": ({"--json": "as_json"}, {}, 1, 1_000_000),  # any number of files
    "verify": ({"--json": "as_json", "--allow-rules-mismatch": "allow_rules_mismatch"}, {}, 1, 1),
}


def fast_command(args: list[str]) -> Callable[[], None] | None:
    """What to run for ``args`` (already hoisted: the root's options first) when the fast path takes
    them, else None."""
    if os.environ.get("_COMBATLOG_COMPLETE"):  # shell completion is click's
        return None
    root: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-"):
        name, eq, value = args[i].partition("=")
        if name not in _ROOT_OPTIONS or _ROOT_OPTIONS[name] in root:
            return None
        if not eq:
            if i + 1 >= len(args):
                return None
            value = args[i + 1]
        i += 1 if eq else 2
        if not _plain(value):
            return None
        root[_ROOT_OPTIONS[name]] = value
    command = args[i] if i < len(args) else ""
    if command not in _COMMANDS:
        return None
    allowed, valued, least, most = _COMMANDS[command]
    words: list[str] = []
    flags: dict[str, bool] = {}
    values: dict[str, str] = {}
    rest = iter(args[i + 1:])
    for arg in rest:
        if arg in allowed and allowed[arg] not in flags:
            flags[allowed[arg]] = True
        elif arg in valued and valued[arg] not in values:
            value = next(rest, "")
            if not _plain(value):
                return None
            values[valued[arg]] = value
        elif len(words) < most and _plain(arg):
            words.append(arg)
        else:
            return None
    if len(words) < least:
        return None
    for key, envvar in _ENVVARS.items():
        if key not in root and os.environ.get(envvar):  # click ignores an empty variable, as here
            if not _plain(os.environ[envvar]):
                return None
            root[key] = os.environ[envvar]
    if command == "list":
        return lambda: _list(root, **flags)
    if command == "export":
        since = values.get("since")
        if "output" not in values or (since is not None and not (since.isascii() and since.isdigit()
                                                                  and len(since) <= 15)):
            return None  # a missing -o, or a --since click is to read (or refuse): 15 digits stay within 2**53
        return lambda: _export(root, words[0], values["output"], None if since is None else int(since),
                               values.get("for_player", ""), **flags)
    if command == "import":
        return lambda: _import(root, words, **flags)
    if command == "verify":
        return lambda: _verify(root, words[0], **flags)
    return lambda: _status(root, words[0], **flags)


def _plain(value: str) -> bool:
    """A value the fast path passes on as it is: not blank (--as refuses a blank value) and not starting
    with ``-`` (what click makes of ``--db --json`` is click's to say)."""
    return bool(value.strip()) and not value.startswith("-")


def _status(root: dict[str, str], stream: str, *, mine: bool = False, as_json: bool = False) -> None:
    from combatlog.cli.status import print_status

    st = _state(root)
    try:
        print_status(st, stream, mine=mine, as_json=as_json)
    finally:
        st.close()


def _list(root: dict[str, str], *, as_json: bool = False) -> None:
    from combatlog.cli.status import print_streams

    st = _state(root)
    try:
        print_streams(st, as_json=as_json)
    finally:
        st.close()


def _state(root: dict[str, str]):  # type: ignore[no-untyped-def]
    """The state the root's callback makes (cli/root.py ``root``)."""
    from combatlog.cli.state import AppState, default_actor

    return AppState(db=root.get("db"), actor=root.get("actor") or default_actor(), command_id=root.get("command_id"))


def _export(root: dict[str, str], stream: str, output: str, since: int | None, for_player: str, *,
            as_json: bool = False) -> None:
    from combatlog.cli.bundles import run_export

    st = _state(root)
    try:
        run_export(st, stream, output, since, for_player, as_json=as_json)
    finally:
        st.close()


def _import(root: dict[str, str], files: list[str], *, as_json: bool = False) -> None:
    from combatlog.cli.bundles import run_import

    st = _state(root)
    try:
        run_import(st, files, as_json=as_json)
    finally:
        st.close()


def _verify(root: dict[str, str], target: str, *, allow_rules_mismatch: bool = False, as_json: bool = False) -> None:
    from combatlog.cli.bundles import run_verify

    st = _state(root)
    try:
        run_verify(st, target, allow_rules_mismatch, as_json)
    finally:
        st.close()
