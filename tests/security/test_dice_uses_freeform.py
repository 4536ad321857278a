"""A hostile player cannot make a freeform event say other dice than the ones it rolled.

``ff.hp_changed`` copies a rolled amount into ``delta`` (the die's total, never below 0: lost, or with
``--heal`` gained) and ``ff.action_taken`` names the dice rolled with an action; ``Freeform.dice_uses``
binds each to its die: drawn before the event, used by no other event, equal to the copy, and with
joint dice drawn under the label the rules give (``r<round>/<who>/act``, ``/damage``, ``/heal``), since
anyone who knows the seed can compute the faces of any label. Freeform's dice notation is the player's
own (``--roll 1d20+3``), so there is no notation to check.

The example (docs/examples/freeform, manual dice, no pinned players) is forged with ``rechain``; the
joint-dice duel between pinned players (``tests.trust.pbem.signed_duel``) by its forger alice, who
re-signs her own events at the end of the file. Each forged file goes to a receiving log through the
CLI (``verify FILE`` and ``import FILE``), which must fail naming the seq and the field and leave that
log as it was.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.security.dice_forgery import (
    Mutation, Receiver, cli, die_seq, forged, lines_of, ok, payload, relabel_joint, seq_of,
)
from tests.trust.pbem import batch_cut, key_home, signed_duel, write_lines

EXAMPLE = REPO / "docs" / "examples" / "freeform" / "tavern-brawl.cmds"


@pytest.fixture(scope="module")
def tavern(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    root = tmp_path_factory.mktemp("freeform-example")
    ok(root / "tavern.db", "run", "-q", str(EXAMPLE))
    ok(root / "tavern.db", "export", "tavern", "-o", str(root / "tavern.jsonl"))
    return lines_of(root / "tavern.jsonl")


def _set(**values: Any) -> Mutation:
    return lambda data: data.update(values)


def _hp(lines: list[bytes], label: str) -> int:
    return seq_of(lines, "ff.hp_changed", dice=[label])


def _act(lines: list[bytes], label: str) -> int:
    return seq_of(lines, "ff.action_taken", dice=[label])


def test_the_honest_example_verifies_with_every_die_bound(tavern: list[bytes], tmp_path: Path) -> None:
    from combatlog.exchange.bundle import read_file
    from combatlog.wiring import verifier as chain_verifier

    path = write_lines(tmp_path / "tavern.jsonl", tavern)
    report = json.loads(ok(tmp_path / "empty.db", "verify", str(path), "--json").out)
    assert report["ok"] and report["dice"]["unbound"] == 0 and report["dice"]["manual"] == 10
    header, body = read_file(path)  # unbound counts joint dice only: every manual die is read by an event too
    verifier = chain_verifier(header.segments)
    for i, line in enumerate(body):
        verifier.feed(line, str(i))
    verifier.finish()
    assert set(verifier.used) == set(verifier.dice)


ATTACKS = {
    # Aldo's punch: 1d4 -> 3 to Grimsby
    "rolled damage": lambda ls: ({_hp(ls, "r1/Grimsby/damage"): _set(delta=-30)}, [
        f"seq {_hp(ls, 'r1/Grimsby/damage')}: ff.hp_changed delta (hp lost) says 30, but die 'r1/Grimsby/damage' "
        f"(seq {die_seq(ls, 'r1/Grimsby/damage')}) rolled 3"]),
    "rolled damage of two dice": lambda ls: ({_hp(ls, "r2/Knuckles/damage"): _set(delta=-8)}, [
        f"seq {_hp(ls, 'r2/Knuckles/damage')}: ff.hp_changed delta (hp lost) says 8, but die 'r2/Knuckles/damage'",
        "rolled 7"]),
    "rolled damage turned into healing": lambda ls: ({_hp(ls, "r1/Grimsby/damage"): _set(delta=3)}, [
        f"seq {_hp(ls, 'r1/Grimsby/damage')}: ff.hp_changed delta (hp lost) says -3, but die 'r1/Grimsby/damage'"]),
    # the bottle's damage (4) put on Aldo's spent d20+2 (17) instead
    "damage on an action's die": lambda ls: ({_hp(ls, "r1/Aldo/damage"): _set(dice=["r1/Aldo/act"], delta=-17)}, [
        f"seq {_hp(ls, 'r1/Aldo/damage')}: ff.hp_changed delta (hp lost) reads die 'r1/Aldo/act', already used by "
        f"seq {_act(ls, 'r1/Aldo/act')}"]),
    "action on another action's die": lambda ls: ({_act(ls, "r2/Bo/act"): _set(dice=["r1/Grimsby/act"])}, [
        f"seq {_act(ls, 'r2/Bo/act')}: ff.action_taken dice[0] reads die 'r1/Grimsby/act', already used by seq "
        f"{_act(ls, 'r1/Grimsby/act')}"]),
    "action on a die never drawn": lambda ls: ({_act(ls, "r2/Bo/act"): _set(dice=["r2/Bo/act#2"])}, [
        f"seq {_act(ls, 'r2/Bo/act')}: ff.action_taken dice[0] reads die 'r2/Bo/act#2', which was not drawn "
        "before it"]),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_forged_die_number_is_refused(attack: str, tavern: list[bytes], tmp_path: Path) -> None:
    edits, expected = ATTACKS[attack](tavern)
    # the receiver holds the tavern up to the batch of the first forged event
    receiver = Receiver(tmp_path / "receiver.db", tavern, upto=batch_cut(tavern, min(edits)))
    receiver.refuses(write_lines(tmp_path / "forged.jsonl", forged(tavern, edits)), *expected)


# -- joint dice ---------------------------------------------------------------------------------------------


@pytest.fixture
def duel(tmp_path: Path) -> dict[str, Any]:
    """``signed_duel`` up to round 1 (seqs 1-8, the joint seed of r1 complete at 7), then alice's tail: Aldo
    thrusts (1d20), Bo takes 1d6, Aldo heals 1d4."""
    from combatlog.rulesets.freeform import commands as ff

    home = tmp_path / "keys"
    with key_home(home):
        store, signers, do = signed_duel(tmp_path, rolls=False)
        do("alice", ff.Act(who="Aldo", action="thrusts at Bo", roll="1d20"))
        do("alice", ff.ChangeHp(who="Bo", amount="1d6", reason="the thrust"))
        do("alice", ff.ChangeHp(who="Aldo", amount="1d4", heal=True, reason="a draught"))
        store.close()
    db = tmp_path / "log.db"
    ok(db, "export", "duel", "-o", str(tmp_path / "duel.jsonl"))
    return {"db": db, "home": home, "lines": lines_of(tmp_path / "duel.jsonl"), "alice": signers["alice"]}


def test_the_honest_joint_duel_verifies_with_no_joint_die_unbound(duel: dict[str, Any], tmp_path: Path) -> None:
    report = json.loads(ok(tmp_path / "empty.db", "verify", str(write_lines(tmp_path / "duel.jsonl", duel["lines"])),
                           "--json").out)
    assert report["dice"] == {"verified": 3, "pending": 0, "manual": 0, "local": 0, "unbound": 0}
    labels = [json.loads(x)["data"]["label"] for x in duel["lines"][1:] if b'"core.dice_rolled"' in x]
    assert labels == ["r1/Aldo/act", "r1/Bo/damage", "r1/Aldo/heal"]


def _forgery(duel: dict[str, Any], tmp_path: Path, edits: dict[int, Mutation], *expected: str) -> None:
    """alice edits and re-signs her own events (seq 9 on); bob's log, which has seqs 1-8 (everything before
    alice's first batch), refuses the file."""
    assert min(edits) >= 9
    receiver = Receiver(tmp_path / "bob.db", duel["lines"], upto=batch_cut(duel["lines"], 9), home=duel["home"])
    with key_home(duel["home"]):
        lines = forged(duel["lines"], edits, forger="alice", signer=duel["alice"])
    receiver.refuses(write_lines(tmp_path / "forged.jsonl", lines), *expected)


def _relabelled(lines: list[bytes], label: str, new: str) -> tuple[int, Mutation, int]:
    """The edit moving die ``label`` to ``new`` (with the seed's faces for it), and the new total."""
    seq = die_seq(lines, label)
    edit = relabel_joint(lines, seq, new)
    data = dict(payload(lines, seq))
    edit(data)
    return seq, edit, data["total"]


def test_a_joint_damage_number_is_refused(duel: dict[str, Any], tmp_path: Path) -> None:
    hp = _hp(duel["lines"], "r1/Bo/damage")
    lost = -payload(duel["lines"], hp)["delta"]
    _forgery(duel, tmp_path, {hp: _set(delta=-(lost + 6))},
             f"seq {hp}: ff.hp_changed delta (hp lost) says {lost + 6}, but die 'r1/Bo/damage' (seq {hp - 1}) "
             f"rolled {lost}")


def test_a_joint_healing_number_is_refused(duel: dict[str, Any], tmp_path: Path) -> None:
    hp = _hp(duel["lines"], "r1/Aldo/heal")
    gained = payload(duel["lines"], hp)["delta"]
    _forgery(duel, tmp_path, {hp: _set(delta=gained + 4)},
             f"seq {hp}: ff.hp_changed delta says {gained + 4}, but die 'r1/Aldo/heal' (seq {hp - 1}) rolled {gained}")


def test_a_joint_action_die_under_a_later_label_is_refused(duel: dict[str, Any], tmp_path: Path) -> None:
    # r1/Aldo/act#2 is what a second roll would get; Aldo's first roll of the round is r1/Aldo/act
    lines = duel["lines"]
    die, edit, _ = _relabelled(lines, "r1/Aldo/act", "r1/Aldo/act#2")
    act = _act(lines, "r1/Aldo/act")
    _forgery(duel, tmp_path, {die: edit, act: _set(dice=["r1/Aldo/act#2"])},
             f"seq {act}: ff.action_taken dice[0] reads joint die 'r1/Aldo/act#2', but the rules draw 'r1/Aldo/act' "
             "here")


def test_a_joint_damage_die_under_an_invented_label_is_refused(duel: dict[str, Any], tmp_path: Path) -> None:
    lines = duel["lines"]
    die, edit, total = _relabelled(lines, "r1/Bo/damage", "r1/Bo/ouch")
    hp = _hp(lines, "r1/Bo/damage")
    _forgery(duel, tmp_path, {die: edit, hp: _set(dice=["r1/Bo/ouch"], delta=-total)},
             f"seq {hp}: ff.hp_changed delta (hp lost) reads joint die 'r1/Bo/ouch', but the rules draw "
             "'r1/Bo/damage' here")


def test_a_joint_damage_on_the_actions_die_is_refused(duel: dict[str, Any], tmp_path: Path) -> None:
    lines = duel["lines"]
    act, hp = _act(lines, "r1/Aldo/act"), _hp(lines, "r1/Bo/damage")
    total = payload(lines, act - 1)["total"]
    _forgery(duel, tmp_path, {hp: _set(dice=["r1/Aldo/act"], delta=-total)},
             f"seq {hp}: ff.hp_changed delta (hp lost) reads joint die 'r1/Aldo/act', but the rules draw "
             "'r1/Bo/damage' here")


@pytest.mark.parametrize("args", [
    ("act", "duel", "Aldo", "feints", "--roll", "1d20"),
    ("damage", "duel", "Bo", "1d6"),
    ("heal", "duel", "Bo", "1d4"),
])
def test_a_chosen_label_is_refused_with_joint_dice(args: tuple[str, ...], duel: dict[str, Any], tmp_path: Path) -> None:
    db = duel["db"]
    ok(db, "export", "duel", "-o", str(tmp_path / "before.jsonl"))
    refused = cli(db, "freeform", *args, "--label", "r1/lucky", "--as", "alice", home=duel["home"])
    assert refused.code == 4, refused.err
    assert refused.err.startswith("error[illegal]: label 'r1/lucky': with joint dice the rules name each die "
                                  f"(here 'r1/{args[2]}/{args[0]}"), refused.err
    assert "so that nobody can try labels until one rolls well; leave the label out" in refused.err
    ok(db, "export", "duel", "-o", str(tmp_path / "after.jsonl"))
    assert lines_of(tmp_path / "after.jsonl") == lines_of(tmp_path / "before.jsonl")  # nothing appended


def test_labels_numbered_by_next_label_are_the_rules_labels(tmp_path: Path) -> None:
    """The rules' label for a repeated roll is ``base#n`` after every label of its sequence taken before it
    (a free roll cannot take one: the rules own their labels, tests/security/test_rule_labels.py): an honest
    joint log with such labels verifies."""
    from combatlog.commands.core import RollDice
    from combatlog.errors import IllegalCommand
    from combatlog.rulesets.drawn import rule_label
    from combatlog.rulesets.freeform import commands as ff

    assert rule_label((), "r1/Bo/damage") == "r1/Bo/damage"
    assert rule_label(("r1/Bo/damage",), "r1/Bo/damage") == "r1/Bo/damage"
    assert rule_label(("r1/Bo/damage", "r1/Bo/damage#2"), "r1/Bo/damage") == "r1/Bo/damage#2"
    assert rule_label(("r1/Bo/damage#3", "r1/Bo/damage"), "r1/Bo/damage") == "r1/Bo/damage"
    assert rule_label(("r1/Bo/damage#7",), "r1/Bo/damage") == "r1/Bo/damage"  # #7 with nothing before it
    assert rule_label(("r1/Bo/damage", "r1/Bo/damage#02"), "r1/Bo/damage") == "r1/Bo/damage"  # not in the sequence

    with key_home(tmp_path / "keys"):
        store, signers, do = signed_duel(tmp_path, rolls=False)
        from combatlog.wiring import execute

        with pytest.raises(IllegalCommand, match="core: the rules own their labels"):
            execute(store, "duel", RollDice(label="r1/Bo/damage", notation="1d6", purpose="a free roll"), actor="bob",
                    signer=signers["bob"], scheme="local")
        execute(store, "duel", RollDice(label="bob/damage", notation="1d6", purpose="a free roll"), actor="bob",
                signer=signers["bob"], scheme="local")
        do("alice", ff.ChangeHp(who="Bo", amount="1d6", reason="the thrust"))
        do("alice", ff.ChangeHp(who="Bo", amount="1d6", reason="again"))
        do("alice", ff.Act(who="Aldo", action="thrusts", roll="1d20"))
        do("alice", ff.Act(who="Aldo", action="thrusts again", roll="1d20"))
        store.close()
    ok(tmp_path / "log.db", "export", "duel", "-o", str(tmp_path / "duel.jsonl"))
    lines = lines_of(tmp_path / "duel.jsonl")
    assert [e["data"]["dice"] for e in map(json.loads, lines[1:]) if e["type"] in ("ff.hp_changed", "ff.action_taken")
            ] == [["r1/Bo/damage"], ["r1/Bo/damage#2"], ["r1/Aldo/act"], ["r1/Aldo/act#2"]]
    report = json.loads(ok(tmp_path / "empty.db", "verify", str(tmp_path / "duel.jsonl"), "--json").out)
    assert report["dice"]["verified"] == 4 and report["dice"]["local"] == 1 and report["dice"]["unbound"] == 0
