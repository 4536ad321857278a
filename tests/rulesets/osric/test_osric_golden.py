"""Golden replays: the example fights in docs/examples/osric/ played by the real CLI (subprocess, SQLite).

Each round's derived view (``show --round N --json``) is compared with the JSON checked into golden/;
``COMBATLOG_UPDATE_GOLDEN=1`` rewrites them for review. The facts below were worked out by hand from the
dice in the command files (their comments give the arithmetic) and are asserted separately, so a rewritten
golden cannot hide a rules change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, Cli

GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = REPO / "docs" / "examples" / "osric"

# example -> (stream, rounds (0 = the surprise segments), hand-checked facts: round -> name -> (hp, status))
CASES: dict[str, tuple[str, list[int], dict[int, dict[str, tuple[int, str]]]]] = {
    # Surprise: orc1 (B 19) vs Brom AC 4 needs 15: 14 + 2 charging hits, scimitar 5: Brom 22 -> 17.
    # Ael (B 19, Dex +2) vs AC 6 needs 13: 12 + 2 hits, 4: orc3 5 -> 1; later 15 + 2, 2: orc3 dead.
    # orc2 (B 19) vs Halvaine AC 8 needs 11: 13 hits, 2: Halvaine 6 -> 4.
    # Round 1: Ael's arrow (target d2 = orc2): 11 + 2 = 13 hits, 3: orc2 4 -> 1. Brom (B 18, Str +1) vs AC 6
    # needs 12: 13 + 1 hits, 6 + 1 = 7: orc1 6 -> -1, slain. Sleep puts orc2 and orc4 to sleep.
    # Round 2: Ael (short sword, Str 16: +1 damage) 16 hits, 5 + 1: orc4 7 -> 1. Magic missile 3 + 1: orc2 dead.
    # Round 3: orc4 morale 55 - 15 = 40%, d100 80: fails by 40, flees; Ael's free attack 9 + 4 = 13 vs 13
    # hits, 4 + 1: orc4 dead.
    "ford": ("ford", [0, 1, 2, 3], {
        0: {"Brom": (17, "ok"), "Halvaine": (4, "ok"), "orc3": (-1, "dead"), "Ael": (14, "ok")},
        1: {"orc1": (-1, "dead"), "orc2": (1, "ok"), "orc4": (7, "ok"), "Brom": (17, "ok")},
        2: {"orc2": (-3, "dead"), "orc4": (1, "ok")},
        3: {"orc4": (-4, "dead"), "Halvaine": (4, "ok")},
    }),
    # Round 1 (tie, all in segment 3): Tam's set spear (B 20) vs the charging ogre AC 5 + 1 needs 14: 17 hits,
    # 1d8 vs L 6 doubled = 12: ogre 20 -> 8; ogre (4+1 HD = level 6, B 15) vs Tam AC 4 needs 11: 12 + 2 hits,
    # 9: Tam 9 -> 0, unconscious. Wulf (B 14, Str 18/76 +2/+4) vs gnoll1 AC 6 needs 8: 10 + 2 hits, 7 + 4 = 11:
    # gnoll1 dead. gnoll2 hits Mira for 5 (15 -> 10); Mira's mace 1d6 vs L 4: gnoll2 14 -> 10. Wulf's second
    # routine (late): 9 + 2 vs 8 hits, 3 + 4 = 7: ogre 8 -> 1.
    # Round 2: the ogre's morale 70 - 10 = 60%, d100 95: fails by 35, flees; Wulf's free attack 6 + 2 + 4 = 12
    # vs 9 hits, 2 + 4: ogre dead. Wulf's held action, two weapons: 9 + 2 - 1 = 10 vs 9 hits, 4 + 4: gnoll2
    # 10 -> 2; dagger 12 + 2 - 3 = 11 hits, 2 + 4: gnoll2 dead.
    "bridge": ("bridge", [1, 2], {
        1: {"ogre": (1, "ok"), "Tam": (0, "unconscious, bleeding"), "gnoll1": (0, "dead"), "gnoll2": (10, "ok"),
            "Mira": (10, "ok")},
        2: {"ogre": (-5, "dead"), "gnoll2": (-4, "dead"), "Tam": (0, "unconscious")},
    }),
}


def _views(cli: Cli, stream: str, rounds: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in rounds:
        data = cli("show", stream, "--round", str(n), "--json").json()
        assert isinstance(data, dict)
        out[str(n)] = {"seq": data["seq"], "state": data["state"]}
    final = cli("show", stream, "--json").json()
    assert isinstance(final, dict)
    out["final"] = {"seq": final["seq"], "finished": final["finished"], "state": final["state"]}
    return out


@pytest.mark.parametrize("example", sorted(CASES))
def test_golden_replay(example: str, cli: Cli, play_example) -> None:  # type: ignore[no-untyped-def]
    stream, rounds, facts = CASES[example]
    play_example(cli, EXAMPLES / f"{example}.cmds")
    views = _views(cli, stream, rounds)
    for rnd, expected in facts.items():
        rows = {r["name"]: r for r in views[str(rnd)]["state"]["combatants"]}
        for name, (hp, status) in expected.items():
            assert (rows[name]["hp"], rows[name]["status"]) == (hp, status), (example, rnd, name)
    assert views["final"]["finished"] is True
    path = GOLDEN / f"{example}.json"
    if os.environ.get("COMBATLOG_UPDATE_GOLDEN") == "1" or not path.exists():
        path.write_text(json.dumps(views, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert views == json.loads(path.read_text(encoding="utf-8"))


def test_example_supports_the_core_verbs(cli: Cli, tmp_path: Path, play_example) -> None:  # type: ignore[no-untyped-def]
    # Done means: replay, explain, fork, export, verify work on the example fights.
    play_example(cli, EXAMPLES / "ford.cmds")
    explained = cli("explain", "ford", "--round", "1", "--json").json()
    rules = {s["rule"] for s in explained["steps"]}
    assert "OSRIC Combat: Spells" in rules and "OSRIC Combat: Missile Attacks" in rules
    assert any("r1/Ael/atk1/target" in s["dice"] for s in explained["steps"])
    cli("replay", "ford")
    cli("verify", "ford")
    cli("fork", "ford", "--at", "30", "--as", "ford-what-if")
    cli("export", "ford", "-o", str(tmp_path / "ford.jsonl"))
    cli("verify", str(tmp_path / "ford.jsonl"))
    status = cli("status", "ford-what-if", "--json").json()
    assert status["pending"], "the fork is mid-combat and waits for someone"
    timeline = cli("osric", "timeline", "ford", "--round", "1", "--json").json()
    assert [s["segment"] for s in timeline["timeline"][0]["segments"]] == [0, 1, 3, 4, 10]
