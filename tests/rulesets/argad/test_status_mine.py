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


def _run(seat: Seat, line: str, **fill: str) -> None:
    """Run a command line as ``status --mine`` gave it, its placeholders (words in capitals) filled in."""
    words = [fill.get(w, w) for w in shlex.split(line)]
    assert words[0] == "combatlog" and not any(w.isupper() and len(w) > 2 for w in words), line
    seat(*words[1:])


def test_each_player_is_offered_his_figures_blows_and_holds_and_every_line_runs(tmp_path: Path) -> None:
    alice, bob = _table(tmp_path, "local")  # no referee: alice, who created it, runs the procedure's steps
    assert _commands(alice) == ["combatlog argad turn t --as alice"]
    assert _commands(bob) == [] and _mine(bob)["waiting_for"] == ["alice"]
    _run(alice, _commands(alice)[0])
    mail(alice, bob, "t", tmp_path)

    # bob: each of his figures' blows, the hold beside it (his to choose); nothing of alice's
    theirs = _moves(bob)
    assert list(theirs) == ["ogre", "gob"]
    assert theirs["ogre"]["command"] == "combatlog argad strike t ogre --at TARGET --as bob"
    assert theirs["ogre"]["options"] == ["combatlog argad hold t ogre --as bob"]
    assert theirs["gob"]["options"] == ["combatlog argad hold t gob --as bob"]
    said = bob("status", "t", "--mine").out
    assert "combatlog argad strike t gob --at TARGET --as bob" in said and "gives no command line" not in said
    message = alice("mail", "t", "--for", "bob", "--json").json()  # the mail alice sends him gives the same lines
    assert "combatlog argad strike t ogre --at TARGET --as bob" in [c for todo in message["yours"]  # type: ignore[index]
                                                                    for c in todo["commands"]]
    # alice: her figures' blows, and the end of the turn, which is not hers while bob's blows are open: no
    # command for it, and the command is indeed refused
    mine = _moves(alice)
    assert list(mine) == ["warrior", "archer", "end game turn 1"]
    end = mine["end game turn 1"]
    assert end["command"] == "" and "strike or hold first" in end["waiting"]
    assert alice("argad", "end-turn", "t", ok=False).code == 4

    # Turn 1, each pasting what he was given: the archer is out of contact (held), the axe strikes the Ogre
    _run(alice, mine["archer"]["options"][0])
    _run(alice, mine["warrior"]["command"], TARGET="ogre")
    mail(alice, bob, "t", tmp_path)
    # only bob's blows are open now: he may end the turn over them (argad/authority.py), which is offered last
    assert list(_moves(bob)) == ["ogre", "gob", "or end game turn 1 now, giving up the blows of ogre, gob"]
    _run(bob, _moves(bob)["gob"]["options"][0])
    _run(bob, _moves(bob)["ogre"]["command"], TARGET="warrior")
    assert _mine(bob)["pending"] == [] and _mine(bob)["waiting_for"] == ["alice"]  # nothing left to him
    mail(bob, alice, "t", tmp_path)
    # every blow is struck or held: the end of the turn is offered to alice, and goes through
    assert _commands(alice) == ["combatlog argad end-turn t --as alice"]
    _run(alice, _commands(alice)[0])
    assert _commands(alice) == ["combatlog argad turn t --as alice"]
    assert alice.verify("t")["ok"]


def test_the_referee_is_offered_the_end_of_a_turn_over_the_blows_still_open(tmp_path: Path) -> None:
    """A referee may end the turn over any side's open blows (argad/authority.py): his end of the turn has its
    command while bob's figures may still strike; bob, who takes no referee's step, is not offered it."""
    alice, bob = _table(tmp_path, "local", "referee=alice")
    _run(alice, _commands(alice)[0])  # argad turn
    assert "alice (the referee) must decide" in alice("status", "t", "--mine").out
    assert _commands(alice)[-1] == "combatlog argad end-turn t --as alice"
    mail(alice, bob, "t", tmp_path)
    assert not any("end-turn" in line for line in _commands(bob))
    assert bob("argad", "end-turn", "t", ok=False).code == 4  # (alice's figures are open: not his to end)
    _run(alice, _commands(alice)[-1])
    assert alice.verify("t")["ok"]


def test_with_joint_dice_the_seed_step_comes_before_the_blows(tmp_path: Path) -> None:
    """Joint dice with nonce chains: inside a game turn every pinned player owes his link to the turn's seed
    step first (``seed_needed``), and no blow is offered before the seed is there (a strike then is refused)."""
    alice, bob = _table(tmp_path, "joint")
    alice("seal", "chain", "t")
    _run(alice, _commands(alice)[0])  # argad turn: it rolls no dice
    mail(alice, bob, "t", tmp_path)
    bob("seal", "chain", "t")
    link = "combatlog seal link t --step t1 --as bob"  # named after the turn, as Argad's dice labels begin
    assert _commands(bob) == [link]
    ogre = _moves(bob)
    assert "joint dice need a seed first" in _mine(bob)["pending"][0]["what"]
    assert "gob" in ogre and ogre["gob"]["command"] == "" and ogre["gob"]["waiting"]
    # the hold rolls no dice: it stays offered while the strike waits for the seed, and goes through before it
    assert ogre["gob"]["options"] == ["combatlog argad hold t gob --as bob"]
    _run(bob, ogre["gob"]["options"][0])
    assert "gob" not in _moves(bob)
    refused = bob("argad", "strike", "t", "ogre", "--at", "warrior", ok=False)
    assert refused.code == 4 and "no joint dice seed yet" in refused.err
    # the refusal names the step status --mine offers (it said t1 where status --mine said r1: two players
    # each following one would have opened two steps, each waiting for the other)
    assert "combatlog seal link t --step t1 (one message)" in refused.err, refused.err
    _run(bob, link)
    assert _commands(bob) == [] and _mine(bob)["waiting_for"] == ["alice (warrior)", "alice (archer)", "alice"]
    mail(bob, alice, "t", tmp_path)
    assert _commands(alice)[0] == "combatlog seal link t --step t1 --as alice"
    _run(alice, _commands(alice)[0])
    # the seed is complete: the blows are offered, and a pasted one rolls its dice from it
    assert _commands(alice)[:2] == ["combatlog argad strike t warrior --at TARGET --as alice",
                                    "combatlog argad strike t archer --at TARGET --as alice"]
    _run(alice, _commands(alice)[0], TARGET="ogre")
    assert alice.verify("t")["ok"]


def test_a_player_whose_blows_alone_are_open_is_offered_the_end_of_the_turn_and_it_runs(tmp_path: Path) -> None:
    """No referee: alice runs the procedure. Once alice's figures have struck or held, the blows still open are
    bob's alone, and ending the turn over them is his (argad/authority.py: a side's players may give up their
    own blows): ``status --mine`` offers him the line, and it goes through."""
    alice, bob = _table(tmp_path, "local")
    _run(alice, _commands(alice)[0])  # argad turn
    mail(alice, bob, "t", tmp_path)
    assert not any("end-turn" in line for line in _commands(bob))  # alice's blows are open too: not his to end
    for figure in ("archer", "warrior"):
        _run(alice, _moves(alice)[figure]["options"][0])  # both held
    mail(alice, bob, "t", tmp_path)
    offered = _moves(bob)["or end game turn 1 now, giving up the blows of ogre, gob"]
    assert offered["command"] == "combatlog argad end-turn t --as bob", offered
    _run(bob, offered["command"])
    assert _mine(bob)["pending"] == []
    mail(bob, alice, "t", tmp_path)
    assert _commands(alice) == ["combatlog argad turn t --as alice"]  # the turn is over: alice starts the next
    assert alice.verify("t")["ok"]
