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
from combatlog.cli import exchange, rolls, runner, streams, views
from combatlog.cli.argv import hoist
from combatlog.cli.common import AppState

class LazyRootGroup(TyperGroup):
    """The root group: ruleset groups and optional parts are imported and built only
    when invoked (or listed, for --help and completion). Building every ruleset's
    commands on each run cost ~55 ms of start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        # The lazy parts always after the core commands, in their declared order, whether or not
        # one was already loaded (help and docs/cli.md must not depend on what ran before).
        lazy = _lazy_modules()
        eager = [name for name in super().list_commands(ctx) if name not in lazy]
        return [*eager, *(name for name, module in lazy.items()
                          if name in self.commands or importlib.util.find_spec(module.split(":")[0]) is not None)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in _lazy_modules():
            command = _load_lazy(name)
            if command is not None:
                self.add_command(command, name)
        return super().get_command(ctx, name)

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
    ctx.obj = AppState(db=db, actor=actor, command_id=command_id)
    ctx.call_on_close(ctx.obj.close)


def _refuse_blank(ctx: typer.Context, param: str, option: str, what: str) -> None:
    """An option typed with a blank value is a mistake (a shell variable that was never set), not a
    request for the default: refused before anything is recorded."""
    value = ctx.params.get(param)
    if value is not None and not value.strip():
        raise click.BadParameter(f"blank: give {what}", ctx=ctx, param_hint=option)


app.command("new")(streams.new)
app.command("list")(streams.list_streams)
app.command("log")(views.log)
app.command("show")(views.show)
app.command("status")(views.status)
app.command("explain")(views.explain)
app.command("replay")(views.replay)
app.command("dice")(views.dice)
app.command("roll")(rolls.roll)
app.add_typer(rolls.seed_app, name="seed")
app.command("note")(streams.note)
app.command("fork")(streams.fork)
app.command("export")(exchange.export)
app.command("import")(exchange.import_)
app.command("verify")(exchange.verify)
app.command("superseded")(exchange.superseded)
app.command("run")(runner.run)


def _optional(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


def _lazy_modules() -> dict[str, str]:
    """Command name -> module, for every lazily loaded part."""
    return {**{group: f"combatlog.cli.rulesets.{module}" for module, group in RULESET_GROUPS},
            **{name: module for module, name in EXTRA_MODULES}}


def _load_lazy(name: str) -> click.Command | None:
    module_name, _, function = _lazy_modules()[name].partition(":")
    module = _optional(module_name)
    if module is None:
        return None
    if function:
        single = typer.Typer(add_completion=False)
        single.command(name)(getattr(module, function))
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
