"""Writing a picture: whole or not at all."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from combatlog.errors import InvalidCommand, NotFound


def check_target(output: Path) -> None:
    """Refuse, before any work, a target that cannot be written: a folder, a missing folder."""
    if str(output) == "-":
        return
    if output.is_dir():
        raise InvalidCommand(f"-o {output}: is a folder; name a file in it, e.g. {output / 'picture.svg'}")
    folder = (output.resolve() if output.is_symlink() else output).parent
    if not folder.is_dir():
        raise NotFound(f"-o {output}: no folder {folder} (create it first)")


def write_whole(output: Path, text: str) -> None:
    """Write ``text`` to ``output`` (``-`` is standard output) through a file beside it renamed over it
    once complete, so that a failure leaves no file and no half-written one. A device or pipe that
    already exists (``/dev/stdout``) is written directly."""
    data = text.encode("utf-8")
    if str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    check_target(output)
    if output.exists() and not output.is_file():
        try:
            with open(output, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise InvalidCommand(f"-o {output}: cannot write: {exc.strerror or exc}") from None
        return
    target = output.resolve() if output.is_symlink() else output
    part = target.parent / f".{target.name}.{os.getpid()}.part"
    try:
        with open(part, "wb") as f:
            f.write(data)
        os.replace(part, target)
    except OSError as exc:
        raise InvalidCommand(f"-o {output}: cannot write: {exc.strerror or exc}") from None
    finally:
        part.unlink(missing_ok=True)
