"""docs/trust.md's walkthrough, run as written: two machines, the commands of each code block.

Each ``bash`` block of "Two players by email" runs on the machine named by the
comment on its first command (``# alice`` / ``# bob``; ``# both`` on a line runs
it on both). A line followed by a ``# error[...]`` comment must fail with that
error. Mailed files go through one shared folder; each machine has its own log
and key home.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "trust.md"
BIN = Path(sys.executable).parent


def blocks() -> list[list[str]]:
    text = DOC.read_text()
    section = text[text.index("## Two players by email"):text.index("### When something is wrong")]
    return [b.strip("\n").splitlines() for b in re.findall(r"```bash\n(.*?)```", section, re.S)]


def test_the_walkthrough_works_as_written(tmp_path: Path) -> None:
    mail = tmp_path / "mail"
    mail.mkdir()
    env = {name: {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
                  "COMBATLOG_DB": str(tmp_path / name / "combatlog.db"),
                  "COMBATLOG_HOME": str(tmp_path / name / "home")} for name in ("alice", "bob")}
    for name in env:
        (tmp_path / name).mkdir()
        env[name].pop("COMBATLOG_ACTOR", None)
    ran = 0

    def head(name: str) -> int:
        out = subprocess.run(["combatlog", "list", "--json"], cwd=mail, env=env[name], capture_output=True,
                             text=True, check=True).stdout
        return int(re.search(r'"head_seq":(\d+)', out).group(1))  # type: ignore[union-attr]

    for block in blocks():
        owner = next(m.group(1) for line in block if (m := re.search(r"#\s*(alice|bob)\b", line)))
        for i, line in enumerate(block):
            command = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
            if not command:
                continue
            who = ["alice", "bob"] if re.search(r"#\s*both\b", line) else [owner]
            expect = next((b for b in block[i + 1:i + 2] if b.lstrip().startswith("# error[")), None)
            for name in who:
                if command.startswith("export COMBATLOG_ACTOR="):
                    env[name]["COMBATLOG_ACTOR"] = command.split("=", 1)[1]
                    continue
                since = re.search(r"--since (\d+)", command)
                if since:  # the doc's --since is exactly what the other player has
                    other = "bob" if name == "alice" else "alice"
                    assert head(other) == int(since.group(1)), (command, head(other))
                proc = subprocess.run(["bash", "-c", command], cwd=mail, env=env[name], capture_output=True,
                                      text=True, timeout=120)
                ran += 1
                if expect:
                    code = expect.split("[", 1)[1].split("]", 1)[0]
                    assert proc.returncode != 0 and f"error[{code}]" in proc.stderr, (name, command, proc.stderr)
                else:
                    assert proc.returncode == 0, f"{name}: {command}\n{proc.stderr}{proc.stdout}"
    assert ran > 30
    heads = {}
    for name in env:
        out = subprocess.run(["combatlog", "verify", "duel", "--json"], cwd=mail, env=env[name], capture_output=True,
                             text=True, check=True).stdout
        heads[name] = re.search(r'"head_hash":"([0-9a-f]+)"', out).group(1)  # type: ignore[union-attr]
        assert '"unbound":0' in out, out  # every joint die is read by the rule that drew it (no --label)
    assert heads["alice"] == heads["bob"]
