"""What ``status`` and ``status --mine`` tell an Argad player, by the real CLI.

Ending a game turn gives up the blows still open (seed 004 'Wounds': a creature wounded "before it could
strike" does not strike that turn; the Goblin example of 'Natural dice maximum rule': the blows of one step
land "at the same time", "Then" the shorter ones), so where players are bound to the sides only they, or the
referee, may end it before those figures have struck or held (argad/authority.py). In a hot seat nothing is
enforced: one person types everything.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from tests.conftest import REPO, Cli
from tests.rulesets.argad.test_hold_by_mail import SETUP as HOLD_SETUP
from tests.trust.pbem import Seat, mail, pair

GOBLINS = str(REPO / "docs/examples/argad/warrior-vs-goblins.json")


def test_a_hot_seat_is_not_told_that_only_the_players_may_end_the_turn(cli: Cli) -> None:
    cli("new", "g", "--ruleset", "argad", "--setup", GOBLINS, "--dice", "manual")
    cli("argad", "turn", "g")
    status = cli("status", "g").out
    assert "end game turn 1 once warrior, gob-a, gob-b, gob-c, gob-d, gob-e, gob-f have struck or held" in status
    assert "before that, only" not in status and "may end it" not in status
    cli("argad", "end-turn", "g", "--as", "gob-player")  # and indeed anyone may end it


# -- status --mine by mail: the command lines, run as given ---------------------------------------------------

# tests/rulesets/argad/test_hold_by_mail.py's table: alice's warrior (two-handed axe, half-long) and archer
# (short), bob's Ogre (two-handed axe, half-long) and Goblin (short). Seed 004, 'Melee peculiarities': the
# longer weapons strike first.
SETUP = {key: value for key, value in HOLD_SETUP.items() if key != "title"}


def _table(tmp_path: Path, dice: str, *options: str) -> tuple[Seat, Seat]:
    (tmp_path / "setup.json").write_text(json.dumps(SETUP))
    return pair(tmp_path, "t", ruleset="argad", dice=dice, options=options, setup=str(tmp_path / "setup.json"))


def _mine(seat: Seat) -> dict[str, Any]:
    return seat("status", "t", "--mine", "--json").json()  # type: ignore[return-value]


def _moves(seat: Seat) -> dict[str, dict[str, Any]]:
    """His moves by what they are about (the figure, or the step)."""
    return {m["what"].split(":")[0].split(" once")[0]: m for m in _mine(seat)["pending"]}


def _commands(seat: Seat) -> list[str]:
    return [m["command"] for m in _mine(seat)["pending"] if m["command"]]


def _run(seat: Seat, line: str) -> None:
    """Run a command line exactly as it was offered."""
    words = shlex.split(line)
    assert words[0] == "combatlog", line
    seat(*words[1:])


def _legal(seat: Seat, verb: str = "") -> list[str]:
    """The seat's legal moves (combatlog moves --as), as command lines; only ``argad VERB`` ones with a verb."""
    listed = seat("moves", "t", "--json", "--as", seat.name).json()["moves"]  # type: ignore[index]
    lines = [shlex.join(["combatlog", *m["argv"]]) for m in listed]
    return [line for line in lines if line.split()[1:3] == ["argad", verb]] if verb else lines


def test_each_player_is_offered_his_figures_blows_and_holds_and_every_line_runs(tmp_path: Path) -> None:
    alice, bob = _table(tmp_path, "local")  # no referee: alice, who created it, runs the procedure's steps
    assert "combatlog argad turn t --as alice" in _commands(alice)
    assert not _legal(bob, "turn") or "combatlog argad turn t --as bob" not in _commands(bob)  # hers to run
    _run(alice, "combatlog argad turn t --as alice")
    mail(alice, bob, "t", tmp_path)

    # bob: each of his figures' blows at each enemy, and the hold beside them; nothing of alice's
    strikes, holds = _legal(bob, "strike"), _legal(bob, "hold")
    assert "combatlog argad strike t ogre --at warrior --as bob" in strikes
    assert {"combatlog argad hold t ogre --as bob", "combatlog argad hold t gob --as bob"} <= set(holds)
    assert not any(" warrior --at" in c or " archer --at" in c for c in strikes)
    mine = _moves(bob)
    assert {"ogre", "gob"} <= set(mine)
    said = bob("status", "t", "--mine").out
    assert "gives no command line" not in said
    message = alice("mail", "t", "--for", "bob", "--json").json()  # the mail alice sends him gives his moves
    assert any(c.startswith("combatlog argad ") and c.endswith("--as bob") for todo in message["yours"]  # type: ignore[index]
               for c in todo["commands"])
    # alice: her figures' blows; the end of the turn is not hers while bob's blows are open: not offered, and
    # indeed refused
    assert "combatlog argad strike t warrior --at ogre --as alice" in _legal(alice, "strike")
    assert not _legal(alice, "end-turn")
    assert alice("argad", "end-turn", "t", ok=False).code == 4

    # turn 1: the archer holds, the axe strikes the Ogre
    _run(alice, "combatlog argad hold t archer --as alice")
    _run(alice, "combatlog argad strike t warrior --at ogre --as alice")
    mail(alice, bob, "t", tmp_path)
    # only bob's blows are open now: he may end the turn over them (argad/authority.py)
    assert _legal(bob, "end-turn") == ["combatlog argad end-turn t --as bob"]
    _run(bob, "combatlog argad hold t gob --as bob")
    _run(bob, "combatlog argad strike t ogre --at warrior --as bob")
    assert not _legal(bob, "strike") and not _legal(bob, "hold")
    mail(bob, alice, "t", tmp_path)
    # every blow is struck or held: the end of the turn is offered to alice, and goes through
    assert "combatlog argad end-turn t --as alice" in _commands(alice)
    _run(alice, "combatlog argad end-turn t --as alice")
    assert "combatlog argad turn t --as alice" in _commands(alice)
    assert alice.verify("t")["ok"]


def test_the_referee_is_offered_the_end_of_a_turn_over_the_blows_still_open(tmp_path: Path) -> None:
    """A referee may end the turn over any side's open blows (argad/authority.py): his end of the turn is
    offered while bob's figures may still strike; bob, who takes no referee's step, is not offered it."""
    alice, bob = _table(tmp_path, "local", "referee=alice")
    _run(alice, "combatlog argad turn t --as alice")
    assert "alice (the referee) must decide" in alice("status", "t", "--mine").out
    assert _legal(alice, "end-turn") == ["combatlog argad end-turn t --as alice"]
    mail(alice, bob, "t", tmp_path)
    assert not _legal(bob, "end-turn") and not any("end-turn" in line for line in _commands(bob))
    assert bob("argad", "end-turn", "t", ok=False).code == 4  # (alice's figures are open: not his to end)
    _run(alice, "combatlog argad end-turn t --as alice")
    assert alice.verify("t")["ok"]


def test_with_joint_dice_a_blow_is_struck_first_and_its_dice_drawn_after_a_fresh_seed(tmp_path: Path) -> None:
    """Joint dice with nonce chains, strict mode (Argad 3, docs/trust.md "No foreseeable dice"): a blow is a
    choice, offered and made while the seed is known; its dice wait (a decision point, ``choice.deferred``) for a
    seed step completed after it, to which every player then owes his link; the resolve draws them."""
    alice, bob = _table(tmp_path, "joint")
    alice("seal", "chain", "t")
    _run(alice, "combatlog argad turn t --as alice")  # it rolls no dice
    mail(alice, bob, "t", tmp_path)
    bob("seal", "chain", "t")
    strike = "combatlog argad strike t ogre --at warrior --as bob"
    assert strike in _legal(bob, "strike") and not any(" seal link " in c for c in _commands(bob))
    _run(bob, strike)  # the choice first: its dice are not drawn from a seed he knew
    kinds = [e["type"] for e in bob("log", "t", "--json").json()]  # type: ignore[union-attr]
    assert kinds[-1] == "choice.deferred" and "core.dice_rolled" not in kinds
    link = next(c for c in _commands(bob) if " seal link " in c)
    _run(bob, link)
    mail(bob, alice, "t", tmp_path)
    _run(alice, next(c for c in _commands(alice) if " seal link " in c))
    resolve = next(c for c in _commands(alice) if c.startswith("combatlog argad resolve t"))
    _run(alice, resolve)
    kinds = [e["type"] for e in alice("log", "t", "--json").json()]  # type: ignore[union-attr]
    assert "choice.resolved" in kinds and "core.dice_rolled" in kinds[kinds.index("choice.resolved"):]
    assert alice.verify("t")["ok"]


def test_a_player_whose_blows_alone_are_open_is_offered_the_end_of_the_turn_and_it_runs(tmp_path: Path) -> None:
    """No referee: alice runs the procedure. Once alice's figures have struck or held, the blows still open are
    bob's alone, and ending the turn over them is his (argad/authority.py: a side's players may give up their
    own blows): it is among his moves, and it goes through."""
    alice, bob = _table(tmp_path, "local")
    _run(alice, "combatlog argad turn t --as alice")
    mail(alice, bob, "t", tmp_path)
    assert not _legal(bob, "end-turn")  # alice's blows are open too: not his to end
    for figure in ("archer", "warrior"):
        _run(alice, f"combatlog argad hold t {figure} --as alice")
    mail(alice, bob, "t", tmp_path)
    assert _legal(bob, "end-turn") == ["combatlog argad end-turn t --as bob"]
    said = " ".join(c for m in _mine(bob)["pending"] for c in [m["command"], *m["options"]])
    assert "combatlog argad end-turn t --as bob" in said or "combatlog moves t --as bob" in said
    _run(bob, "combatlog argad end-turn t --as bob")
    mail(bob, alice, "t", tmp_path)
    assert "combatlog argad turn t --as alice" in _commands(alice)  # the turn is over: alice starts the next
    assert alice.verify("t")["ok"]
