"""The command line before click parses it: root options given after the command move to the front.

Shared by ``app.main`` and ``run FILE`` (each line of a command file is parsed the same way).
"""

from __future__ import annotations

_ROOT_VALUED = ("--db", "--as", "--command-id")  # root options that take a value, hoisted from after the command


def _command_index(args: list[str]) -> int:
    """Where the command is: after the root's own options (and their values)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _ROOT_VALUED else 1
    return i


def hoist(args: list[str]) -> list[str]:
    """Move --db, --as and --command-id given after the command to the front, where the root parses them."""
    args = _old_spellings(args)
    i = _command_index(args)
    if i >= len(args):
        return args
    front, rest = args[:i], [args[i]]
    i += 1
    while i < len(args):
        a = args[i]
        if a.split("=", 1)[0] in _ROOT_VALUED:
            if "=" in a:
                front.append(a)
            elif i + 1 < len(args):
                front += [a, args[i + 1]]
                i += 1
            else:
                rest.append(a)
        else:
            rest.append(a)
        i += 1
    return front + rest


def _old_spellings(args: list[str]) -> list[str]:
    """One release of grace for ``fork STREAM --as NEW`` (now ``--name NEW``; ``--as`` is the acting player
    everywhere): after ``fork`` and without ``--name``, ``--as`` becomes fork's hidden ``--fork-as``.
    Delete with that alias (docs/CHANGELOG.md)."""
    i = _command_index(args)
    if i >= len(args) or args[i] != "fork" or any(a.split("=", 1)[0] == "--name" for a in args[i:]):
        return args
    return args[:i] + ["--fork-as" + a[len("--as"):] if a.split("=", 1)[0] == "--as" else a for a in args[i:]]
