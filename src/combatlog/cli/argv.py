"""The command line before click parses it: root options given after the command move to the front.

Shared by ``app.main`` and ``run FILE`` (each line of a command file is parsed the same way).
"""

from __future__ import annotations

_ROOT_VALUED = ("--db", "--as", "--command-id")  # root options that take a value, hoisted from after the command


def hoist(args: list[str]) -> list[str]:
    """Move --db, --as and --command-id given after the command to the front, where the root parses them.

    After ``fork``, ``--as`` names the new combat and stays where it is.
    """
    front: list[str] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):  # the root's own options, before the command
        front.append(args[i])
        if args[i] in _ROOT_VALUED and i + 1 < len(args):
            front.append(args[i + 1])
            i += 1
        i += 1
    if i >= len(args):
        return front
    command, rest = args[i], [args[i]]
    i += 1
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if name in _ROOT_VALUED and not (name == "--as" and command == "fork"):
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
