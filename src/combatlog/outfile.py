"""Writing a file a command was asked for (-o FILE): whole or not at all, and every failure of the
disk said in words ("cannot write FILE: No space left on device"), never as a crash."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from combatlog.errors import InvalidCommand, NotFound

T = TypeVar("T")


def check_target(output: Path, example: str = "combat.jsonl") -> None:
    """Refuse, before any work, a target that cannot be written: a folder, a missing folder."""
    if output.is_dir():
        raise InvalidCommand(f"-o {output}: is a folder; name a file in it, e.g. {output / example}")
    folder = (output.resolve() if output.is_symlink() else output).parent
    if not folder.is_dir():
        raise NotFound(f"-o {output}: no folder {folder} (create it first)")


def cannot_write(output: Path, exc: OSError) -> InvalidCommand:
    return InvalidCommand(f"cannot write {output}: {exc.strerror or exc}")


def write_whole(output: Path, write: Callable[[Path], T], example: str = "combat.jsonl") -> T:
    """Run ``write`` on a file beside ``output``, renamed over it once complete, so that a refusal or a
    full disk leaves no file and no half-overwritten one. A device or pipe that already exists
    (-o /dev/stdout, /dev/full) is written directly; its errors are reported the same way."""
    check_target(output, example)
    try:
        if output.exists() and not output.is_file():
            return write(output)
        target = output.resolve() if output.is_symlink() else output
        part = target.parent / f".{target.name}.{os.getpid()}.part"
        try:
            result = write(part)
            os.replace(part, target)
        finally:
            part.unlink(missing_ok=True)
        return result
    except OSError as exc:
        raise cannot_write(output, exc) from None
