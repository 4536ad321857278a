"""Text a hostile (or just unusual) player writes must not break the pictures' layout: right-to-left names
and sides, a 60-letter name, a 1900-letter word, a note of 60 lines, reasons of 900 letters.

One combat holds every attack (played once by the CLI, as the tester did); each test says which attack it
checks and on what markup. Chromium is not used here: the report runs no script (its CSP forbids one), so
a page cannot measure itself; the layout was looked at by hand in headless Chromium (docs/pictures.md)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from combatlog.pictures.report import CSS
from combatlog.pictures.svg import FSI, PDI, SQUEEZE, Canvas, isolated, text_width
from tests.conftest import REPO, Cli
from tests.pictures.svgcheck import NS, parse_html, parse_svg

NAME = "W" * 60  # the widest letter, 60 times: no box of a sheet holds it at any legible size
SIDE = "שלום עליכם"  # Hebrew: right to left
WORD = "M" * 1900  # one word, no space to break at
NOTE = "\n".join(f"line {i} of a note שלום {i}" for i in range(1, 61)) + "N" * 1500
CONDITION = "C" * 300
REASON = "R" * 900 + " שלום 3"
FORK_REASON = "F" * 900 + " עליכם, 4"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The tester's combat (and more): sheet and report of ``evil``, report of its fork ``evil2``."""
    folder = tmp_path_factory.mktemp("hostile")
    cli = Cli(folder / "log.db", REPO)
    cli("new", "evil", "--ruleset", "freeform", "--dice", "local")
    cli("freeform", "join", "evil", NAME, "--side", SIDE, "--hp", "10")
    cli("freeform", "join", "evil", "Bo", "--side", "b", "--hp", "5")
    cli("freeform", "round", "evil")
    cli("freeform", "act", "evil", "Bo", f"hits {WORD}")
    cli("note", "evil", NOTE)
    cli("freeform", "condition", "evil", "Bo", CONDITION, "--reason", REASON)
    cli("fork", "evil", "--at", "5", "--name", "evil2", "--reason", FORK_REASON)
    out = {}
    for name, args in {"report": ("report", "evil"), "sheet": ("sheet", "evil"), "fork": ("report", "evil2"),
                       "round0": ("sheet", "evil", "--round", "0")}.items():
        target = folder / f"{name}.out"
        cli(*args, "-o", str(target))
        out[name] = target.read_text(encoding="utf-8")
    return out


def svgs(page: str) -> list[ET.Element]:
    """The SVG pictures inside a report."""
    return [parse_svg(m.group(0)) for m in re.finditer(r"<svg .*?</svg>", page, re.S)]


def drawn(root: ET.Element) -> list[tuple[ET.Element, str]]:
    """Each <text> and what it draws (its own characters, not its <title>)."""
    return [(t, (t.text or "") + "".join(c.tail or "" for c in t)) for t in root.iter(f"{NS}text")]


# -- 1. right-to-left text is isolated ------------------------------------------------------------------


def test_isolated_wraps_each_right_to_left_stretch_and_nothing_else() -> None:
    # attack: a Hebrew side between the words and numbers of a composed line ("joins side X, 10 hp")
    assert isolated(f"W joins side {SIDE}, 10 hp") == f"W joins side {FSI}{SIDE}{PDI}, 10 hp"
    assert isolated("Bo joins side b, 5 hp") == "Bo joins side b, 5 hp"  # nothing to isolate: unchanged
    assert isolated("مرحبا ١٢ بك, 5 hp") == f"{FSI}مرحبا ١٢ بك{PDI}, 5 hp"  # Arabic, with Arabic digits inside


def test_a_right_to_left_side_cannot_pull_the_hit_points_into_its_run_in_the_report(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: join --side "שלום עליכם" --hp 10 printed "joins side 10 ,שלום עליכם hp"
    parse_html(hostile["report"])
    assert f"joins side {FSI}{SIDE}{PDI}, 10 hp" in hostile["report"]
    assert f"side {SIDE}," not in hostile["report"]  # never bare


def test_every_right_to_left_stretch_in_the_report_is_isolated(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: Hebrew in a side, a note of 60 lines, a condition's reason and a fork's reason
    for page in (hostile["report"], hostile["fork"]):
        shown = re.sub(r' data-[a-z-]+="[^"]*"', "", page)  # what programs read keeps the name as written
        bare = re.sub(f"{FSI}[^{FSI}{PDI}]*{PDI}", "", shown)
        assert not re.search("[\u0590-\u08ff]", bare), "right-to-left text outside an isolate"
    assert f"{FSI}עליכם{PDI}, 4" in hostile["fork"]  # the fork's reason, in the header


def test_every_right_to_left_text_in_the_sheets_is_isolated(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: the Hebrew side in the sheet's side label ("Side שלום עליכם"), titles and tooltips
    roots = [parse_svg(hostile["sheet"]), parse_svg(hostile["round0"]), *svgs(hostile["report"])]
    for root in roots:
        for el in root.iter():
            for part in (el.text or "", el.tail or ""):
                bare = re.sub(f"{FSI}[^{FSI}{PDI}]*{PDI}", "", part)
                assert not re.search("[\u0590-\u08ff]", bare), f"not isolated: {part[:80]!r}"
    labels = ["".join(t.itertext()) for t in parse_svg(hostile["sheet"]).iter(f"{NS}text")]
    assert f"Side {FSI}{SIDE}{PDI}" in labels
    # what programs read keeps the name as written
    assert parse_svg(hostile["sheet"]).find(f".//{NS}g[@data-side='{SIDE}']") is not None


# -- 2. a long name stays readable ------------------------------------------------------------------------


def squeeze_of(el: ET.Element, content: str) -> float:
    """How much a <text> is squeezed: its textLength over its own width (1: not at all)."""
    if not el.get("textLength"):
        return 1.0
    return float(el.get("textLength") or 0) / text_width(content, float(el.get("font-size") or 12),
                                                          el.get("font-weight") or "normal")


def test_no_text_is_squeezed_past_legibility(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: a 60-letter name (was squeezed into 190 px: 3 px a glyph) and a 300-letter condition
    for root in [parse_svg(hostile["sheet"]), *svgs(hostile["report"])]:
        for el, content in drawn(root):
            assert squeeze_of(el, content) >= SQUEEZE - 0.01, content[:60]
            # and so the characters per pixel are bounded: at 6 px, no glyph narrower than ~2.5 px
            if el.get("textLength"):
                assert len(content) / float(el.get("textLength") or 1) < 0.4


def test_a_name_too_long_is_cut_with_an_ellipsis_and_kept_whole_in_its_title(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: the 60-letter name on its card, and a 300-letter condition on its tag
    root = parse_svg(hostile["sheet"])
    cut = {content: el for el, content in drawn(root) if content.endswith("\u2026")}
    names = [c for c in cut if c.startswith("WWW")]
    conditions = [c for c in cut if c.startswith("CCC")]
    assert names and conditions
    for content, el in cut.items():
        whole = el.find(f"{NS}title")
        assert whole is not None and whole.text is not None
        assert whole.text.startswith(content[:-1]) and len(whole.text) > len(content)
        assert float(el.get("font-size") or 0) >= 6
    assert cut[names[0]].find(f"{NS}title").text == NAME  # type: ignore[union-attr]
    name_el = cut[names[0]]
    assert float(name_el.get("font-size") or 0) >= 10  # cut at a size one can read, not at 6 px


def test_canvas_cuts_only_past_the_squeeze_it_allows() -> None:
    # attack: the same long name in a box just too narrow (squeezed, whole) and far too narrow (cut)
    c = Canvas(400, "t")
    natural = text_width("Bob the Bold", 6, "bold")
    c.text(0, 10, "Bob the Bold", size=6, weight="bold", width=natural * 0.9)
    c.text(0, 30, NAME, size=15, weight="bold", width=190)
    texts = list(parse_svg(c.finish(40)).iter(f"{NS}text"))
    assert "".join(texts[0].itertext()) == "Bob the Bold" and texts[0].get("textLength")
    assert texts[1].find(f"{NS}title") is not None and "".join(texts[1].itertext()).endswith("\u2026")


# -- 3. long words wrap inside the page ---------------------------------------------------------------------


def test_the_report_wraps_long_words_inside_the_page(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: a 1900-letter word in an action, a 1500-letter word after a 60-line note, 900-letter reasons
    body = re.search(r"(?m)^body \{[^}]*\}", CSS)
    assert body and "overflow-wrap: anywhere" in body.group(0)  # inherited by every element holding log text
    # nothing turns it off: the one white-space rule, pre-wrap (an event line keeps a note's line breaks),
    # still wraps, and overflow-wrap still breaks a long word in it
    assert "nowrap" not in CSS and re.findall(r"white-space: *([a-z-]+)", CSS) == ["pre-wrap"]
    assert "<style>" in hostile["report"] and "overflow-wrap: anywhere" in hostile["report"]
    assert WORD in hostile["report"] and "N" * 1500 in hostile["report"] and "F" * 900 in hostile["fork"]
    # a picture never wider than its column (the border inside the width: no scroll bar under it)
    assert re.search(r"\.picture svg \{[^}]*max-width: 100%[^}]*box-sizing: border-box", CSS)


def test_long_words_wrap_inside_the_sheet(hostile) -> None:  # type: ignore[no-untyped-def]
    # attack: the 1900-letter word and the 60-line note drawn in the sheet's "Round 1 so far"
    root = parse_svg(hostile["sheet"])
    width = float(root.get("width") or 0)
    for el, content in drawn(root):
        if el.get("text-anchor", "start") == "start" and not el.get("textLength"):
            right = float(el.get("x") or 0) + text_width(content, float(el.get("font-size") or 12),
                                                         el.get("font-weight") or "normal")
            assert right <= width, content[:60]
    assert sum(content.count("M") for _, content in drawn(root)) >= 1900  # broken over lines, not cut


def test_pictures_stay_well_formed(hostile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # attack: every hostile string at once, in the sheet and in each picture of both reports
    for svg in (hostile["sheet"], hostile["round0"]):
        ET.fromstring(svg)
    assert len(svgs(hostile["report"])) >= 2 and svgs(hostile["fork"])
