"""The records the Melee Step passes on: an ``Attack`` (built in ``melee.py`` and ``spells.py``, decided
undercut, intercepted or missed in ``melee.py``) and the ``Effects`` of one simultaneous group of
hits (gathered in ``harm.py`` and ``demons.py``, then applied together, MR 8.4.9).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Attack:
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


class Effects:
    """What one simultaneous group of hits does; applied together (MR 8.4.9m)."""

    def __init__(self) -> None:
        self.kills: list[tuple[str, str]] = []  # (victim, killer)
        self.horse_kills: list[tuple[str, str, str]] = []  # (rider, horse, killer)
        self.armor: list[tuple[str, int, str]] = []
        self.wounds: list[tuple[str, str]] = []
