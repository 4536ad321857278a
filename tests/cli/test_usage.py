"""Usage details of the root command: --version, unknown commands, root options after the command."""

from __future__ import annotations

from pathlib import Path

from combatlog import ENGINE_VERSION, __version__
from combatlog.errors import ExitStatus
from combatlog.rulesets import KNOWN, load_ruleset
from tests.conftest import Cli


def test_version_alone_prints_it_and_exits_0(cli: Cli) -> None:
    """The release, the engine (log format) version, and each ruleset's version as the loaded ruleset says it
    (cli/version.py reads them from the sources without importing the rulesets)."""
    result = cli("--version")
    assert result.err == ""
    lines = result.out.splitlines()
    assert lines[0] == f"combatlog {__version__}"
    assert lines[1].startswith(f"engine {ENGINE_VERSION} ")
    assert lines[2:] == [f"ruleset {name} {load_ruleset(name).info.version}" for name in sorted(KNOWN)]


def test_the_release_is_the_package_version() -> None:
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["version"] == __version__


def test_an_unknown_command_is_suggested_once(cli: Cli) -> None:
    result = cli("version", ok=False)
    assert result.code == ExitStatus.USAGE
    assert result.err.count("Did you mean") == 1 and "'verify'" in result.err
    assert "combatlog --version" in result.err
    # the groups loaded lazily are suggested too, and sub-groups suggest once as well
    assert "Did you mean 'mr'?" in cli("mrr", ok=False).err
    sub = cli("seed", "comit", ok=False).err
    assert sub.count("'commit'") == 1, sub
    rules = cli("mr", "sheet", ok=False).err
    assert rules.count("'sheets'") == 1, rules


def test_command_id_may_follow_the_command_like_as_and_db(cli: Cli, tmp_path: Path) -> None:
    cli("new", "duel", "--ruleset", "freeform", "--command-id", "c-1")
    again = cli("new", "duel", "--ruleset", "freeform", "--command-id", "c-1")
    assert "already exists: duel" in again.out  # the same id: recognised, not refused
    cli("note", "duel", "first", "--command-id=n-1")
    cli("note", "duel", "first", "--command-id", "n-1")
    log = cli("log", "duel", "--json").json()
    assert [r["type"] for r in log] == ["core.combat_started", "core.noted"]


def test_hoist_moves_the_command_id_to_the_root() -> None:
    from combatlog.cli.app import hoist

    assert hoist(["note", "duel", "hi", "--command-id", "n-1"]) == ["--command-id", "n-1", "note", "duel", "hi"]
    assert hoist(["fork", "duel", "--at", "2", "--as", "b", "--command-id=f"]) == \
        ["--command-id=f", "fork", "duel", "--at", "2", "--fork-as", "b"]  # fork --as: the old --name
