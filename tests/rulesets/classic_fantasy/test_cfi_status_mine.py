"""``status --mine`` in Classic Fantasy gives each player the command lines of his own decisions, and the
mail the same: his combatant's Turn, its Reaction, the Special Effects it won; the referee's step (a new
round) to the player who takes it. Two seats with pinned players run the real CLI and exchange bundles
(tests/trust/pbem.py).

The duel of docs/examples/classic_fantasy/duel.cmds (its round 1 and the start of round 2), played through
the legal moves that ``status --mine`` gives or counts (``combatlog moves --as``): each line is run as
given, with the faces rolled at the table added (``--dice manual``). A command not offered is refused.
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


def _decisions(seat: Seat) -> list[dict[str, Any]]:
    """What ``status --mine`` says he owes (without the rulings any player may make where nobody referees)."""
    return [m for m in _mine(seat)["pending"] if not m["what"].startswith(("rulings you may make",
                                                                          "a ruling you may make"))]


def _only(seat: Seat) -> dict[str, Any]:
    """His one decision."""
    pending = _decisions(seat)
    assert len(pending) == 1, pending
    return pending[0]  # type: ignore[no-any-return]


def _legal(seat: Seat, verb: str) -> list[str]:
    """His legal moves (combatlog moves --as) whose command is ``cfi VERB``, as command lines."""
    listed = seat("moves", "c", "--json", "--as", seat.name).json()["moves"]  # type: ignore[index]
    return [shlex.join(["combatlog", *m["argv"]]) for m in listed if m["argv"][:2] == ["cfi", verb]]


def _lines(entry: dict[str, Any]) -> list[str]:
    return [entry["command"], *entry["options"]]


def _run(seat: Seat, line: str, *faces: str, details: tuple[str, ...] = ()) -> None:
    """Run ``line`` as given, with ``--face`` for each of ``faces`` (and an action's ``details``, ``-d KEY=VALUE``)."""
    words = shlex.split(line)
    assert words[0] == "combatlog", line
    seat(*words[1:], *(x for face in faces for x in ("--face", face)), *(x for d in details for x in ("-d", d)))


def test_a_duel_played_by_pasting_what_status_mine_gives(tmp_path: Path) -> None:
    alice, bob = _duel(tmp_path, {"party": ["alice"], "orcs": ["bob"]})
    # alice created the combat: the new round is her step; bob waits for her
    first = _only(alice)
    assert first["what"] == "start round 1 (rolls Initiative)" and first["command"] == "combatlog cfi round c --as alice"
    assert _decisions(bob) == [] and _mine(bob)["waiting_for"] == ["alice"]
    # CFI Ch.8 Initiative: Brom 6 +12 -3 = 15, Grak 8 +10 -2 = 16: Grak's Turn
    _run(alice, first["command"], "r1/init/Brom=6", "r1/init/Grak=8")
    mail(alice, bob, "c", tmp_path)

    # Grak is not Engaged yet: he moves into contact (CFI Ch.8 Engagement)
    turn = _only(bob)
    assert turn["what"].startswith("Grak: take a Turn (2 AP left)")
    attack = "combatlog cfi attack c Grak Brom --weapon 'great axe' --moving --as bob"
    assert attack in _legal(bob, "attack")
    assert "combatlog cfi attack c Grak Brom --weapon 'great axe' --as bob" not in _legal(bob, "attack")
    assert _decisions(alice) == [] and _mine(alice)["waiting_for"] == ["bob (Grak)"]
    assert not _legal(alice, "attack")
    assert alice("cfi", "attack", "c", "Brom", "Grak", "--moving", ok=False).code == 4  # not Brom's Turn
    _run(bob, attack, "r1/a1/attack=23")
    mail(bob, alice, "c", tmp_path)

    # Brom's Reaction: parry (by default with the largest item he holds, the heater), or evade, or none
    react = _only(alice)
    assert react["what"].startswith("Brom: react to Grak's attack (rolled 23)")
    parry = "combatlog cfi parry c Brom --weapon heater --as alice"
    assert {parry, "combatlog cfi evade c Brom --as alice", "combatlog cfi no-defence c Brom --as alice"} \
        <= set(_lines(react))
    assert parry in _mailed(alice, "alice")  # the mail gives the same lines
    assert "gives no command line" not in alice("status", "c", "--mine").out
    assert [m["what"] for m in _decisions(bob)] in ([], ["Grak: one of 2 moves"])  # (at most his Luck on the roll)
    _run(alice, parry, "r1/a1/parry=18", "r1/a1/location=11", "r1/a1/damage=3,4",
         "r1/a1/dm=2")
    assert "parry with heater" in alice("explain", "c").out

    # Brom's Turn: he is Engaged with Grak, so no --moving
    brom = "combatlog cfi attack c Brom Grak --weapon longsword --as alice"
    assert brom in _legal(alice, "attack") and not any("--moving" in line for line in _legal(alice, "attack"))
    _run(alice, brom, "r1/a2/attack=07")
    mail(alice, bob, "c", tmp_path)
    _run(bob, "combatlog cfi parry c Grak --weapon 'great axe' --as bob", "r1/a2/parry=55")  # Critical against Success: one effect
    mail(bob, alice, "c", tmp_path)
    effects = _only(alice)
    assert effects["what"].startswith("Brom: choose up to 1 Special Effect(s)")
    circumvent = "combatlog cfi effects c Brom circumvent_parry --as alice"  # CFI Ch.8 Circumvent Parry: a Critical
    assert circumvent in _legal(alice, "effects")
    _run(alice, circumvent, "r1/a2/location=14", "r1/a2/damage=6", "r1/a2/dm=2", "r1/a2/serious-turns=2",
         "r1/a2/endurance=30")

    # Round 1 is spent: the next round (or the end) is alice's step; round 2 rolls no Initiative
    between = next(m for m in _decisions(alice) if m["what"].startswith("start round 2"))  # (and his Luck)
    assert between["command"] == "combatlog cfi round c --as alice"
    assert any(line.startswith("combatlog cfi end c --outcome ") for line in _legal(alice, "end"))
    _run(alice, between["command"])
    mail(alice, bob, "c", tmp_path)
    # CFI Ch.7 Serious Wounds: Grak "cannot attack" for 2 Turns, so no attack is offered (and one is refused):
    # another Combat Action is his to choose
    assert not _legal(bob, "attack")
    refused = bob("cfi", "attack", "c", "Grak", "Brom", ok=False)
    assert refused.code == 4 and "Serious Wound" in refused.err
    outmaneuver = next(line for line in _legal(bob, "act") if " outmaneuver " in line and "then=withdraw" in line)
    _run(bob, outmaneuver, "r2/a1/outmaneuver=25", "r2/a1/outmaneuver-Brom=60")
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
    _run(alice, "combatlog cfi round c --as alice", "r1/init/Brom=6", "r1/init/Grak=8")
    attack = "combatlog cfi attack c Grak Brom --weapon 'great axe' --moving --as alice"
    assert attack in _legal(alice, "attack")
    mail(alice, bob, "c", tmp_path)
    mine = _mine(bob)
    assert mine["pending"] == [] and mine["waiting_for"] == ["alice (Grak)"]
    assert "nothing now (waiting for alice (Grak))" in bob("status", "c", "--mine").out
    assert bob("cfi", "attack", "c", "Grak", "Brom", "--moving", ok=False).code == 4
    mail(bob, alice, "c", tmp_path)
    _run(alice, attack, "r1/a1/attack=23")
    mail(alice, bob, "c", tmp_path)
    assert "combatlog cfi parry c Brom --weapon heater --as bob" in _lines(_only(bob))  # Brom's Reaction is bob's
