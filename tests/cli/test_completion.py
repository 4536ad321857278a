"""Shell completion (typer's bash protocol, as `combatlog --install-completion bash` sets up): combat names,
participants of the combat named on the line, Magic Realm chits, ruleset names."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli.inproc import InProcessCli
from tests.conftest import CLI, REPO, Cli

EXAMPLES = REPO / "docs" / "examples"


class Completer:
    def __init__(self, cli: InProcessCli, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cli, self.monkeypatch = cli, monkeypatch

    def __call__(self, line: str) -> list[str]:
        """What TAB offers at the end of ``line`` (a trailing space: a new word)."""
        words = line.split() + ([""] if line.endswith(" ") else [])
        with self.monkeypatch.context() as env:
            env.setenv("_COMBATLOG_COMPLETE", "complete_bash")
            env.setenv("COMP_WORDS", line)
            env.setenv("COMP_CWORD", str(len(words) - 1))
            return self.cli().out.split()


@pytest.fixture
def complete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Completer:
    cli = InProcessCli(tmp_path / "log.db", monkeypatch, capsys)
    cli("new", "duel", "--ruleset", "freeform")
    cli("freeform", "join", "duel", "Aldo", "--side", "red")
    cli("freeform", "join", "duel", "Bo", "--side", "blue")
    cli("new", "cave", "--ruleset", "mr", "--setup", str(EXAMPLES / "magic_realm/giant-and-goblins.json"))
    cli("new", "brawl", "--ruleset", "cfi", "--setup", str(EXAMPLES / "classic_fantasy/duel.json"))
    cli("new", "bridge", "--ruleset", "osric", "--setup", str(EXAMPLES / "osric/bridge.json"))
    cli("new", "goblins", "--ruleset", "argad", "--setup", str(EXAMPLES / "argad/warrior-vs-goblins.json"))
    return Completer(cli, monkeypatch)


def test_participants_of_the_combat_on_the_line(complete: Completer) -> None:
    assert complete("combatlog freeform act duel ") == ["Aldo", "Bo"]
    assert complete("combatlog freeform damage duel A") == ["Aldo"]
    assert complete("combatlog cfi attack brawl Brom ") == ["Brom", "Grak"]
    assert complete("combatlog osric attack bridge Tam --target g") == ["gnoll1", "gnoll2"]
    assert complete("combatlog osric declare bridge ") == ["party", "raiders"]
    assert complete("combatlog argad strike goblins gob-a gob-b --at w") == ["warrior"]
    assert complete("combatlog mr play cave ") == ["bk", "amazon"]
    assert "giant" in complete("combatlog mr target cave bk ")  # targets: characters and denizens


def test_magic_realm_chits_where_an_option_takes_one(complete: Completer) -> None:
    fight = complete("combatlog mr play cave bk --attack smash --fight ")
    assert fight and all(c.startswith("F") for c in fight)
    move = complete("combatlog mr play cave amazon --move ")
    assert move and all(c.startswith("M") for c in move)
    assert complete("combatlog mr action cave bk alert --chit ") == fight  # alerting plays a Fight chit
    assert complete("combatlog mr action cave bk run --chit ") == move
    assert complete("combatlog mr fatigue cave bk --change ") == []  # nothing is fatigued yet
    assert complete("combatlog mr play cave nobody --fight ") == []


def test_ruleset_names_for_new(complete: Completer) -> None:
    assert complete("combatlog new x --ruleset ") == ["freeform", "magic_realm", "classic_fantasy", "osric", "argad"]
    assert complete("combatlog new x --ruleset c") == ["classic_fantasy"]
    assert complete("combatlog new x --ruleset m") == ["magic_realm", "mythras"]  # mythras: classic_fantasy
    assert complete("combatlog new x --ruleset cf") == ["cfi"]


def test_a_ruleset_group_offers_only_its_combats_and_nothing_from_another(complete: Completer) -> None:
    assert complete("combatlog mr sheets ") == ["cave"]
    assert sorted(complete("combatlog show ")) == ["brawl", "bridge", "cave", "duel", "goblins"]
    assert complete("combatlog freeform act cave ") == []
    assert complete("combatlog freeform act nosuch ") == []


def test_completion_creates_no_log(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "none.db", tmp_path)
    env = {**cli.env, "_COMBATLOG_COMPLETE": "complete_bash", "COMP_WORDS": "combatlog show ", "COMP_CWORD": "2",
           "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run(CLI, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.split() == []
    assert list(tmp_path.iterdir()) == []


def test_chits_through_a_real_subprocess(cli: Cli) -> None:
    cli("new", "cave", "--ruleset", "mr", "--setup", str(EXAMPLES / "magic_realm/giant-and-goblins.json"))
    env = {**cli.env, "_COMBATLOG_COMPLETE": "complete_bash", "COMP_WORDS": "combatlog mr play cave bk --fight F",
           "COMP_CWORD": "6"}
    proc = subprocess.run(CLI, env=env, cwd=cli.cwd, capture_output=True, text=True, timeout=60)
    offered = proc.stdout.split()
    assert offered and all(c.startswith("F") for c in offered), proc.stderr
