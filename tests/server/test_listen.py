"""Where ``combatlog serve`` listens: ``--port 0`` takes a free port the system picks and names it in the
line printed on start (what every server in these tests uses); a port in use is a clear error."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import CLI
from tests.server.live import LiveServer


def test_port_0_is_a_free_port_named_in_the_start_line(server: LiveServer) -> None:
    assert server.port > 0
    assert f"on http://127.0.0.1:{server.port}/v1/" in server.log_path.read_text()
    assert server.request("GET", "/v1/health").json()["service"] == "combatlog"


def test_a_port_in_use_is_a_clear_error_and_creates_nothing(tmp_path: Path, server: LiveServer) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMBATLOG_")}
    env["COMBATLOG_HOME"] = str(tmp_path / "other-home")
    other = tmp_path / "other.db"
    proc = subprocess.run([*CLI, "--db", str(other), "serve", "--open", "--port", str(server.port)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert f"cannot listen on 127.0.0.1:{server.port}" in proc.stderr and "Traceback" not in proc.stderr
    assert not other.exists()
    assert server.request("GET", "/v1/health").status == 200  # the first server is untouched
