"""Shared fixtures: temporary logs and a subprocess runner for the real CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "combatlog.cli.app"]
# The CLI runs in a subprocess as a user runs it, and a user's install keeps bytecode. A machine that sets
# PYTHONDONTWRITEBYTECODE (this one does) would make every one of the suite's thousands of CLI calls compile
# the package from source again: a third of the suite's time, and not what anyone's `combatlog` does.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# The environment the suite began with: the warm launcher (tests/warm_cli.py) starts Python with it.
_START_ENV = dict(os.environ)


# The longest tests (whole fights played through the CLI by several players, 10-60 s each on this project's
# machine; `make test` lists the slowest) are handed to the workers first. scripts/test.sh gives each
# worker the next test when it frees up (``--dist load --maxschedchunk 1``), so the long ones run side by
# side from the start and the run ends on short tests, with no core left idle behind a long one begun last.
# A name here that matches no test fails the run (tests/cli/test_repository.py).
LONG_FIRST = (
    "tests/rulesets/test_playouts.py::test_random_playout_through_the_cli",
    "tests/trust/test_message_economy.py::",
    "tests/server/test_magic_realm_three.py::",
    "tests/trust/test_concurrent_fight.py::",
    "tests/cli/test_readme.py::test_make_demo_runs_end_to_end",
    "tests/server/test_busy.py::test_a_rate_limited_pull_and_push_are_retried_and_succeed",
    "tests/trust/test_walkthrough_three.py::",
    "tests/server/test_play.py::test_three_players_play_a_sealed_round_with_joint_dice",
    "tests/trust/test_mr_sealed.py::test_a_sealed_round_by_mail_with_joint_dice",
    "tests/trust/test_pbem_magic_realm.py::",
    "tests/server/test_magic_realm.py::",
    "tests/trust/test_walkthrough.py::",
    "tests/trust/test_pbem_cli.py::test_two_players_finish_a_freeform_combat_by_mail",
    "tests/postgres/test_two_servers.py::",
    "tests/trust/test_osric_sealed.py::",
    "tests/postgres/test_cli.py::",
    "tests/server/test_page.py::",
    "tests/trust/test_crossings_cli.py::",
)


def long_first_rank(nodeid: str) -> int:
    """Where a test goes in the run: its place in ``LONG_FIRST``, every other test after them."""
    return next((i for i, prefix in enumerate(LONG_FIRST) if nodeid.startswith(prefix)), len(LONG_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: long_first_rank(item.nodeid))  # stable: the rest keep their order


@pytest.fixture(scope="session", autouse=True)
def _shared_builds(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Helpers that build a log once per test run (tests/played.py ``built_once``) find the run's folders."""
    from tests import played

    played._FACTORY.append(tmp_path_factory)


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> object:
        return json.loads(self.out)


class Cli:
    """Runs ``combatlog`` in a subprocess against one log, as a user would (forked from a warm launcher,
    tests/warm_cli.py, unless the call changes how Python starts or COMBATLOG_TEST_COLD is set)."""

    def __init__(self, db: Path, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.db, self.cwd = db, cwd
        self.env = {**os.environ, "COMBATLOG_DB": str(db), **(env or {})}
        self.env.pop("COMBATLOG_ACTOR", None)
        # never the user's own key home: with exactly one key there, --as would default to that player
        if "COMBATLOG_HOME" not in self.env:
            folder = db.parent if isinstance(db, Path) else Path(tempfile.mkdtemp())  # a postgresql:// URL
            self.env["COMBATLOG_HOME"] = str(folder / "keys")

    def __call__(self, *args: str, ok: bool = True, stdin: str | None = None) -> CliResult:
        from tests.warm_cli import launcher, startup_env_matches

        warm = launcher(_START_ENV, REPO)  # each call its own process, without Python's start-up each time
        if warm is not None and startup_env_matches(warm.env, self.env):
            proc = warm.run(list(args), self.cwd, self.env, stdin, timeout=120)
        else:
            proc = subprocess.run([*CLI, *args], cwd=self.cwd, env=self.env, capture_output=True, text=True,
                                  input=stdin, timeout=120)
        result = CliResult(proc.returncode, proc.stdout, proc.stderr)
        if ok and proc.returncode != 0:
            raise AssertionError(f"combatlog {' '.join(args)} exited {proc.returncode}\n{proc.stderr}\n{proc.stdout}")
        return result


def example_lines(example: str) -> list[str]:
    """The lines of ``docs/examples/<example>`` for a partial copy run from another folder: relative
    --setup paths are the command file's own (combatlog run), so they are made absolute here."""
    folder = REPO / "docs" / "examples" / Path(example).parent
    return [re.sub(r"--setup (?!/)(\S+)", lambda m: f"--setup {folder / m.group(1)}", line)
            for line in (REPO / "docs" / "examples" / example).read_text().splitlines()]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "log.db", REPO)


@pytest.fixture
def make_cli(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(name: str, **env: str) -> Cli:
        home = tmp_path / name
        home.mkdir(exist_ok=True)
        return Cli(home / "log.db", REPO, {"COMBATLOG_HOME": str(home / "keys"), **env})

    return make


@pytest.fixture
def play_example(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """``play_example(cli, "magic_realm/giant-and-goblins.cmds")``: ``cli``'s (new) log becomes that
    example of docs/examples played to its end by ``combatlog run --quiet``, as if the test had run it:
    the example is played once per test run and copied (tests/played.py)."""
    from tests.played import copy_log, played_log

    def play(cli: Cli, example: str | Path) -> None:
        cmds = Path(example) if Path(example).is_absolute() else REPO / "docs" / "examples" / example
        assert not Path(cli.db).exists(), "play_example starts a new log"
        copy_log(played_log(tmp_path_factory, cmds), Path(cli.db))

    return play
