"""Argad data: strength categories, the species table, weapons and the shooting cells.

The JSON files under ``data/`` load lazily, once, and are validated on load.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

DATA = Path(__file__).parent / "data"
DATA_FILES = (DATA / "species.json", DATA / "weapons.json", DATA / "shooting.json")

# Argad: Humanoid creatures strength: the categories, weakest first, with their melee die.
STRENGTHS = ("-H", "=H", "+H", "++H", "H2")
STRENGTH_DIE = {"-H": 4, "=H": 6, "+H": 8, "++H": 10, "H2": 12}
# Steps from human strength, used by the ``strength = modifier`` option (the older +-1 rule).
STRENGTH_STEP = {"-H": -1, "=H": 0, "+H": 1, "++H": 2, "H2": 3}
WOUND_DICE = {"1": 1, "1d2": 2, "1d3": 3, "1d4": 4}
DIE_SIDES = (4, 6, 8, 10, 12)
BASES_MM = (20, 25, 40)

# Strike order: longer weapons strike first; equal lengths strike at the same time.
TIERS = ("first", "very_long", "long", "half_long", "short", "last")
TIER_INDEX = {name: i for i, name in enumerate(TIERS)}
RANGES = ("short", "medium", "long")
METALS = ("iron", "bronze", "stone")
ABILITIES = ("elite_shooter", "strong", "strike_last", "skeleton", "zombie", "hero")


class Species(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    name: str
    strength: str
    melee_die: int
    shooting_die: int  # 0: does not shoot (or only rarely; give shooting_die on the figure)
    wounds: str
    base_mm: int
    move_cm: tuple[int, int, int]
    terrain: str
    hide_bonus: int = 0
    hide_armour: int = 0
    shooting_armour_bonus: int = 0
    thrown_die: int = 0
    short_staff: bool = False
    elite_shooter_allowed: bool = False
    mineral_ground: bool = False
    longbow_immobile_on_foot: bool = False
    idle_target_malus: bool = False
    missile_forbidden: tuple[str, ...] = ()
    missile_allowed: tuple[str, ...] = ()
    abilities: tuple[str, ...] = ()
    note: str = ""
    source: str = ""


class MeleeWeapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    length: str
    short_staff_length: str = ""
    staff: bool = False
    anti_large: bool = False
    heavy: bool = False
    two_handed: bool = False
    couched: bool = False
    mounted_only: bool = False


class MissileWeapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    immobile: bool = False
    thrown: bool = False


class ShootingCell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    weapon: str
    range: str
    armour: int
    need: int
    modifier: int | None = None
    source: str = ""
    note: str = ""


def _load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@cache
def species_table() -> dict[str, Species]:
    rows = msgspec.convert(_load("species.json")["species"], list[Species])
    out: dict[str, Species] = {}
    for s in rows:
        if s.strength not in STRENGTHS or s.melee_die not in DIE_SIDES or s.wounds not in WOUND_DICE:
            raise ValueError(f"species {s.id}: bad strength, die or wounds")
        if s.base_mm not in BASES_MM or s.id in out:
            raise ValueError(f"species {s.id}: bad base or duplicate id")
        for w in s.missile_forbidden + s.missile_allowed:
            if w not in missile_weapons():
                raise ValueError(f"species {s.id}: unknown missile weapon {w}")
        out[s.id] = s
    return out


@cache
def melee_weapons() -> dict[str, MeleeWeapon]:
    table = msgspec.convert(_load("weapons.json")["melee"], dict[str, MeleeWeapon])
    for key, w in table.items():
        if w.length not in TIERS or (w.short_staff_length and w.short_staff_length not in TIERS):
            raise ValueError(f"weapon {key}: bad length")
    return table


@cache
def missile_weapons() -> dict[str, MissileWeapon]:
    return msgspec.convert(_load("weapons.json")["missile"], dict[str, MissileWeapon])


@cache
def shooting_cells() -> tuple[ShootingCell, ...]:
    cells = msgspec.convert(_load("shooting.json")["cells"], list[ShootingCell])
    for cell in cells:
        if cell.weapon not in missile_weapons() or cell.range not in RANGES:
            raise ValueError(f"shooting cell {cell}: unknown weapon or range")
    return tuple(cells)


def shooting_need(weapon: str, range_: str, armour: int) -> tuple[int, int | None, str] | None:
    """(need, table modifier or None, source) for a shot, from the seed's cells.

    Argad: Armour 6 & armour 7: each armour step above 5 adds -1 to the armour 5
    column, so a cell known at any armour >= 5 gives every armour >= 5.
    """
    cells = [c for c in shooting_cells() if c.weapon == weapon and c.range == range_]
    name = missile_weapons()[weapon].name
    for cell in cells:
        if cell.armour == armour:
            return cell.need, cell.modifier, f"{name}, {range_} range, armour {armour}: {_cite(cell)}"
    if armour >= 5:
        for cell in cells:
            if cell.armour >= 5:
                shift = armour - cell.armour
                mod = None if cell.modifier is None else cell.modifier - shift
                return cell.need + shift, mod, (f"{name}, {range_} range, armour {armour}: {_cite(cell)} at armour "
                                                f"{cell.armour}, {shift:+d} (Argad: Armour 6 & armour 7)")
    return None


def _cite(cell: ShootingCell) -> str:
    """The citation part of a cell's source ('Argad: heading (example)')."""
    return cell.source[: cell.source.index("):") + 1] if "):" in cell.source else cell.source


def die_step_down(sides: int, steps: int) -> tuple[int, int]:
    """Argad: Wound localisation (trunk, arm): strike with a lower die.

    12 -> 10 -> 8 -> 6; below 1D6 (and for 1D4) each further step is -1 on the die.
    Returns (sides, modifier).
    """
    ladder = [12, 10, 8, 6]
    if sides == 4:
        return 4, -steps
    idx = ladder.index(sides) if sides in ladder else len(ladder) - 1
    target = idx + steps
    if target < len(ladder):
        return ladder[target], 0
    return 6, -(target - (len(ladder) - 1))
