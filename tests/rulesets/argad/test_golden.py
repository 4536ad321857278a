"""Golden replays: the example fights in docs/examples/argad/ played by the real CLI (subprocess, SQLite).

Each game turn's derived view (``show --round N --json``) is compared with the JSON checked into
golden/; ``COMBATLOG_UPDATE_GOLDEN=1`` rewrites the files for review. The expected facts below were
worked out by hand from the dice in the command files (see the comments there) before the goldens
were first written, and are asserted separately so a rewritten golden cannot hide a rules change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, Cli

GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = REPO / "docs" / "examples" / "argad"

# example -> (stream, game turns, hand-checked facts per turn: figure -> (status, wounds))
CASES: dict[str, tuple[str, int, dict[int, dict[str, tuple[str, int]]]]] = {
    # Seed example 'Natural dice maximum rule'. Turn 1: axe 4+1 = 5 > 3 kills Gob D; spears 2,3,1 and
    # swords 3,2,1 (no 4, best 3 < 4): nothing. Turn 2: axe 3+1 = 4 > 3 kills Gob A; spears 4 (re-roll 2):
    # 4 = 4 recoil; Gob B's 4 counts with the spears' 4: 5 > 4 kills the warrior.
    "warrior-vs-goblins": ("goblins", 2, {
        1: {"gob-d": ("dead", 0), "warrior": ("standing", 0), "gob-a": ("standing", 0)},
        2: {"gob-a": ("dead", 0), "warrior": ("dead", 0), "gob-b": ("standing", 0)},
    }),
    # Turn 1: elite longbow 6 (+ re-roll 6) = 7 +1 = 8 >= 8 wounds the Troll (armour 7); war crossbow 6 >= 6
    # wounds the Ogre (armour 6); survival Ogre 1D3 2 > 1, Troll 1D4 3 > 1.
    # Turn 2: lance 5+3 = 8 > 7 wounds the Troll (which cannot strike); halberds 3+2, 5+2: 7 > 6 wound the
    # Ogre, whose axe 7+1 = 8 > 4 kills Dwarf 1 at the same time (a pool: no priority); survival Ogre
    # 3 > 2, Troll 4 > 2.
    # Turn 3: the archer's 6 (re-roll 3) = 7 < 8 misses but its maximum counts in the melee; knight 2+1 = 3;
    # warrior 6+1 = 7 > 6: the Ogre's third wound kills it; Ogre 2+1 = 3 nothing; Troll (last, split) 6 > 5
    # kills the knight, 3 < 4 on Dwarf 2.
    # Turn 4: longbow 6, 6 = 8 wounds the Troll (3rd); warrior 5+1, Dwarf 4+1: 6 < 7 nothing; Troll 9 > 4
    # kills the warrior; survival 4 > 3. Turn 5: longbow 6, 6: the fourth wound kills the Troll.
    "band-vs-ogre-and-troll": ("wall", 5, {
        1: {"troll": ("standing", 1), "ogre": ("standing", 1)},
        2: {"troll": ("standing", 2), "ogre": ("standing", 2), "dwarf-1": ("dead", 0)},
        3: {"ogre": ("dead", 3), "knight": ("dead", 0), "dwarf-2": ("standing", 0), "troll": ("standing", 2)},
        4: {"warrior": ("dead", 0), "troll": ("standing", 3)},
        5: {"troll": ("dead", 4), "archer": ("standing", 0)},
    }),
}


def _views(cli: Cli, stream: str, turns: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in range(1, turns + 1):
        data = cli("show", stream, "--round", str(n), "--json").json()
        assert isinstance(data, dict)
        out[str(n)] = {"seq": data["seq"], "state": data["state"]}
    final = cli("show", stream, "--json").json()
    assert isinstance(final, dict)
    out["final"] = {"seq": final["seq"], "finished": final["finished"], "state": final["state"]}
    return out


@pytest.mark.parametrize("example", sorted(CASES))
def test_golden_replay(example: str, cli: Cli, play_example) -> None:  # type: ignore[no-untyped-def]
    stream, turns, facts = CASES[example]
    play_example(cli, EXAMPLES / f"{example}.cmds")
    views = _views(cli, stream, turns)
    for n, expected in facts.items():
        figures = {f["name"]: f for f in views[str(n)]["state"]["figures"]}
        for name, (status, wounds) in expected.items():
            assert (figures[name]["status"], figures[name]["wounds"]) == (status, wounds), (n, name)
    assert views["final"]["finished"] is True
    path = GOLDEN / f"{example}.json"
    if os.environ.get("COMBATLOG_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(json.dumps(views, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    assert views == json.loads(path.read_text(encoding="utf-8"))
    # the log verifies and replays to the same final view
    export = cli.db.parent / f"{example}.export"
    cli("export", stream, "-o", str(export))
    assert "ok:" in cli("verify", str(export)).out


def test_cli_refuses_bad_input_and_appends_nothing(cli: Cli) -> None:
    # A strike out of the strike order is illegal (exit status 4, rule cited); nothing is appended.
    # Seed 004 Goblin example: the axe (half-long) strikes before the swords, so gob-a waits for it.
    cli("new", "t", "--ruleset", "argad", "--setup", str(EXAMPLES / "warrior-vs-goblins.json"), "--dice", "manual")
    cli("argad", "turn", "t")
    before = cli("show", "t", "--json").json()
    bad = cli("argad", "strike", "t", "gob-a", "--at", "warrior", "--face", "t1/melee/warrior/gob-a=1", ok=False)
    assert bad.code == 4 and "strike order: warrior strikes first" in bad.err and "Argad" in bad.err
    assert cli("show", "t", "--json").json() == before
    unknown = cli("argad", "strike", "t", "nobody", "--at", "gob-b", ok=False)
    assert unknown.code == 3
