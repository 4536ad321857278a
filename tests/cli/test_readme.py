"""The README's commands work as written: the ten-line first combat, and `make demo`."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

README = (REPO / "README.md").read_text()


def _block_after(heading: str) -> str:
    section = README.split(heading, 1)[1]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_two_setup_commands_are_make_demo_and_make_test() -> None:
    lines = [ln.split("#")[0].strip() for ln in _block_after("## Set-up: two commands").splitlines()]
    assert [ln for ln in lines if ln] == ["make demo", "make test"]
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in ci.split("\n", 3)[-1]


def test_first_combat_in_ten_lines(tmp_path: Path) -> None:
    block = _block_after("## A first combat in ten lines")
    lines = [ln for ln in block.splitlines() if ln.strip()]
    assert len(lines) == 10
    venv_bin = Path(os.environ.get("VIRTUAL_ENV", REPO / ".venv")) / "bin"
    script = block.replace('export PATH="$PWD/.venv/bin:$PATH"', f'export PATH="{venv_bin}:$PATH"')
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={k: v for k, v in os.environ.items() if not k.startswith("COMBATLOG_")})
    assert proc.returncode == 0, proc.stderr
    assert "Aldo: act in round 1" not in proc.stdout  # Aldo acted, so only Bo and the gm are pending
    assert "Bo: act in round 1" in proc.stdout
    assert re.search(r"Bo loses \d hp \(10 -> \d+\): sword", proc.stdout)
    assert "ok: duel (freeform), events 1-" in proc.stdout


@pytest.mark.slow
def test_make_demo_runs_end_to_end(tmp_path: Path) -> None:
    """And with its own key home: a user's home holding one key (zed's) would make every command of the demo
    act as zed (--as defaults to the only secret key), so the demo must neither read nor write that home."""
    if not (REPO / ".venv" / "bin" / "combatlog").exists():
        pytest.skip("make demo uses the project's .venv, which this run does not have")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMBATLOG_")}
    users_home = tmp_path / "keys"
    cli = [str(REPO / ".venv" / "bin" / "combatlog")]
    subprocess.run([*cli, "keys", "new", "zed"], env={**env, "COMBATLOG_HOME": str(users_home)}, check=True,
                   capture_output=True)
    before = sorted(p.name for p in users_home.rglob("*"))
    proc = subprocess.run(["make", "demo"], cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={**env, "COMBATLOG_HOME": str(users_home)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert "ok: duel (freeform)" in out and "verified against revealed seeds" in out
    assert "forked: duel-whatif" in out and "Done: the logs are in demo/." in out
    log = subprocess.run([*cli, "--db", str(REPO / "demo" / "combat.db"), "log", "duel", "--json"], env=env,
                         capture_output=True, text=True, check=True)
    import json

    assert {e["actor"] for e in json.loads(log.stdout)} == {"gm"}  # nobody acted as zed
    assert sorted(p.name for p in users_home.rglob("*")) == before
