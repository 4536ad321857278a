"""What a person reading a picture must never meet: a piece's name cut short, an internal id, a code or
colour chip nobody explains. Each check returns the offending strings (empty: the picture passes)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from tests.pictures.svgcheck import NS

# snake_case words (two_handed_axe, scar_foe), dotted event types (osric.condition_changed), raw hex ids
SNAKE = re.compile(r"(?<![\w/.-])[a-z][a-z0-9]*_[a-z0-9_]+(?![\w/])")
DOTTED = re.compile(r"\b[a-z]+\.[a-z]+_[a-z_]+\b")
HEX_ID = re.compile(r"\b[0-9a-f]{12,}\b")


def visible(root: ET.Element) -> list[str]:
    """Every text a person reads: the drawn words and the titles shown on hover or read aloud."""
    out = ["".join(t.itertext()) for t in root.iter(f"{NS}text")]
    out += [t.text or "" for t in root.iter(f"{NS}title")]
    out += [t.text or "" for t in root.iter(f"{NS}desc")]
    return out


def cut_texts(root: ET.Element) -> list[str]:
    """Drawn words cut with an ellipsis (the layout shrinks or wraps instead)."""
    return ["".join(t.itertext()) for t in root.iter(f"{NS}text") if "\u2026" in "".join(t.itertext())]


def internal_ids(root: ET.Element, allowed: tuple[str, ...] = ()) -> list[str]:
    """snake_case tokens, dotted event types and raw hex ids in the visible text (``allowed``: the names
    a player chose that happen to look like one)."""
    found = []
    for text in visible(root):
        for pattern in (SNAKE, DOTTED, HEX_ID):
            found += [m.group(0) for m in pattern.finditer(text) if m.group(0) not in allowed]
    return found


def unexplained_codes(root: ET.Element) -> list[str]:
    """Codes and colour chips (``data-code``) that no legend entry (``data-legend``) of the same picture
    explains."""
    legend = {el.get("data-legend") for el in root.iter() if el.get("data-legend")}
    return sorted({el.get("data-code") or "" for el in root.iter() if el.get("data-code")} - legend)


def problems(svg_text: str) -> dict[str, list[str]]:
    from tests.pictures.svgcheck import parse_svg

    root = parse_svg(svg_text)
    found = {"cut": cut_texts(root), "internal ids": internal_ids(root), "no legend": unexplained_codes(root)}
    return {k: v for k, v in found.items() if v}
