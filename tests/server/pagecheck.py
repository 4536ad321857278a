"""Reading the live page back (stdlib only): its HTML structure, its inline SVG, its live-update switch."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import urljoin

from tests.pictures.svgcheck import Html, parse_html, parse_svg


def well_formed(text: str) -> Html:
    """The page parsed; every element closed in order, nothing left open."""
    doc = parse_html(text)
    assert not doc.errors, doc.errors[:5]
    assert not doc.stack, f"left open: {doc.stack}"
    return doc


def svg_of(text: str) -> ET.Element:
    """The one inline SVG picture of the page, parsed as XML."""
    found = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    assert len(found) == 1, f"{len(found)} pictures"
    return parse_svg(found[0])


def section_text(doc: Html, text: str, title: str) -> str:
    """The words of the page after ``title`` (a heading) and before the next heading, roughly."""
    words = " ".join(doc.text)
    assert title in words, f"no {title!r} on the page"
    return words.split(title, 1)[1]


def live_urls(page_url: str, doc: Html) -> tuple[str, str]:
    """(stream URL, fragment URL) of the page's live switch, resolved against the page's URL."""
    live = doc.find("p", id="live")
    assert len(live) == 1
    stream, fragment = live[0]["data-stream"], live[0]["data-fragment"]
    assert stream and fragment
    return urljoin(page_url, stream), urljoin(page_url, fragment)


__all__ = ["live_urls", "section_text", "svg_of", "well_formed"]
