"""export -o and verify FILE: a missing folder, a folder, a missing file are named plainly; nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.errors import ExitStatus
from tests.conftest import Cli


@pytest.fixture
def duel(cli: Cli) -> Cli:
    cli("new", "duel", "--ruleset", "freeform")
    cli("note", "duel", "hello")
    return cli


def test_export_into_a_missing_folder_is_refused_and_writes_nothing(duel: Cli, tmp_path: Path) -> None:
    for fmt in ("jsonl", "text"):
        result = duel("export", "duel", "-o", str(tmp_path / "nodir" / "d.jsonl"), "--format", fmt, ok=False)
        assert result.code == ExitStatus.NOT_FOUND, result.err
        assert f"no folder {tmp_path / 'nodir'}" in result.err and "bug" not in result.err
        assert not (tmp_path / "nodir").exists()


def test_export_onto_a_folder_is_refused_and_writes_nothing(duel: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    result = duel("export", "duel", "-o", str(folder), ok=False)
    assert result.code == ExitStatus.INVALID and "is a folder" in result.err and "bug" not in result.err
    assert list(folder.iterdir()) == []


def test_a_refused_export_leaves_an_earlier_file_whole(duel: Cli, tmp_path: Path) -> None:
    out = tmp_path / "d.jsonl"
    duel("export", "duel", "-o", str(out))
    before = out.read_bytes()
    result = duel("export", "duel", "-o", str(out), "--since", "99", ok=False)
    assert result.code == ExitStatus.INVALID and "--since 99" in result.err
    assert out.read_bytes() == before  # not truncated
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl", "log.db"]  # no part file left
    missing = tmp_path / "new.jsonl"
    duel("export", "duel", "-o", str(missing), "--since", "99", ok=False)
    assert not missing.exists()


@pytest.mark.parametrize("target", ["nosuch.jsonl", "nosuch.json", "exports/nosuch"])
def test_verify_of_a_missing_file_says_no_such_file(duel: Cli, target: str) -> None:
    result = duel("verify", target, ok=False)
    assert result.code == ExitStatus.NOT_FOUND
    assert f"no such file: {target}" in result.err and "no combat '" not in result.err


def test_verify_without_a_log_does_not_create_one(cli: Cli) -> None:
    result = cli("verify", "nosuch.jsonl", ok=False)
    assert result.code == ExitStatus.NOT_FOUND and "no such file: nosuch.jsonl" in result.err
    assert not cli.db.exists()


def test_verify_still_finds_a_combat_by_name(duel: Cli) -> None:
    assert "ok: duel" in duel("verify", "duel").out
    missing = duel("verify", "nosuch", ok=False)
    assert missing.code == ExitStatus.NOT_FOUND and "no combat 'nosuch' in this log" in missing.err
