"""The ``combatlog`` typer app: the root group, its options, and every command loaded when invoked.

Imported by ``app.main`` for every command line the fast path (cli/fast.py) does not take; the tables of
commands and their short help live in cli/catalog.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from functools import lru_cache
from typing import Any, Optional

import click
import typer
from typer.core import TyperGroup

from combatlog.cli.catalog import CORE_COMMANDS, EXTRA_MODULES, RULESET_GROUPS, SHORT_HELP
from combatlog.cli.state import AppState, Interrupted, default_actor


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

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # typer would return exit status 130 for it, which main cannot tell
            raise Interrupted() from exc  # from a command's return value: main exits with 130

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
        from combatlog.cli.version import version_text

        typer.echo(version_text())
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


def _params_listed_once() -> None:
    """click lists a command's parameters (its own and the help option, with a check for duplicate options)
    twice each time it parses a command line, and ``run FILE`` parses thousands: about a tenth of a line's
    cost. The list is the same for every context of a command (the help option's names come from the
    context settings every sub-command inherits), so each command keeps the list click made the first time,
    its duplicate check included, for as long as its parameters and those names stay the same."""
    from typer.core import TyperCommand, TyperGroup

    def get_params(self: click.Command, ctx: click.Context) -> list[click.Parameter]:
        key = (tuple(ctx.help_option_names), tuple(self.params))
        kept = self.__dict__.get("_combatlog_params")
        if kept is None or kept[0] != key:
            kept = (key, click.Command.get_params(self, ctx))
            self.__dict__["_combatlog_params"] = kept
        return list(kept[1])

    for command_class in (TyperCommand, TyperGroup):
        command_class.get_params = get_params  # type: ignore[method-assign]


def _parser_built_once() -> None:
    """click builds an option parser for every context it parses (each option added one by one), and
    ``run FILE`` makes two contexts a line. A parser keeps no state of its own between parses (each parse
    has its own) but the context it reports errors and ``resilient_parsing`` against: each command keeps the
    parser click built the first time, for as long as its parameters and the context's parsing settings stay
    the same, and hands it the context of each parse."""
    from typer.core import TyperCommand, TyperGroup

    def make_parser(self: click.Command, ctx: click.Context) -> Any:
        key = (ctx.token_normalize_func, ctx.allow_interspersed_args, ctx.ignore_unknown_options,
               tuple(self.get_params(ctx)))
        kept = self.__dict__.get("_combatlog_parser")
        if kept is None or kept[0] != key:
            kept = (key, click.Command.make_parser(self, ctx))
            self.__dict__["_combatlog_parser"] = kept
        parser = kept[1]
        parser.ctx = ctx
        return parser

    for command_class in (TyperCommand, TyperGroup):
        command_class.make_parser = make_parser  # type: ignore[method-assign]


_params_listed_once()
_parser_built_once()

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
    version: bool = typer.Option(False, "--version", is_eager=True,
                                 help="Print the release, the engine (log format) and ruleset versions, and exit.",
                                 callback=_print_version, expose_value=False),
) -> None:
    """Global options go before or after the command."""
    from combatlog.cli.common import refuse_blank

    # refused as every blank name is (--by '', --name ''): error[invalid], exit status 3, before anything is done
    refuse_blank(actor, "--as", "a player name")
    refuse_blank(command_id, "--command-id", "any non-blank text")
    if not actor:
        actor = default_actor()  # one key here: this machine is that player's
    run = ctx.obj  # a line of run FILE is given the run's state: its open log and the heads it keeps
    line = run.for_line(db, actor, command_id) if isinstance(run, AppState) else None
    ctx.obj = line or AppState(db=db, actor=actor, command_id=command_id)
    ctx.call_on_close(ctx.obj.close)




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


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def bound_whole_numbers(click: object) -> None:
    """Every whole number typed on the command line lies within +-2**53, as in the log, and every number
    (whole or not) is written in ASCII digits.

    One place for all options (seqs, rounds, modifiers): 99999999999999999999999 is a
    usage error here, never an OverflowError deep in a store. Python's ``int`` and ``float`` also read
    other scripts' digits ('１２', '٣'), '_' between digits ('1_0') and, for ``float``, 'nan' and 'inf':
    a usage error too, naming the character, so a number is read as the reader of the log sees it.
    """
    from combatlog.text import ascii_whole, non_ascii

    types = click.types  # type: ignore[attr-defined]
    if getattr(types.IntParamType, "_combatlog_bounded", False):
        return
    convert = types.IntParamType.convert
    convert_float = types.FloatParamType.convert

    def written(self, value, param, ctx, whole: bool) -> None:  # type: ignore[no-untyped-def]
        if not isinstance(value, str):
            return  # a default, already a number
        text = value.strip()
        if ascii_whole(text) if whole else _DECIMAL.fullmatch(text):
            return
        odd = non_ascii(text)
        kind = "whole number" if whole else "number"
        self.fail(f"{value!r} is not a {kind} written in the digits 0-9" + (f": {odd} is not ASCII" if odd else ""),
                  param, ctx)

    def bounded(self, value, param, ctx):  # type: ignore[no-untyped-def]
        written(self, value, param, ctx, True)
        number = convert(self, value, param, ctx)
        if isinstance(number, int) and abs(number) > 2**53 - 1:
            self.fail(f"{value!r} is too large (whole numbers up to 2**53)", param, ctx)
        return number

    def decimal(self, value, param, ctx):  # type: ignore[no-untyped-def]
        written(self, value, param, ctx, False)
        return convert_float(self, value, param, ctx)

    types.IntParamType.convert = bounded
    types.FloatParamType.convert = decimal
    types.IntParamType._combatlog_bounded = True
