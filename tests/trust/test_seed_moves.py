"""Joint dice and whose move (docs/trust.md, "Whose move"): ``status --mine`` and the mail list the part of a
seed step a player owes, with the exact command, and never offer a command that needs a seed before one can
be drawn. Two players on two machines (``tests/trust/pbem.Seat``: the real CLI in subprocesses, bundles by
file).

Every command these tests take from ``status --mine`` is run as given, and must succeed; every command it
withholds is run too, and must be refused (so the test would fail if the withholding were wrong either way).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from combatlog.rulesets import available
from tests.conftest import REPO
from tests.trust.pbem import Seat, mail, pair
from tests.trust.test_converge import MR_SETUP
from tests.trust.test_osric_sealed import SETUP as OSRIC_SETUP


def _mine(seat: Seat, stream: str) -> dict[str, Any]:
    return seat("status", stream, "--mine", "--json").json()  # type: ignore[return-value]


def _commands(seat: Seat, stream: str) -> list[str]:
    return [m["command"] for m in _mine(seat, stream)["pending"] if m["command"]]


def _run(seat: Seat, line: str) -> None:
    """Run a command line exactly as ``status --mine`` gave it."""
    words = shlex.split(line)
    assert words[0] == "combatlog" and not any(w.isupper() and len(w) > 2 for w in words), line
    seat(*words[1:])


def _offered(seat: Seat, stream: str) -> tuple[list[str], list[dict[str, str]]]:
    """Plain ``status --json``: the commands it offers (every pending entry's), and those it withholds."""
    pending = seat("status", stream, "--json").json()["pending"]  # type: ignore[index]
    return [c for p in pending for c in p["commands"]], [w for p in pending for w in p["withheld"]]


def _each_runs(seat: Seat, lines: list[str], tmp_path: Path) -> None:
    """Each line, run as given on its own copy of ``seat``'s machine (each was offered at the same state)."""
    import shutil

    for i, line in enumerate(lines):
        shutil.copytree(seat.dir, tmp_path / f"try-{i}" / seat.name)
        _run(Seat(seat.name, tmp_path / f"try-{i}"), line)


def _mailed_to(sender: Seat, stream: str, reader: str) -> list[str]:
    """The commands the mail for ``reader`` offers him as his own."""
    message = sender("mail", stream, "--for", reader, "--json").json()
    return [c for todo in message["yours"] for c in todo["commands"]]  # type: ignore[index]


# -- Magic Realm with nonce chains, no referee pinned: the creator takes the referee's steps ------------------

# (the fight of tests/trust/test_converge.py: the Black Knight and the Amazon against a Giant and two Axe Goblins)


@pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")
def test_the_last_chain_link_of_a_seed_step_is_listed_for_the_player_who_owes_it(tmp_path: Path) -> None:
    """bob lures first, so his link to r1/assign waits (the first mover reveals last); alice lures next and
    her link rides along. The step then waits for bob alone: bob is no referee (alice, the creator, takes the
    referee's steps), so no command of someone else's reveals it for him. His status and his mail used to
    say he owed nothing, alice's that she waited for nobody: nobody could tell what the combat waited for."""
    G = "cave"
    setup = tmp_path / "cave.json"
    setup.write_text(json.dumps(MR_SETUP))
    alice, bob = pair(tmp_path, G, ruleset="magic_realm", dice="joint", setup=str(setup))
    bob("mr", "lure", G, "amazon", "goblin-1")
    mail(bob, alice, G, tmp_path)
    alice("mr", "lure", G, "bk", "giant")  # goblin-2 is left for the random assignment: joint dice
    status = alice("status", G).out
    assert "step r1/assign waits for bob (next chain link: mr seed)" in status
    # alice waits for bob, and is offered nothing that would be refused
    mine = _mine(alice, G)
    assert mine["waiting_for"] == ["bob"] and _commands(alice, G) == []
    assert alice("mr", "assign", G, ok=False).code == 4  # the seed is not there yet
    mail(alice, bob, G, tmp_path)

    line = f"combatlog mr seed {G} --as bob"
    assert _commands(bob, G) == [line]
    assert "reveal your next chain link" in bob("status", G, "--mine").out
    assert line in _mailed_to(alice, G, "bob")  # alice's next mail to bob lists it as his
    _run(bob, line)
    mail(bob, alice, G, tmp_path)
    assert _commands(alice, G) == [f"combatlog mr assign {G} --as alice"]
    _run(alice, _commands(alice, G)[0])
    assert alice.verify(G)["ok"]


# -- OSRIC: a surprise check before round 1 needs a seed step of its own --------------------------------------

def _skirmish(tmp_path: Path) -> tuple[Seat, Seat]:
    """The skirmish of tests/trust/test_osric_sealed.py (Brom and Halvaine, alice's, against bob's two orcs),
    with joint dice; alice creates it and referees."""
    setup = tmp_path / "skirmish.json"
    setup.write_text(json.dumps(OSRIC_SETUP))
    return pair(tmp_path, "skirmish", ruleset="osric", dice="joint", setup=str(setup))


def test_osric_offers_the_surprise_seed_step_not_a_surprise_check_that_cannot_roll(tmp_path: Path) -> None:
    S = "skirmish"
    alice, bob = _skirmish(tmp_path)
    commit = f"combatlog seal commit {S} --step surprise --as alice"
    # the referee (alice, the creator) may start round 1, or seal the surprise step first: `osric surprise`
    # itself, offered before, is refused for want of a seed
    offered = _commands(alice, S)  # (her rulings besides, counted: combatlog moves lists them)
    assert commit in offered and f"combatlog osric round {S} --as alice" in offered
    assert f"combatlog osric surprise {S} --as alice" not in offered
    refused = alice("osric", "surprise", S, ok=False)
    assert refused.code == 4 and "no joint dice seed yet" in refused.err
    # the refusal names the step status --mine offers (it said --step r1 whatever the die)
    assert f"every player runs: combatlog seal commit {S} --step surprise, then: combatlog seal reveal {S} --step " \
           "surprise" in refused.err, refused.err
    assert _commands(bob, S) == []  # bob owes nothing until the referee chooses a surprise check
    _run(alice, commit)
    mine = _mine(alice, S)
    surprise = next(m for m in mine["pending"] if "surprise" in m["what"] and m["waiting"])
    assert surprise["command"] == "" and "seed step surprise" in surprise["waiting"] and "bob (commit)" in surprise["waiting"]
    assert mine["waiting_for"] == ["bob"]
    assert "not yet: its joint dice wait for seed step surprise" in alice("status", S, "--mine").out

    # alice starts round 1 anyway (allowed): the declarations' step cannot open while `surprise` is open, so
    # their sealing is not offered, and it is refused
    _run(alice, f"combatlog osric round {S} --as alice")
    declare = next(m for m in _mine(alice, S)["pending"] if "declarations" in m["what"])
    assert declare["command"] == "" and "once seed step surprise is complete" in declare["waiting"]
    sealing = alice("osric", "declare", S, "party", "Brom=melee", "Halvaine=melee", "--seal", ok=False)
    assert sealing.code == 4 and "one seed step at a time" in sealing.err
    mail(alice, bob, S, tmp_path)

    # bob is listed his commit to the surprise step (status and mail), then his reveal
    bob_commit = f"combatlog seal commit {S} --step surprise --as bob"
    assert bob_commit in _commands(bob, S) and bob_commit in _mailed_to(bob, S, "bob")
    assert not any("declare" in c for c in _commands(bob, S))  # his sealing waits for the step too
    _run(bob, bob_commit)
    reveal = f"combatlog seal reveal {S} --step surprise --as bob"
    assert reveal in _commands(bob, S)
    _run(bob, reveal)
    mail(bob, alice, S, tmp_path)
    assert f"combatlog seal reveal {S} --step surprise --as alice" in _commands(alice, S)
    _run(alice, f"combatlog seal reveal {S} --step surprise --as alice")
    # the step is complete: the declarations' sealing is offered again, and goes through
    # (many ways to declare: status --mine counts them and gives the line that lists them)
    assert f"combatlog moves {S} --as alice" in _commands(alice, S)
    listed = alice("moves", S, "--json").json()["moves"]  # type: ignore[index]
    declare = next(m["argv"] for m in listed if m["argv"][:2] == ["osric", "declare"] and "--seal" in m["argv"])
    alice(*declare)
    assert alice.verify(S)["ok"]


def test_plain_status_offers_the_surprise_seed_step_not_a_surprise_check_that_cannot_roll(tmp_path: Path) -> None:
    """Plain status --json offered `osric surprise --as gm` with no seed (refused twice over: no seed, and gm is
    not a pinned player). Its commands are the legal moves now (commands/legal.py): the referee's (alice, the
    creator) steps and rulings, the seed step, and not the surprise check, which is withheld saying why; every
    step it offers runs."""
    S = "skirmish"
    alice, bob = _skirmish(tmp_path)
    commit = f"combatlog seal commit {S} --step surprise --as alice"
    surprise = f"combatlog osric surprise {S} --as alice"
    offered, withheld = _offered(alice, S)
    steps = [c for c in offered if " osric round " in c or " seal " in c]
    assert steps == [commit, f"combatlog osric round {S} --as alice"]
    assert surprise not in offered and all(c.endswith("--as alice") for c in offered)
    assert {"command": surprise, "waiting": "its joint dice need a seed first (no joint dice seed yet)"} in withheld
    assert alice("osric", "surprise", S, ok=False).code == 4  # withheld: refused indeed
    text = alice("status", S).out
    assert "    not yet: osric surprise: its joint dice need a seed first (no joint dice seed yet); first: " + commit in text
    _each_runs(alice, steps, tmp_path)
    assert _offered(bob, S) == (offered, withheld), "the same from bob's machine"

    # the step open, the check still waits: for bob's commit
    _run(alice, commit)
    offered, withheld = _offered(alice, S)
    assert f"combatlog osric round {S} --as alice" in offered and surprise not in offered
    assert {w["waiting"] for w in withheld} == {"seed step surprise comes first, which waits for bob (commit)"}
    mail(alice, bob, S, tmp_path)
    bob("seal", "commit", S, "--step", "surprise")
    bob("seal", "reveal", S, "--step", "surprise")
    mail(bob, alice, S, tmp_path)
    alice("seal", "reveal", S, "--step", "surprise")
    offered, withheld = _offered(alice, S)  # the seed is there: the check is offered, and rolls
    assert surprise in offered and f"combatlog osric round {S} --as alice" in offered
    assert withheld == []
    _each_runs(alice, [surprise, f"combatlog osric round {S} --as alice"], tmp_path / "seeded")


def test_osric_surprise_is_offered_once_its_seed_step_is_complete(tmp_path: Path) -> None:
    S = "skirmish"
    alice, bob = _skirmish(tmp_path)
    _run(alice, f"combatlog seal commit {S} --step surprise --as alice")
    mail(alice, bob, S, tmp_path)
    bob("seal", "commit", S, "--step", "surprise")
    bob("seal", "reveal", S, "--step", "surprise")
    mail(bob, alice, S, tmp_path)
    alice("seal", "reveal", S, "--step", "surprise")
    assert f"combatlog osric surprise {S} --as alice" in _commands(alice, S)
    _run(alice, f"combatlog osric surprise {S} --as alice")


# -- Classic Fantasy: every pinned player owes the first seed before round 1's Initiative ----------------------


def test_classic_fantasy_lists_the_first_seed_for_every_player(tmp_path: Path) -> None:
    G = "duel"
    setup = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
    setup["players"] = {"party": ["alice"], "orcs": ["bob"]}
    path = tmp_path / "duel.json"
    path.write_text(json.dumps(setup))
    alice, bob = pair(tmp_path, G, ruleset="classic_fantasy", dice="joint", setup=str(path))
    refused = alice("cfi", "round", G, ok=False)  # Initiative is rolled: no seed yet
    assert refused.code == 4 and "no joint dice seed yet" in refused.err
    for seat in (alice, bob):
        line = f"combatlog seal commit {G} --step r1 --as {seat.name}"
        assert _commands(seat, G) == [line]
    # plain status: the referee's step (alice's: the creator's) waits for the seed, whose part she owes first
    offered, withheld = _offered(alice, G)
    assert offered == [f"combatlog seal commit {G} --step r1 --as alice"]
    assert [w["command"] for w in withheld] == [f"combatlog cfi round {G} --as alice"]
    assert f"combatlog seal commit {G} --step r1 --as bob" in _mailed_to(alice, G, "bob")
    _run(alice, f"combatlog seal commit {G} --step r1 --as alice")
    assert _commands(alice, G) == [] and _mine(alice, G)["waiting_for"] == ["bob"]
    mail(alice, bob, G, tmp_path)
    _run(bob, _commands(bob, G)[0])  # his commit
    _run(bob, _commands(bob, G)[0])  # his reveal: every commit is in
    mail(bob, alice, G, tmp_path)
    assert _commands(alice, G) == [f"combatlog seal reveal {G} --step r1 --as alice"]
    _run(alice, _commands(alice, G)[0])
    # the seed is complete: round 1 (the referee's step: alice created the combat) is offered, and its command
    # rolls the Initiative from the seed of r1
    assert _commands(alice, G)[0] == f"combatlog cfi round {G} --as alice"  # (then her rulings: --surprised)
    _run(alice, _commands(alice, G)[0])
    assert alice.verify(G)["ok"]


# -- the refusal of a joint die without a seed names the seed step to make ---------------------------------------


def test_a_die_refused_for_want_of_a_seed_names_the_step_of_its_round(tmp_path: Path) -> None:
    """docs/trust.md "Whose move": a fresh seed step is named after the round (trust/offers.py ``offered_moves``:
    r2 in round 2). The refusal of the die itself said `--step r1` whatever the round; here a freeform duel reaches round 2 with
    no seed (opening and ending rounds draw no dice), its first die is refused, and the commands the refusal
    names, run by each player, make the seed that die then draws from."""
    alice, bob = pair(tmp_path)
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    alice("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    alice("freeform", "round", "duel")
    alice("freeform", "end-round", "duel")
    alice("freeform", "round", "duel")
    # (plain status: freeform says nobody plays Aldo, and the combat pins alice and bob: his commands run as a
    # pinned player, not "--as Aldo", which would be refused)
    aldo = next(p for p in alice("status", "duel", "--json").json()["pending"] if p["who"] == "Aldo")  # type: ignore[index]
    # (its commands are the legal moves, commands/legal.py: each as a pinned player who may make it; the one that
    # rolls a die is not offered while no joint die can be drawn)
    assert aldo["players"] is None and "combatlog freeform act duel Aldo 'attacks Bo' --as alice" in aldo["commands"]
    assert all(c.endswith(("--as alice", "--as bob")) and "--roll" not in c for c in aldo["commands"])
    refused = alice("freeform", "act", "duel", "Aldo", "thrusts at Bo", "--roll", "1d20", ok=False)
    commit, reveal = "combatlog seal commit duel --step r2", "combatlog seal reveal duel --step r2"
    assert refused.code == 4 and f"no joint dice seed yet (every player runs: {commit}, then: {reveal})" in refused.err
    _run(alice, commit)
    mail(alice, bob, "duel", tmp_path)
    _run(bob, commit)
    _run(bob, reveal)
    mail(bob, alice, "duel", tmp_path)
    _run(alice, reveal)
    alice("freeform", "act", "duel", "Aldo", "thrusts at Bo", "--roll", "1d20")
    assert alice("dice", "duel", "--json").json()["rolls"][-1]["scheme"] == "joint"  # type: ignore[index]
    assert alice.verify("duel")["ok"]


def test_with_nonce_chains_the_refusal_names_the_links_of_the_step(tmp_path: Path) -> None:
    """docs/trust.md "Nonce chains": where every player has a chain, a seed step takes one link from each (``seal
    link``, as status --mine's fresh seed move offers it), no commit and reveal."""
    alice, bob = pair(tmp_path)
    alice("seal", "chain", "duel")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    mail(alice, bob, "duel", tmp_path)
    bob("seal", "chain", "duel")
    mail(bob, alice, "duel", tmp_path)
    alice("freeform", "round", "duel")
    refused = alice("freeform", "act", "duel", "Aldo", "lunges", "--roll", "1d20", ok=False)
    link = "combatlog seal link duel --step r1"
    assert refused.code == 4 and f"no joint dice seed yet (every player runs: {link} (one message))" in refused.err
    _run(alice, link)
    mail(alice, bob, "duel", tmp_path)
    _run(bob, link)
    mail(bob, alice, "duel", tmp_path)
    alice("freeform", "act", "duel", "Aldo", "lunges", "--roll", "1d20")
    assert alice.verify("duel")["ok"]


# -- Magic Realm with joint dice: status --json's commands at a seed step run as given --------------------------


@pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")
@pytest.mark.parametrize("first", ["carol", "dave"])
def test_status_json_commands_at_a_magic_realm_seed_step_run_verbatim(tmp_path: Path, first: str) -> None:
    """docs/examples/magic_realm/bashkar-ambush.json with carol (White Knight, the creator: the referee's steps)
    and dave (Woods Girl) pinned, joint dice, one table holding both keys (tests/playouts.py ``InProcess``). The
    first to lure keeps his link (the first mover reveals last), the second's link rides along with his lure; so
    r1/assign waits for the first one's link: carol's goes with her ``mr assign`` (the last part missing), dave's
    with ``mr seed`` (no command of his reveals it for him). Every command ``status --json`` gives then runs as
    given, each on a copy of the log, and the step the random assignment waits for is among them."""
    import shutil

    from tests.playouts import EXAMPLES, InProcess

    db, home = tmp_path / "log.db", tmp_path / "keys"
    run = InProcess(db, home)

    def ok(*args: str) -> str:
        code, out, err = run(*args)
        assert code == 0, f"combatlog {shlex.join(args)} -> {code}\n{err}"
        return out

    for name in ("carol", "dave"):
        ok("keys", "new", name)
    ok("new", "j", "--ruleset", "magic_realm", "--dice", "joint", "--setup",
       str(EXAMPLES / "magic_realm" / "bashkar-ambush.json"), "--player", "carol", "--player", "dave", "--as", "carol")
    lures = {"carol": ("mr", "lure", "j", "wk", "--as", "carol"), "dave": ("mr", "lure", "j", "wg", "--as", "dave")}
    second = "dave" if first == "carol" else "carol"
    ok(*lures[first])
    ok(*lures[second])
    status = json.loads(ok("status", "j", "--json"))
    commands = [c for entry in status["pending"] for c in entry["commands"]]
    expected = "combatlog mr assign j --as carol" if first == "carol" else "combatlog mr seed j --as dave"
    assert expected in commands, status["pending"]
    # nothing else of the random assignment is offered before its seed step completes
    assert not any(c.startswith("combatlog mr assign") for c in commands if c != expected)
    for n, line in enumerate(commands):
        copy = tmp_path / f"copy-{n}.db"
        shutil.copy(db, copy)
        code, _out, err = InProcess(copy, home)(*shlex.split(line)[1:])
        assert code == 0, f"{line} -> {code}\n{err}"
