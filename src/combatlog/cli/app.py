"""The ``combatlog`` command: one typer app, one module per command group.

Errors are mapped to stderr and exit statuses here and nowhere else.
"""

from __future__ import annotations

import importlib
import sys
from functools import lru_cache
from typing import Any, Optional

import typer

from combatlog import __version__
from combatlog.cli import exchange, rolls, runner, streams, views
from combatlog.cli.common import AppState

app = typer.Typer(
    name="combatlog",
    help="An event-sourced combat log for tabletop games: append decisions and dice, replay, "
         "audit, fork, and exchange verifiable logs by email.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
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
# exposes ``app`` (a group) or ``command`` (a single command).
EXTRA_MODULES = [
    ("combatlog.cli.keys", "keys"),
    ("combatlog.cli.copy", "copy"),
]


@app.callback()
def root(
    ctx: typer.Context,
    db: Optional[str] = typer.Option(None, "--db", envvar="COMBATLOG_DB",
                                     help="The log: a SQLite file (default ./combatlog.db) or a postgresql:// URL."),
    actor: str = typer.Option("gm", "--as", envvar="COMBATLOG_ACTOR",
                              help="Who is acting (and, on views, whose view): a player name; default gm."),
    command_id: Optional[str] = typer.Option(None, "--command-id",
                                             help="Idempotency key: a retry with the same id records nothing new."),
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
) -> None:
    """Global options go before or after the command (--as after 'fork' names the new combat)."""
    if version:
        typer.echo(f"combatlog {__version__}")
        raise typer.Exit()
    ctx.obj = AppState(db=db, actor=actor, command_id=command_id)
    ctx.call_on_close(ctx.obj.close)


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
app.command("run")(runner.run)


def _optional(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


for _module, _group in RULESET_GROUPS:
    _mod = _optional(f"combatlog.cli.rulesets.{_module}")
    if _mod is not None:
        app.add_typer(_mod.app, name=_group)
for _module, _name in EXTRA_MODULES:
    _mod = _optional(_module)
    if _mod is not None:
        if hasattr(_mod, "app"):
            app.add_typer(_mod.app, name=_name)
        else:
            app.command(_name)(_mod.command)


@lru_cache(maxsize=1)
def root_command() -> Any:
    return typer.main.get_command(app)


_HOISTED = ("--db", "--as")


def hoist(args: list[str]) -> list[str]:
    """Move --db and --as given after the command to the front, where the root parses them.

    After ``fork``, ``--as`` names the new combat and stays where it is.
    """
    command = next((a for a in args if not a.startswith("-")), "")
    front: list[str] = []
    rest: list[str] = []
    i = 0
    seen_command = False
    while i < len(args):
        a = args[i]
        if not seen_command and a == command:
            seen_command = True
            rest.append(a)
        elif seen_command:
            name = a.split("=", 1)[0]
            if name in _HOISTED and not (name == "--as" and command == "fork"):
                if "=" in a:
                    front.append(a)
                elif i + 1 < len(args):
                    front += [a, args[i + 1]]
                    i += 1
                else:
                    rest.append(a)
            else:
                rest.append(a)
        else:
            front.append(a)
        i += 1
    return front + rest


def main(argv: list[str] | None = None) -> None:
    import click

    from combatlog.errors import CombatlogError, ExitStatus

    args = hoist(list(sys.argv[1:] if argv is None else argv))
    code: int = ExitStatus.OK
    try:
        root_command().main(args=args, prog_name="combatlog", standalone_mode=False)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.Abort:
        sys.stderr.write("aborted\n")
        code = 130
    except click.ClickException as exc:
        exc.show()
        code = ExitStatus.USAGE
    except CombatlogError as exc:
        sys.stderr.write(f"error[{exc.code}]: {exc}\n")
        code = exc.exit_status
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = ExitStatus.OK
    sys.exit(int(code))


if __name__ == "__main__":
    main()
