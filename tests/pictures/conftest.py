"""The example combats of docs/examples, each played once into its own log for the picture tests."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import CLI, REPO
from tests.played import played_log

EXAMPLES = sorted((REPO / "docs" / "examples").glob("*/*.cmds"))


@dataclass
class Example:
    path: Path  # the .cmds file
    db: Path  # its log
    stream: str
    ruleset: str


def _name_of(cmds: Path) -> str:
    for line in cmds.read_text().splitlines():
        words = line.split()
        if words[:1] == ["new"]:
            return words[1]
    raise AssertionError(f"{cmds} creates no combat")


@pytest.fixture(scope="session")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Example]:
    """Every example combat, played with ``combatlog run`` into a log of its own (key: file stem); played
    once per test run and shared by the workers (tests/played.py): read them, copy one to change it."""
    return {cmds.stem: Example(cmds, played_log(tmp_path_factory, cmds), _name_of(cmds), cmds.parent.name)
            for cmds in EXAMPLES}


@pytest.fixture
def open_example(examples: dict[str, Example]):  # type: ignore[no-untyped-def]
    """(store, meta) of an example, closed after the test."""
    from combatlog.projections.streams import resolve_stream
    from combatlog.store import open_store

    opened = []

    def open_(stem: str):  # type: ignore[no-untyped-def]
        ex = examples[stem]
        store = open_store(str(ex.db))
        opened.append(store)
        return store, resolve_stream(store, ex.stream)

    yield open_
    for store in opened:
        store.close()


def cli_env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMBATLOG_")}
    env["COMBATLOG_DB"] = str(db)
    return env


def run_cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=REPO, env=cli_env(db), capture_output=True, text=True, timeout=120)


__all__ = ["EXAMPLES", "Example", "run_cli", "sys"]
