"""Magic Realm game data: loaded lazily from ``data/*.json``, validated, cached.

The JSON files are copies of ``shared/data/magic_realm`` (sources in
``data/SOURCES.md``). Loading converts them into the small typed records the
rules code uses; a malformed file raises at load time, naming the file.

Harm and weight letters become levels: Negligible 0, L 1, M 2, H 3, T 4
(MR tables: Units and scales). ``RED`` is the red side of a Tremendous monster.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

DATA_DIR = Path(__file__).parent / "data"
DATA_FILES = tuple(DATA_DIR / f for f in (
    "characters.json", "weapons.json", "armor.json", "horses.json", "monsters.json", "natives.json",
    "spells.json", "tables.md",
))

LEVELS = {"negligible": 0, "N": 0, "L": 1, "M": 2, "H": 3, "T": 4}
LETTERS = {0: "N", 1: "L", 2: "M", 3: "H", 4: "T"}
RED = 9  # red side of a Tremendous monster: kills what it hits (MR 8.4.7)
DIRS = {1: "thrust", 2: "swing", 3: "smash"}
MANEUVERS = {1: "charge", 2: "dodge", 3: "duck"}
BOXES = {1: "Charge and Thrust", 2: "Dodge and Swing", 3: "Duck and Smash"}


class DataError(Exception):
    pass


def letter(level: int | None) -> str:
    if level is None:
        return "-"
    if level == RED:
        return "RED"
    return LETTERS.get(level, "T+" if level > 4 else "N")


def level_of(value: Any, where: str) -> int:
    if value == "RED":
        return RED
    if value not in LEVELS:
        raise DataError(f"{where}: unknown harm/weight letter {value!r}")
    return LEVELS[value]


class Face(msgspec.Struct, frozen=True, kw_only=True):
    """One side of a denizen counter (or of a weapon, head or club)."""

    move_time: int | None = None
    attack_time: int | None = None
    harm: int | None = None  # level; None = this side does not attack
    sharpness: int = 0
    length: int = 0
    missile: bool = False
    spell: str = ""  # Demons/Imp: the table their light-side attack rolls on (MR 8.4.7)
    pins: bool = False


class HorseDef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    kind: str  # pony, horse, warhorse
    vulnerability: int
    armored: bool
    trot_time: int
    trot_strength: int
    gallop_time: int
    gallop_strength: int
    price: int = 0


class DenizenDef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    kind: str  # monster, native, part
    vulnerability: int
    armored: bool
    fame: int = 0
    notoriety: int = 0
    gold: int = 0  # natives: their wage is the gold bounty (MR tables: bounties)
    light: Face
    dark: Face
    tremendous: bool = False
    demon: bool = False
    archer: bool = False
    group: str = ""
    parts: tuple[DenizenDef, ...] = ()
    horse: HorseDef | None = None


class WeaponDef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    weight: int
    length: int
    missile: bool
    unalerted: Face
    alerted: Face
    price: int = 0


class ArmorDef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    kind: str  # shield, helmet, breastplate, suit, card
    protects: tuple[int, ...]  # directions; () for a shield (the box it is played in)
    weight: int
    vulnerability: int
    layer: int
    gold_destroyed: int = 0


class ChitDef(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    action: str  # MOVE, FIGHT, MAGIC, DUCK, BERSERK
    strength: int = 0
    magic_type: str = ""
    time: int
    asterisks: int
    level: int
    restricted_to: str = ""
    optional_rule: str = ""


class CharacterDef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    vulnerability: int
    chits: tuple[ChitDef, ...]
    levels: tuple[dict[str, Any], ...]


class SpellDef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    magic_type: str
    color: str
    duration: str
    target: str
    role: str
    attack: dict[str, Any] | None = None


# -- conversion from the JSON files ------------------------------------------------


def _face(raw: dict[str, Any], where: str) -> Face:
    harm = raw.get("harm")
    return Face(
        move_time=raw.get("move_time"), attack_time=raw.get("attack_time"),
        harm=None if harm is None else level_of(harm, where), sharpness=int(raw.get("sharpness", 0)),
        length=int(raw.get("length", 0)), missile=bool(raw.get("missile", False)),
        spell=str(raw.get("attack_spell", "")), pins=bool(raw.get("pins_target", False)),
    )


def horse_from(raw: dict[str, Any], where: str) -> HorseDef:
    return HorseDef(
        name=raw["name"], kind=raw.get("type", "horse"), vulnerability=level_of(raw["vulnerability"], where),
        armored=bool(raw.get("armored", False)),
        trot_time=int(raw["trot"]["move_time"]), trot_strength=level_of(raw["trot"]["strength"], where),
        gallop_time=int(raw["gallop"]["move_time"]), gallop_strength=level_of(raw["gallop"]["strength"], where),
        price=int(raw.get("price_gold") or 0),
    )


def monster_from(raw: dict[str, Any], where: str) -> DenizenDef:
    parts = tuple(
        DenizenDef(name=p["name"], kind="part", vulnerability=0, armored=False,
                   light=_face(p["light"], where), dark=_face(p["dark"], where))
        for p in raw.get("parts", ())
    )
    dark = _face(raw["dark_side"], where)
    return DenizenDef(
        name=raw["name"], kind="monster", vulnerability=level_of(raw["vulnerability"], where),
        armored=bool(raw.get("armored", False)), fame=int(raw.get("fame", 0)),
        notoriety=int(raw.get("notoriety", 0)), light=_face(raw["light_side"], where), dark=dark,
        tremendous=dark.pins, demon=bool(raw.get("demon", False)), parts=parts,
    )


def native_from(raw: dict[str, Any], group: str, where: str) -> DenizenDef:
    horse = raw.get("horse")
    return DenizenDef(
        name=raw["name"], kind="native", vulnerability=level_of(raw["vulnerability"], where),
        armored=bool(raw.get("armored", False)), fame=int(raw.get("fame", 0)),
        notoriety=int(raw.get("notoriety", 0)), gold=int(raw.get("wage_gold", 0)),
        light=_face(raw["light_side"], where), dark=_face(raw["dark_side"], where),
        archer=bool(raw.get("archer", False)), group=group,
        horse=horse_from(horse, where) if horse else None,
    )


def weapon_from(raw: dict[str, Any], where: str) -> WeaponDef:
    return WeaponDef(
        name=raw["name"], weight=level_of(raw["weight"], where), length=int(raw["length"]),
        missile=bool(raw.get("missile", False)), unalerted=_face(raw["unalerted"], where),
        alerted=_face(raw["alerted"], where), price=int(raw.get("price_gold") or 0),
    )


_KINDS = {"suit of armor": "suit", "treasure armor (card)": "card"}
_DIRS = {"thrust": 1, "swing": 2, "smash": 3}


def armor_from(raw: dict[str, Any], where: str) -> ArmorDef:
    kind = _KINDS.get(raw["kind"], raw["kind"])
    protects: tuple[int, ...] = ()
    if kind != "shield":
        names = raw["protects"]
        protects = (1, 2, 3) if names == ["all"] else tuple(_DIRS[n] for n in names)
    weight = raw.get("weight")
    return ArmorDef(
        name=raw.get("alias", raw["name"]) if raw.get("treasure") and raw["name"] == "Armor" else raw["name"],
        kind=kind, protects=protects, weight=0 if weight is None else level_of(weight, where),
        vulnerability=level_of(raw["vulnerability"], where), layer=int(raw["layer_row"]),
        gold_destroyed=int(raw.get("gold_when_destroyed") or 0),
    )


def _read(name: str) -> dict[str, Any]:
    path = DATA_DIR / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: {exc}") from None


def _unique(items: list[Any], where: str) -> dict[str, Any]:
    """Index by name; identical duplicates collapse, differing ones become 'Name #2'."""
    out: dict[str, Any] = {}
    for item in items:
        name, k = item.name, 1
        while name in out and out[name] != item:
            k += 1
            name = f"{item.name} #{k}"
        if name != item.name:
            item = msgspec.structs.replace(item, name=name)
        out[name] = item
    if not out:
        raise DataError(f"{where}: no entries")
    return out


class Catalog(msgspec.Struct, frozen=True, kw_only=True):
    monsters: dict[str, DenizenDef]
    natives: dict[str, DenizenDef]
    horses: dict[str, HorseDef]
    weapons: dict[str, WeaponDef]
    armor: dict[str, ArmorDef]
    characters: dict[str, CharacterDef]
    spells: dict[str, SpellDef]


@cache
def catalog() -> Catalog:
    """Every data file, validated once per process."""
    try:
        monsters = [monster_from(m, f"monsters.json:{m.get('name')}") for m in _read("monsters.json")["monsters"]]
        natives = [native_from(m, g["group"], f"natives.json:{m.get('name')}")
                   for g in _read("natives.json")["native_groups"] for m in g["members"]]
        horses = [horse_from(h, f"horses.json:{h.get('name')}") for h in _read("horses.json")["horses"]]
        weapons = [weapon_from(w, f"weapons.json:{w.get('name')}") for w in _read("weapons.json")["weapons"]]
        armor = [armor_from(a, f"armor.json:{a.get('name')}") for a in _read("armor.json")["armor"]]
        chars = []
        for c in _read("characters.json")["characters"]:
            where = f"characters.json:{c.get('name')}"
            chits = tuple(ChitDef(
                label=ch["label"], action=ch["action"], time=int(ch["time"]),
                strength=level_of(ch["strength"], where) if "strength" in ch else 0,
                magic_type=ch.get("magic_type", ""), asterisks=int(ch["effort_asterisks"]), level=int(ch["level"]),
                restricted_to=ch.get("restricted_to", ""), optional_rule=ch.get("optional_rule", ""),
            ) for ch in c["action_chits"])
            chars.append(CharacterDef(name=c["name"], vulnerability=level_of(c["weight_vulnerability"], where),
                                      chits=chits, levels=tuple(c["levels"])))
        spells = []
        for s in _read("spells.json")["spells"]:
            spells.append(SpellDef(name=s["name"], magic_type=s.get("magic_type") or "", color=s["magic_color"],
                                   duration=s["duration"], target=s["target"]["realmspeak"],
                                   role=s["combat_role"], attack=s.get("attack")))
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"magic_realm data: malformed entry ({exc!r})") from None
    return Catalog(
        monsters=_unique(monsters, "monsters.json"), natives=_unique(natives, "natives.json"),
        horses=_unique(horses, "horses.json"), weapons=_unique(weapons, "weapons.json"),
        armor=_unique(armor, "armor.json"), characters=_unique(chars, "characters.json"),
        spells=_unique(spells, "spells.json"),
    )


def spell_def(name: str) -> SpellDef:
    """The catalogue entry of one spell (``data/spells.json``)."""
    return catalog().spells[name]
