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
    from combatlog.rulesets.magic_realm.sealed import fresh_seed_events, seed_hint, seed_instruction, seed_waiting
    from combatlog.store import open_store

    db, run = _cave(tmp_path)
    run("mr", "lure", "cave", "bk", "goblin-1", "--as", "alice")
    run("mr", "lure", "cave", "amazon", "goblin-2", "--as", "bob")
    store = open_store(str(db))
    try:
        meta = store.list_streams()[0]
        state = state_at(store, meta).state  # both lures in, bob's link with his: goblin-3 waits for its die
    finally:
        store.close()
    chained = state.chains.all_chained
    waiting = seed_waiting(state, "r1/assign")
    with pytest.raises(IllegalCommand) as refused:
        fresh_seed_events(state, type("Dice", (), {"scheme": "joint"})(), "assign", lambda: ["r1/assign/goblin-3"], "assign")
    assert seed_instruction(chained, "r1/assign", full=True, waiting=waiting) in str(refused.value)
    assert seed_instruction(chained, "r1/assign", waiting=waiting) in seed_hint(state, "assign", "assign")
    # bob's lure carried his chain link (docs/trust.md, "Nonce chains"): the step is open and waits only for
    # gm's and alice's, so nobody tells bob to run mr seed again, nor "every player"
    assert waiting == [("gm", "closes"), ("alice", "link")]
    assert ("step r1/assign waits for gm (his link goes with mr assign, once the others are in), alice (next chain "
            "link: mr seed)") in seed_hint(state, "assign", "assign")
    assert "every player" not in str(refused.value) and "bob" not in str(refused.value)


def test_the_seed_step_reads_the_same_in_status_the_refusal_status_mine_and_the_mail(tmp_path: Path) -> None:
    """The same step through the CLI: ``status`` and the refusal of ``mr assign`` name the same players with
    the same command; ``status --mine`` and the mail to alice give her that command; once she runs it,
    ``mr assign`` is accepted (the referee's own link rides with it: docs/trust.md, "Nonce chains")."""
    db, run = _cave(tmp_path)
    run("mr", "lure", "cave", "bk", "goblin-1", "--as", "alice")
    run("mr", "lure", "cave", "amazon", "goblin-2", "--as", "bob")
    # gm, with no character, owes his link too, but it goes with his mr assign (his status --mine waits)
    said = ("step r1/assign waits for gm (his link goes with mr assign, once the others are in), alice (next "
            "chain link: mr seed)")
    assert said in " ".join(run("status", "cave").split())
    assert not any(m["command"] for m in json.loads(run("status", "cave", "--mine", "--json", "--as", "gm"))["pending"])
    refused = cli(db, "mr", "assign", "cave", "--as", "gm", home=tmp_path / "keys")
    assert refused.code != 0
    assert said.replace("mr seed", "combatlog mr seed STREAM") in " ".join(refused.err.split())
    mine = json.loads(run("status", "cave", "--mine", "--json", "--as", "alice"))["pending"]
    assert [m["command"] for m in mine if m["command"]] == ["combatlog mr seed cave --as alice"]
    assert json.loads(run("status", "cave", "--mine", "--json", "--as", "bob"))["pending"] == []
    run("mail", "cave", "--for", "alice", "-o", str(tmp_path / "to-alice.txt"))
    body = (tmp_path / "to-alice.txt").read_text()
    decide = body[body.index("What you must decide now"):body.index("The bundle")]
    assert "      combatlog mr seed cave --as alice" in decide and mine[0]["what"] in " ".join(decide.split())
    run("mr", "seed", "cave", "--as", "alice")
    run("mr", "assign", "cave", "--as", "gm")
    assert json.loads(run("show", "cave", "--json"))["state"]["step"] == "deploy"


def test_at_resolve_time_the_referee_is_given_mr_resolve_only(tmp_path: Path) -> None:
    """The referee's sealed plays (a chain link, no character: MR 8.4.5 with nonce chains) are revealed
    by ``mr resolve``: his ``status --mine`` lists that one command, not ``seal reveal`` beside it. Each
    player runs the first legal move ``status --mine`` gives him (the first that ``combatlog moves`` lists, where
    it gives that listing)."""
    import shlex

    _db, run = _cave(tmp_path)
    for _turn in range(40):  # a round takes about twenty commands
        gm = json.loads(run("status", "cave", "--mine", "--json", "--as", "gm"))["pending"]
        if any(" mr resolve " in m["command"] for m in gm):
            break
        who, move = next((w, m) for w in ("alice", "bob", "gm")
                         for m in json.loads(run("status", "cave", "--mine", "--json", "--as", w))["pending"]
                         if m["command"])
        words = shlex.split(move["command"])[1:]
        if words[0] == "moves":  # many legal moves: the first listed
            words = json.loads(run(*words, "--json"))["moves"][0]["argv"]
        run(*words)
    assert [m["command"] for m in gm] == ["combatlog mr resolve cave --as gm"]
    assert "seal reveal" not in run("status", "cave", "--mine", "--as", "gm")
    run("mr", "resolve", "cave", "--as", "gm")  # and it is what the step wants


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
    # status tells everyone, once, in a line of its own; the mail to alice says it once too
    status = run("status", "cave")
    assert status.count("alice: out of the fight (bk is gone from the clearing)") == 1
    assert status.count("bk") == 1, status  # no pending item of bk's repeats it
    assert json.loads(run("status", "cave", "--json"))["out_of_the_fight"] == {"alice": "bk is gone from the clearing"}
    run("mail", "cave", "--for", "alice", "-o", str(tmp_path / "to-alice.txt"))
    body = " ".join((tmp_path / "to-alice.txt").read_text().split())
    decide = body[body.index("What you must decide now"):body.index("The bundle")]
    assert decide.count("out of this fight") == 1 and "Nothing: bk is gone from the clearing" in decide
    assert "Nothing is addressed to you" not in decide
