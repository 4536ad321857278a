"""Run the real CLI with a pseudo-terminal on some of its standard streams (pagers, progress displays)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

from tests.conftest import CLI, REPO


def run_on_a_terminal(args: list[str], env: dict[str, str], *, stdout_too: bool = True,
                      stdout_file: Path | None = None) -> tuple[int, str]:
    """Run ``combatlog ARGS`` with stdin and stderr on a pseudo-terminal, and stdout too (or, with
    ``stdout_too`` False, into ``stdout_file``); return its exit status and what the terminal showed."""
    master, slave = pty.openpty()
    out = open(stdout_file, "wb") if stdout_file is not None else None  # closed below
    try:
        proc = subprocess.Popen([*CLI, *args], cwd=REPO, env=env, stdin=slave, stderr=slave,
                                stdout=slave if stdout_too else out)
    finally:
        os.close(slave)
    shown = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                proc.kill()
                raise AssertionError("the CLI showed nothing for 120 s")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer to the terminal is gone
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
        if out is not None:
            out.close()
    return proc.wait(timeout=120), shown.decode(errors="replace")
