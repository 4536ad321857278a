"""The example combats of docs/examples, each played by ``combatlog run`` once per test run and shared (and
any other log a test only reads: ``built_once``).

Several test modules need an example played to its end (pictures, the server's page, ...); playing one
costs seconds of CLI work, so each is played once into a directory every pytest-xdist worker of the run
sees, under a lock: the first worker to ask plays it, the others wait for it and read the same log. A
test that changes a log works on a copy (``copy_log``).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CLI, REPO


_FACTORY: list[pytest.TempPathFactory] = []  # this session's, set by tests/conftest.py (``shared_factory``)


def shared_factory() -> pytest.TempPathFactory:
    """The session's temp path factory, for helpers that build shared things without a fixture of their own."""
    assert _FACTORY, "tests/conftest.py sets the factory at the session's start"
    return _FACTORY[-1]


def _shared_root(factory: pytest.TempPathFactory) -> Path:
    """A directory of this run that every worker sees: under xdist each worker's base temp is a
    child of the run's one; without xdist the run's base temp itself (never one shared across runs)."""
    base = factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "played-examples"
    root.mkdir(exist_ok=True)
    return root


def played_log(factory: pytest.TempPathFactory, cmds: Path) -> Path:
    """The log of the command file ``cmds`` played with ``combatlog run --quiet`` (read it, don't change it)."""

    def play(building: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("COMBATLOG_")}
        env["COMBATLOG_HOME"] = str(building / "keys")  # never the user's own key home
        proc = subprocess.run([*CLI, "--db", str(building / "log.db"), "run", "--quiet", str(cmds)], cwd=REPO,
                              env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"combatlog run {cmds} failed:\n{proc.stderr}"

    return built_once(factory, f"{cmds.parent.name}-{cmds.stem}", play) / "log.db"


def built_once(factory: pytest.TempPathFactory, key: str, build: Callable[[Path], None]) -> Path:
    """The folder ``build(folder)`` filled, built once per test run under ``key`` and shared by every worker
    (read what is in it, don't change it: ``copy_log`` first)."""
    root = _shared_root(factory)
    done = root / key
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when a worker dies
        if not done.exists():
            building = Path(tempfile.mkdtemp(prefix=f"{key}-", dir=root))
            build(building)
            os.replace(building, done)  # whole or not at all: a failed build leaves nothing to reuse
    return done


def copy_log(log: Path, dest: Path) -> Path:
    """A copy of the SQLite log ``log`` at ``dest`` (with its write-ahead log, if one is left), to change."""
    shutil.copyfile(log, dest)
    for suffix in ("-wal", "-shm"):
        side = log.with_name(log.name + suffix)
        if side.exists():
            shutil.copyfile(side, dest.with_name(dest.name + suffix))
    return dest
