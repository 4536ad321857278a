"""Messages people read: who and what a step waits for, who lacks a shield, documents cited, reveals and
summaries in words, the dice ledger's verbs, the missile parry."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import inspect as mi

from combatlog.errors import ExitStatus
from tests.cli.inproc import InProcessCli
from tests.conftest import REPO

EXAMPLES = REPO / "docs" / "examples"
SRC = REPO / "src" / "combatlog"


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    monkeypatch.chdir(REPO)
    return InProcessCli(tmp_path / "log.db", monkeypatch, capsys)


def _giant_and_goblins(tmp_path: Path, upto: int, **bk: Any) -> Path:
    """The first ``upto`` commands of the giant-and-goblins example, the Black Knight changed by ``bk``."""
    setup = json.loads((EXAMPLES / "magic_realm/giant-and-goblins.json").read_text())
    setup["characters"][0].update(bk)
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    lines = [line for line in (EXAMPLES / "magic_realm/giant-and-goblins.cmds").read_text().splitlines()
             if line and not line.startswith("#")]
    lines[0] = lines[0].replace("docs/examples/magic_realm/giant-and-goblins.json", str(tmp_path / "setup.json"))
    script = tmp_path / "start.cmds"
    script.write_text("\n".join(lines[:upto]) + "\n")
    return script


def test_a_command_out_of_its_step_says_what_the_combat_waits_for_and_from_whom(
    cli: InProcessCli, tmp_path: Path,
) -> None:
    cli("run", "-q", str(_giant_and_goblins(tmp_path, 2)))  # created; alice has lured, bob has not
    early = cli("mr", "resolve", "giant-goblins", ok=False)
    assert early.code == ExitStatus.ILLEGAL
    assert ("resolving the Melee Step: not yet: the combat is at luring of round 1, waiting for bob (amazon) "
            "(lure denizens or pass: mr lure)") in early.err
    assert "belongs to" not in early.err
    cli("run", "-q", str(_giant_and_goblins(tmp_path, 4)))  # both lured, random assignment done
    late = cli("mr", "lure", "giant-goblins", "bk", ok=False)
    assert ("luring: too late for round 1: the combat is at deployment, waiting for bob (amazon) and alice (bk) "
            "(deploy hirelings / charge or pass: mr deploy)") in late.err


def test_playing_a_shield_he_does_not_have_names_him(cli: InProcessCli, tmp_path: Path) -> None:
    cli("run", "-q", str(_giant_and_goblins(tmp_path, 12, armor=[])))  # the Black Knight without armor
    result = cli("mr", "play", "giant-goblins", "bk", "--attack", "smash", "--fight", "F3", "--maneuver", "charge",
                 "--move", "M3", "--shield", "thrust", ok=False)
    assert result.code == ExitStatus.INVALID
    assert "bk has no active shield to play (--shield)" in result.err


def test_messages_cite_only_documents_that_are_in_docs() -> None:
    cited: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "pbem_trust" not in text, f"{path} cites pbem_trust, which is not in docs/"
        cited |= set(re.findall(r"docs/([\w.-]+\.md)", text))
    missing = sorted(name for name in cited if not (REPO / "docs" / name).exists())
    assert not missing, f"cited but not in docs/: {missing}"
    from combatlog.rulesets.magic_realm.sealed import SEED_RULE

    assert "docs/trust.md" in SEED_RULE and '"Magic Realm plays"' in SEED_RULE
    assert "## Magic Realm plays" in (REPO / "docs/trust.md").read_text().replace("### ", "## ")
