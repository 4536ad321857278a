"""Reading the pictures back: SVG with xml.etree, HTML with html.parser (stdlib only)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from typing import Any

NS = "{http://www.w3.org/2000/svg}"


def parse_svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def classes(el: ET.Element) -> list[str]:
    return (el.get("class") or "").split()


def groups(root: ET.Element, cls: str, **data: Any) -> list[ET.Element]:
    """``<g>`` elements of class ``cls`` whose data attributes match (``data_sheet="bk"``), in document order."""
    out = []
    for el in root.iter(f"{NS}g"):
        if cls in classes(el) and all(el.get(k.replace("_", "-")) == str(v) for k, v in data.items()):
            out.append(el)
    return out


def title(el: ET.Element) -> str:
    t = el.find(f"{NS}title")
    return t.text or "" if t is not None else ""


def texts(el: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in el.iter(f"{NS}text")]


def counter_ids(area: ET.Element) -> list[str]:
    return sorted(g.get("data-counter") or "" for g in groups(area, "counter"))


def every_element_titled(root: ET.Element) -> list[str]:
    """Groups without a <title> as their first child (each drawn element is named)."""
    missing = []
    for g in root.iter(f"{NS}g"):
        first = next(iter(g), None)
        if first is None or first.tag != f"{NS}title" or not (first.text or "").strip():
            missing.append(g.get("class") or "?")
    return missing


class Html(HTMLParser):
    """An HTML document as a list of (tag, attrs) starts, its text, and nesting checked on the way."""

    VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "source", "wbr",
            # SVG elements written self-closed (<rect .../>) come through handle_startendtag
            }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.text: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.starts.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.starts.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.starts
                if t == tag and all(a.get(k.rstrip("_").replace("_", "-")) == v for k, v in attrs.items())]


def parse_html(text: str) -> Html:
    p = Html()
    p.feed(text)
    p.close()
    return p
