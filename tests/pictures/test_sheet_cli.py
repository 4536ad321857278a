"""`combatlog sheet` and `combatlog report` on the command line: files written whole, bad input refused
with a clear error and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.pictures.conftest import run_cli
from tests.pictures.svgcheck import groups, parse_svg


def test_sheet_writes_an_svg_and_says_so(examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ex = examples["giant-and-goblins"]
    out = tmp_path / "r1.svg"
    proc = run_cli(ex.db, "sheet", ex.stream, "--round", "1", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stdout and "round 1" in proc.stdout
    root = parse_svg(out.read_text())
    assert len(groups(root, "melee-section")) == 2
    proc = run_cli(ex.db, "sheet", ex.stream, "--seq", "15", "-o", str(tmp_path / "s.svg"), "--json",
                   "--as", "alice")
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert info["seq"] == 15 and info["round"] == 1 and info["file"].endswith("s.svg")
    assert groups(parse_svg((tmp_path / "s.svg").read_text()), "plays-hidden", data_sheet="amazon")


def test_sheet_to_standard_output(examples) -> None:  # type: ignore[no-untyped-def]
    ex = examples["tavern-brawl"]
    proc = run_cli(ex.db, "sheet", ex.stream, "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert groups(parse_svg(proc.stdout), "participant")


@pytest.mark.parametrize("args, code, words", [
    (("--round", "99"), 6, "no round 99"),
    (("--seq", "100000"), 6, "has no event 100000"),
    (("--seq", "0"), 3, "seqs start at 1"),
    (("--round", "1", "--seq", "3"), 3, "not both"),
])
def test_bad_points_are_refused_and_nothing_is_written(examples, tmp_path: Path, args, code, words) -> None:  # type: ignore[no-untyped-def]
    ex = examples["giant-and-goblins"]
    out = tmp_path / "x.svg"
    proc = run_cli(ex.db, "sheet", ex.stream, *args, "-o", str(out))
    assert proc.returncode == code, proc.stderr
    assert words in proc.stderr and proc.stderr.startswith("error[")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_unwritable_paths_are_refused(examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ex = examples["giant-and-goblins"]
    proc = run_cli(ex.db, "sheet", ex.stream, "-o", str(tmp_path / "missing" / "x.svg"))
    assert proc.returncode == 6 and "no folder" in proc.stderr
    proc = run_cli(ex.db, "sheet", ex.stream, "-o", str(tmp_path))
    assert proc.returncode == 3 and "is a folder" in proc.stderr
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        proc = run_cli(ex.db, "sheet", ex.stream, "-o", str(locked / "x.svg"))
        import os

        if os.geteuid() != 0:  # root writes anywhere
            assert proc.returncode == 3 and "cannot write" in proc.stderr
            assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)
    if Path("/proc/self").is_dir():  # a folder nobody may create files in, root included
        proc = run_cli(ex.db, "sheet", ex.stream, "-o", "/proc/picture.svg")
        assert proc.returncode == 3 and "cannot write" in proc.stderr
    proc = run_cli(ex.db, "sheet", "no-such-combat", "-o", str(tmp_path / "y.svg"))
    assert proc.returncode == 6 and not (tmp_path / "y.svg").exists()


def test_an_existing_file_is_replaced_whole(examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ex = examples["giant-and-goblins"]
    out = tmp_path / "x.svg"
    out.write_text("old")
    proc = run_cli(ex.db, "sheet", ex.stream, "--round", "99", "-o", str(out))
    assert proc.returncode == 6 and out.read_text() == "old"
    assert run_cli(ex.db, "sheet", ex.stream, "-o", str(out)).returncode == 0
    parse_svg(out.read_text())
    assert [p.name for p in tmp_path.iterdir()] == ["x.svg"]
