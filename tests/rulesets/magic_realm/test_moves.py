"""Magic Realm's offered moves (``combatlog moves``; rulesets/magic_realm/candidates.py).

Each offered argv, run through the real CLI, must make exactly the command its candidate holds: checked on the
states a random playout passes through, with the command the CLI hands to the write path captured (sealed plays
included, whose record never enters the log). And the count per state stays sane; the plays come one group per
character; ``mr pass`` plays a quiet round in one command, recorded step by step.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from combatlog.commands.record import encode_record
from combatlog.projections.fold import state_at
from combatlog.rulesets.magic_realm import commands as c
from combatlog.store import open_store
from tests.playouts import InProcess, SETUPS
from tests.rulesets.magic_realm.mr_helpers import Game

SETUP = {
    "clearing": {"name": "Cave 4", "type": "cave"},
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "goblin-1", "monster": "Axe Goblin"}],
}


def _melee(g: Game) -> None:
    """Luring passed, the goblin assigned to the Amazon, nobody deployed, no action, the Melee Step started."""
    g.do(c.Lure(character="amazon"))
    g.do(c.Lure(character="bk"))
    g.do(c.Assign(), {"r1/assign/goblin-1": (1,)})
    g.encounter(["amazon", "bk"], attention=(1,))


def _folded(db: Path, name: str) -> Any:
    store = open_store(str(db))
    meta = next(m for m in store.list_streams() if m.name == name)
    return state_at(store, meta)


def _without_as(argv: list[str]) -> tuple[str, ...]:
    if len(argv) >= 2 and argv[-2] == "--as":
        return tuple(argv[:-2])
    return tuple(argv)


def _captured(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    import combatlog.wiring as wiring

    seen: list[Any] = []
    real = wiring.execute

    def spy(store: Any, ref: Any, command: Any, **kwargs: Any) -> Any:
        seen.append(command)
        return real(store, ref, command, **kwargs)

    monkeypatch.setattr(wiring, "execute", spy)
    return seen


@pytest.mark.parametrize("name", ["giant-goblins", "sealed-bashkars"])
def test_each_offered_argv_parses_into_its_candidates_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              name: str) -> None:
    setup = next(s for s in SETUPS["magic_realm"] if s.name == name)
    run = InProcess(tmp_path / "log.db", tmp_path / "keys")
    for player in setup.players:
        assert run("keys", "new", player)[0] == 0
    for line in setup.lines:
        assert run(*line)[0] == 0, line
    rng = random.Random(7)
    checked = 0
    for _turn in range(14):  # a handful of states: luring, deployment, actions, targets, plays, fatigue...
        code, out, err = run("moves", name, "--json", "--limit", "100000")
        assert code == 0, err
        listing = json.loads(out)
        if listing["finished"]:
            break
        folded = _folded(tmp_path / "log.db", name)
        commands = {cand.argv: cand.command for cand in folded.ruleset.candidates(folded.state, name)}
        moves = listing["moves"]
        assert 0 < len(moves) <= 400, f"{len(moves)} moves offered"
        for move in rng.sample(moves, min(6, len(moves))):
            copy = tmp_path / f"try-{checked}"
            copy.mkdir()
            for part in tmp_path.glob("log.db*"):  # the database and its write-ahead log
                shutil.copy(part, copy / part.name)
            seen = _captured(monkeypatch)
            code, _out, err = InProcess(copy / "log.db", tmp_path / "keys")(*move["argv"])
            monkeypatch.undo()
            assert code == 0, f"{move['argv']}: {err}"
            want = commands[_without_as(move["argv"])]
            assert seen, move["argv"]
            assert encode_record("magic_realm", seen[-1]) == encode_record("magic_realm", want), move["argv"]
            checked += 1
        move = rng.choice(moves)
        assert run(*move["argv"])[0] == 0
    assert checked >= 30


def test_the_plays_are_listed_by_parts_one_group_per_character() -> None:
    g = Game(SETUP)
    _melee(g)
    for cid in g.state.attention:
        g.do(c.Target(character=cid, target="goblin-1"))
    plays = [x for x in g.folded.ruleset.candidates(g.state, "t") if isinstance(x.command, c.Play)]
    assert {x.group for x in plays} == {"amazon:plays", "bk:plays"}
    assert len(plays) < 300
    bk = [x for x in plays if x.piece == "bk"]
    # every attack option and every maneuver option is offered; each candidate a whole play, words of the game
    assert any(x.command.attack == 3 and x.command.fight == "F1" for x in bk)
    assert any(x.command.maneuver == 3 for x in bk) and any(not x.command.attack and not x.command.maneuver for x in bk)
    assert any("smashes at goblin-1 with" in x.text for x in bk) and any("dodges with" in x.text for x in bk)
    assert not any("attack 1" in x.text for x in bk)
    # the Amazon's shield is active: every play of hers places it, and says that it must
    amazon = [x for x in plays if x.piece == "amazon"]
    assert all(x.command.shield in (1, 2, 3) for x in amazon)
    assert all("an active shield must be placed" in x.text for x in amazon)


def test_mr_chits_names_the_weapon_armor_and_the_shield_requirement(tmp_path: Path) -> None:
    """MR 8.4.5: a Fight chit weaker than the weapon, a Move chit weaker than the heaviest item, is cancelled; an
    active shield must be played. The chits view gives what a player needs to pick legal chits."""
    run = InProcess(tmp_path / "log.db", tmp_path / "keys")
    setup = tmp_path / "s.json"
    setup.write_text(json.dumps(SETUP))
    assert run("new", "t", "--ruleset", "magic_realm", "--setup", str(setup), "--dice", "local")[0] == 0
    code, out, _err = run("mr", "chits", "t")
    assert code == 0
    assert "weapon    Short Sword, weight L, unalerted: a Fight chit weaker than L is cancelled (MR 8.4.5)" in out
    assert "Shield (shield, weight M, intact)" in out
    assert "the Shield is active: every play must put it in a box (mr play ... --shield 1|2|3, MR 8.4.5)" in out


def test_mr_pass_plays_a_quiet_round_step_by_step() -> None:
    """MR tables, End of combat: two rounds without harm, fatigue or spells end it. With nobody left to fight a
    round is a formality, but each of its steps is recorded (MR 001): mr pass takes them all in one command."""
    g = Game({**SETUP, "denizens": []})
    assert g.state.step == "deploy"
    out = g.do(c.Pass(), {"r1/attention/1": (1,)})
    tags = [type(r.event).__name__ for r in out.events]
    assert tags.count("Deployed") == 2 and tags.count("ActionDeclared") == 2 and tags.count("TargetsChosen") == 2
    assert tags.count("PlaysMade") == 2 and "MeleeStarted" in tags and "MeleeResolved" in tags
    assert g.state.round == 2 and not g.state.ended
    g.do(c.Pass(), {"r2/attention/1": (2,)})
    assert g.state.ended and "two consecutive rounds" in g.state.end_reason


def test_mr_pass_is_refused_while_a_monster_fights() -> None:
    from combatlog.errors import IllegalCommand

    g = Game(SETUP)
    g.do(c.Lure(character="amazon"))
    g.do(c.Lure(character="bk"))
    g.do(c.Assign(), {"r1/assign/goblin-1": (1,)})
    with pytest.raises(IllegalCommand, match="nobody left to fight: goblin-1 still fight"):
        g.do(c.Pass())


def test_the_attention_chit_and_the_reveal_in_the_games_words() -> None:
    """Neutral words for the Attention chit (MR 8.4.2), the circles and squares named (MR 8.4.5), and no line
    about native horses where no native rides one (MR 8.4.1)."""
    g = Game(SETUP)
    _melee(g)
    for cid in g.state.attention:
        g.do(c.Target(character=cid, target="goblin-1"))
    g.do(c.Play(character="bk", attack=1, fight="F1", maneuver=2, move="M1", shield=1))
    g.do(c.Play(character="amazon", shield=3))
    text = g.text()
    assert "puts the Attention chit on" in text and "his Attention chit" not in text
    assert "Black Knight reveals: thrust with F1" in text and "; dodge with M1" in text
    assert "shield in box 3 (Duck and Smash)" in text
    assert "native horses" not in text
