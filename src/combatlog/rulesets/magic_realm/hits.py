"""The records the Melee Step passes on: an ``Attack`` (built in ``melee.py`` and ``spells.py``, decided
undercut, intercepted or missed in ``melee.py``) and the ``Effects`` of one simultaneous group of
hits (gathered in ``harm.py`` and ``demons.py``, then applied together, MR 8.4.9).
"""

from __future__ import annotations

import msgspec

# Why an attack on a target that made no maneuver hits: it intercepts him (seed 000, MR 8.4.8: "Special: If a
# character does not play a maneuver, all of the denizen counters on his sheet intercept and hit him").
NO_MANEUVER = "the target made no maneuver"


class Attack(msgspec.Struct):  # (a Struct, not a dataclass: dataclasses imports inspect, ~4 ms of start-up)
    attacker: str
    target: str
    direction: int
    time: int
    length: int
    harm: int  # level
    stars: int
    missile: bool = False
    archer: bool = False
    kind: str = "denizen"  # weapon, dagger, denizen, spell, demon
    table: str = ""  # demons: the table their spell attack rolls on
    bonus: bool = False  # a stronger Fight chit adds a level (MR 8.4.9)
    weapon: str = ""
    label: str = ""  # missile-table dice label
    hit: str = ""  # "undercut", "intercept" or "" (miss)
    vs_horse: str = ""  # the horse whose maneuver decided the hit (MR 8.4.9 native horses)
    # What became of it, for the views (harm.inflict fills these in):
    why: str = ""  # why it hit or missed (MR 8.4.8)
    order: int = 0  # its place in the order of hits (MR 8.4.9), 1-based; 0: it did not hit
    group: int = 0  # hits with the same group number are simultaneous
    cancelled: str = ""  # why a hit was cancelled before it went into effect
    applied: str = ""  # the harm that went into effect, after every change (a letter or RED)
    armor_piece: str = ""  # the armor it struck...
    armor_effect: str = ""  # ...and what became of it: unharmed, damaged, destroyed
    kills: tuple[str, ...] = ()  # what it killed (characters, denizens, horses)


class Effects:
    """What one simultaneous group of hits does; applied together (MR 8.4.9m)."""

    def __init__(self) -> None:
        self.kills: list[tuple[str, str]] = []  # (victim, killer)
        self.horse_kills: list[tuple[str, str, str]] = []  # (rider, horse, killer)
        self.armor: list[tuple[str, int, str]] = []
        self.wounds: list[tuple[str, str]] = []
