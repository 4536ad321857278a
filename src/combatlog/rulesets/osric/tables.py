"""OSRIC tables: to-hit matrices, ability adjustments, armour, weapons, attacks per round.

Facts from the seed (``003``) and ``reference/osric.md``; the weapon data from
the OSRIC Master Weapon and Missile Weapon Tables lives in ``data/weapons.json``
and loads lazily (cached).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import msgspec

from combatlog.errors import InvalidCommand

DATA = Path(__file__).parent / "data"
WEAPONS_FILE = DATA / "weapons.json"

TO_HIT = "OSRIC Combat: To Hit"
MONSTER_HIT = "OSRIC Combat: Monster To Hit"
STRENGTH = "OSRIC Combat: Strength"
DEXTERITY = "OSRIC Combat: Dexterity"
ARMOUR = "OSRIC Combat: Armour Class"
WEAPONS = "OSRIC Combat: Weapon Damage"
ATTACKS = "OSRIC Combat: Attacks per Round"

# -- to-hit matrices ---------------------------------------------------------------------

FIGHTER_CLASSES = ("fighter", "paladin", "ranger")
CLASSES = FIGHTER_CLASSES + ("cleric", "druid", "thief", "assassin", "magic-user", "illusionist")
CLASS_ALIASES = {"magic user": "magic-user", "mage": "magic-user", "mu": "magic-user", "wizard": "magic-user"}

# (highest level of the band, B) per class: B is the roll needed against AC 0.
_BANDS: dict[str, tuple[tuple[int, int], ...]] = {
    "cleric": ((3, 20), (6, 18), (9, 16), (12, 14), (15, 12), (18, 10), (10**6, 9)),
    "druid": ((3, 20), (6, 18), (9, 16), (12, 14), (14, 12)),
    "thief": ((4, 21), (8, 19), (12, 16), (16, 14), (20, 12), (10**6, 10)),
    "assassin": ((4, 21), (8, 19), (12, 16), (15, 14)),
    "magic-user": ((5, 21), (10, 19), (15, 17), (20, 15), (10**6, 13)),
    "illusionist": ((5, 21), (10, 19), (15, 17), (20, 15), (10**6, 13)),
}
MAX_LEVEL = {"druid": 14, "assassin": 15}


def fighter_b(level: int) -> int:
    """OSRIC Combat: To Hit: fighter matrix, B = 21 - level (level 0 = normal man), 20+ -> 1."""
    return max(1, 21 - level)


def class_b(cls: str, level: int) -> int:
    """OSRIC Combat: To Hit: the roll a class needs against AC 0 at a level (reference 2.3)."""
    if cls in FIGHTER_CLASSES:
        return fighter_b(level)
    for top, b in _BANDS[cls]:
        if level <= top:
            return b
    raise InvalidCommand(f"{cls} level {level} is beyond the {cls} table (max {MAX_LEVEL.get(cls)})")


def needed(b: int, ac: int) -> int:
    """OSRIC Combat: To Hit: r = B - AC; r if r <= 20, 20 for 21..25 (six 20s), r - 5 from 26."""
    r = b - ac
    if r <= 20:
        return r
    if r <= 25:
        return 20
    return r - 5


_HD = re.compile(r"^\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$", re.ASCII)  # ASCII digits: \d also takes '２'
_HD_FRACTION = re.compile(r"^\s*(?:\d+\s*/\s*\d+|\d+d\d+\s*hp|\d+\s*hp)\s*$", re.I | re.ASCII)


def parse_hd(hd: str) -> tuple[int, int]:
    """Hit Dice as (dice, plus) with plus < 0 for "N-k"; fractions and hp-only as (0, 0)."""
    if _HD_FRACTION.match(hd):
        return (0, 0)
    m = _HD.match(hd)
    if not m:
        raise InvalidCommand(f"Hit Dice {hd!r}: write N, N+k, N-k, 1/2 or 1d4hp")
    n, sign, k = int(m.group(1)), m.group(2), int(m.group(3) or 0)
    return (n, -k if sign == "-" else k)


def monster_level(hd: str) -> int:
    """OSRIC Combat: Monster To Hit: the fighter level a monster of these Hit Dice attacks as.

    Below 1-1 -> 0; 1-1 -> 1; 1 -> 2; 1+1 to 2 -> 3; then (N-1)+1 to N -> N+1,
    up to 19 -> 20; more than 19 -> 21 (which uses the fighter 20+ row).
    """
    n, plus = parse_hd(hd)
    if n == 0 or (n == 1 and plus < -1):
        return 0
    if n == 1:
        return 1 if plus == -1 else 2 if plus == 0 else 3
    if n >= 20 or (n == 19 and plus > 0):
        return 21
    return n + 2 if plus > 0 else n + 1


def below_one_hd(hd: str) -> bool:
    """Creatures of less than one full Hit Die (for a fighter's attacks = level)."""
    n, plus = parse_hd(hd)
    return n == 0 or (n == 1 and plus < 0)


def hd_for_morale(hd: str) -> int:
    """Whole Hit Dice for the morale base (+5% per HD); below 1 HD counts 0."""
    n, plus = parse_hd(hd)
    return n if not (n == 1 and plus < 0) else 0


# -- abilities ---------------------------------------------------------------------------

_STR = re.compile(r"^\s*(\d+)\s*(?:[/.]\s*(\d{1,2}))?\s*$", re.ASCII)


def parse_strength(text: str | int) -> tuple[int, int]:
    """Strength as (score, percentile); 18/00 is stored as (18, 100)."""
    m = _STR.match(str(text))
    if not m:
        raise InvalidCommand(f"strength {text!r}: write 3..19 or 18/01..18/00")
    score = int(m.group(1))
    pct = m.group(2)
    if not 3 <= score <= 19:
        raise InvalidCommand(f"strength {text!r} is outside 3..19")
    if pct is None:
        return (score, 0)
    if score != 18:
        raise InvalidCommand(f"strength {text!r}: only an 18 takes a percentile")
    value = int(pct)
    return (18, 100 if value == 0 else value)


def strength_adjustments(score: int, pct: int = 0) -> tuple[int, int]:
    """OSRIC Combat: Strength: (to-hit, damage) adjustments; 18/00 counts as 19."""
    if score == 18 and pct:
        if pct >= 100:
            return (3, 6)
        if pct <= 50:
            return (1, 3)
        if pct <= 75:
            return (2, 3)
        if pct <= 90:
            return (2, 4)
        return (2, 5)
    table = {3: (-3, -1), 4: (-2, -1), 5: (-2, -1), 6: (-1, 0), 7: (-1, 0), 16: (0, 1), 17: (1, 1),
             18: (1, 2), 19: (3, 6)}
    return table.get(score, (0, 0))


def dexterity_adjustments(dex: int) -> tuple[int, int, int]:
    """OSRIC Combat: Dexterity: (surprise bonus, missile to-hit, AC adjustment)."""
    if not 3 <= dex <= 19:
        raise InvalidCommand(f"dexterity {dex} is outside 3..19")
    table = {3: (-3, -3, 4), 4: (-2, -2, 3), 5: (-1, -1, 2), 6: (0, 0, 1), 15: (0, 0, -1), 16: (1, 1, -2),
             17: (2, 2, -3), 18: (3, 3, -4), 19: (3, 3, -4)}
    return table.get(dex, (0, 0, 0))


# -- armour --------------------------------------------------------------------------------

ARMOUR_AC = {
    "none": 10, "leather": 8, "padded": 8, "studded": 7, "studded leather": 7, "ring": 7, "scale": 6,
    "lamellar": 6, "mail": 5, "chain": 5, "chain mail": 5, "elfin mail": 5, "banded": 4, "splint": 4,
    "plate": 3, "field plate": 2, "full plate": 1,
}
SHIELD_ATTACKERS = {"small": 1, "medium": 2, "large": 3}


# -- weapons -------------------------------------------------------------------------------


class Missile(msgspec.Struct, frozen=True, kw_only=True):
    damage: tuple[str, str]
    rate: str = "1"  # shots per round: "1", "2", "3" or "1/2"
    increment: int = 10  # feet per range increment (-2 to hit each)
    hurled: bool = False  # strength damage bonus applies


class WeaponData(msgspec.Struct, frozen=True, kw_only=True):
    name: str = ""
    melee: tuple[str, str] | None = None
    thrown: Missile | None = None
    missile: Missile | None = None
    set: bool = False  # may be set against a charge
    lance: bool = False
    offhand: bool = False  # may be the off-hand weapon of two-weapon fighting


UNARMED = WeaponData(name="unarmed", melee=("1d2", "1d2"))


@lru_cache(maxsize=1)
def _weapon_table() -> tuple[dict[str, WeaponData], dict[str, str]]:
    raw = json.loads(WEAPONS_FILE.read_text(encoding="utf-8"))
    table = {}
    for name, entry in raw["weapons"].items():
        table[name] = msgspec.convert({**entry, "name": name}, WeaponData)
        if table[name].melee is None and table[name].missile is None:
            raise ValueError(f"weapons.json: {name} has neither melee nor missile damage")
    aliases = {k: v for k, v in raw["aliases"].items()}
    for target in aliases.values():
        if target not in table:
            raise ValueError(f"weapons.json: alias to unknown weapon {target}")
    return table, aliases


def weapon_names() -> list[str]:
    return sorted(_weapon_table()[0])


def weapon(name: str) -> WeaponData:
    """OSRIC Combat: Weapon Damage: a weapon of the Master or Missile Weapon Table."""
    key = " ".join(name.lower().split())
    if key == "unarmed":
        return UNARMED
    table, aliases = _weapon_table()
    key = aliases.get(key, key)
    found = table.get(key)
    if found is None:
        raise InvalidCommand(f"unknown weapon {name!r}; known: {', '.join(sorted(table))}, unarmed")
    return found


def canonical_weapon(name: str) -> str:
    return weapon(name).name


def rate_per_round(rate: str, round_no: int) -> int:
    """OSRIC Combat: Missile Attacks: shots this round; a rate of 1/2 fires in odd rounds only.

    Decision: a weapon firing once every two rounds (heavy crossbow) fires in
    odd rounds (1, 3, ...), matching the odd-round rule for half attacks.
    """
    if rate == "1/2":
        return 1 if round_no % 2 == 1 else 0
    return int(rate)


# -- attacks per round -----------------------------------------------------------------------


def fighter_half_attacks(level: int, specialised: bool) -> int:
    """OSRIC Combat: Attacks per Round: in half attacks; 1/1 (1-6), 3/2 (7-12), 2/1 (13+).

    Specialisation (optional rule) adds half an attack.
    """
    halves = 2 if level <= 6 else 3 if level <= 12 else 4
    return halves + (1 if specialised else 0)


def attacks_this_round(halves: int, round_no: int, half_on: str) -> int:
    """OSRIC Combat: Attacks per Round: the half attack falls on odd rounds (option: even)."""
    extra = halves % 2 and (round_no % 2 == (1 if half_on == "odd" else 0))
    return halves // 2 + (1 if extra else 0)
