"""The CLI's report makes a long log's fold-free checks in a second process (exchange/stored.py ``Verified`` with
``split``, issue #22 item 2): the same document as one process makes, for a clean log and for edited ones (an
edit caught by the line checks, the second process's, or by the fold's, this one's); a split walk that does not end
in success is dropped and the log walked again the ordinary way, which says what failed as it always has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from combatlog.exchange import split
from combatlog.pictures.report import report_html
from tests.core.test_verify_split import EDITS, edited_brawl
from tests.edited_logs import small_brawl


@pytest.fixture
def second_processes(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every second process started (the real class, counted), with the split from one event on."""
    monkeypatch.setenv("COMBATLOG_VERIFY_SPLIT_FROM", "1")  # (the brawl is 17 events; 1,000 in use)
    started: list[Any] = []

    class Counted(split.SecondProcess):
        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, **kw)
            started.append(self)

    monkeypatch.setattr(split, "SecondProcess", Counted)
    return started


@pytest.mark.parametrize("edit", [None, *sorted(EDITS)])
def test_the_split_report_is_the_one_process_report(edit: str | None, tmp_path: Path,
                                                    second_processes: list[Any]) -> None:
    store, meta = edited_brawl(tmp_path / "log.db", edit)
    one = report_html(store, meta, None)
    assert not second_processes
    assert report_html(store, meta, None, split=True) == one
    assert len(second_processes) == 1  # the split walk ran (and, for an edited log, was walked again after)
    if edit is None:
        assert "VERIFICATION FAILED" not in one
    else:  # the verifier's words, at the event edited, in both
        assert f'<span class="bad">VERIFICATION FAILED</span>: brawl#{EDITS[edit][0]}: seq ' in one


def test_the_cli_report_splits_and_writes_the_same_file(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, _meta, _last = small_brawl(tmp_path / "brawl.db")
    store.conn.close()
    env = {**cli.env, "COMBATLOG_DB": str(tmp_path / "brawl.db")}
    files = []
    for split_from in ("1", "1000000"):  # split, then one process
        cli.env = {**env, "COMBATLOG_VERIFY_SPLIT_FROM": split_from}
        out = tmp_path / f"report-{split_from}.html"
        cli("report", "brawl", "-o", str(out))
        files.append(out.read_bytes())
    assert files[0] == files[1] and b"VERIFICATION FAILED" not in files[0]
