"""The ``combatlog`` command: one typer app, one module per command group.

Errors are mapped to stderr and exit statuses here and nowhere else.
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import os
import sys
from functools import lru_cache
from typing import Any, Optional

import click
import typer
from typer.core import TyperGroup

from combatlog import __version__
from combatlog.cli.argv import hoist
from combatlog.cli.common import AppState

class LazyRootGroup(TyperGroup):
    """The root group: every command and group is imported and built only when invoked (or, for completion
    and docs, asked for); ``--help`` lists them from ``SHORT_HELP`` without importing any."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        # In their declared order, whether or not one was already loaded (help and docs/cli.md must not depend
        # on what ran before); an optional part whose module is not installed is left out.
        return [name for name, module in _lazy_modules().items()
                if name in self.commands or importlib.util.find_spec(module.split(":")[0]) is not None]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in _lazy_modules():
            command = _load_lazy(name)
            if command is not None:
                self.add_command(command, name)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        # a stand-in command with the start of the real one's help shortens it exactly as click does
        rows = [(name, (self.commands[name] if name in self.commands else
                        click.Command(name, help=SHORT_HELP.get(name, ""))).get_short_help_str(limit))
                for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and not ctx.resilient_parsing and self.get_command(ctx, name) is None:
            # Suggest among every command, the lazily loaded ones too, and only once.
            from difflib import get_close_matches

            close = get_close_matches(name, self.list_commands(ctx))
            message = f"No such command {name!r}."
            if close:
                message += f" Did you mean {', '.join(repr(c) for c in close)}?"
            if name == "version":
                message += " For the version: combatlog --version"
            raise click.UsageError(message, ctx)
        return super().resolve_command(ctx, args)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"combatlog {__version__}")
        raise typer.Exit()


def _keep_argument_help() -> None:
    """Show every argument's help text, once. typer (<0.25) sets ``TyperArgument.help`` and then calls
    click's ``Argument.__init__``, which in click 8.5 takes a ``help`` of its own and resets it to None
    (every argument listed with no description); set it again after. click 8.5 also lists described
    arguments in a "Positional arguments" section of its own, beside typer's "Arguments": keep typer's."""
    from typer.core import TyperArgument, TyperCommand, TyperGroup

    if getattr(TyperArgument, "_combatlog_keeps_help", False):
        return
    init = TyperArgument.__init__

    def keep_help(self, *args, help=None, **kwargs):  # type: ignore[no-untyped-def]
        init(self, *args, help=help, **kwargs)
        self.help = help

    TyperArgument.__init__ = keep_help  # type: ignore[method-assign]
    TyperArgument._combatlog_keeps_help = True  # type: ignore[attr-defined]
    for command_class in (TyperCommand, TyperGroup):
        command_class.format_arguments = lambda self, ctx, formatter: None  # type: ignore[attr-defined]


_keep_argument_help()

app = typer.Typer(
    cls=LazyRootGroup,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every sub-command's context
    name="combatlog",
    help="An event-sourced combat log for tabletop games: append decisions and dice, replay, "
         "audit, fork, and exchange verifiable logs by email.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    suggest_commands=False,  # click suggests already; typer's would repeat it
)

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


@app.callback()
def root(
    ctx: typer.Context,
    db: Optional[str] = typer.Option(None, "--db", envvar="COMBATLOG_DB",
                                     help="The log: a SQLite file (default ./combatlog.db), a postgresql:// URL, or "
                                          "a combat server's http(s):// URL (a local replica, synced: docs/server.md)."),
    actor: Optional[str] = typer.Option(None, "--as", envvar="COMBATLOG_ACTOR", show_default=False,
                                        help="Who is acting (and, on views, whose view): a player name. Default: "
                                             "the only secret key in the key home (keys list), else gm."),
    command_id: Optional[str] = typer.Option(None, "--command-id",
                                             help="Idempotency key: a retry with the same id records nothing new."),
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True,
                                 callback=_print_version, expose_value=False),
) -> None:
    """Global options go before or after the command."""
    _refuse_blank(ctx, "actor", "--as", "a player name, or leave --as out")
    _refuse_blank(ctx, "command_id", "--command-id", "any non-blank text, or leave --command-id out")
    if not actor:
        from combatlog.trust.keys import only_secret_key

        actor = only_secret_key() or "gm"  # one key here: this machine is that player's
    run = ctx.obj  # a line of run FILE is given the run's state: its open log and the heads it keeps
    line = run.for_line(db, actor, command_id) if isinstance(run, AppState) else None
    ctx.obj = line or AppState(db=db, actor=actor, command_id=command_id)
    ctx.call_on_close(ctx.obj.close)


def _refuse_blank(ctx: typer.Context, param: str, option: str, what: str) -> None:
    """An option typed with a blank value is a mistake (a shell variable that was never set), not a
    request for the default: refused before anything is recorded."""
    value = ctx.params.get(param)
    if value is not None and not value.strip():
        raise click.BadParameter(f"blank: give {what}", ctx=ctx, param_hint=option)




def _optional(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


def _lazy_modules() -> dict[str, str]:
    """Command name -> where it lives, for every command, in the order --help lists them."""
    return {**dict(CORE_COMMANDS),
            **{group: f"combatlog.cli.rulesets.{module}" for module, group in RULESET_GROUPS},
            **{name: module for module, name in EXTRA_MODULES}}


def _load_lazy(name: str) -> click.Command | None:
    module_name, _, function = _lazy_modules()[name].partition(":")
    module = _optional(module_name)
    if module is None:
        return None
    target = getattr(module, function) if function else None
    if isinstance(target, typer.Typer):  # a group kept beside other commands (``seed``)
        command = typer.main.get_group(target)
    elif target is not None:
        single = typer.Typer(add_completion=False)
        single.command(name)(target)
        command = typer.main.get_command(single)
    elif hasattr(module, "app"):
        command: click.Command = typer.main.get_group(module.app)
    else:
        single = typer.Typer(add_completion=False)
        single.command(name)(module.command)
        command = typer.main.get_command(single)
    _plain_help(command)
    return command


def _plain_help(command: click.Command) -> None:
    """One help style everywhere (the root's plain one): no rich boxes in sub-groups, and an
    unknown sub-command suggested once (click suggests; typer's own suggestion repeats it)."""
    if hasattr(command, "rich_markup_mode"):
        command.rich_markup_mode = None
    if hasattr(command, "suggest_commands"):
        command.suggest_commands = False
    for sub in getattr(command, "commands", {}).values():
        _plain_help(sub)


@lru_cache(maxsize=1)
def root_command() -> Any:
    command = typer.main.get_command(app)
    _plain_help(command)
    return command


def _bound_whole_numbers(click: object) -> None:
    """Every whole number typed on the command line lies within +-2**53, as in the log.

    One place for all options (seqs, rounds, modifiers): 99999999999999999999999 is a
    usage error here, never an OverflowError deep in a store.
    """
    types = click.types  # type: ignore[attr-defined]
    if getattr(types.IntParamType, "_combatlog_bounded", False):
        return
    convert = types.IntParamType.convert

    def bounded(self, value, param, ctx):  # type: ignore[no-untyped-def]
        number = convert(self, value, param, ctx)
        if isinstance(number, int) and abs(number) > 2**53 - 1:
            self.fail(f"{value!r} is too large (whole numbers up to 2**53)", param, ctx)
        return number

    types.IntParamType.convert = bounded
    types.IntParamType._combatlog_bounded = True


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
    import click

    from combatlog.errors import CombatlogError, ExitStatus

    _bound_whole_numbers(click)

    args = hoist(list(sys.argv[1:] if argv is None else argv))
    as_json = _wants_json(args)
    code: int = ExitStatus.OK
    try:
        root_command().main(args=args, prog_name="combatlog", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        if as_json:
            _json_error({"code": "aborted", "message": "aborted"})
        else:
            sys.stderr.write("aborted\n")
        code = 130
    except click.ClickException as exc:
        if as_json:
            _json_error({"code": "usage", "message": exc.format_message()})
        else:
            exc.show()
        code = ExitStatus.USAGE
    except CombatlogError as exc:
        from combatlog.text import printable

        if as_json:
            _json_error(exc.to_json())
        else:
            sys.stderr.write(printable(f"error[{exc.code}]: {exc}") + "\n")
        code = exc.exit_status
    except KeyboardInterrupt:
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
