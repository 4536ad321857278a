"""``log --limit/--tail`` and the pager (issue #21): a long log is paged on a terminal, never in a pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from combatlog.errors import ExitStatus
from tests.cli.inproc import InProcessCli
from tests.cli.terminal import run_on_a_terminal
from tests.conftest import CLI, REPO

NOTES = 30  # with the genesis: events #1-#31


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    cli = InProcessCli(tmp_path / "log.db", monkeypatch, capsys)
    cli("new", "duel", "--ruleset", "freeform")
    for n in range(NOTES):
        cli("note", "duel", f"note {n}")
    return cli


def _seqs(text: str) -> list[int]:
    return [int(line.split()[0].lstrip("#")) for line in text.splitlines() if line.strip()]


def test_limit_and_tail_in_text_and_json(cli: InProcessCli) -> None:
    assert _seqs(cli("log", "duel").out) == list(range(1, NOTES + 2))
    assert _seqs(cli("log", "duel", "--limit", "3").out) == [1, 2, 3]
    assert _seqs(cli("log", "duel", "--tail", "3").out) == [29, 30, 31]
    assert [r["seq"] for r in cli("log", "duel", "--limit", "3", "--json").json()] == [1, 2, 3]
    assert [r["seq"] for r in cli("log", "duel", "--tail", "3", "--json").json()] == [29, 30, 31]
    assert len(cli("log", "duel", "--tail", "1000", "--json").json()) == NOTES + 1  # more than there is: all


@pytest.mark.parametrize(("args", "status"), [
    (("--limit", "3", "--tail", "3"), ExitStatus.INVALID),
    (("--limit", "0"), ExitStatus.USAGE),
    (("--tail", "-2"), ExitStatus.USAGE),
])
def test_bad_limits_are_refused(cli: InProcessCli, args: tuple[str, ...], status: int) -> None:
    assert cli("log", "duel", *args, ok=False).code == status


@pytest.fixture
def terminal_env(cli: InProcessCli, tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A 10-line terminal and a pager that records what it was given (in ``paged``)."""
    paged = tmp_path / "paged"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import sys\nopen({str(paged)!r}, 'w').write(sys.stdin.read())\n")
    env = {**os.environ, "COMBATLOG_DB": str(cli.db), "COMBATLOG_HOME": str(tmp_path / "keys"),
           "PAGER": f"{sys.executable} {pager}", "LINES": "10", "COLUMNS": "100", "TERM": "xterm"}
    env.pop("COMBATLOG_ACTOR", None)
    return env, paged


def test_a_log_longer_than_the_terminal_goes_through_the_pager(terminal_env: tuple[dict[str, str], Path]) -> None:
    env, paged = terminal_env
    code, _shown = run_on_a_terminal(["log", "duel"], env)
    assert code == 0
    assert _seqs(paged.read_text()) == list(range(1, NOTES + 2))


@pytest.mark.parametrize("args", [["log", "duel", "--no-pager"], ["log", "duel", "--tail", "5"],
                                  ["log", "duel", "--json"]])
def test_no_pager_when_turned_off_short_or_json(terminal_env: tuple[dict[str, str], Path], args: list[str]) -> None:
    env, paged = terminal_env
    code, shown = run_on_a_terminal(args, env)
    assert code == 0 and not paged.exists()
    assert "#31" in shown or '"seq":31' in shown


def test_never_a_pager_in_a_pipe(terminal_env: tuple[dict[str, str], Path]) -> None:
    env, paged = terminal_env
    proc = subprocess.run([*CLI, "log", "duel"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and not paged.exists()
    assert _seqs(proc.stdout) == list(range(1, NOTES + 2))
