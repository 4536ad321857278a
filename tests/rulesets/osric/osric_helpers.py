"""Helpers for the OSRIC tests: an in-memory combat driven through the real handler."""

from __future__ import annotations

from typing import Any

from combatlog.wiring import create_combat, execute
from combatlog.projections.fold import state_at
from combatlog.store import open_store

FIGHTER = {"name": "Brom", "side": "party", "class": "fighter", "level": 1, "hp": 10, "armour": "mail",
           "shield": "medium", "weapons": ["long sword", "dagger"]}
MAGE = {"name": "Halvaine", "side": "party", "class": "magic-user", "level": 1, "hp": 4, "dex": 16,
        "weapons": ["dagger"]}
ORC = {"name": "orc1", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]}


def orc(n: int, **extra: Any) -> dict[str, Any]:
    return {**ORC, "name": f"orc{n}", **extra}


class Fight:
    """One combat in a memory store; ``do`` runs a command with manual dice faces."""

    def __init__(self, combatants: list[dict[str, Any]], *, options: dict[str, str] | None = None,
                 engaged: list[list[str]] | None = None, **extra: Any) -> None:
        self.store = open_store("memory:")
        setup: dict[str, Any] = {"combatants": combatants, "options": options or {}, **extra}
        if engaged:
            setup["engaged"] = engaged
        create_combat(self.store, "t", "osric", actor="gm", setup=setup, dice="manual")

    def do(self, command: Any, **faces: Any) -> Any:
        manual = {k.replace("__", "/"): (v if isinstance(v, tuple) else (v,)) for k, v in faces.items()}
        return execute(self.store, "t", command, actor="gm", manual_faces=manual)

    def dice(self, command: Any, faces: dict[str, Any]) -> Any:
        manual = {k: (v if isinstance(v, tuple) else (v,)) for k, v in faces.items()}
        return execute(self.store, "t", command, actor="gm", manual_faces=manual)

    @property
    def state(self) -> Any:
        meta = self.store.get_stream(self.store.list_streams()[0].id)
        return state_at(self.store, meta).state

    def texts(self) -> list[str]:
        return [e.text for e in self.state.log]

    def hp(self, name: str) -> int:
        return self.state.live[name].hp
