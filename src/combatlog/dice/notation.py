"""Dice notation: ``2d6``, ``d100``, ``1d10+3``, ``3d4``, ``d6-1``."""

from __future__ import annotations

import re
from functools import lru_cache

import msgspec

from combatlog.errors import InvalidCommand

_NOTATION = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+|%)\s*(?:([+-])\s*(\d+))?\s*$")
MAX_COUNT, MAX_SIDES, MAX_MODIFIER = 100, 1000, 1000


class Dice(msgspec.Struct, frozen=True):
    count: int
    sides: int
    modifier: int = 0

    def __str__(self) -> str:
        mod = f"{self.modifier:+d}" if self.modifier else ""
        return f"{self.count}d{self.sides}{mod}"

    def total(self, faces: tuple[int, ...] | list[int]) -> int:
        return sum(faces) + self.modifier


@lru_cache(maxsize=1024)  # a combat names a few notations thousands of times (verify parses each die's twice);
def parse_dice(text: str) -> Dice:  # the Dice is frozen, and a refusal is raised afresh each time (never cached)
    m = _NOTATION.match(text)
    if not m:
        raise InvalidCommand(f"dice {text!r} are not in NdS[+M] notation (e.g. 2d6, d100, 1d10+3)")
    count = int(m.group(1)) if m.group(1) else 1
    sides = 100 if m.group(2) == "%" else int(m.group(2))
    modifier = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    if not 1 <= count <= MAX_COUNT:
        raise InvalidCommand(f"dice {text!r}: between 1 and {MAX_COUNT} dice")
    if not 2 <= sides <= MAX_SIDES:
        raise InvalidCommand(f"dice {text!r}: a die has between 2 and {MAX_SIDES} sides")
    if abs(modifier) > MAX_MODIFIER:
        raise InvalidCommand(f"dice {text!r}: modifier beyond +-{MAX_MODIFIER}")
    return Dice(count, sides, modifier)


def parse_faces(text: str) -> tuple[int, ...]:
    try:
        faces = tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise InvalidCommand(f"faces {text!r} must be whole numbers separated by commas (e.g. 3,5)") from None
    if not faces:
        raise InvalidCommand("no faces given")
    return faces
