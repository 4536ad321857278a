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


CONDITIONS = ("intact", "damaged", "destroyed")


def worsen(condition: str, effect: str) -> str:
    """An armor piece's condition after one more result on it: "destroyed" destroys it; "damaged" takes
    it one step down (an intact piece is damaged, a damaged one destroyed: MR tables, Applying harm to a
    character, point 4). Never better than before, and the same whatever order the results come in."""
    if effect == "destroyed":
        return "destroyed"
    if effect == "damaged":
        return CONDITIONS[min(2, CONDITIONS.index(condition) + 1)]
    return condition


class Effects:
    """What one simultaneous group of hits does; applied together (MR 8.4.9m).

    Armor results accumulate over the group: every hit of the group is judged against the armor as it
    was before the group (a piece destroyed by a simultaneous hit still protects), and the piece ends in
    the condition all of the group's results on it give together (``worsen``), whatever their order.
    """

    def __init__(self) -> None:
        self.kills: list[tuple[str, str]] = []  # (victim, killer)
        self.horse_kills: list[tuple[str, str, str]] = []  # (rider, horse, killer)
        self.armor: list[tuple[str, int, str]] = []  # (character, piece index, "damaged" | "destroyed")
        self.wounds: list[tuple[str, str]] = []

    def armor_condition(self, cid: str, idx: int, before: str) -> str:
        """The piece's condition once the results already gathered in this group go into effect."""
        for who, i, effect in self.armor:
            if (who, i) == (cid, idx):
                before = worsen(before, effect)
        return before
