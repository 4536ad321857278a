"""OSRIC's legal moves (``Osric.candidates``, rulesets/osric/candidates.py): every argv offered by
``combatlog moves`` parses through the real CLI (cli/rulesets/osric.py) into exactly the command the
candidate proposed, in states reached by random playouts of the example set-ups (tests/playout_setups/osric.py):
in clear at one table, and sealed (``osric declare --seal`` is a ``CommitOrders`` of rN/declare) with pinned
players."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.commands.record import encode_record
from tests.playouts import SETUPS as ALL_SETUPS
from tests.playouts import InProcess, Setup

SETUPS = ALL_SETUPS["osric"]  # (through tests.playouts: it imports the set-up modules itself)

RULESET_COMMANDS = "combatlog.rulesets.osric.commands"


def _encoded(command: Any) -> bytes:
    """The stored command record (commands/record.py) of an osric command; a core one (a sealed commit or
    reveal) as its type and canonical fields."""
    if type(command).__module__ == RULESET_COMMANDS:
        return encode_record("osric", command)
    return type(command).__name__.encode() + b":" + msgspec.json.encode(command)


class Captured(Exception):
    pass


def _capture(monkeypatch: pytest.MonkeyPatch, seen: list[tuple[Any, dict[tuple[str, ...], Any]]]) -> None:
    """The CLI's last step (``run_command``) replaced by one that keeps the parsed command, and the candidates
    of the state it was parsed against, and appends nothing."""
    from combatlog.cli import seal
    from combatlog.cli.common import read_state
    from combatlog.cli.rulesets import osric

    def fake(ctx: Any, stream: str, command: Any, **_kw: Any) -> None:
        _meta, folded = read_state(ctx, stream)
        seen.append((command, {c.argv: c.command for c in folded.ruleset.candidates(folded.state, stream)}))
        raise Captured

    monkeypatch.setattr(osric, "run_command", fake)
    monkeypatch.setattr(seal, "run_command", fake)


def _without_as(argv: list[str]) -> tuple[str, ...]:
    if "--as" in argv:
        i = argv.index("--as")
        return tuple(argv[:i] + argv[i + 2:])
    return tuple(argv)


@pytest.mark.parametrize("setup", SETUPS, ids=[s.name for s in SETUPS])
def test_every_offered_argv_parses_into_its_candidates_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               setup: Setup) -> None:
    run = InProcess(tmp_path / "log.db", tmp_path / "keys")
    for player in setup.players:
        assert run("keys", "new", player)[0] == 0
    for line in setup.lines:
        assert run(*line)[0] == 0, line
    rng = random.Random(11)
    checked = 0
    seen_kinds: set[str] = set()
    for step in range(30):
        listing = json.loads(run("moves", setup.name, "--json", "--limit", "100000")[1])
        if listing["finished"]:
            break
        moves = listing["moves"]
        declaring = "declare" not in seen_kinds and any(m["argv"][1] == "declare" for m in moves)
        if step % 5 == 0 or declaring:  # a handful of states (and the first with declarations): every move of each
            seen: list[tuple[Any, dict[tuple[str, ...], Any]]] = []
            with monkeypatch.context() as m:
                _capture(m, seen)
                for move in moves:
                    seen.clear()
                    run(*move["argv"])
                    assert len(seen) == 1, move["argv"]
                    parsed, cands = seen[0]
                    proposed = cands[_without_as(move["argv"])]
                    assert _encoded(parsed) == _encoded(proposed), move["argv"]
                    checked += 1
                    seen_kinds.add(move["argv"][1])
        # on to the next state by an action rather than a ruling where there is one (deeper states)
        acts = [m for m in moves if m["argv"][1] not in ("damage", "heal", "condition", "engage", "morale",
                                                         "negotiate", "aid", "end")]
        move = rng.choice(acts or moves)
        code, _out, err = run(*move["argv"])
        assert code == 0, (move["argv"], err)
    assert checked > 100 and len(seen_kinds) >= 8, (checked, sorted(seen_kinds))
    if setup.players:
        assert "declare" in seen_kinds  # sealed: osric declare ... --seal is a CommitOrders
