"""The pictures in a real browser: each ruleset's sheet and a report rendered by headless Chromium.

The screenshot must not be blank (the PNG is decoded here with zlib and struct and its non-white pixels
counted) and the DOM Chromium built (``--dump-dom``) must hold the drawn pieces, with no XML parse error.

Chromium is Debian's ``chromium`` package; ``.ci/run`` installs it where it is missing. Without it the
test is skipped, except under CI (``CI=true``), where a missing browser fails it.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

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
    """Width, height and the unfiltered rows of an 8-bit RGB or RGBA PNG (the stdlib alone)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = depth = colour = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    bpp = 3 if colour == 2 else 4
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
