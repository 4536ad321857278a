"""One progress display (issue #21, combatlog/cli/progress.py): on a terminal for import, export, verify,
copy and run; never in a pipe, never under --json."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from combatlog.cli.progress import Progress, progress
from tests.cli.terminal import run_on_a_terminal
from tests.conftest import CLI, REPO

EVENTS = 1200  # verify reports every 1,000 events: enough for the display to appear


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A combat of 1,201 events (notes), its export, and an environment for the CLI."""
    root = tmp_path_factory.mktemp("big")
    cmds = root / "notes.cmds"
    cmds.write_text("new big --ruleset freeform\n" + "".join(f"note big 'note {n}'\n" for n in range(EVENTS)))
    env = _env(root, root / "log.db")
    subprocess.run([*CLI, "run", "-q", str(cmds)], cwd=REPO, env=env, check=True, capture_output=True, timeout=600)
    subprocess.run([*CLI, "export", "big", "-o", str(root / "big.jsonl")], cwd=REPO, env=env, check=True,
                   capture_output=True, timeout=120)
    return {"root": root, "db": root / "log.db", "file": root / "big.jsonl", "cmds": cmds}


def _env(root: Path, db: Path) -> dict[str, str]:
    env = {**os.environ, "COMBATLOG_DB": str(db), "COMBATLOG_HOME": str(root / "keys"), "COLUMNS": "100",
           "LINES": "40", "TERM": "xterm"}
    env.pop("COMBATLOG_ACTOR", None)
    return env


@pytest.mark.parametrize(("args", "label"), [
    (["verify", "{file}"], "verifying"),
    (["verify", "big"], "verifying"),
    (["export", "big", "-o", "{tmp}/again.jsonl"], "exporting"),
    (["--db", "{tmp}/other.db", "import", "{file}"], "verifying"),
    (["copy", "--from", "{db}", "--to", "{tmp}/copy.db"], "copying"),
])
def test_shown_on_a_terminal(big: dict[str, Path], tmp_path: Path, args: list[str], label: str) -> None:
    filled = [a.format(file=big["file"], db=big["db"], tmp=tmp_path) for a in args]
    code, shown = run_on_a_terminal(filled, _env(big["root"], big["db"]), stdout_too=False,
                                    stdout_file=tmp_path / "stdout")
    assert code == 0, shown
    assert label in shown


def test_run_shows_progress_when_its_output_goes_elsewhere(big: dict[str, Path], tmp_path: Path) -> None:
    cmds = tmp_path / "two.cmds"
    cmds.write_text("new small --ruleset freeform\nnote small hi\n")
    env = _env(tmp_path, tmp_path / "small.db")
    code, shown = run_on_a_terminal(["run", str(cmds)], env, stdout_too=False, stdout_file=tmp_path / "out")
    assert code == 0 and "running" in shown and "lines" in shown
    assert "$ combatlog note small hi" in (tmp_path / "out").read_text()
    # with its output on the terminal, no display beside it
    code, shown = run_on_a_terminal(["run", "--fresh", str(cmds)], env)
    assert "running" not in shown


@pytest.mark.parametrize("args", [["verify", "{file}", "--json"], ["copy", "--from", "{db}", "--to",
                                                                     "{tmp}/copy.db", "--json"]])
def test_never_under_json(big: dict[str, Path], tmp_path: Path, args: list[str]) -> None:
    filled = [a.format(file=big["file"], db=big["db"], tmp=tmp_path) for a in args]
    code, shown = run_on_a_terminal(filled, _env(big["root"], big["db"]), stdout_too=False,
                                    stdout_file=tmp_path / "stdout")
    assert code == 0 and "verifying" not in shown and "copying" not in shown
    assert shown.strip() == ""  # nothing at all on the terminal: the JSON went to stdout


def test_never_in_a_pipe(big: dict[str, Path]) -> None:
    proc = subprocess.run([*CLI, "verify", str(big["file"])], cwd=REPO, env=_env(big["root"], big["db"]),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "" and "\r" not in proc.stdout


# -- the helper itself ---------------------------------------------------------------------------------------


def test_a_hidden_display_gives_no_callback_and_counts_through() -> None:
    bar = progress("x", shown=False)
    assert bar.callback is None
    bar.on_progress(3, 10)  # a no-op
    assert list(bar.count(iter("abc"), 3)) == ["a", "b", "c"]


def test_only_one_display_at_a_time() -> None:
    outer = Progress("outer", shown=True)
    try:
        inner = Progress("inner", shown=True)  # a command run inside `run FILE`
        assert outer.shown and not inner.shown and inner.callback is None
        inner.close()
    finally:
        outer.close()
    after = Progress("after", shown=True)
    assert after.shown  # the others closed: the next may show
    after.close()


def test_not_shown_when_stderr_is_not_a_terminal() -> None:
    assert not sys.stderr.isatty()  # pytest captures it
    assert not progress("x").shown and not progress("x", as_json=True).shown


def test_rich_is_not_imported_by_a_command_that_shows_no_progress(big: dict[str, Path]) -> None:
    code = ("import sys\nfrom combatlog.cli.app import main\ntry:\n    main(['verify', sys.argv[1]])\n"
            "except SystemExit:\n    pass\nsys.stderr.write(str(sorted(m for m in sys.modules if m.startswith('rich'))))")
    proc = subprocess.run([sys.executable, "-c", code, str(big["file"])], cwd=REPO,
                          env={**_env(big["root"], big["db"]), "PYTHONPATH": str(REPO / "src")},
                          capture_output=True, text=True, timeout=120)
    assert proc.stderr.strip() == "[]"
