"""Dice notation: ``2d6``, ``d100``, ``1d10+3``, ``3d4``, ``d6-1``."""

from __future__ import annotations

import re
from functools import lru_cache

import msgspec

from combatlog.errors import InvalidCommand
from combatlog.text import ascii_whole, non_ascii

# ASCII only (re.ASCII): \d would also match other scripts' digits ('２d６'), which int() reads as 2d6
_NOTATION = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+|%)\s*(?:([+-])\s*(\d+))?\s*$", re.ASCII)
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
    odd = non_ascii(text)
    if odd:
        raise InvalidCommand(f"dice {text!r}: {odd} is not ASCII; write the notation with the digits 0-9, d, + "
                             "and - (e.g. 2d6, d100, 1d10+3)")
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
    parts = [part for part in text.replace(" ", "").split(",") if part]
    odd = non_ascii(text)
    if odd or not all(ascii_whole(part) for part in parts):
        why = f": {odd} is not ASCII" if odd else ""
        raise InvalidCommand(f"faces {text!r} must be whole numbers in the digits 0-9, separated by commas (e.g. "
                             f"3,5){why}")
    faces = tuple(int(part) for part in parts)
    if not faces:
        raise InvalidCommand("no faces given")
    return faces
