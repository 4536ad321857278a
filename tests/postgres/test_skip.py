"""Without server binaries the PostgreSQL tests skip and say why; where they are required, they fail."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO


def _pytest_without_server(require: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COMBATLOG_PG_BIN": "/nonexistent", "COMBATLOG_REQUIRE_POSTGRES": require}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
         "tests/postgres/test_cli.py::test_core_verbs_work_against_postgresql",
         "tests/contracts/test_store_contract.py::test_secrets_are_kept"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )


def test_no_server_binaries_means_a_skip_with_the_reason() -> None:
    run = _pytest_without_server("0")
    assert run.returncode == 0, run.stdout + run.stderr
    # The contract test passes on memory and SQLite; its PostgreSQL case and the CLI test skip.
    assert "2 passed, 2 skipped" in run.stdout, run.stdout
    assert "PostgreSQL tests skipped: PostgreSQL server binaries (initdb, pg_ctl) not found" in run.stdout


def test_where_postgres_is_required_a_missing_server_fails() -> None:
    run = _pytest_without_server("1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "required here" in run.stdout
