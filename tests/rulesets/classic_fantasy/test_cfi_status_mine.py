"""``status --mine`` in Classic Fantasy gives each player the command lines of his own decisions, and the
mail the same: his combatant's Turn, its Reaction, the Special Effects it won; the referee's step (a new
round) to the player who takes it. Two seats with pinned players run the real CLI and exchange bundles
(tests/trust/pbem.py).

The duel of docs/examples/classic_fantasy/duel.cmds (its round 1 and the start of round 2), played by
pasting what ``status --mine`` gives: each line is run as given, its placeholders (words in capitals)
filled in, with the faces rolled at the table added (``--dice manual``). A command not offered is refused.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.trust.pbem import Seat, mail, pair


def _duel(tmp_path: Path, players: dict[str, list[str]], *options: str) -> tuple[Seat, Seat]:
    setup = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
    setup["players"] = players
    (tmp_path / "duel.json").write_text(json.dumps(setup))
    return pair(tmp_path, "c", ruleset="classic_fantasy", dice="manual", options=options,
                setup=str(tmp_path / "duel.json"))


def _mine(seat: Seat) -> dict[str, Any]:
    return seat("status", "c", "--mine", "--json").json()  # type: ignore[return-value]


def _only(seat: Seat) -> dict[str, Any]:
    """His one move."""
    pending = _mine(seat)["pending"]
    assert len(pending) == 1, pending
    return pending[0]  # type: ignore[no-any-return]


def _run(seat: Seat, line: str, *faces: str, details: tuple[str, ...] = (), **fill: str) -> None:
    """Run ``line`` as given, placeholders filled, with ``--face`` for each of ``faces`` (and an action's
    ``details``, ``-d KEY=VALUE``)."""
    words = [fill.get(w, w) for w in shlex.split(line)]
    assert words[0] == "combatlog" and not any(w.isupper() and len(w) > 2 for w in words), line
    seat(*words[1:], *(x for face in faces for x in ("--face", face)), *(x for d in details for x in ("-d", d)))


def test_a_duel_played_by_pasting_what_status_mine_gives(tmp_path: Path) -> None:
    alice, bob = _duel(tmp_path, {"party": ["alice"], "orcs": ["bob"]})
    # alice created the combat: the new round is her step; bob waits for her
    first = _only(alice)
    assert first["what"] == "start round 1 (rolls Initiative)" and first["command"] == "combatlog cfi round c --as alice"
    assert _mine(bob)["pending"] == [] and _mine(bob)["waiting_for"] == ["alice"]
    # CFI Ch.8 Initiative: Brom 6 +12 -3 = 15, Grak 8 +10 -2 = 16: Grak's Turn
    _run(alice, first["command"], "r1/init/Brom=6", "r1/init/Grak=8")
    mail(alice, bob, "c", tmp_path)

    # Grak is not Engaged yet: he moves into contact (CFI Ch.8 Engagement), the target his to name
    turn = _only(bob)
    assert turn["what"] == "Grak: take a Turn (2 AP left)"
    assert turn["command"] == "combatlog cfi attack c Grak TARGET --moving --as bob" and turn["options"] == ["Brom"]
    assert _mine(alice)["pending"] == [] and _mine(alice)["waiting_for"] == ["bob (Grak)"]
    assert alice("cfi", "attack", "c", "Brom", "Grak", "--moving", ok=False).code == 4  # not Brom's Turn
    _run(bob, turn["command"], "r1/a1/attack=23", TARGET="Brom")
    mail(bob, alice, "c", tmp_path)

    # Brom's Reaction: parry (by default with the largest item he holds, the heater), or evade, or none
    react = _only(alice)
    assert react["what"].startswith("Brom: react to Grak's attack (rolled 23)")
    assert react["command"] == "combatlog cfi parry c Brom --as alice"
    assert react["options"] == ["combatlog cfi evade c Brom --as alice", "combatlog cfi no-defence c Brom --as alice"]
    assert "combatlog cfi parry c Brom --as alice" in _mailed(alice, "alice")  # the mail gives the same line
    assert "gives no command line" not in alice("status", "c", "--mine").out
    assert _mine(bob)["pending"] == []
    _run(alice, react["command"], "r1/a1/parry=18", "r1/a1/location=11", "r1/a1/damage=3,4", "r1/a1/dm=2")
    assert "parry with heater" in alice("explain", "c").out

    # Brom's Turn: he is Engaged with Grak, so no --moving
    turn = _only(alice)
    assert turn["command"] == "combatlog cfi attack c Brom TARGET --as alice" and turn["options"] == ["Grak"]
    _run(alice, turn["command"], "r1/a2/attack=07", TARGET="Grak")
    mail(alice, bob, "c", tmp_path)
    _run(bob, _only(bob)["command"], "r1/a2/parry=55")  # Critical against Success: Brom wins one Special Effect
    mail(bob, alice, "c", tmp_path)
    effects = _only(alice)
    assert effects["what"] == "Brom: choose up to 1 Special Effect(s)"
    assert effects["command"] == "combatlog cfi effects c Brom EFFECT --as alice"
    assert "circumvent_parry" in effects["options"]  # CFI Ch.8 Circumvent Parry: a Critical only
    _run(alice, effects["command"], "r1/a2/location=14", "r1/a2/damage=6", "r1/a2/dm=2", "r1/a2/serious-turns=2",
         "r1/a2/endurance=30", EFFECT="circumvent_parry")

    # Round 1 is spent: the next round (or the end) is alice's step; round 2 rolls no Initiative
    between = _only(alice)
    assert between["command"] == "combatlog cfi round c --as alice"
    assert between["options"] == ["combatlog cfi end c --outcome TEXT --as alice"]
    _run(alice, between["command"])
    mail(alice, bob, "c", tmp_path)
    # CFI Ch.7 Serious Wounds: Grak "cannot attack" for 2 Turns, so no attack is offered (and one is refused):
    # another Combat Action is his to choose
    turn = _only(bob)
    assert turn["command"] == "combatlog cfi act c Grak ACTION --as bob" and "outmaneuver" in turn["options"]
    refused = bob("cfi", "attack", "c", "Grak", "Brom", ok=False)
    assert refused.code == 4 and "Serious Wound" in refused.err
    _run(bob, turn["command"], "r2/a1/outmaneuver=25", "r2/a1/outmaneuver-Brom=60", ACTION="outmaneuver",
         details=("against=Brom", "then=withdraw"))
    assert bob.verify("c")["ok"]


def _mailed(seat: Seat, reader: str) -> list[str]:
    message = seat("mail", "c", "--for", reader, "--json").json()
    return [c for todo in message["yours"] for c in todo["commands"]]  # type: ignore[index]


def test_with_a_referee_the_combatants_no_player_plays_are_his(tmp_path: Path) -> None:
    """docs/classic_fantasy.md, `players`: a side no player plays is the Games Master's. alice referees and plays
    nobody; Grak's Turn is offered to her, and bob, whose Brom waits, is offered nothing (an attack with Grak
    from him is refused)."""
    alice, bob = _duel(tmp_path, {"party": ["bob"]}, "referee=alice")
    assert "alice (the referee) must decide" in alice("status", "c", "--mine").out
    _run(alice, _only(alice)["command"], "r1/init/Brom=6", "r1/init/Grak=8")
    assert _only(alice)["command"] == "combatlog cfi attack c Grak TARGET --moving --as alice"
    mail(alice, bob, "c", tmp_path)
    mine = _mine(bob)
    assert mine["pending"] == [] and mine["waiting_for"] == ["alice (Grak)"]
    assert "nothing now (waiting for alice (Grak))" in bob("status", "c", "--mine").out
    assert bob("cfi", "attack", "c", "Grak", "Brom", "--moving", ok=False).code == 4
    mail(bob, alice, "c", tmp_path)
    _run(alice, _only(alice)["command"], "r1/a1/attack=23", TARGET="Brom")
    mail(alice, bob, "c", tmp_path)
    assert _only(bob)["command"] == "combatlog cfi parry c Brom --as bob"  # Brom's Reaction is bob's
