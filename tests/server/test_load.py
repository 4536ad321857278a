"""The load benchmark's quick run (bench/bench_server.py --quick): 4 clients x 20 signed appends on one
shared combat over SQLite, through a real server; the checks, not the figures, are asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_quick_load_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    run = subprocess.run([sys.executable, str(REPO / "bench" / "bench_server.py"), "--quick", "--json", str(out)],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    (result,) = json.loads(out.read_text())
    assert result["failed_clients"] == [] and result["other_errors"] == 0
    assert result["acknowledged"] == 4 * 20 == result["in_log"]  # every append acknowledged, each in the log
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["unacknowledged_in_log"] == 0
    assert result["verified"] is True  # the server's chain verifies, signatures and all
    # every conflict was answered 409 and merged by its client (its decision placed, then appended again)
    assert result["merges"] == result["conflicts_409"]
    assert "appends/s" in run.stdout and "p99" in run.stdout
