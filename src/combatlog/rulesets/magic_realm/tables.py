"""The tables of Magic Realm combat and the harm arithmetic.

Sources: seed 000 (MR 8.4.6, 8.4.9) and ``data/tables.md`` (the Repositioning
Denizens Table, the Change Tactics Table, the Missile Table), cited by heading.
"""

from __future__ import annotations

from combatlog.rulesets.magic_realm.data import RED, letter

REPOSITION_RULE = "MR 8.4.6 / MR tables: Repositioning Denizens Table"
TACTICS_RULE = "MR 8.4.6 / MR tables: Change Tactics Table"
MISSILE_RULE = "MR 8.4.9 / MR tables: Missile Table"

# die -> (old box that box 1 gets, ... box 2 gets, ... box 3 gets)
_REPOSITION = {1: (1, 3, 2), 2: (3, 2, 1), 3: (2, 1, 3), 4: (1, 2, 3), 5: (3, 1, 2), 6: (2, 3, 1)}


def reposition(die: int, old: int) -> int:
    """The box a counter moves to from box ``old`` on a repositioning roll (MR 8.4.6)."""
    gets = _REPOSITION[die]
    return gets.index(old) + 1


def tactics_flip(faces: tuple[int, ...]) -> bool:
    """Change Tactics: the counters in the box turn over if either die shows a 6 (MR 8.4.6)."""
    return 6 in faces


def high_die(faces: tuple[int, ...]) -> int:
    return max(faces)


def missile_change(result: int) -> int:
    """Standard Missile Table: harm changes by 3 - result levels (result clamped 1..6)."""
    return 3 - max(1, min(6, result))


class Harm:
    """A harm letter level with sharpness stars (MR 8.4.9)."""

    __slots__ = ("level", "stars", "notes")

    def __init__(self, level: int, stars: int) -> None:
        self.level, self.stars = level, stars
        self.notes: list[str] = []

    @property
    def red(self) -> bool:
        return self.level == RED

    def raise_levels(self, n: int, why: str) -> None:
        if self.red or n == 0:
            return
        if n > 0:
            self.level += n  # raising never adds stars (MR tables: Missile Table)
        else:
            drop = -n
            eaten = min(drop, self.level)
            self.level -= eaten
            left = drop - eaten
            if left:  # below Negligible the change eats sharpness stars
                self.stars = max(0, self.stars - left)
        self.notes.append(why)

    def armor(self) -> None:
        """Hitting armor: one sharpness star does not count (MR 8.4.9)."""
        if self.stars > 0:
            self.stars -= 1
            self.notes.append("armor removes one star")

    @property
    def applied(self) -> int:
        return RED if self.red else self.level + self.stars

    def text(self) -> str:
        if self.red:
            return "RED"
        return letter(self.level) + "*" * self.stars

    def applied_text(self) -> str:
        return "RED" if self.red else letter(self.applied)
