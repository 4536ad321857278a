"""A small harness for Argad tests: an in-memory combat driven through the real write path."""

from __future__ import annotations

from typing import Any

from combatlog.wiring import create_combat, execute
from combatlog.projections.fold import state_at
from combatlog.rulesets.argad import commands as c
from combatlog.store import open_store


class Fight:
    def __init__(self, figures: list[dict[str, Any]], options: dict[str, Any] | None = None,
                 name: str = "fight") -> None:
        self.store = open_store("memory:")
        setup: dict[str, Any] = {"figures": figures}
        if options:
            setup["options"] = options
        create_combat(self.store, name, "argad", actor="gm", setup=setup, dice="manual")
        self.name = name
        self.steps: list[Any] = []

    def do(self, command: Any, **faces: Any) -> Any:
        """Run a command; ``faces`` maps labels (with '/' written as '__') to faces."""
        manual = {k.replace("__", "/"): tuple(v) if isinstance(v, (list, tuple)) else (v,) for k, v in faces.items()}
        out = execute(self.store, self.name, command, actor="gm", manual_faces=manual)
        self.steps = out.steps
        return out

    def run(self, command: Any, faces: dict[str, Any] | None = None) -> Any:
        manual = {k: tuple(v) if isinstance(v, (list, tuple)) else (v,) for k, v in (faces or {}).items()}
        out = execute(self.store, self.name, command, actor="gm", manual_faces=manual)
        self.steps = out.steps
        return out

    @property
    def state(self) -> Any:
        meta = self.store.get_stream(self.store.list_streams()[0].id)
        return state_at(self.store, meta).state

    def ruleset_view(self) -> dict[str, Any]:
        from combatlog.rulesets.argad import RULESET

        return RULESET.describe(self.state)

    def turn(self) -> None:
        self.run(c.StartTurn())

    def strike(self, attackers: str | tuple[str, ...], target: str | tuple[str, ...], faces: dict[str, Any],
               **kw: Any) -> Any:
        a = (attackers,) if isinstance(attackers, str) else attackers
        t = (target,) if isinstance(target, str) else target
        return self.run(c.Strike(attackers=a, targets=t, **kw), faces)

    def last_strike(self) -> Any:
        return self.state.turn.strikes[-1]

    def effect(self, name: str) -> Any:
        return self.state.turn.effects.get(name)
