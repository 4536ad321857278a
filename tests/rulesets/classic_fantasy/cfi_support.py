"""Shared helpers for the Classic Fantasy Imperative tests: a combat in a memory store,
commands with manual dice, and small combatant specs."""

from __future__ import annotations

from typing import Any

from combatlog.wiring import create_combat, execute
from combatlog.projections.fold import state_at
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.store import open_store


def fighter(name: str, side: str, *, combat: int = 60, weapons: list[Any] | None = None, shield: Any = None,
            worn: int = 0, natural: int = 0, chars: dict[str, int] | None = None, **extra: Any) -> dict[str, Any]:
    base = {"STR": 13, "CON": 13, "SIZ": 13, "DEX": 13, "INT": 13, "POW": 13, "CHA": 10}
    spec: dict[str, Any] = {"name": name, "side": side, "characteristics": {**base, **(chars or {})},
                            "skills": {"combat": combat, **extra.pop("skills", {})},
                            "weapons": weapons or ["longsword"], "armour": {"worn": worn, "natural": natural}}
    if shield:
        spec["shield"] = shield
    spec.update(extra)
    return spec


class Combat:
    def __init__(self, *combatants: dict[str, Any], options: dict[str, str] | None = None) -> None:
        self.store = open_store("memory:")
        setup: dict[str, Any] = {"combatants": list(combatants)}
        if options:
            setup["options"] = options
        create_combat(self.store, "t", "classic_fantasy", actor="gm", setup=setup, dice="manual")
        self.meta = self.store.list_streams()[0]
        self.steps: list[Any] = []


    def run(self, command: Any, dice: dict[str, Any] | None = None) -> Any:
        out = execute(self.store, "t", command, actor="gm",
                      manual_faces={label: tuple(v) if isinstance(v, (list, tuple)) else (v,)
                                    for label, v in (dice or {}).items()})
        self.steps = out.steps
        return out

    @property
    def state(self) -> Any:
        return state_at(self.store, self.meta).state

    def who(self, name: str) -> Any:
        return self.state.combatants[name]

    def texts(self) -> list[str]:
        return [s.text for s in self.steps]

    def rules(self) -> list[str]:
        return [s.rule for s in self.steps]

    # shortcuts
    def round(self, dice: dict[str, Any], **kw: Any) -> Any:
        return self.run(c.StartRound(**kw), dice)

    def attack(self, attacker: str, target: str, dice: dict[str, Any], **kw: Any) -> Any:
        return self.run(c.Attack(attacker=attacker, target=target, **kw), dice)

    def parry(self, defender: str, dice: dict[str, Any], **kw: Any) -> Any:
        return self.run(c.Defend(defender=defender, kind="parry", **kw), dice)

    def evade(self, defender: str, dice: dict[str, Any], **kw: Any) -> Any:
        return self.run(c.Defend(defender=defender, kind="evade", **kw), dice)

    def none(self, defender: str, dice: dict[str, Any] | None = None) -> Any:
        return self.run(c.Defend(defender=defender, kind="none"), dice)

    def effects(self, who: str, effects: tuple[str, ...], dice: dict[str, Any], **params: str) -> Any:
        return self.run(c.ChooseEffects(who=who, effects=effects, params=params), dice)

    def act(self, who: str, action: str, target: str = "", dice: dict[str, Any] | None = None, **detail: str) -> Any:
        return self.run(c.Act(who=who, action=action, target=target, detail=detail), dice)
