"""Write src/combatlog/pictures/fontwidths.json: the advance widths of DejaVu Sans (regular and bold),
the font the pictures name first, so that text is laid out with the real metrics.

Run ``python -m combatlog.tools.fontwidths`` (needs fontTools, a test extra, and the DejaVu fonts in
/usr/share/fonts/truetype/dejavu/). The pictures themselves only read the JSON: no font and no
fontTools is needed to draw. tests/pictures/test_fontwidths.py checks the table against the font.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FONTS = Path("/usr/share/fonts/truetype/dejavu")
FACES = {"normal": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}
TABLE = Path(__file__).resolve().parents[1] / "pictures" / "fontwidths.json"
# Printable ASCII, Latin-1 and the few symbols the pictures draw (· → … × • ≥ ≤ − – —)
CHARS = [chr(n) for n in range(0x20, 0x7F)] + [chr(n) for n in range(0xA0, 0x180)] + \
    list("\u00b7\u2192\u2190\u2026\u00d7\u2022\u2265\u2264\u2212\u2013\u2014\u2018\u2019\u201c\u201d\u2191\u2193\ufffd")


def widths(font_file: Path) -> dict[str, Any]:
    """Advance widths in ems (thousandths, rounded up) of ``CHARS`` in one face, and the widest of all."""
    from fontTools.ttLib import TTFont

    font = TTFont(str(font_file))
    per_em = font["head"].unitsPerEm
    cmap = font.getBestCmap()
    hmtx = font["hmtx"]
    out = {}
    for ch in CHARS:
        glyph = cmap.get(ord(ch))
        if glyph is not None:
            out[ch] = -(-hmtx[glyph][0] * 1000 // per_em)
    return {"widths": out, "widest": max(out.values())}


def build() -> dict[str, Any]:
    return {"font": "DejaVu Sans", "unit": "1/1000 em",
            "faces": {face: widths(FONTS / name) for face, name in FACES.items()}}


def main() -> None:
    TABLE.write_text(json.dumps(build(), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
