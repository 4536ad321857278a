"""Run ``combatlog`` in this process (``main([...])``), for tests that make hundreds of calls."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import CliResult


class InProcessCli:
    """Like ``tests.conftest.Cli`` but without a subprocess: ``main`` with the log in COMBATLOG_DB."""

    def __init__(self, db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        self.db, self._capsys = db, capsys
        monkeypatch.setenv("COMBATLOG_DB", str(db))
        monkeypatch.delenv("COMBATLOG_ACTOR", raising=False)
        if "COMBATLOG_HOME" not in os.environ:  # never the user's own key home (--as defaults to its only key)
            monkeypatch.setenv("COMBATLOG_HOME", str(db.parent / "keys"))

    def __call__(self, *args: str, ok: bool = True) -> CliResult:
        from combatlog.cli.app import main

        self._capsys.readouterr()
        with pytest.raises(SystemExit) as exit_:
            main(list(args))
        captured = self._capsys.readouterr()
        result = CliResult(int(exit_.value.code or 0), captured.out, captured.err)
        if ok and result.code != 0:
            raise AssertionError(f"combatlog {' '.join(args)} exited {result.code}\n{result.err}\n{result.out}")
        return result
