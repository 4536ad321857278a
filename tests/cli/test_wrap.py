"""Terminal views wrap at the terminal's width: ``combatlog.text.wrap`` does it, ``echo_view`` applies it
only when stdout is a terminal (never to a pipe, a file or ``--json``)."""

from __future__ import annotations

import os
import pty
import select
import subprocess

from combatlog.text import wrap
from tests.conftest import CLI, REPO, Cli


def test_wrap_folds_long_lines_and_indents_continuations() -> None:
    text = "  Melee Section of bk\n    red box 1: giant [Giant, H5, DEAD]; lancer-1 [Lancer 1, H*6]"
    assert wrap(text, 30).split("\n") == [
        "  Melee Section of bk",
        "    red box 1: giant [Giant,",
        "        H5, DEAD]; lancer-1",
        "        [Lancer 1, H*6]",
    ]


def test_wrap_leaves_lines_that_fit_alone_and_cuts_a_word_longer_than_the_room() -> None:
    table = "  red box 1 Charge and Thrust         -"
    assert wrap(table, 80) == table  # alignment spaces kept
    out = wrap("x" * 25, 10).split("\n")
    assert out[0] == "x" * 10 and all(len(line) <= 10 for line in out)
    assert "".join(line.strip() for line in out) == "x" * 25
    assert wrap("a b", 0) == "a b"


def _on_a_terminal(cli: Cli, columns: int, *args: str) -> str:
    """Run the CLI with stdout on a pseudo-terminal of ``columns`` columns (COLUMNS set)."""
    master, slave = pty.openpty()
    env = {**cli.env, "COLUMNS": str(columns), "LINES": "50"}
    proc = subprocess.Popen([*CLI, *args], cwd=REPO, env=env, stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_views_wrap_on_a_terminal_only(cli: Cli, play_example) -> None:  # type: ignore[no-untyped-def]
    play_example(cli, "magic_realm/giant-and-goblins.cmds")
    piped = cli("show", "giant-goblins", "--at", "22").out
    assert max(len(line) for line in piped.splitlines()) > 100  # no wrapping into a pipe
    shown = _on_a_terminal(cli, 60, "show", "giant-goblins", "--at", "22")
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= 60
    assert " ".join(shown.split()) == " ".join(piped.split())  # the same words
    i = next(n for n, line in enumerate(lines) if line.startswith("    on this sheet (positions not yet fixed)"))
    assert lines[i + 1].startswith("        ")  # a continuation line, indented under its line
    explained = _on_a_terminal(cli, 50, "explain", "giant-goblins", "--round", "1")
    assert max(len(line) for line in explained.splitlines()) <= 50
    # JSON is never wrapped, even on a terminal
    as_json = _on_a_terminal(cli, 40, "status", "giant-goblins", "--json")
    assert len(as_json.strip().splitlines()) == 1
