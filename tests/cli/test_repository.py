"""The repository's own hygiene (issue #21): no committed wheels, and ruff enforced by scripts/test.sh."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_no_wheel_or_archive_is_committed_at_the_root() -> None:
    assert not list(REPO.glob("*.whl")), "a wheel is committed at the repository root"


def test_ruff_passes_on_the_repository() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", "."], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_is_declared_in_the_test_extras() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert any(r.startswith("ruff") for r in project["project"]["optional-dependencies"]["test"])
    assert "F" in project["tool"]["ruff"]["lint"]["select"]


def _fake_checkout(tmp_path: Path, source: str) -> Path:
    """A folder laid out as the repository for scripts/test.sh: its pyproject (ruff's rules), a
    .venv/bin/python that is this interpreter, one module and one passing test."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    (root / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "test.sh", root / "scripts" / "test.sh")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    python = root / ".venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # a symlink would lose this venv
    python.chmod(0o755)
    (root / "module.py").write_text(source)
    (root / "tests").mkdir()
    (root / "tests" / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    return root


def _run_test_sh(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "scripts/test.sh", "-q"], cwd=root, capture_output=True,
                          text=True, timeout=120)


def test_test_sh_fails_on_a_lint_finding_before_running_pytest(tmp_path: Path) -> None:
    root = _fake_checkout(tmp_path, "import os\n")  # F401: an unused import
    proc = _run_test_sh(root)
    assert proc.returncode == 1
    assert "F401" in proc.stdout + proc.stderr
    assert "passed" not in proc.stdout  # pytest never ran


def test_test_sh_runs_pytest_when_lint_is_clean(tmp_path: Path) -> None:
    root = _fake_checkout(tmp_path, "import os\n\nprint(os.sep)\n")
    proc = _run_test_sh(root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_each_long_first_name_matches_a_collected_test(request) -> None:  # type: ignore[no-untyped-def]
    """tests/conftest.py LONG_FIRST hands the longest tests out first; a name left behind by a renamed or
    removed test would silently stop doing so."""
    from tests.conftest import LONG_FIRST

    collected = [item.nodeid for item in request.session.items]
    if not any(nodeid.startswith("tests/trust/") for nodeid in collected):
        import pytest

        pytest.skip("only part of the suite was collected")
    missing = [prefix for prefix in LONG_FIRST if not any(n.startswith(prefix) for n in collected)]
    assert not missing, missing
    ranks = [LONG_FIRST.index(p) for n in collected for p in LONG_FIRST if n.startswith(p)]
    assert ranks == sorted(ranks)  # in the order given, ahead of the rest (under xdist: each worker's own list)
