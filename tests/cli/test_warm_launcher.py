"""The suite's warm launcher (tests/warm_cli.py) answers as a fresh ``python -m combatlog.cli.app`` does: the same
standard output, standard error and exit status, call by call, on a log written by both; input on stdin; a call
that never ends is killed at its timeout; a call whose environment changes how Python starts is not taken."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import _START_ENV, CLI, REPO
from tests.warm_cli import launcher, startup_env_matches

needs_launcher = pytest.mark.skipif(bool(os.environ.get("COMBATLOG_TEST_COLD")), reason="the launcher is switched off")

# Successes, usage errors, a command's own refusal, --json errors, help, the fast path (status, verify) and click's.
CALLS = [
    ["new", "duel", "--ruleset", "freeform"],
    ["freeform", "join", "duel", "Aldo", "--side", "a"],
    ["freeform", "join", "duel", "Bruna", "--side", "b"],
    ["status", "duel"],
    ["status", "duel", "--json"],
    ["freeform", "join", "duel", "Aldo", "--side", "a"],  # refused: Aldo is in already
    ["roll", "duel", "2d6+", "--json"],  # refused: not a dice notation
    ["freeform", "nosuch"],  # a usage error (exit 2)
    ["--help"],
    ["mr", "--help"],
    ["log", "duel"],
    ["verify", "duel"],
    ["explain", "duel", "99"],
]


def answers(run, folder: Path) -> list[tuple[int, str, str]]:  # type: ignore[no-untyped-def]
    return [run(args, folder) for args in CALLS]


@needs_launcher
def test_warm_and_cold_calls_answer_alike(tmp_path: Path) -> None:
    def env(folder: Path) -> dict[str, str]:
        return {**_START_ENV, "COMBATLOG_DB": str(folder / "log.db"), "COMBATLOG_HOME": str(folder / "keys")}

    def cold(args: list[str], folder: Path) -> tuple[int, str, str]:
        proc = subprocess.run([*CLI, *args], cwd=REPO, env=env(folder), capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr

    warm_launcher = launcher(_START_ENV, REPO)
    assert warm_launcher is not None

    def warm(args: list[str], folder: Path) -> tuple[int, str, str]:
        proc = warm_launcher.run(args, REPO, env(folder), None, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr

    (tmp_path / "cold").mkdir()
    (tmp_path / "warm").mkdir()
    cold_answers, warm_answers = answers(cold, tmp_path / "cold"), answers(warm, tmp_path / "warm")
    codes = [code for code, _, _ in cold_answers]
    assert 0 in codes and 2 in codes and len(set(codes)) >= 3, codes  # the calls cover more than success
    for args, cold_answer, warm_answer in zip(CALLS, cold_answers, warm_answers):
        # ids and times differ between two logs; everything else is the same text
        assert _masked(warm_answer) == _masked(cold_answer), args


def _masked(answer: tuple[int, str, str]) -> tuple[int, str, str]:
    import re

    def mask(text: str) -> str:
        text = re.sub(r"\b[0-9a-f]{8,}\b", "<hex>", text)
        return re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)?", "<time>", text)

    code, out, err = answer
    return code, mask(out), mask(err)


def test_input_on_stdin_reaches_the_call(cli) -> None:  # type: ignore[no-untyped-def]
    # `combatlog run -` reads its commands from stdin: a script bigger than a pipe's buffer (64 KiB) must not
    # deadlock the caller writing it against the call writing its output
    script = "new duel --ruleset freeform\n" + "".join(f"note duel 'line {n} {'x' * 60}'\n" for n in range(1500))
    assert len(script) > 65536
    cli("run", "-", "--quiet", stdin=script)
    notes = [e for e in cli("log", "duel", "--json").json() if e["type"] == "core.noted"]  # type: ignore[union-attr]
    assert len(notes) == 1500 and notes[-1]["data"]["text"].startswith("line 1499 ")


@needs_launcher
def test_a_call_that_does_not_end_is_killed_at_its_timeout(tmp_path: Path) -> None:
    warm_launcher = launcher(_START_ENV, REPO)
    assert warm_launcher is not None
    env = {**_START_ENV, "COMBATLOG_DB": str(tmp_path / "log.db"), "COMBATLOG_HOME": str(tmp_path / "keys")}
    # a server runs until stopped; the caller gives up after its timeout and the call's process is killed
    with pytest.raises(subprocess.TimeoutExpired):
        warm_launcher.run(["serve", "--host", "127.0.0.1", "--port", "0", "--open"], REPO, env, None, timeout=3)
    assert _wait_until(lambda: not _children_of(warm_launcher.process.pid)), "the call's process was not killed"


def _children_of(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _wait_until(condition, polls: int = 200) -> bool:  # type: ignore[no-untyped-def]
    import time

    for _ in range(polls):  # a kill is delivered at once; this only waits for the kernel to reap it
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize(("changed", "taken"), [
    ({"COMBATLOG_DB": "/elsewhere.db"}, True),
    ({"COLUMNS": "40"}, True),
    ({"PYTHONIOENCODING": "latin-1"}, False),
    ({"PYTHONHASHSEED": "1"}, False),
    ({"LC_ALL": "C"}, False),
    ({"COMBATLOG_FULL_MSGSPEC": "1"}, False),
])
def test_a_call_that_changes_how_python_starts_is_not_taken(changed: dict[str, str], taken: bool) -> None:
    base = {"PATH": "/usr/bin", "LANG": "C.UTF-8"}
    assert startup_env_matches(base, {**base, **changed}) is taken
    assert startup_env_matches({**base, **changed}, base) is taken  # a variable unset for the call, too
