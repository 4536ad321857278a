"""Random playouts of every ruleset through the moves the program offers (tests/playouts.py).

In-process: ``PLAYOUTS`` seeds per set-up (COMBATLOG_PLAYOUTS=N for more: ``make playouts N=500``); through
the CLI, one per ruleset (each command its own process: a few seconds a playout, so not every set-up), on its
set-up with the most machinery (pinned players, joint dice) where it has one. Each fails with its seed and the
commands to replay it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.playouts import SETUPS, play

PLAYOUTS = int(os.environ.get("COMBATLOG_PLAYOUTS", "20"))
CASES = [(s, seed) for sets in SETUPS.values() for s in sets for seed in range(PLAYOUTS)]


@pytest.mark.parametrize("setup,seed", CASES, ids=[f"{s.ruleset}-{s.name}-{n}" for s, n in CASES])
def test_random_playout_in_process(tmp_path: Path, setup, seed: int) -> None:
    played = play(tmp_path, setup, seed)
    assert played.commands, "a playout made no move"


def _weight(setup) -> int:  # type: ignore[no-untyped-def]  (pinned players, then joint dice: more to cross processes)
    return bool(setup.players) + ("joint" in setup.lines[0])


SUBPROCESS = [max(sets, key=_weight) for sets in SETUPS.values()]


@pytest.mark.parametrize("setup", SUBPROCESS, ids=[f"{s.ruleset}-{s.name}" for s in SUBPROCESS])
def test_random_playout_through_the_cli(tmp_path: Path, setup) -> None:
    played = play(tmp_path, setup, 1000, max_moves=60, subprocess=True)
    assert played.commands


STATUS = [(s, seed) for sets in SETUPS.values() for s in sets for seed in range(2)]


@pytest.mark.parametrize("setup,seed", STATUS, ids=[f"{s.ruleset}-{s.name}-{n}" for s, n in STATUS])
def test_status_offers_only_legal_moves_and_hides_none(tmp_path: Path, setup, seed: int) -> None:
    """status, status --mine: every command offered is one `moves` lists, at every state of a playout; every
    piece with a legal move of a player's is in his status --mine (tests/playouts.py, _check_status)."""
    played = play(tmp_path, setup, 500 + seed, max_moves=40, check_status=True)
    assert played.commands


REPLAYED = [next(s for s in sets if "--dice" in s.lines[0] and s.lines[0][s.lines[0].index("--dice") + 1] == "local")
            for sets in SETUPS.values()]


@pytest.mark.parametrize("setup", REPLAYED, ids=[f"{s.ruleset}-{s.name}" for s in REPLAYED])
def test_a_playouts_replay_script_plays_the_same_combat(tmp_path: Path, setup) -> None:
    """A failing playout prints (and writes) its commands with the faces each one's local dice showed: run in order
    on a fresh log they reach the same state, die for die, so the failure can be looked at by hand."""
    import json
    import shlex

    from tests.playouts import InProcess

    played = play(tmp_path / "first", setup, 77, max_moves=60)
    script = played.replay_text().splitlines()
    assert script[0].startswith(f"# playout {setup.ruleset}/{setup.name} seed 77")
    again = InProcess(tmp_path / "again.db", tmp_path / "again-keys")
    for line in (x for x in script if not x.startswith("#")):
        code, _out, err = again(*shlex.split(line)[1:])
        assert code == 0, (line, err)
    first = InProcess(tmp_path / "first" / "log.db", tmp_path / "first" / "keys")
    shown = [json.loads(run("show", setup.name, "--json")[1])["state"] for run in (first, again)]
    assert shown[0] == shown[1]  # (without the faces, every one of these set-ups ends otherwise)
