"""Reference screenshots, kept small: a screenshot reduced to grey at a quarter of its size (a few tens of
KB as PNG), compared block by block at an eighth, so that a glyph hinted one pixel over does not count
but a moved, missing or recoloured piece does."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "screens"
SHRINK = 4  # the reference: a quarter of the screenshot's width and height
BLOCK = 2  # compared in blocks of 2 x 2 reference pixels (8 x 8 screen pixels)
# A block is "different" when its mean grey moves by more than this (0-255); the picture differs when
# more than SHARE of its blocks do. A re-hinted glyph moves a block by a few levels; a missing word,
# a new row or a recoloured chip by tens over many blocks.
BLOCK_TOLERANCE = 40
SHARE = 0.005
REGENERATE = "COMBATLOG_UPDATE_SCREENS=1 python -m pytest tests/pictures/test_browser.py -k reference"


def thumbnail(width: int, height: int, rows: list[bytes]) -> tuple[int, int, bytes]:
    """The picture in grey at 1/SHRINK of its size (each pixel the mean of a SHRINK x SHRINK block)."""
    bpp = len(rows[0]) // width
    w, h = width // SHRINK, height // SHRINK
    out = bytearray(w * h)
    for ty in range(h):
        sums = [0] * w
        for y in range(ty * SHRINK, ty * SHRINK + SHRINK):
            row = rows[y]
            if bpp == 1:
                grey = row
            else:  # luma of each pixel (ITU-R BT.601 weights, in integers)
                grey = bytes((299 * row[i] + 587 * row[i + 1] + 114 * row[i + 2]) // 1000
                             for i in range(0, width * bpp, bpp))
            for tx in range(w):
                sums[tx] += sum(grey[tx * SHRINK:tx * SHRINK + SHRINK])
        out[ty * w:(ty + 1) * w] = bytes(s // (SHRINK * SHRINK) for s in sums)
    return w, h, bytes(out)


def write_grey_png(path: Path, width: int, height: int, grey: bytes) -> None:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = b"".join(b"\x00" + grey[y * width:(y + 1) * width] for y in range(height))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def blocks(width: int, height: int, grey: bytes) -> list[int]:
    """Mean grey of each BLOCK x BLOCK square."""
    out = []
    for by in range(0, height - BLOCK + 1, BLOCK):
        for bx in range(0, width - BLOCK + 1, BLOCK):
            total = sum(grey[(by + dy) * width + bx + dx] for dy in range(BLOCK) for dx in range(BLOCK))
            out.append(total // (BLOCK * BLOCK))
    return out


def difference(a: tuple[int, int, bytes], b: tuple[int, int, bytes]) -> str:
    """Empty when the two thumbnails look alike, else what differs."""
    if a[:2] != b[:2]:
        return f"size {a[0]}x{a[1]} against the reference's {b[0]}x{b[1]} (the picture grew or shrank)"
    one, two = blocks(*a), blocks(*b)
    moved = [abs(x - y) for x, y in zip(one, two)]
    changed = sum(1 for m in moved if m > BLOCK_TOLERANCE)
    if changed > SHARE * len(moved):
        return (f"{changed} of {len(moved)} blocks differ by more than {BLOCK_TOLERANCE} grey levels "
                f"(at most {SHARE:.1%} may); the largest moved by {max(moved)}")
    return ""
