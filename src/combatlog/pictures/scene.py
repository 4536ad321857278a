"""What a picture shows (``Scene``) and the sealed orders it draws face down: plain data, shared by
the package's entry points and every ruleset's drawer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Sealed:
    """A sealed order in the log: who committed to which step, and whether it is revealed yet."""

    step: str
    player: str
    seq: int
    revealed: bool = False


@dataclass
class Scene:
    """What a picture shows: the combat at one seq, as ``viewer`` (None: everything) may see it."""

    stream: str
    ruleset: str
    title: str
    seq: int
    round: int
    finished: bool
    viewer: str | None
    data: dict[str, Any]  # ruleset.describe(state, viewer)
    state: Any = None  # the folded ruleset state, for the facts an older describe lacks (magic_realm)
    sealed: list[Sealed] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    pending: list[tuple[str, str]] = field(default_factory=list)  # (who, what) the combat waits for
    steps: list[Any] = field(default_factory=list)  # the explain steps of this round up to ``seq``
