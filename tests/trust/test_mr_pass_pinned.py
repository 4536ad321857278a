"""Magic Realm version 3: where players are pinned, a quiet round is passed by one ``mr pass`` per player, each for
his own characters (docs/magic_realm.md, "A round with nothing to decide"). MR 001 (A Round of Combat) records
every step of a round, passed or not; MR 8.4.5 keeps each player's plays his own, so nobody passes for another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.trust.test_my_move import Seat, _pair, mail, needs_mr

pytestmark = needs_mr

# Nobody left to fight: the Black Knight (alice's) and the Amazon (bob's) alone in the clearing.
QUIET = {"characters": [{"id": "bk", "character": "Black Knight", "player": "alice"},
                        {"id": "amazon", "character": "Amazon", "player": "bob"}], "denizens": []}


def _events(seat: Seat, stream: str) -> list[dict[str, Any]]:
    return json.loads(seat("log", stream, "--json").out)  # type: ignore[no-any-return]


def _state(seat: Seat, stream: str) -> dict[str, Any]:
    return json.loads(seat("show", stream, "--json").out)["state"]  # type: ignore[no-any-return]


def _moves(seat: Seat, stream: str) -> list[list[str]]:
    return [m["argv"] for m in json.loads(seat("moves", stream, "--json", "--as", seat.name).out)["moves"]]


def test_each_player_passes_for_his_own_and_the_last_vote_passes_the_round(tmp_path: Path) -> None:
    alice, bob = _pair(tmp_path, "e", "magic_realm", QUIET, "local")
    assert ["mr", "pass", "e", "bk", "--as", "alice"] in _moves(alice, "e")
    assert not any(m[:2] == ["mr", "pass"] and "amazon" in m for m in _moves(alice, "e"))  # not hers to offer
    alice("mr", "pass", "e", "bk")
    vote = _events(alice, "e")[-1]
    assert vote["type"] == "mr.pass_voted" and vote["data"]["characters"] == ["bk"] and not vote["data"]["all_in"]
    assert _state(alice, "e")["round"] == 1  # one vote passes nothing
    mail(alice, bob, "e", tmp_path)
    offered = [line for m in bob.mine("e")["pending"] for line in (m["command"], *m["options"])]
    assert "combatlog mr pass e amazon --as bob" in offered
    bob("mr", "pass", "e", "amazon")
    tags = [e["type"] for e in _events(bob, "e")]
    # each step of the round is recorded as passed (MR 001), in the batch of the vote that completed them
    assert tags[-12:] == ["mr.pass_voted", "mr.deployed", "mr.deployed", "mr.action_declared",
                          "mr.action_declared", "core.dice_rolled", "mr.melee_started", "mr.targets_chosen",
                          "mr.targets_chosen", "mr.plays_made", "mr.plays_made", "mr.melee_resolved"]
    assert _state(bob, "e")["round"] == 2
    assert "ok" in bob("verify", "e").out.lower()
    mail(bob, alice, "e", tmp_path)  # and alice's machine re-derives it
    assert _state(alice, "e")["round"] == 2


def test_a_player_cannot_pass_for_anothers_character(tmp_path: Path) -> None:
    """The attack: alice, wanting bob's Amazon to stand idle, votes for it; the write path refuses, and a vote
    forged into bob's log by hand would be refused by his verify in the same way (authority is re-derived)."""
    alice, _bob = _pair(tmp_path, "e", "magic_realm", QUIET, "local")
    refused = alice("mr", "pass", "e", "amazon", ok=False)
    assert refused.code == 4 and "amazon belongs to bob; alice may not pass for it" in refused.err
    refused = alice("mr", "pass", "e", ok=False)  # nor for everyone at once
    assert refused.code != 0 and "each passes for his own characters" in refused.err
    assert [e["type"] for e in _events(alice, "e")][-1] != "mr.pass_voted"


def test_a_vote_lapses_when_a_character_decides_otherwise(tmp_path: Path) -> None:
    """bob charges the Black Knight after alice voted to pass: her vote was for a quiet round, so it lapses,
    and bob's own vote (the rest of his round passed, his charge made) then passes nothing without hers."""
    alice, bob = _pair(tmp_path, "e", "magic_realm", QUIET, "local")
    alice("mr", "pass", "e", "bk")
    mail(alice, bob, "e", tmp_path)
    assert _state(bob, "e")["pass_votes"] == ["bk"]
    charge = next(m for m in _moves(bob, "e") if "--charge" in m)
    bob(*charge)
    assert _state(bob, "e").get("pass_votes", []) == []  # (show leaves the pass fields out at their defaults)
    bob("mr", "pass", "e", "amazon")
    assert not _events(bob, "e")[-1]["data"]["all_in"] and _state(bob, "e")["pass_votes"] == ["amazon"]
    assert not _state(bob, "e")["round_passed"] and _state(bob, "e")["step"] == "deploy"


def test_once_passed_a_round_takes_only_passes(tmp_path: Path) -> None:
    """With joint dice the pass stops before the Attention chits, whose dice need a fresh seed (docs/trust.md):
    the players seed, the Melee Step starts, and ``mr pass`` takes the rest. Meanwhile nobody may do anything
    but pass: bob, who agreed, cannot target the Black Knight, nor seal an attack on him."""
    alice, bob = _pair(tmp_path, "e", "magic_realm", QUIET, "joint")
    alice("mr", "pass", "e", "bk")
    mail(alice, bob, "e", tmp_path)
    bob("mr", "pass", "e", "amazon")
    assert _state(bob, "e")["step"] == "actions" and _state(bob, "e")["round_passed"]
    seats, tried = (bob, alice), 0
    for turn in range(10):  # each runs the first command status --mine gives him, and mails it
        seat, other = seats[turn % 2], seats[(turn + 1) % 2]
        state = _state(seat, "e")
        if state["step"] == "targets" and not tried:  # the first to select (Attention chits) tries an attack
            first = state["attention"][0]
            owner, victim = (alice, "amazon") if first == "bk" else (bob, "bk")
            refused = owner("mr", "target", "e", first, victim, ok=False)
            assert refused.code == 4 and "every character agreed to pass round 1" in refused.err
            assert not any("--seal" in m for m in _moves(owner, "e"))
            tried += 1
        lines = [m["command"] for m in seat.mine("e")["pending"] if m["command"]]
        if lines:
            seat.paste("e", contains=lines[0].split(" --as ")[0])
        mail(seat, other, "e", tmp_path)
        if _state(seat, "e")["round"] == 2:
            break
    assert _state(alice, "e")["round"] == 2 and _state(bob, "e")["round"] == 2 and tried
    tags = [e["type"] for e in _events(alice, "e")]
    assert tags.count("mr.plays_made") == 2 and tags.count("mr.melee_resolved") == 1
    for seat in (alice, bob):
        assert "ok" in seat("verify", "e").out.lower()


def test_a_version_2_combat_keeps_its_rule(tmp_path: Path) -> None:
    """Version 2 refused ``mr pass`` where players are pinned; a combat played under it keeps that rule
    (docs/rules.md, "Earlier revisions"), so a log written then replays as it was played."""
    import msgspec

    from combatlog.errors import IllegalCommand
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.rulesets.magic_realm.decide import decide
    from combatlog.commands.legal import ProbePort
    from tests.rulesets.magic_realm.mr_helpers import Game

    pinned = msgspec.structs.replace(Game(QUIET).state, players=("alice", "bob"))
    dice = ProbePort(scheme="manual", actor="alice", labels_taken=lambda label: False)
    assert decide(pinned, c.Pass(characters=("bk",)), dice)[0].characters == ("bk",)  # version 3 takes the vote
    with pytest.raises(IllegalCommand, match="played under Magic Realm version 2"):
        decide(msgspec.structs.replace(pinned, revision="2"), c.Pass(characters=("bk",)), dice)


def test_a_vote_is_refused_once_plays_are_sealed(tmp_path: Path) -> None:
    """bob seals the Amazon's plays; alice, seeing his commitment, cannot then turn the Melee Step into a pass
    (which would throw his sealed plays away): the step is played out, reveals and all."""
    alice, bob = _pair(tmp_path, "e", "magic_realm", QUIET, "local")
    seats = (alice, bob)
    for turn in range(12):  # step by step, no pass, up to the plays
        seat, other = seats[turn % 2], seats[(turn + 1) % 2]
        if _state(seat, "e")["step"] == "plays":
            break
        listed = [m for m in _moves(seat, "e") if m[:2] != ["mr", "pass"]]  # (first: deploy nobody, no action...)
        if listed:
            seat(*listed[0])
        mail(seat, other, "e", tmp_path)
    assert _state(bob, "e")["step"] == "plays"
    bob("mr", "play", "e", "amazon", "--shield", "2", "--seal")
    mail(bob, alice, "e", tmp_path)
    refused = alice("mr", "pass", "e", "bk", ok=False)
    assert refused.code == 4 and "plays are sealed for round 1 already (by bob)" in refused.err, refused.err
    assert not any(m[:2] == ["mr", "pass"] for m in _moves(alice, "e"))


@pytest.mark.parametrize("characters,players,refusal", [
    (("bk", "bk"), ("alice", "bob"), "bk has voted to pass round 1 already"),  # one vote counted twice
    (("ghost",), ("alice", "bob"), "no character 'ghost'"),
    ((), ("alice", "bob"), "each passes for his own characters"),  # a pass for everyone where players are pinned
    (("bk",), (), "characters are named only where players are pinned"),
])
def test_a_vote_names_each_of_the_voters_characters_once(characters: tuple[str, ...], players: tuple[str, ...],
                                                         refusal: str) -> None:
    """What a vote's arguments may not be, as decide refuses it (so the write path and every verifier alike)."""
    import msgspec

    from combatlog.commands.legal import ProbePort
    from combatlog.errors import CombatlogError
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.rulesets.magic_realm.decide import decide
    from tests.rulesets.magic_realm.mr_helpers import Game

    state = msgspec.structs.replace(Game(QUIET).state, players=players)
    with pytest.raises(CombatlogError, match=refusal):
        decide(state, c.Pass(characters=characters), ProbePort(scheme="manual", actor="alice",
                                                               labels_taken=lambda label: False))
