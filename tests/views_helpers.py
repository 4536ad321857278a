"""Helpers for the view tests: play part of an example command file through the real CLI."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli, example_lines


def run_upto(cli: Cli, example: str, prefix: str, nth: int = 1) -> None:
    """Run ``docs/examples/<example>`` up to and including the ``nth`` line starting with ``prefix``."""
    lines = example_lines(example)
    hits = [i for i, line in enumerate(lines) if line.startswith(prefix)]
    assert len(hits) >= nth, f"{example}: fewer than {nth} lines start with {prefix!r}"
    part = Path(cli.db).parent / f"part-{Path(example).stem}.cmds"
    part.write_text("\n".join(lines[: hits[nth - 1] + 1]) + "\n")
    cli("run", str(part), "--quiet")
