"""The ``combatlog`` command: ``main``, the one place where errors are mapped to stderr and exit statuses.

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
from combatlog.cli.catalog import CORE_COMMANDS, EXTRA_MODULES, RULESET_GROUPS, SHORT_HELP  # noqa: F401  (idem)

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


MAX_ERROR_CHARS = 2000  # an error is read by a person: what it quotes from the input is cut past this


def _bounded(message: str) -> str:
    if len(message) <= MAX_ERROR_CHARS:
        return message
    cut = len(message) - MAX_ERROR_CHARS
    return f"{message[:MAX_ERROR_CHARS // 2]} [... {cut} characters cut ...] {message[-MAX_ERROR_CHARS // 2:]}"


def _json_error(error: dict[str, object]) -> None:
    """Under --json an error is JSON too, on stderr: {"error": {"code": ..., "message": ...}}."""
    import json

    sys.stderr.write(json.dumps({"error": error}, ensure_ascii=True) + "\n")


def main(argv: list[str] | None = None) -> None:
    from combatlog.cli.fast import fast_command
    from combatlog.cli.state import Interrupted
    from combatlog.errors import CombatlogError, ExitStatus

    args = hoist(list(sys.argv[1:] if argv is None else argv))
    if args and not {"--help", "-h", "--version"} & set(args):  # help needs no msgspec at all
        from combatlog.lean_import import import_msgspec_without_typing_extensions

        import_msgspec_without_typing_extensions()
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

        exc.message = _bounded(exc.message)  # a 100,000-letter name typed in comes back once, not whole
        if as_json or exc.as_json:
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
