"""docs/trust.md's three-player walkthrough, run as written: three machines, mail bodies as files.

Each ``bash`` block of "Three players by email, step by step" runs on the machine named by the comment
on its first command (``# gm`` / ``# alice`` / ``# bob``), each machine with its own log and key home
and exactly one secret key (so no ``--as``: the only key acts). The set-up is the page's ``json``
block, saved as ``cave.json``. Files pass through one shared folder, as mails would. What the page
shows of the outputs (the mail body for alice, the gm's merge) is checked against what the commands
really print, and every machine must end with the same verified head.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from combatlog.rulesets import available

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

DOC = Path(__file__).resolve().parents[2] / "docs" / "trust.md"
BIN = Path(sys.executable).parent
NAMES = ("gm", "alice", "bob")


def section() -> str:
    text = DOC.read_text()
    return text[text.index("## Three players by email, step by step"):text.index("## Two players by email")]


def test_the_three_player_walkthrough_works_as_written(tmp_path: Path) -> None:
    text = section()
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "cave.json").write_text(re.search(r"```json\n(.*?)```", text, re.S).group(1))  # type: ignore[union-attr]
    env = {}
    for name in NAMES:
        (tmp_path / name).mkdir()
        env[name] = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
                     "COMBATLOG_DB": str(tmp_path / name / "combatlog.db"),
                     "COMBATLOG_HOME": str(tmp_path / name / "home")}
        env[name].pop("COMBATLOG_ACTOR", None)
    printed: dict[str, str] = {}
    ran = 0
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        lines = block.strip("\n").splitlines()
        owner = next(m.group(1) for line in lines if (m := re.search(r"#\s*(gm|alice|bob)\b", line)))
        for line in lines:
            command = line.split("#", 1)[0].strip()
            if not command:
                continue
            proc = subprocess.run(["bash", "-c", command], cwd=mail, env=env[owner], capture_output=True,
                                  text=True, timeout=120)
            assert proc.returncode == 0, f"[{owner}] {command}\n{proc.stderr}{proc.stdout}"
            printed[f"{owner}: {command}"] = proc.stdout + proc.stderr
            ran += 1
    assert ran >= 50
    # what the page shows is what the commands print
    shown_mail = re.search(r"```text\n(combatlog: cave .*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    body = (mail / "gm-1-alice.txt").read_text()
    for line in shown_mail.splitlines():
        if line != "..." and not line.startswith("-----BEGIN"):
            assert line in body, line
    merged = printed["gm: combatlog import alice-1.txt bob-1.txt"]
    assert "merged at #2: alice and bob both continued #2; this log's branch (alice) goes first" in merged
    assert "placed bob's mr.lured (was #5) as #8, unchanged, with bob's signature" in merged
    assert "re-appl" not in merged
    rebased = printed["bob: combatlog import gm-3-bob.txt gm-4-bob.txt"]
    assert "(the sequencer gm signed on it)" in rebased and "bob's mr.lured (was #5): already in this log as #8" in rebased
    assert "3 superseded events" in printed["gm: combatlog superseded cave"]
    # one head on every machine, verified
    heads = set()
    for name in NAMES:
        out = subprocess.run(["combatlog", "verify", "cave", "--json"], cwd=mail, env=env[name],
                             capture_output=True, text=True, check=True).stdout
        heads.add(re.search(r'"head_hash":"([0-9a-f]{64})"', out).group(1))  # type: ignore[union-attr]
    assert len(heads) == 1
