"""The ``combatlog`` command: ``main``, the tables of its commands, and the one place where errors are mapped
to stderr and exit statuses.

Neither click nor typer is imported here: the commonest read command, ``status NAME``, runs without them
(cli/fast.py: they are most of a command's start-up); every other command line builds the typer app
(cli/root.py) and runs through click.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

from combatlog.cli.argv import hoist  # noqa: F401  (also imported from here)

# Every command and group, in the order --help lists them: name -> where it lives (``module`` exposing ``app``, a
# group, or ``command``; ``module:name`` for one of several in a module). Only the command invoked is imported and
# built (building them all cost more than the rest of start-up); --help lists the first paragraph of each help
# below without importing any (tests/cli/test_startup.py checks them against the commands' own).
CORE_COMMANDS = [
    ('new', 'combatlog.cli.streams:new'),
    ('list', 'combatlog.cli.streams:list_streams'),
    ('log', 'combatlog.cli.views:log'),
    ('show', 'combatlog.cli.views:show'),
    ('status', 'combatlog.cli.views:status'),
    ('explain', 'combatlog.cli.views:explain'),
    ('replay', 'combatlog.cli.views:replay'),
    ('dice', 'combatlog.cli.views:dice'),
    ('roll', 'combatlog.cli.rolls:roll'),
    ('note', 'combatlog.cli.streams:note'),
    ('fork', 'combatlog.cli.streams:fork'),
    ('export', 'combatlog.cli.exchange:export'),
    ('import', 'combatlog.cli.exchange:import_'),
    ('verify', 'combatlog.cli.exchange:verify'),
    ('superseded', 'combatlog.cli.exchange:superseded'),
    ('run', 'combatlog.cli.runner:run'),
    ('seed', 'combatlog.cli.rolls:seed_app'),
]
# Ruleset groups: (module under combatlog.cli.rulesets, group name).
RULESET_GROUPS = [
    ("freeform", "freeform"),
    ("magic_realm", "mr"),
    ("classic_fantasy", "cfi"),
    ("osric", "osric"),
    ("argad", "argad"),
]
# Optional core groups/commands added by other parts: (module, name); a module
# exposes ``app`` (a group) or ``command`` (a single command); ``module:function`` names
# one of several single commands of a module.
EXTRA_MODULES = [
    ("combatlog.cli.keys", "keys"),
    ("combatlog.cli.seal", "seal"),
    ("combatlog.cli.ack", "ack"),
    ("combatlog.cli.copy", "copy"),
    ("combatlog.cli.sheet", "sheet"),
    ("combatlog.cli.report", "report"),
    ("combatlog.cli.mail", "mail"),
    ("combatlog.cli.serve", "serve"),
    ("combatlog.cli.remote", "remote"),
    ("combatlog.cli.replica:push", "push"),
    ("combatlog.cli.replica:pull", "pull"),
    ("combatlog.cli.replica:sync", "sync"),
    ("combatlog.cli.follow", "follow"),
]

# The start of each command's help (its first paragraph, cut after 150 characters: --help never shows more), for
# the root's --help without importing the commands (tests/cli/test_startup.py keeps it true).
SHORT_HELP = {
    'new': 'Start a new combat log.',
    'list': 'List the combats in this log, with their ids, forks and heads.',
    'log': 'The timeline: every event with its seq, actor and a summary (--json: the same events, as data).',
    'show': 'The state of the combat (now, after a seq, or at the end of a round).',
    'status': 'Who must decide what next.',
    'explain': 'Every derived step with the rule that produced it and the dice behind it.',
    'replay': 'Re-run the log event by event, showing what each one derived, then the state reached.',
    'dice': 'The dice ledger: every roll with label, scheme and roller, and per-roller statistics.',
    'roll': 'Roll dice under a semantic label; a label can be drawn only once per combat.',
    'note': 'Add a note to any combat (a ruling, a dispute, a table agreement).',
    'fork': 'Fork a combat at a point into a "what if" that chains to the parent\'s hash there.',
    'export': 'Write a combat to a file that other players verify and import.',
    'import': 'Verify bundles, then append each whole or not at all (only what is new here); hold early ones.',
    'verify': 'Check a file or a stored combat: every hash, the chain, the dice; exit non-zero on the first problem.',
    'superseded': ('Events that lost a merge (two players answered the same email): kept here as evidence, never '
        'replayed.'),
    'run': 'Apply a file of commands, stopping at the first error with its line number.',
    'seed': 'Referee seeds: commit one before play, reveal it at the end.',
    'freeform': 'Freeform combat for any game: participants, rounds, actions, hp, conditions.',
    'mr': 'Magic Realm combat: lure, assign, deploy, act, target, play, resolve, fatigue.',
    'cfi': 'Classic Fantasy Imperative (Mythras) combat: rounds, attacks, parries, Special Effects.',
    'osric': 'OSRIC combat: surprise, declarations, side initiative in segments, attacks, spells, morale.',
    'argad': '« Argad ! » skirmish: figures, game turns, shooting, melee, wounds and survival.',
    'keys': 'Player keys (Ed25519) for signed play by email: new, list, export, import.',
    'seal': ('Sealed orders: commit (only a hash enters the log), then reveal once everyone has committed. Their '
        'nonces seed the joint dice.'),
    'ack': "Acknowledge (countersign) the log up to a seq: a signed event naming that event's hash.",
    'copy': ('Copy combats between logs (SQLite to PostgreSQL and back) with their ids and bytes, then verify the '
        'copy.'),
    'sheet': ('Draw the state (now, after a seq, or at the end of a round) as an SVG picture: for Magic Realm each '
        'Melee Section with its boxes, circles, squares,'),
    'report': ('Write one self-contained HTML file (no network, no script, inline CSS and SVG): ruleset, players and '
        'key fingerprints, dice scheme, head hash and the'),
    'mail': ('Write an email or forum message for a player: what happened since they last acknowledged (rules '
        'cited, dice shown), their side now, what they must'),
    'serve': 'Serve combats over HTTP: players push and pull signed bundles; the server verifies every one.',
    'remote': 'Combat servers (combatlog serve): add, list, show an invite, remove, create a combat there.',
    'push': 'Send the server what it lacks of a combat (creating it there if it has none of it).',
    'pull': "Fetch a combat's new events from the server, verify every one as import does, append them.",
    'sync': 'Pull, then push, each combat: afterwards this log and the server hold the same events.',
    'follow': ('Follow a combat on a server: on each event the server streams, pull (verify everything, import into '
        'this log) and print the new events as `log`'),
}


_ROOT_NAMES = {"app", "root", "root_command", "LazyRootGroup"}


def __getattr__(name: str) -> Any:
    """The typer app's parts, still importable from here (``from combatlog.cli.app import root_command``),
    built only when asked for."""
    if name in _ROOT_NAMES:
        from combatlog.cli import root

        return getattr(root, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_DISK_ERRORS = {errno.ENOSPC, errno.EIO, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


def _closed_pipe() -> int:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # so the final flush at exit does not fail again
    return 0


def _wants_json(args: list[str]) -> bool:
    """Whether ``--json`` is on the command line (before a ``--`` that ends the options)."""
    options = args[:args.index("--")] if "--" in args else args
    return "--json" in options


def _json_error(error: dict[str, object]) -> None:
    """Under --json an error is JSON too, on stderr: {"error": {"code": ..., "message": ...}}."""
    import json

    sys.stderr.write(json.dumps({"error": error}, ensure_ascii=True) + "\n")


def main(argv: list[str] | None = None) -> None:
    from combatlog.cli.fast import fast_command
    from combatlog.cli.state import Interrupted
    from combatlog.errors import CombatlogError, ExitStatus

    args = hoist(list(sys.argv[1:] if argv is None else argv))
    as_json = _wants_json(args)
    fast = fast_command(args)
    code: int = ExitStatus.OK
    try:
        if fast is None:
            code = _click_main(args, as_json)
        else:
            try:
                fast()
            except EOFError:  # as click answers it: a blank line closes the terminal's echo, then "aborted"
                sys.stderr.write("\n")
                code = _aborted(as_json)
    except CombatlogError as exc:
        from combatlog.text import printable

        if as_json:
            _json_error(exc.to_json())
        else:
            sys.stderr.write(printable(f"error[{exc.code}]: {exc}") + "\n")
        code = exc.exit_status
    except (KeyboardInterrupt, Interrupted):
        code = 130
    except BrokenPipeError:  # `combatlog log x | head`: the reader has all it wanted
        code = _closed_pipe()
    except OSError as exc:
        if exc.errno not in _DISK_ERRORS:
            code = _bug(exc)
        else:
            # `combatlog log x > /dev/full`: the output was redirected to a file that cannot take it
            _closed_pipe()
            sys.stderr.write(f"error[output]: cannot write standard output: {exc.strerror}\n")
            code = ExitStatus.FAILURE
    except SystemExit as exc:
        # click answers a closed pipe (EPIPE) with exit status 1 after pacifying stdout; for us
        # a reader that stops early is not an error
        pacified = type(sys.stdout).__name__.endswith("PacifyFlushWrapper")
        code = _closed_pipe() if (exc.code == 1 and pacified) else (exc.code if isinstance(exc.code, int) else 1)
    except Exception as exc:  # a bug: say so plainly, keep the traceback one variable away
        code = _bug(exc, as_json)
    sys.exit(int(code))


def _click_main(args: list[str], as_json: bool) -> int:
    """Parse and run ``args`` through the typer app; click's own answers (usage errors, --help, an abort)
    mapped to an exit status here, every other error left to ``main``."""
    import click

    from combatlog.cli.root import bound_whole_numbers, root_command
    from combatlog.errors import ExitStatus

    bound_whole_numbers(click)
    try:
        root_command().main(args=args, prog_name="combatlog", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        return _aborted(as_json)
    except click.ClickException as exc:
        if as_json:
            _json_error({"code": "usage", "message": exc.format_message()})
        else:
            exc.show()
        return ExitStatus.USAGE
    return ExitStatus.OK


def _aborted(as_json: bool) -> int:
    if as_json:
        _json_error({"code": "aborted", "message": "aborted"})
    else:
        sys.stderr.write("aborted\n")
    return 130


def _bug(exc: Exception, as_json: bool = False) -> int:
    if os.environ.get("COMBATLOG_DEBUG"):
        raise exc
    hint = "This is a bug in combatlog; run again with COMBATLOG_DEBUG=1 for the traceback."
    if as_json:
        _json_error({"code": "internal", "message": f"{type(exc).__name__}: {exc}. {hint}"})
    else:
        sys.stderr.write(f"error[internal]: {type(exc).__name__}: {exc}\n{hint}\n")
    from combatlog.errors import ExitStatus

    return ExitStatus.FAILURE


if __name__ == "__main__":
    main()
