"""The playouts' set-ups, one module per ruleset (its ``SETUPS`` list); tests/playouts.py plays them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


@dataclass(frozen=True)
class Setup:
    """How a playout's combat begins: ``new`` and the lines after it, in the examples' folder."""

    ruleset: str
    name: str
    lines: tuple[tuple[str, ...], ...]
    players: tuple[str, ...] = ()  # pinned players (their keys are made first)


def new(ruleset: str, name: str, setup: str = "", *extra: str) -> tuple[str, ...]:
    args = ("new", name, "--ruleset", ruleset, "--dice", "local")
    if setup:
        args += ("--setup", str(EXAMPLES / ruleset / setup))
    return args + extra


