"""The committed width table (src/combatlog/pictures/fontwidths.json) is DejaVu Sans' own metrics, and
text is measured with it: the layout no longer assumes every character is 0.62 em wide (issue #21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatlog.pictures.svg import SAFETY, fitted_size, text_width, wrap
from combatlog.tools.fontwidths import FONTS, TABLE, build


def test_the_table_is_what_the_font_says() -> None:
    pytest.importorskip("fontTools", reason="fontTools is a test extra: pip install -e '.[test]'")
    if not (FONTS / "DejaVuSans.ttf").exists():
        pytest.skip(f"no DejaVu fonts in {FONTS} (Debian: fonts-dejavu-core)")
    assert json.loads(TABLE.read_text()) == build(), "run: python -m combatlog.tools.fontwidths"


def test_widths_are_the_fonts_not_an_average() -> None:
    # DejaVu Sans Bold advance widths (font units of 2048 per em, from its hmtx table): V 1585, I 762, 2 1425;
    # "VIII2" = 1585 + 3 x 762 + 1425 = 5296 units = 2.586 em; at 14 px: 36.2 px (the old 0.62 em guess: 43.4)
    assert text_width("VIII2", 14, "bold") == pytest.approx(2.586 * 14 * SAFETY, rel=0.005)
    # "iiii" and "MMMM" are the same length but not the same width
    assert text_width("MMMM", 10) > 3 * text_width("iiii", 10)


def test_a_text_too_wide_shrinks_and_wrapping_never_loses_a_character() -> None:
    # "giant-club" at 8 px is 45 px wide in DejaVu Sans; the old guess (10 x 0.62 x 8 = 49.6) cut it in 48
    assert text_width("giant-club", 8) <= 48
    assert fitted_size("giant-club", 40, 8) < 8 and text_width("giant-club", fitted_size("giant-club", 40, 8)) <= 40
    long = "Halvaine begins casting magic missile (1 segment(s)); it goes off at the end of segment 2 " * 3
    lines = wrap(long + "supercalifragilisticexpialidocious" * 3, 200, 11)
    assert "".join(lines).replace(" ", "") == (long + "supercalifragilisticexpialidocious" * 3).replace(" ", "")
    assert all(text_width(line, 11) <= 200 for line in lines)


def test_the_table_ships_with_the_package() -> None:
    assert TABLE.parent == Path(__import__("combatlog.pictures").pictures.__file__).parent
