"""Start-up stays cheap (issue 22, item 3): a command imports only what it uses. Checked by the set of modules
each command leaves in ``sys.modules`` (a heavy import creeping back fails here), never by wall time. Also
keeps the root's --help table (cli/catalog.py SHORT_HELP, listed without importing the commands) true to the commands.
Complements tests/trust/test_keys.py (commands that need no key do not import cryptography)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from combatlog.cli.app import SHORT_HELP, root_command
from tests.conftest import REPO

# Never needed to start, list, read or explain a combat: the write path, verification and exchange, the
# pictures, the server and its client, the other stores' drivers, signatures, and the heavy libraries.
NEVER_AT_START = {
    "combatlog.commands.handler", "combatlog.exchange.bundle", "combatlog.exchange.verify", "combatlog.pictures",
    "combatlog.server", "combatlog.remote.client", "combatlog.remote.transport", "combatlog.store.postgres", "cryptography", "psycopg",
    "sqlite_utils", "pydantic", "starlette", "uvicorn", "rich",
}
# The command modules: only the one invoked is imported.
COMMAND_MODULES = {"combatlog.cli.streams", "combatlog.cli.views", "combatlog.cli.exchange", "combatlog.cli.runner",
                   "combatlog.cli.rolls", "combatlog.cli.keys", "combatlog.cli.seal", "combatlog.cli.serve",
                   "combatlog.cli.report", "combatlog.cli.sheet", "combatlog.cli.mail", "combatlog.cli.remote",
                   "combatlog.cli.replica", "combatlog.cli.follow", "combatlog.cli.copy", "combatlog.cli.ack",
                   "combatlog.cli.rulesets.freeform", "combatlog.cli.rulesets.magic_realm"}
# What msgspec imported without typing_extensions (combatlog/lean_import.py) spares the fast path: typing_extensions
# and the inspect module it pulls in (dataclasses would pull it in again), ~15 ms of each command's start.
LEAN = {"typing_extensions", "inspect", "dataclasses"}
PROBE = ("import json, sys\nfrom combatlog.cli.app import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
         "    pass\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)")


def modules_after(tmp_path: Path, *args: str) -> set[str]:
    env = {**os.environ, "COMBATLOG_DB": str(tmp_path / "log.db"), "COMBATLOG_HOME": str(tmp_path / "keys"),
           "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, check=True)
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def loaded(modules: set[str], names: set[str]) -> set[str]:
    return {m for m in modules for n in names if m == n or m.startswith(n + ".")}


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("startup")
    env = {**os.environ, "COMBATLOG_DB": str(folder / "log.db"), "COMBATLOG_HOME": str(folder / "keys"),
           "PYTHONPATH": str(REPO / "src")}
    for line in (["new", "duel", "--ruleset", "freeform"], ["freeform", "join", "duel", "Aldo", "--side", "a"]):
        subprocess.run([sys.executable, "-m", "combatlog.cli.app", *line], env=env, check=True, capture_output=True)
    return folder


def test_help_and_version_import_no_command_and_no_store(duel: Path) -> None:
    for args in (["--help"], ["--version"]):
        modules = modules_after(duel, *args)
        assert not loaded(modules, NEVER_AT_START | COMMAND_MODULES), args
        assert not loaded(modules, {"msgspec", "sqlite3", "combatlog.store", "combatlog.rulesets"}), args


def test_list_imports_the_store_only_and_neither_click_nor_typer(duel: Path) -> None:
    modules = modules_after(duel, "list")  # the fast path (cli/fast.py), as status
    assert not loaded(modules, COMMAND_MODULES | {"combatlog.cli.root", "combatlog.cli.common"})
    assert not loaded(modules, NEVER_AT_START | {"combatlog.projections", "combatlog.rulesets", "click", "typer"})
    assert not loaded(modules, LEAN)
    modules = modules_after(duel, "list", "--json", "--json")  # a line the fast path leaves to click
    assert loaded(modules, COMMAND_MODULES) == {"combatlog.cli.streams"} and "typer" in modules
    assert not loaded(modules, NEVER_AT_START | {"combatlog.projections", "combatlog.rulesets"})


def test_status_imports_the_combats_ruleset_only_and_neither_click_nor_typer(duel: Path) -> None:
    # the fast path (cli/fast.py): click and typer were more than half of status's start-up
    others = {"combatlog.rulesets.magic_realm", "combatlog.rulesets.classic_fantasy", "combatlog.rulesets.osric",
              "combatlog.rulesets.argad"}
    for args in (["status", "duel"], ["--as", "alice", "status", "duel", "--mine", "--json"]):
        modules = modules_after(duel, *args)
        assert "combatlog.rulesets.freeform" in modules, args  # it did fold the combat
        assert not loaded(modules, COMMAND_MODULES | {"combatlog.cli.root", "combatlog.cli.common"}), args
        assert not loaded(modules, NEVER_AT_START | others | {"click", "typer", "shutil"}), args
        assert not loaded(modules, LEAN), args


def test_status_through_click_imports_its_view_and_the_combats_ruleset_only(duel: Path) -> None:
    modules = modules_after(duel, "status", "duel", "--mine", "--mine")  # a line the fast path leaves to click
    assert "combatlog.rulesets.freeform" in modules and "typer" in modules
    assert loaded(modules, COMMAND_MODULES) == {"combatlog.cli.views"}
    others = {"combatlog.rulesets.magic_realm", "combatlog.rulesets.classic_fantasy", "combatlog.rulesets.osric",
              "combatlog.rulesets.argad"}
    assert not loaded(modules, NEVER_AT_START | others)


def test_the_help_table_shortens_as_each_command_would(duel: Path) -> None:
    root = root_command()
    ctx = click.Context(root, info_name="combatlog")
    names = root.list_commands(ctx)
    assert set(names) == set(SHORT_HELP), "a command without its line in catalog.SHORT_HELP, or a line left over"
    for name in names:
        real = root.get_command(ctx, name)
        assert real is not None
        for limit in range(20, 125, 5):  # a root --help is at most 100 columns wide (docs/cli.md), 80 on a terminal
            stand_in = click.Command(name, help=SHORT_HELP[name]).get_short_help_str(limit)
            assert stand_in == real.get_short_help_str(limit), (name, limit)


def test_verify_of_a_stored_combat_needs_neither_click_nor_typer(duel: Path) -> None:
    # the fast path (cli/fast.py): a verify of a long combat paid ~100 ms for them before its first event
    modules = modules_after(duel, "verify", "duel")
    assert "combatlog.exchange.verify" in modules and "combatlog.rulesets.freeform" in modules  # it did verify
    assert not loaded(modules, {"click", "typer", "combatlog.cli.root", "combatlog.cli.common", "combatlog.pictures",
                                "combatlog.server", "cryptography"} | LEAN)
