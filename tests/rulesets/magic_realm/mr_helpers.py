"""A small driver for Magic Realm combats in a memory store (fast rule tests)."""

from __future__ import annotations

from typing import Any

from combatlog.wiring import create_combat, execute
from combatlog.projections.fold import state_at
from combatlog.rulesets.magic_realm import commands as c
from combatlog.store import open_store


class Game:
    def __init__(self, setup: dict[str, Any], name: str = "t") -> None:
        self.store = open_store("memory:")
        self.name = name
        create_combat(self.store, name, "magic_realm", actor="gm", setup=setup, dice="manual")
        self.steps: list[str] = []

    def do(self, command: Any, faces: dict[str, tuple[int, ...]] | None = None) -> Any:
        out = execute(self.store, self.name, command, actor="gm", manual_faces=faces or {})
        self.steps.extend(f"{s.rule} | {s.text}" for s in out.steps)
        return out

    @property
    def folded(self):  # type: ignore[no-untyped-def]
        return state_at(self.store, self.store.list_streams()[0])

    @property
    def state(self):  # type: ignore[no-untyped-def]
        return self.folded.state

    def view(self, viewer: str | None = None) -> dict[str, Any]:
        f = self.folded
        return f.ruleset.describe(f.state, viewer)  # type: ignore[no-any-return]

    def text(self) -> str:
        return "\n".join(self.steps)

    # -- shortcuts through a whole Encounter Step ------------------------------------
    def encounter(self, chars: list[str], attention: tuple[int, ...] = ()) -> None:
        """Everyone passes luring/deployment and takes no action; then the Melee Step starts."""
        st = self.state
        if st.step == "lure":
            for ch in chars:
                if ch in _deciders(st, "lure"):
                    self.do(c.Lure(character=ch))
        st = self.state
        if st.step == "lure":
            self.do(c.Assign())
        for ch in chars:
            if ch in _deciders(self.state, "deploy"):
                self.do(c.Deploy(character=ch))
        for ch in chars:
            if ch in _deciders(self.state, "actions"):
                self.do(c.Act(character=ch, kind="none"))
        faces = {f"r{self.state.round}/attention/{i + 1}": (f,) for i, f in enumerate(attention)}
        self.do(c.StartMelee(), faces)


def _deciders(st, step):  # type: ignore[no-untyped-def]
    from combatlog.rulesets.magic_realm.rounds import deciders

    return deciders(st, step) if st.step == step else []


def char(cid: str, name: str, **kw: Any) -> dict[str, Any]:
    return {"id": cid, "character": name, "player": kw.pop("player", cid), "level": kw.pop("level", 4), **kw}
