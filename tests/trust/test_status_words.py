"""Status and seeds say one thing (issue #20, item 3): the seed instruction has one source
(``magic_realm.sealed.seed_instruction``) for ``status``, ``status --mine`` and the refusal of ``mr assign``;
a player whose characters are out of the fight is told so, not "waiting for" the others.

One machine, hot seat (gm, alice and bob pinned, every key in one key home), through the real CLI in
this process. The round is MR 001's: bk and amazon each lure a goblin, a third is left for the random
assignment (MR 001 Random assignment), then bk runs away with his M3 (MR 001 Actions).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatlog.rulesets import available
from tests.security.dice_forgery import cli

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

SETUP = {"first_round_of_day": False,
         "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                        {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
         "denizens": [{"id": f"goblin-{n}", "monster": "Axe Goblin"} for n in (1, 2, 3)]}


def _cave(tmp_path: Path):  # type: ignore[no-untyped-def]
    db = tmp_path / "log.db"
    (tmp_path / "cave.json").write_text(json.dumps(SETUP))

    def run(*args: str) -> str:
        result = cli(db, *args, home=tmp_path / "keys")
        assert result.code == 0, f"combatlog {' '.join(args)} -> {result.code}\n{result.err}{result.out}"
        return result.out

    for name in ("gm", "alice", "bob"):
        run("keys", "new", name)
    run("new", "cave", "--ruleset", "magic_realm", "--setup", str(tmp_path / "cave.json"), "--dice", "joint",
        "--player", "gm", "--player", "alice", "--player", "bob", "--as", "gm")
    return db, run


def test_the_seed_instruction_is_the_same_in_status_and_in_the_refusal(tmp_path: Path) -> None:
    from combatlog.errors import IllegalCommand
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.magic_realm.sealed import fresh_seed_events, seed_hint, seed_instruction
    from combatlog.store import open_store

    db, run = _cave(tmp_path)
    run("mr", "lure", "cave", "bk", "goblin-1", "--as", "alice")
    run("mr", "lure", "cave", "amazon", "goblin-2", "--as", "bob")
    store = open_store(str(db))
    try:
        meta = store.list_streams()[0]
        seq = next(r["seq"] for r in json.loads(run("log", "cave", "--json")) if r["summary"].startswith("amazon lures"))
        state = state_at(store, meta, seq).state  # both lures in, no seed yet: goblin-3 waits for its die
    finally:
        store.close()
    chained = state.chains.all_chained
    with pytest.raises(IllegalCommand) as refused:
        fresh_seed_events(state, type("Dice", (), {"scheme": "joint"})(), "assign", ["r1/assign/goblin-3"], "assign")
    assert seed_instruction(chained, "r1/assign", full=True) in str(refused.value)
    assert seed_instruction(chained, "r1/assign") in seed_hint(state, "assign", "assign")
    # nonce chains are the default: one message each, the reveal only where a machine keeps them off
    assert "(step r1/assign: their next chain link, one message" in seed_hint(state, "assign", "assign")


def test_a_player_whose_character_ran_away_is_told_he_is_out(tmp_path: Path) -> None:
    _db, run = _cave(tmp_path)
    run("mr", "lure", "cave", "bk", "goblin-1", "--as", "alice")
    run("mr", "lure", "cave", "amazon", "goblin-2", "--as", "bob")
    for who in ("alice", "bob"):  # each pastes the mr seed status --mine gives him, if he still owes his link
        for move in json.loads(run("status", "cave", "--mine", "--json", "--as", who))["pending"]:
            if move["command"] and " mr seed " in move["command"]:
                run(*move["command"].split()[1:])
    run("mr", "assign", "cave", "--as", "gm")
    for step in (("mr", "deploy", "cave", "bk", "--as", "alice"), ("mr", "deploy", "cave", "amazon", "--as", "bob"),
                 ("mr", "action", "cave", "amazon", "none", "--as", "bob"),
                 ("mr", "action", "cave", "bk", "run", "--chit", "M3", "--as", "alice")):
        run(*step)
    text = run("status", "cave", "--mine", "--as", "alice")
    assert "bk is gone from the clearing: out of this fight, you have nothing more to decide in it" in text
    assert "waiting for" not in text
    assert json.loads(run("status", "cave", "--mine", "--json", "--as", "alice"))["out_of_the_fight"]
    assert not json.loads(run("status", "cave", "--mine", "--json", "--as", "bob"))["out_of_the_fight"]
