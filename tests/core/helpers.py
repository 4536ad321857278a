"""Small builders for core tests (freeform combats through the real handler)."""

from __future__ import annotations

from combatlog.wiring import create_combat, execute
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.base import EventStore


def duel(store: EventStore, name: str = "duel", dice: str = "manual") -> str:
    """Aldo (12 hp) v Bo (10 hp), round 1 open: seqs 1-4 (5 with a referee seed)."""
    create_combat(store, name, "freeform", actor="gm", dice=dice)
    execute(store, name, ff.Join(name="Aldo", side="red", hp=12), actor="gm")
    execute(store, name, ff.Join(name="Bo", side="blue", hp=10), actor="gm")
    execute(store, name, ff.StartRound(), actor="gm")
    return name


def hit(store: EventStore, name: str, who: str, faces: int, label: str | None = None) -> None:
    label = label or f"hit/{who}/{faces}/{len(store.read_all(0, 100000))}"
    execute(store, name, ff.ChangeHp(who=who, amount="1d8", label=label), actor="gm",
            manual_faces={label: (faces,)})
