"""``combatlog import`` of a long bundle that begins its combat here verifies it on two cores (exchange/bundle.py
``_verify_split_whole``, as ``verify FILE`` does): the log it writes is the one one process writes (events and the
snapshots the import keeps), and a file with an edit, caught on either side, is refused with the same words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from combatlog.errors import CombatlogError
from combatlog.exchange import bundle, split
from combatlog.store.sqlite import SQLiteStore
from combatlog.wiring import import_file
from tests.core.test_verify_split import EDITS, edited_brawl
from tests.edited_logs import small_brawl


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What every split verify answered (the real one, recorded), with the split from one event on."""
    monkeypatch.setenv("COMBATLOG_VERIFY_SPLIT_FROM", "1")  # (the brawl is 17 events; 1,000 in use)
    monkeypatch.setattr(bundle, "SNAPSHOT_EVERY", 3)  # (snapshots kept every 3 events here, 500 in use)
    seen: list[Any] = []
    real = split.verify_split
    monkeypatch.setattr(split, "verify_split", lambda *a, **k: seen.append(real(*a, **k)) or seen[-1])
    return seen


def imported(path: Path, db: Path, *, split_: bool) -> tuple[str, Any]:
    store = SQLiteStore(db)
    try:
        import_file(store, path, split=split_)
    except CombatlogError as exc:
        return "refused", str(exc)
    rows = store.conn.execute("SELECT seq, body FROM events ORDER BY seq").fetchall()
    snaps = store.conn.execute("SELECT seq, blob FROM snapshots ORDER BY seq").fetchall()
    return "imported", (rows, snaps)


@pytest.mark.parametrize("edit", [None, *sorted(EDITS)])
def test_an_import_split_writes_or_refuses_as_one_process(edit: str | None, tmp_path: Path,
                                                          answers: list[Any]) -> None:
    store, meta = edited_brawl(tmp_path / "sent.db", edit)
    path = tmp_path / "brawl.jsonl"
    bundle.export_file(store, meta, path)
    one = imported(path, tmp_path / "one.db", split_=False)
    assert not answers  # (one process: no split)
    two = imported(path, tmp_path / "two.db", split_=True)
    assert two == one
    assert len(answers) == 1 and (answers[0] is None) is (edit is not None)  # the split ran, and answered so
    if edit is None:
        assert one[0] == "imported" and len(one[1][0]) == 17 and [s for s, _ in one[1][1]] == [3, 6, 9, 12, 16]
    else:
        assert one[0] == "refused" and f"brawl.jsonl:{EDITS[edit][0] + 1}" in one[1], one


def test_the_cli_import_splits_and_writes_the_same_log(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, meta, _last = small_brawl(tmp_path / "sent.db")
    path = tmp_path / "brawl.jsonl"
    bundle.export_file(store, meta, path)
    logs = []
    for split_from in ("1", "1000000"):  # split, then one process
        db = tmp_path / f"received-{split_from}.db"
        cli.env = {**cli.env, "COMBATLOG_DB": str(db), "COMBATLOG_VERIFY_SPLIT_FROM": split_from}
        cli("import", str(path))
        logs.append(SQLiteStore(db).conn.execute("SELECT seq, body FROM events ORDER BY seq").fetchall())
    assert logs[0] == logs[1] and len(logs[0]) == 17
