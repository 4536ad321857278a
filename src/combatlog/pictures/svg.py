"""Shared SVG drawing for the pictures: escaping, accessible groups, text layout, a few shapes.

Every string from the log passes through ``esc`` (a hostile player writes them): control
characters are shown as visible escapes (``combatlog.text.printable``), characters XML cannot
hold are replaced, and ``& < > " '`` are escaped. Every drawn element sits in a ``<g>`` whose
first child is a ``<title>`` (screen readers and tooltips name it); every word is a ``<text>``.
Colours are solid, dark on light with a printed line around every shape, so the picture reads the
same on screen at 100% and on paper in black and white (a pattern or a word says what a colour says).
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from combatlog.text import FSI, PDI, isolated  # noqa: F401  (right-to-left text isolated: also the pictures')

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
INK = "#1a1a1a"
MUTED = "#555555"
PAPER = "#ffffff"
# Text is laid out with DejaVu Sans' own advance widths (fontwidths.json, written by
# ``python -m combatlog.tools.fontwidths``), with a little room for the fallback fonts.
SAFETY = 1.04
SMALLEST = 6.0  # a fitted text shrinks down to this size (px), then is squeezed
# ... but to no less than this share of its width: a glyph squeezed more cannot be read (a 60-letter name in
# a 190 px box was drawn at 3 px a glyph). Past it the text is cut with an ellipsis, whole in its <title>.
SQUEEZE = 0.75
READABLE = 10.0  # a text cut all the same is cut at this size (or its own, if smaller), not at SMALLEST
ELLIPSIS = "\u2026"

_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def clean(value: Any) -> str:
    """A value from the log as text XML can hold, control characters shown as escapes."""
    from combatlog.text import printable

    text = printable(str(value))
    return _NOT_XML.sub("\ufffd", text)


def shown(value: Any) -> str:
    """A value from the log as character data a person reads (a ``<title>``): cleaned, its right-to-left
    stretches isolated, escaped as ``esc`` does."""
    return esc_text(isolated(clean(value))).replace('"', "&quot;").replace("'", "&#39;")


def esc(value: Any) -> str:
    """``value`` as XML character data or attribute value (both quotes escaped)."""
    return (clean(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    import json
    from importlib.resources import files

    return json.loads(files("combatlog.pictures").joinpath("fontwidths.json").read_text(encoding="utf-8"))["faces"]


def text_width(text: str, size: float, weight: str = "normal") -> float:
    """The width in pixels of ``text`` at ``size`` px in DejaVu Sans (``weight`` normal or bold); a
    character the table lacks counts as the face's widest."""
    face = _table()["bold" if weight == "bold" else "normal"]
    widths, widest = face["widths"], face["widest"]
    return sum(widths.get(ch, widest) for ch in text) * size * SAFETY / 1000


def fitted_size(text: str, width: float, size: float, weight: str = "normal") -> float:
    """The largest size up to ``size`` (not below ``SMALLEST``) at which ``text`` fits ``width``."""
    need = text_width(text, size, weight)
    if need <= width:
        return size
    return max(SMALLEST, int(size * width / need * 4) / 4)


def cut(text: str, width: float, size: float, weight: str = "normal") -> str:
    """The longest start of ``text`` that, with an ellipsis after it, fits ``width`` pixels at ``size``."""
    lo, hi = 0, len(text)  # text[:lo] + ELLIPSIS fits; text[:hi + 1] + ELLIPSIS does not (or hi is the end)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid].rstrip() + ELLIPSIS, size, weight) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS


def wrap(text: str, width: float, size: float, weight: str = "normal") -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` pixels (a word longer than a line is
    broken over lines, never cut)."""
    lines: list[str] = []
    for paragraph in clean(text).split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, size, weight) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word
            while text_width(line, size, weight) > width and len(line) > 1:
                cut = len(line) - 1
                while cut > 1 and text_width(line[:cut], size, weight) > width:
                    cut -= 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line)
    return lines


def _attrs(attrs: dict[str, Any]) -> str:
    out = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        out.append(f' {name}="{esc(value)}"')
    return "".join(out)


class Canvas:
    """An SVG picture built top to bottom; ``finish(height)`` gives the document.

    ``prefix`` keeps ids unique when several pictures share one HTML page.
    """

    def __init__(self, width: int, title: str, desc: str = "", *, prefix: str = "p") -> None:
        self.width, self.title, self.desc, self.prefix = width, title, desc, prefix
        self.parts: list[str] = []

    # -- structure ---------------------------------------------------------------------------
    @contextmanager
    def group(self, title: str, **attrs: Any) -> Iterator[None]:
        """A ``<g>`` named by its ``<title>``; ``cls`` becomes the class, ``data_x`` a data attribute."""
        if "cls" in attrs:
            attrs["class_"] = attrs.pop("cls")
        self.parts.append(f"<g{_attrs(attrs)}><title>{shown(title)}</title>")
        try:
            yield
        finally:
            self.parts.append("</g>")

    def raw(self, markup: str) -> None:
        self.parts.append(markup)

    # -- shapes ------------------------------------------------------------------------------
    def rect(self, x: float, y: float, w: float, h: float, *, fill: str = "none", stroke: str = INK,
             width: float = 1, rx: float = 0, dash: str = "", **attrs: Any) -> None:
        self.parts.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="{rx:g}" fill="{fill}" '
                          f'stroke="{stroke}" stroke-width="{width:g}"'
                          + (f' stroke-dasharray="{dash}"' if dash else "") + f"{_attrs(attrs)}/>")

    def circle(self, cx: float, cy: float, r: float, *, fill: str = "none", stroke: str = INK, width: float = 1,
               dash: str = "", **attrs: Any) -> None:
        self.parts.append(f'<circle cx="{cx:g}" cy="{cy:g}" r="{r:g}" fill="{fill}" stroke="{stroke}" '
                          f'stroke-width="{width:g}"' + (f' stroke-dasharray="{dash}"' if dash else "")
                          + f"{_attrs(attrs)}/>")

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, *, fill: str = "none", stroke: str = INK,
                width: float = 1, dash: str = "", **attrs: Any) -> None:
        self.parts.append(f'<ellipse cx="{cx:g}" cy="{cy:g}" rx="{rx:g}" ry="{ry:g}" fill="{fill}" '
                          f'stroke="{stroke}" stroke-width="{width:g}"'
                          + (f' stroke-dasharray="{dash}"' if dash else "") + f"{_attrs(attrs)}/>")

    def line(self, x1: float, y1: float, x2: float, y2: float, *, stroke: str = INK, width: float = 1,
             dash: str = "", arrow: str = "", **attrs: Any) -> None:
        """A line; ``arrow`` names a head colour (``grey`` or ``red``) to end it with an arrowhead."""
        head = f' marker-end="url(#{self.prefix}-arrow-{arrow})"' if arrow else ""
        self.parts.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{stroke}" '
                          f'stroke-width="{width:g}"' + (f' stroke-dasharray="{dash}"' if dash else "")
                          + head + f"{_attrs(attrs)}/>")

    def path(self, d: str, *, fill: str = "none", stroke: str = INK, width: float = 1, **attrs: Any) -> None:
        self.parts.append(f'<path d="{d}" fill="{fill}" stroke="{stroke}" stroke-width="{width:g}"{_attrs(attrs)}/>')

    def cross(self, x: float, y: float, w: float, h: float, *, stroke: str = "#b00000", width: float = 2) -> None:
        """Two diagonals over a box: destroyed, dead, wounded."""
        self.line(x, y, x + w, y + h, stroke=stroke, width=width)
        self.line(x + w, y, x, y + h, stroke=stroke, width=width)

    # -- text --------------------------------------------------------------------------------
    def text(self, x: float, y: float, value: Any, *, size: float = 12, anchor: str = "start",
             weight: str = "normal", fill: str = INK, width: float | None = None, italic: bool = False,
             **attrs: Any) -> None:
        """One line of text at baseline ``y``. With ``width`` (pixels) a text too wide shrinks, down to
        ``SMALLEST``, and past that is squeezed to the width (``textLength``), to ``SQUEEZE`` of its own width at
        most; a text that would need more is cut with an ellipsis to what fits so, and keeps its whole self in
        the ``<title>`` of its ``<text>`` (a tooltip, read aloud); it is then cut at ``READABLE`` px (or its own size if
        smaller), since shrinking it further would not draw it whole anyway. Right-to-left stretches are isolated."""
        content, given = clean(value), size
        squeeze = whole = ""
        if width is not None:
            size = fitted_size(content, width, size, weight)
            need = text_width(content, size, weight)
            if need * SQUEEZE > width:
                whole = f"<title>{esc_text(isolated(content))}</title>"
                size = max(size, min(given, READABLE))
                content = cut(content, width / SQUEEZE, size, weight)
                need = text_width(content, size, weight)
            if need > width:
                squeeze = f' textLength="{width:g}" lengthAdjust="spacingAndGlyphs"'
        style = ' font-style="italic"' if italic else ""
        self.parts.append(f'<text x="{x:g}" y="{y:g}" font-size="{size:g}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{fill}"{style}{squeeze}{_attrs(attrs)}>'
                          f"{whole}{esc_text(isolated(content))}</text>")

    def lines(self, x: float, y: float, value: Any, width: float, *, size: float = 12, leading: float = 1.35,
              **kw: Any) -> float:
        """Wrapped text from baseline ``y``; returns the baseline after the last line."""
        for line in wrap(str(value), width, size, kw.get("weight", "normal")):
            self.text(x, y, line, size=size, **kw)
            y += size * leading
        return y

    # -- the document ------------------------------------------------------------------------
    def finish(self, height: float) -> str:
        p = self.prefix
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{height:g}" '
                f'viewBox="0 0 {self.width} {height:g}" role="graphics-document document" aria-labelledby="{p}-title {p}-desc" '
                f'font-family="{FONT}">'
                f'<title id="{p}-title">{shown(self.title)}</title><desc id="{p}-desc">{shown(self.desc)}</desc>'
                "<defs>"
                + "".join(f'<marker id="{p}-arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                          f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                          f'fill="{colour}"/></marker>' for name, colour in (("grey", "#8a8a8a"), ("red", "#c0392b")))
                + f'<pattern id="{p}-back" width="8" height="8" patternUnits="userSpaceOnUse" '
                  'patternTransform="rotate(45)"><rect width="8" height="8" fill="#3b4a6b"/>'
                  '<line x1="0" y1="0" x2="0" y2="8" stroke="#6d7fa8" stroke-width="3"/></pattern>'
                + f'<pattern id="{p}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
                  'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff3d6"/>'
                  '<line x1="0" y1="0" x2="0" y2="6" stroke="#d08a2c" stroke-width="2"/></pattern>'
                + "</defs>"
                f'<rect x="0" y="0" width="{self.width}" height="{height:g}" fill="{PAPER}"/>')
        return head + "".join(self.parts) + "</svg>\n"

    def url(self, name: str) -> str:
        """``fill`` value of one of the shared patterns: ``back`` (a face-down counter), ``hatch`` (damaged)."""
        return f"url(#{self.prefix}-{name})"


def esc_text(text: str) -> str:
    """Already cleaned text as character data."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
