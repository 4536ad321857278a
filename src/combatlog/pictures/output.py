"""Writing a picture: whole or not at all."""

from __future__ import annotations

import sys
from pathlib import Path


def check_target(output: Path) -> None:
    """Refuse, before any work, a target that cannot be written: a folder, a missing folder."""
    if str(output) != "-":
        from combatlog.outfile import check_target as check

        check(output, "picture.svg")


def write_whole(output: Path, text: str) -> None:
    """Write ``text`` to ``output`` (``-`` is standard output), whole or not at all
    (combatlog.outfile.write_whole)."""
    from combatlog.outfile import write_whole as write

    data = text.encode("utf-8")
    if str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    write(output, lambda path: path.write_bytes(data), "picture.svg")
