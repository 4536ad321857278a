"""The pictures in a real browser: each ruleset's sheet and a report rendered by headless Chromium.

The screenshot must not be blank (the PNG is decoded here with zlib and struct and its non-white pixels
counted) and the DOM Chromium built (``--dump-dom``) must hold the drawn pieces, with no XML parse error.
Each gallery picture (docs/pictures) must look like its reference screenshot in tests/pictures/screens/
(grey, a quarter of the size, compared in blocks: tests/pictures/screens.py says how and how to regenerate).

Chromium is Debian's ``chromium`` package; ``.ci/run`` installs it where it is missing. Without it the
test is skipped, except under CI (``CI=true``), where a missing browser fails it.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from combatlog.pictures.gallery import GALLERY
from tests.conftest import REPO
from tests.pictures import screens
from tests.pictures.conftest import run_cli
from tests.pictures.svgcheck import groups, parse_html, parse_svg

# One example per ruleset, drawn at its last round.
SHEETS = {"magic_realm": ("giant-and-goblins", "melee-section", 2), "freeform": ("tavern-brawl", "participant", 4),
          "classic_fantasy": ("skirmish", "combatant", 6), "osric": ("bridge", "segment", 10),
          "argad": ("band-vs-ogre-and-troll", "figure", 9)}


def browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
        pytest.fail("no Chromium on this CI machine: .ci/run installs Debian's chromium package")
    pytest.skip("no Chromium here (install it with: apt-get install chromium)")


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    exe = browser()
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    cmd = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
           "--disable-extensions", "--allow-file-access-from-files", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, timeout=180, env={**os.environ, "HOME": str(tmp_path)})


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows of an 8-bit grey, RGB or RGBA PNG (the stdlib alone)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = depth = colour = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (0, 2, 6) and interlace == 0, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    bpp = {0: 1, 2: 3, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def ink_share(path: Path) -> float:
    """The share of pixels that are not (nearly) white."""
    width, height, rows = png_pixels(path.read_bytes())
    bpp = len(rows[0]) // width
    inked = 0
    for row in rows:
        for x in range(0, len(row), bpp):
            if row[x] < 235 or row[x + 1] < 235 or row[x + 2] < 235:
                inked += 1
    return inked / (width * height)


def screenshot(tmp_path: Path, page: Path, size: str) -> Path:
    shot = tmp_path / (page.stem + ".png")
    proc = chromium(tmp_path, f"--screenshot={shot}", f"--window-size={size}", page.resolve().as_uri())
    assert proc.returncode == 0 and shot.exists(), proc.stderr.decode(errors="replace")[-2000:]
    return shot


def dump_dom(tmp_path: Path, page: Path) -> str:
    proc = chromium(tmp_path, "--dump-dom", page.resolve().as_uri())
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return proc.stdout.decode()


def test_png_decoder_reads_a_known_picture() -> None:
    # 2x1 RGB: a black pixel and a white one, filter 0
    raw = zlib.compress(b"\x00" + bytes([0, 0, 0, 255, 255, 255]))
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))  # noqa: E731
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", raw) + chunk(b"IEND", b"")
    width, height, rows = png_pixels(png)
    assert (width, height, rows) == (2, 1, [bytes([0, 0, 0, 255, 255, 255])])


@pytest.mark.parametrize("ruleset", sorted(SHEETS))
def test_each_rulesets_sheet_renders_in_chromium(ruleset: str, examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    browser()
    stem, cls, count = SHEETS[ruleset]
    ex = examples[stem]
    page = tmp_path / f"{stem}.svg"
    proc = run_cli(ex.db, "sheet", ex.stream, "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    share = ink_share(screenshot(tmp_path, page, "1000,1000"))
    assert 0.03 < share < 0.9, f"the screenshot looks blank or flooded ({share:.1%} inked)"
    dom = dump_dom(tmp_path, page)
    assert "parsererror" not in dom and "This page contains the following errors" not in dom
    root = parse_svg(dom)
    assert len(groups(root, cls)) == count
    assert groups(root, "heading")


def test_the_report_renders_in_chromium(examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    browser()
    ex = examples["bashkar-ambush"]
    page = tmp_path / "report.html"
    proc = run_cli(ex.db, "report", ex.stream, "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    share = ink_share(screenshot(tmp_path, page, "1100,1600"))
    assert 0.03 < share < 0.9, f"the screenshot looks blank or flooded ({share:.1%} inked)"
    dom = dump_dom(tmp_path, page)
    doc = parse_html(dom)
    written = parse_html(page.read_text())
    rounds = [a for a in written.find("section") if (a.get("id") or "").startswith("round-")]
    assert rounds and len([a for a in doc.find("section") if (a.get("id") or "").startswith("round-")]) == len(rounds)
    assert len(doc.find("svg")) == len(rounds)
    assert len(doc.find("g", class_="melee-section")) == len(written.find("g", class_="melee-section")) > 0
    assert not doc.find("script")
    assert "Dice ledger" in " ".join(doc.text)


def test_a_notes_lines_are_lines_in_chromium(tmp_path: Path) -> None:
    """The report's multi-line note (tests/pictures/test_report.py ``NOTE``) as Chromium lays it out: a copy
    of the report with a script that writes the event line's innerText (which follows the CSS: a folded
    line break reads as a space) into the DOM that --dump-dom prints. The report itself has no script."""
    from tests.pictures.test_report import NOTE, note_report

    browser()
    text = note_report(tmp_path)
    probe = ("<script>document.body.setAttribute('data-seen', JSON.stringify("
             "document.getElementById('seq-2').innerText));</script>")
    page = tmp_path / "probe.html"
    page.write_text(text.replace("</body>", probe + "</body>"))
    dom = dump_dom(tmp_path, page)
    seen = re.search(r'data-seen="([^"]*)"', dom)
    assert seen is not None, dom[-2000:]
    import html
    import json

    shown = json.loads(html.unescape(seen.group(1)))
    assert shown == f"#2 note: {NOTE}", shown


def svg_height(page: Path) -> int:
    return int(float(parse_svg(page.read_text()).get("height") or 1000)) + 1


@pytest.mark.parametrize("ruleset", sorted(GALLERY))
def test_each_gallery_picture_matches_its_reference_screenshot(ruleset: str, tmp_path: Path) -> None:
    """docs/pictures/RULESET.svg in Chromium looks as tests/pictures/screens/RULESET.png (a grey quarter-size
    screenshot): a picture change is seen and confirmed, not slipped through."""
    browser()
    page = REPO / "docs" / "pictures" / f"{ruleset}.svg"
    local = tmp_path / page.name
    local.write_bytes(page.read_bytes())
    shot = screenshot(tmp_path, local, f"1000,{svg_height(page)}")
    thumb = screens.thumbnail(*png_pixels(shot.read_bytes()))
    reference = screens.FOLDER / f"{ruleset}.png"
    if os.environ.get("COMBATLOG_UPDATE_SCREENS") == "1":
        screens.FOLDER.mkdir(exist_ok=True)
        screens.write_grey_png(reference, *thumb)
    assert reference.exists(), f"no reference screenshot {reference}; write it with: {screens.REGENERATE}"
    w, h, rows = png_pixels(reference.read_bytes())
    differs = screens.difference(thumb, (w, h, b"".join(rows)))
    if differs:
        seen = tmp_path / f"{ruleset}-now.png"
        screens.write_grey_png(seen, *thumb)
    assert not differs, (f"docs/pictures/{ruleset}.svg in Chromium no longer looks like {reference.name}: {differs}."
                         f" Now: {tmp_path / (ruleset + '-now.png')}. If the change is meant, look at it and "
                         f"regenerate: {screens.REGENERATE}")


def test_the_screenshot_comparison_sees_a_real_change_and_ignores_a_pixel_shift() -> None:
    # hand-made 64x64 thumbnails: white with a black bar 8 px high (a line of text, reduced 4 times)
    def bar(top: int, left: int = 8, length: int = 48, shift: int = 0) -> tuple[int, int, bytes]:
        """``shift``: the bar drawn ``shift`` screen pixels (a quarter of a thumbnail pixel each) right."""
        px = bytearray(b"\xff" * 64 * 64)
        for y in range(top, top + 8):
            px[y * 64 + left:y * 64 + left + length] = b"\x00" * length
            px[y * 64 + left] = 255 * shift // 4
            px[y * 64 + left + length] = 255 - 255 * shift // 4
        return 64, 64, bytes(px)

    assert screens.difference(bar(20), bar(20)) == ""
    assert screens.difference(bar(20), bar(20, shift=1)) == ""  # a glyph hinted one screen pixel over
    assert "blocks differ" in screens.difference(bar(20), bar(40))  # the line moved down
    assert "blocks differ" in screens.difference(bar(20), bar(20, length=20))  # a word went missing
    assert "size" in screens.difference(bar(20), (64, 60, b"\xff" * 64 * 60))
