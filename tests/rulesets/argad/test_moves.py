"""``combatlog moves`` for Argad (argad/candidates.py): what is offered, that each argv makes exactly the
candidate's command, and the fixes the playouts and the dead ends asked for."""

from __future__ import annotations

import json
import random
import shlex
from pathlib import Path
from typing import Any

import pytest

from combatlog.commands.record import encode_record
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.projections.fold import state_at
from combatlog.rulesets.argad import commands as c
from combatlog.store import open_store
from tests.playouts import InProcess, new
from tests.rulesets.argad.argad_helpers import Fight


class Log:
    """One Argad combat in a SQLite file, driven through the CLI in this process."""

    def __init__(self, tmp: Path, name: str, *lines: tuple[str, ...]) -> None:
        self.tmp, self.name = tmp, name
        tmp.mkdir(parents=True, exist_ok=True)
        self.cli = InProcess(tmp / "log.db", tmp / "keys")
        for line in lines:
            self.ok(*line)

    def ok(self, *args: str) -> str:
        code, out, err = self.cli(*args)
        assert code == 0, f"combatlog {shlex.join(args)} exited {code}: {err}"
        return out

    def listing(self) -> dict[str, Any]:
        return json.loads(self.ok("moves", self.name, "--json", "--limit", "100000"))

    def legal(self) -> list[Any]:
        """The offered moves with their commands (in-process: ``Move.command``)."""
        from combatlog.wiring import moves

        store = open_store(str(self.tmp / "log.db"))
        try:
            meta = next(m for m in store.list_streams() if m.name == self.name)
            folded = state_at(store, meta)
            return moves(store, meta, folded)[0]
        finally:
            store.close()

    def last_command_record(self) -> Any:
        """The command record stored on the last batch (the first envelope of the batch carries it)."""
        store = open_store(str(self.tmp / "log.db"))
        try:
            meta = next(m for m in store.list_streams() if m.name == self.name)
            bodies = [json.loads(body) for _, body in store.read_bodies(meta.id)]
        finally:
            store.close()
        return next(b["command"] for b in reversed(bodies) if b.get("command"))


def goblins(tmp: Path) -> Log:
    return Log(tmp, "goblins", new("argad", "goblins", "warrior-vs-goblins.json"))


def band(tmp: Path) -> Log:
    return Log(tmp, "wall", new("argad", "wall", "band-vs-ogre-and-troll.json"))


def kinds(listing: dict[str, Any]) -> set[str]:
    return {m["argv"][1] for m in listing["moves"]}


def test_moving_and_shooting_are_offered(tmp_path: Path) -> None:
    log = band(tmp_path)
    assert kinds(log.listing()) == {"turn", "remove", "recoil-policy"}  # no game turn yet: no figure acts
    log.ok("argad", "turn", "wall")
    offered = log.listing()
    assert {"move", "shoot", "strike", "hold", "end-turn"} <= kinds(offered)
    texts = {m["text"] for m in offered["moves"]}
    assert "knight charges" in texts and "dwarf-xbow stays still" in texts
    assert "archer shoots at troll at short range" in texts  # the seed's cell: no --need
    argvs = {tuple(m["argv"]) for m in offered["moves"]}
    assert ("argad", "shoot", "wall", "archer", "--at", "troll", "--range", "short") in argvs
    # Argad: Ranged weapons: "war crossbows shoot immobile": once the Dwarf has moved, it is not offered a shot
    log.ok("argad", "move", "wall", "dwarf-xbow")
    assert not [m for m in log.listing()["moves"] if m["argv"][1] == "shoot" and m["argv"][3] == "dwarf-xbow"]


def test_a_longbow_at_medium_range_is_the_referees_reading_of_the_generic_table(tmp_path: Path) -> None:
    """The seed gives no longbow threshold at medium range (data/shooting.json): the shot offered is the referee's
    reading of the generic shooting table, --need N for each N of its range (shooting.NEED_RANGE: 2 to 8)."""
    log = band(tmp_path)
    log.ok("argad", "turn", "wall")
    medium = [m for m in log.listing()["moves"]
              if m["argv"][:6] == ["argad", "shoot", "wall", "archer", "--at", "ogre"] and "medium" in m["argv"]
              and m["argv"].count("--at") == 1]
    needs = [int(m["argv"][m["argv"].index("--need") + 1]) for m in medium]
    assert needs == list(range(2, 9))
    assert all("the referee's reading of the generic shooting table" in m["text"] for m in medium)
    log.ok(*medium[3]["argv"])  # offered: taken
    # the refusal without --need says the same (and the range)
    f = Fight([{"name": "bow", "side": "a", "species": "human", "missile": "longbow"},
               {"name": "man", "side": "b", "species": "human"}])
    f.turn()
    with pytest.raises(IllegalCommand, match=r"referee's reading of the generic shooting table .*"
                                             r"given with --need N \(N from 2 to 8\)"):
        f.run(c.Shoot(shooters=("bow",), targets=("man",), range="medium"))
    for need in (1, 9):  # out of the range a referee may read
        with pytest.raises(InvalidCommand, match="from 2 to 8"):
            f.run(c.Shoot(shooters=("bow",), targets=("man",), range="medium", need=need))
    f.run(c.Shoot(shooters=("bow",), targets=("man",), range="medium", need=8), {"t1/shoot/man/bow": 3})


def test_after_the_last_enemy_dies_the_combat_is_not_finished_but_ends_by_a_ruling(tmp_path: Path) -> None:
    """Argad: game turn: once one side is left, there is no game turn to play; the referee ends the combat. No view
    says both "finished" and "end the combat": it is not finished until ended."""
    log = goblins(tmp_path)
    log.ok("argad", "turn", "goblins")
    for gob in ("gob-a", "gob-b", "gob-c", "gob-d", "gob-e", "gob-f"):
        log.ok("argad", "remove", "goblins", gob)
    log.ok("argad", "end-turn", "goblins")
    offered = log.listing()
    assert not offered["finished"]
    assert [m["argv"] for m in offered["moves"]] == [
        ["argad", "end", "goblins", "--outcome", "humans wins"], ["argad", "remove", "goblins", "--reason", "fled",
                                                                  "warrior"]]
    status = log.ok("status", "goblins")
    assert "end the combat" in status and "finished" not in status
    status_json = json.loads(log.ok("status", "goblins", "--json"))
    assert status_json["finished"] is False
    code, _out, err = log.cli("argad", "turn", "goblins")  # no enemy to fight
    assert code != 0 and "only side humans is left" in err and "argad end" in err
    log.ok("argad", "end", "goblins", "--outcome", "humans wins")
    status = log.ok("status", "goblins")
    assert "finished" in status and "end the combat" not in status
    assert log.listing() == {"moves": [], "complete": True, "finished": True, "total": 0, "waiting": []}


def test_a_table_emptied_before_the_first_game_turn_ends_by_a_ruling(tmp_path: Path) -> None:
    """Playout argad/goblins seed 31 (COMBATLOG_PLAYOUTS=200): every figure fled before game turn 1, and nothing
    was offered ("start game turn 1" was refused: no figure on the table). Argad: game turn: with no enemy left
    there is no game turn to fight; the referee ends the combat."""
    log = goblins(tmp_path)
    for gob in ("gob-a", "gob-b", "gob-c", "gob-d", "gob-e", "gob-f"):
        log.ok("argad", "remove", "goblins", gob)
    assert [m["argv"][:3] for m in log.listing()["moves"]] == [["argad", "end", "goblins"],
                                                               ["argad", "remove", "goblins"]]
    code, _out, err = log.cli("argad", "turn", "goblins")
    assert code != 0 and "only side humans is left" in err
    log.ok("argad", "remove", "goblins", "warrior")
    assert [m["argv"] for m in log.listing()["moves"]] == [
        ["argad", "end", "goblins", "--outcome", "no figure is left on the table"]]
    assert "no figure is left: end the combat" in log.ok("status", "goblins")
    log.ok("argad", "end", "goblins", "--outcome", "no figure is left on the table")
    assert log.listing()["finished"]
    # a combat no figure has left yet waits for its figures: an empty set-up is not over
    empty = Log(tmp_path / "empty", "empty", new("argad", "empty"))
    assert "end the combat" not in empty.ok("status", "empty")


def _spy_commands(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Capture the command each CLI line would execute, executing none (combatlog.wiring.execute)."""
    import combatlog.wiring

    seen: list[Any] = []

    class Parsed(Exception):
        pass

    def spy(_store: Any, _stream: Any, command: Any, **_kw: Any) -> Any:
        seen.append(command)
        raise Parsed()

    monkeypatch.setattr(combatlog.wiring, "execute", spy)
    return seen


@pytest.mark.parametrize("which,seed", [("goblins", 3), ("wall", 5)])
def test_every_offered_argv_parses_into_its_candidates_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               which: str, seed: int) -> None:
    """For the states of a random playout: every offered argv, through the CLI's own parser, is exactly the
    candidate's command (compared as the command records a log stores); and the move played is stored so."""
    log = (goblins if which == "goblins" else band)(tmp_path)
    rng = random.Random(seed)
    for _ in range(40):
        moves = log.legal()
        if not moves:
            break
        with monkeypatch.context() as m:
            seen = _spy_commands(m)
            for move in moves:
                log.cli(*move.argv)
                assert seen, f"combatlog {shlex.join(move.argv)} made no command"
                assert encode_record("argad", seen.pop()) == encode_record("argad", move.command), move.argv
        played = rng.choice(moves)
        log.ok(*played.argv)
        assert log.last_command_record() == json.loads(encode_record("argad", played.command))
