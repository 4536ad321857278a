"""Verifiable dice: each die derived from a secret key and the roll's label.

    block_i = HMAC-SHA256(key, JCS([label, i]))   for i = 0, 1, 2, ...

Each block is read as eight big-endian 32-bit words; a word w is accepted when
w < floor(2**32 / sides) * sides (rejection sampling, so no face is favoured)
and gives the face w mod sides + 1. Faces are taken in that order until the
roll has its count. Anyone holding the key recomputes the same faces.
"""

from __future__ import annotations

import hashlib
import hmac

from combatlog.events.canonical import canonical


def derive_faces(key: bytes, label: str, count: int, sides: int) -> tuple[int, ...]:
    limit = (2**32 // sides) * sides
    faces: list[int] = []
    counter = 0
    while len(faces) < count:
        block = hmac.new(key, canonical([label, counter]), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            word = int.from_bytes(block[i : i + 4], "big")
            if word < limit:
                faces.append(word % sides + 1)
                if len(faces) == count:
                    break
        counter += 1
    return tuple(faces)


def seed_commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()
