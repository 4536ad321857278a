"""Golden replays: the shipped example fights, played by the real CLI (``combatlog run``) into a
temporary SQLite log; the derived views at the end of every round must equal the reviewed JSON in
golden/. Set COMBATLOG_UPDATE_GOLDEN=1 to rewrite them (then review the diff by hand).

Sources: docs/examples/classic_fantasy/duel.cmds and skirmish.cmds; every die and every derived
number is commented in those files (seed Chapter 8 and reference/classic_fantasy.md)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((REPO / "docs" / "examples" / "classic_fantasy").glob("*.cmds"))
GOLDEN = Path(__file__).parent / "golden"


def stream_name(cmds: Path) -> str:
    for line in cmds.read_text().splitlines():
        args = shlex.split(line, comments=True)
        if args and args[0] == "new":
            return args[1]
    raise AssertionError(f"{cmds} creates no combat")


@pytest.mark.parametrize("cmds", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_replays_to_golden_views(cli, cmds: Path) -> None:  # type: ignore[no-untyped-def]
    assert len(EXAMPLES) >= 2
    cli("run", str(cmds.relative_to(REPO)), "--quiet")
    name = stream_name(cmds)
    final = cli("show", name, "--json").json()
    assert final["finished"] is True  # the fight is played to its end
    rounds = final["round"]
    views = {}
    for r in range(1, rounds + 1):
        shown = cli("show", name, "--round", str(r), "--json").json()
        views[f"round {r}"] = {k: shown[k] for k in ("seq", "round", "finished", "state")}
    views["final"] = {k: final[k] for k in ("seq", "round", "finished", "state")}
    explain = cli("explain", name, "--json").json()
    views["rules cited"] = sorted({step["rule"] for step in _steps(explain)})
    path = GOLDEN / f"{cmds.stem}.json"
    text = json.dumps(views, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("COMBATLOG_UPDATE_GOLDEN") == "1" or not path.exists():
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(text)
    # the log verifies, and a replay derives the same head
    cli("verify", name)
    cli("replay", name)


def _steps(explain: object) -> list[dict]:
    if isinstance(explain, dict):
        for key in ("steps", "events"):
            if key in explain:
                return _steps(explain[key])
        return []
    out: list[dict] = []
    for item in explain if isinstance(explain, list) else []:
        if isinstance(item, dict) and "rule" in item:
            out.append(item)
        elif isinstance(item, dict):
            out.extend(_steps(item.get("steps", [])))
    return out
