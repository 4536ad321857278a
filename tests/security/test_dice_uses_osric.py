"""A hostile player cannot make an OSRIC event say other dice than the ones it rolled.

``osric.attack_rolled`` carries its own ``roll``, ``damage`` and ``target_roll``, and other events carry
their d6 and d100 (surprise and initiative per side, morale, assassination) or a rolled ``amount``;
``evolve`` folds those copies. ``Osric.dice_uses`` binds each to its die, so ``verify`` and ``import``
refuse a file in which a copy differs from its die, names another event's die, a die of other dice
than the rules roll, or (joint dice) a die under a label the rules would not draw there.

The example combats of docs/examples/osric are played through ``combatlog run`` (manual dice, no
pinned players: a forger rewrites any event and recomputes every hash with ``rechain``); a joint-dice
combat between pinned players is built in-process, and its forger edits and re-signs only his own
events at the end of the file. Each forged file goes to a receiving log through the CLI (``verify
FILE`` and ``import FILE``), which must fail naming the seq and the field, and leave that log as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.security.dice_forgery import (
    Mutation, Receiver, cli, die_seq, forged, lines_of, ok, payload, relabel_joint, renotate, seq_of,
)
from tests.trust.pbem import batch_cut, key_home, write_lines

EXAMPLES = REPO / "docs" / "examples" / "osric"

# A small fight for what the examples do not roll: an assassination, rolled damage twice on one
# combatant in a round (r1/damage/orc2, then #2), rolled healing, and a morale check.
SLEEPERS = {"title": "Sleepers", "engaged": [["Ael", "orc1"], ["Brom", "orc2"]], "combatants": [
    {"name": "Ael", "side": "party", "class": "ranger", "level": 2, "hp": 14, "weapons": ["short sword"]},
    {"name": "Brom", "side": "party", "class": "fighter", "level": 1, "hp": 10, "armour": "mail",
     "weapons": ["long sword"]},
    {"name": "orc1", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
    {"name": "orc2", "side": "orcs", "hd": "1", "hp": 6, "ac": 6, "weapons": ["spear"]}]}
SLEEPERS_CMDS = """\
new sleepers --ruleset osric --setup {setup} --dice manual
osric condition sleepers orc1 sleeping --reason sleep
osric round sleepers
osric declare sleepers party Ael=melee@orc1 Brom=melee@orc2
osric declare sleepers orcs orc2=melee
osric initiative sleepers --face r1/initiative/party=5 --face r1/initiative/orcs=4
osric assassinate sleepers Ael orc1 --chance 60 --face r1/Ael/assassinate=35
osric damage sleepers orc2 1d4 --source "burning oil" --face r1/damage/orc2=3
osric damage sleepers orc2 1d4 --source "burning oil" --face r1/damage/orc2#2=1
osric damage sleepers Brom 4 --source "a fall"
osric heal sleepers Brom 1d4 --source potion --face r1/heal/Brom=3
osric morale sleepers orc2 --face r1/morale/orc2=20
osric end sleepers --outcome done
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    """The honest exports of ford, bridge (docs/examples/osric) and sleepers (above), played by ``run``."""
    root = tmp_path_factory.mktemp("osric-examples")
    db = root / "examples.db"
    (root / "sleepers.json").write_text(json.dumps(SLEEPERS))
    (root / "sleepers.cmds").write_text(SLEEPERS_CMDS.format(setup=root / "sleepers.json"))
    out = {}
    for name, path in (("ford", EXAMPLES / "ford.cmds"), ("bridge", EXAMPLES / "bridge.cmds"),
                       ("sleepers", root / "sleepers.cmds")):
        ok(db, "run", "-q", str(path))
        ok(db, "export", name, "-o", str(root / f"{name}.jsonl"))
        out[name] = lines_of(root / f"{name}.jsonl")
    return out


def _report(db: Path, path: Path) -> dict[str, Any]:
    return json.loads(ok(db, "verify", str(path), "--json").out)  # type: ignore[no-any-return]


def test_every_honest_example_verifies_with_every_die_bound(played: dict[str, list[bytes]], tmp_path: Path) -> None:
    from combatlog.exchange.bundle import read_file
    from combatlog.wiring import verifier as chain_verifier

    for name, lines in played.items():
        path = write_lines(tmp_path / f"{name}.jsonl", lines)
        report = _report(tmp_path / "empty.db", path)
        assert report["ok"] and report["dice"]["unbound"] == 0 and report["dice"]["manual"] > 0
        # (unbound counts joint dice only: check here that every die of these manual logs is read by a rule)
        header, body = read_file(path)
        verifier = chain_verifier(header.segments)
        for i, line in enumerate(body):
            verifier.feed(line, str(i))
        verifier.finish()
        assert set(verifier.used) == set(verifier.dice), (name, set(verifier.dice) - set(verifier.used))


# -- every number an event copies from a die ------------------------------------------------------------

def _set(**values: Any) -> Mutation:
    return lambda data: data.update(values)


def _rolls(side: str, value: int) -> Mutation:
    return lambda data: data["rolls"].update({side: value})


Attack = Callable[[list[bytes]], tuple[dict[int, Mutation], list[str]]]


def _brom(lines: list[bytes]) -> int:
    return seq_of(lines, "osric.attack_rolled", label="r1/Brom/atk1")


def _ael_shot(lines: list[bytes]) -> int:
    return seq_of(lines, "osric.attack_rolled", label="r1/Ael/atk1")


COPIES: dict[str, tuple[str, Attack]] = {
    # Brom's d20 13 against orc1 (hit, 1d8 -> 6): a natural 20
    "attack roll": ("ford", lambda ls: ({_brom(ls): _set(roll=20)}, [
        f"seq {_brom(ls)}: osric.attack_rolled roll says 20, but die 'r1/Brom/atk1' "
        f"(seq {die_seq(ls, 'r1/Brom/atk1')}) rolled 13"])),
    "attack damage": ("ford", lambda ls: ({_brom(ls): _set(damage=60)}, [
        f"seq {_brom(ls)}: osric.attack_rolled damage says 60, but die 'r1/Brom/atk1/dmg' "
        f"(seq {die_seq(ls, 'r1/Brom/atk1/dmg')}) rolled 6"])),
    # dropping the damage die's label does not free the number: the rules' die is read anyway
    "attack damage without its label": ("ford", lambda ls: ({_brom(ls): _set(damage=60, damage_label="")}, [
        f"seq {_brom(ls)}: osric.attack_rolled damage says 60, but die 'r1/Brom/atk1/dmg'"])),
    # a miss (orc2's d20 7 in the surprise charge) turned into a hit
    "a miss made a hit": ("ford", lambda ls: ({seq_of(ls, "osric.attack_rolled", label="r0/orc2/atk1"): _set(
        roll=19)}, [f"seq {seq_of(ls, 'osric.attack_rolled', label='r0/orc2/atk1')}: osric.attack_rolled roll says "
                    "19, but die 'r0/orc2/atk1'"])),
    # Ael fires into the melee of Halvaine and orc2: d2 -> 2, orc2
    "random target's die": ("ford", lambda ls: ({_ael_shot(ls): _set(target_roll=1)}, [
        f"seq {_ael_shot(ls)}: osric.attack_rolled target_roll says 1, but die 'r1/Ael/atk1/target' "
        f"(seq {die_seq(ls, 'r1/Ael/atk1/target')}) rolled 2"])),
    "random target swapped, its die kept": ("ford", lambda ls: ({_ael_shot(ls): _set(target="Halvaine")}, [
        f"seq {_ael_shot(ls)}: osric.attack_rolled target (Halvaine, candidate 1 of Halvaine, orc2) says 1, "
        "but die 'r1/Ael/atk1/target'", "rolled 2"])),
    "random target's candidates reordered": ("ford", lambda ls: ({_ael_shot(ls): _set(
        candidates=["orc2", "Halvaine"], target_roll=1)}, [
        f"seq {_ael_shot(ls)}: the osric rules cannot read osric.attack_rolled: candidates ['orc2', 'Halvaine'] "
        "are not the opponents the rules choose among (['Halvaine', 'orc2'])"])),
    "random target passed off as chosen": ("ford", lambda ls: ({_ael_shot(ls): _set(candidates=[], target_roll=0)}, [
        f"seq {_ael_shot(ls)}: osric.attack_rolled target_roll says 0, but die 'r1/Ael/atk1/target'"])),
    "surprise d6 of a side": ("ford", lambda ls: ({seq_of(ls, "osric.surprise_checked"): _rolls("party", 5)}, [
        f"seq {seq_of(ls, 'osric.surprise_checked')}: osric.surprise_checked rolls.party says 5, but die "
        f"'surprise/party' (seq {die_seq(ls, 'surprise/party')}) rolled 2"])),
    "initiative d6 of a side": ("ford", lambda ls: ({seq_of(ls, "osric.initiative_rolled", round=1): _rolls(
        "orcs", 6)}, [f"seq {seq_of(ls, 'osric.initiative_rolled', round=1)}: osric.initiative_rolled rolls.orcs "
                      f"says 6, but die 'r1/initiative/orcs' (seq {die_seq(ls, 'r1/initiative/orcs')}) rolled 3"])),
    "morale d100": ("ford", lambda ls: ({seq_of(ls, "osric.morale_checked"): _set(roll=10)}, [
        f"seq {seq_of(ls, 'osric.morale_checked')}: osric.morale_checked roll says 10, but die 'r3/morale/orc4' "
        f"(seq {die_seq(ls, 'r3/morale/orc4')}) rolled 80"])),
    "rolled damage amount": ("ford", lambda ls: ({seq_of(ls, "osric.damage_applied"): _set(amount=40)}, [
        f"seq {seq_of(ls, 'osric.damage_applied')}: osric.damage_applied amount says 40, but die 'r2/damage/orc2' "
        f"(seq {die_seq(ls, 'r2/damage/orc2')}) rolled 4"])),
    "assassination d100": ("sleepers", lambda ls: ({seq_of(ls, "osric.assassination_attempted"): _set(roll=1)}, [
        f"seq {seq_of(ls, 'osric.assassination_attempted')}: osric.assassination_attempted roll says 1, but die "
        f"'r1/Ael/assassinate' (seq {die_seq(ls, 'r1/Ael/assassinate')}) rolled 35"])),
    "rolled healing amount": ("sleepers", lambda ls: ({seq_of(ls, "osric.healing_applied"): _set(amount=4)}, [
        f"seq {seq_of(ls, 'osric.healing_applied')}: osric.healing_applied amount says 4, but die 'r1/heal/Brom' "
        f"(seq {die_seq(ls, 'r1/heal/Brom')}) rolled 3"])),
    "second rolled damage in a round (#2)": ("sleepers", lambda ls: (
        {seq_of(ls, "osric.damage_applied", label="r1/damage/orc2#2"): _set(amount=4)}, [
            f"seq {seq_of(ls, 'osric.damage_applied', label='r1/damage/orc2#2')}: osric.damage_applied amount says "
            "4, but die 'r1/damage/orc2#2'"])),
    # the set spear's 1d8 vs L (6, doubled): the doubling is the rules', the die is not
    "set weapon's damage die": ("bridge", lambda ls: ({seq_of(ls, "osric.attack_rolled", label="r1/Tam/atk1"): _set(
        damage=8)}, [f"seq {seq_of(ls, 'osric.attack_rolled', label='r1/Tam/atk1')}: osric.attack_rolled damage says "
                     "8, but die 'r1/Tam/atk1/dmg'"])),
}


# -- another event's die, and dice of another kind -------------------------------------------------------

SWAPS: dict[str, tuple[str, Attack]] = {
    # Brom's attack names orc1's spent d20 (8, seq 18) with its value: the die is genuine but already used
    "attack roll on another event's die": ("ford", lambda ls: ({_brom(ls): _set(label="r0/orc1/atk2", roll=8)}, [
        f"seq {_brom(ls)}: osric.attack_rolled roll reads die 'r0/orc1/atk2', already used by seq "
        f"{seq_of(ls, 'osric.attack_rolled', label='r0/orc1/atk2')}"])),
    "damage on another attack's damage die": ("ford", lambda ls: ({_brom(ls): _set(
        damage_label="r0/orc1/atk1/dmg", damage=5)}, [
        f"seq {_brom(ls)}: osric.attack_rolled damage reads die 'r0/orc1/atk1/dmg', already used by seq "
        f"{seq_of(ls, 'osric.attack_rolled', label='r0/orc1/atk1')}"])),
    "rolled damage on an attack's damage die": ("ford", lambda ls: ({seq_of(ls, "osric.damage_applied"): _set(
        label="r2/Ael/atk1/dmg", amount=5)}, [
        f"seq {seq_of(ls, 'osric.damage_applied')}: osric.damage_applied amount reads die 'r2/Ael/atk1/dmg', "
        f"already used by seq {seq_of(ls, 'osric.attack_rolled', label='r2/Ael/atk1')}"])),
    "an attack on a die never drawn": ("ford", lambda ls: ({_brom(ls): _set(label="r1/Brom/atk9", roll=20)}, [
        f"seq {_brom(ls)}: osric.attack_rolled roll reads die 'r1/Brom/atk9', which was not drawn before it"])),
    # the dice themselves re-sealed as other dice (each self-consistent, so only the rules' notation catches it)
    "attack roll on a d30": ("ford", lambda ls: (
        {die_seq(ls, "r1/Brom/atk1"): renotate("1d30", [25]), _brom(ls): _set(roll=25)},
        [f"seq {_brom(ls)}: osric.attack_rolled roll: the rules roll 1d20 here, die 'r1/Brom/atk1' is 1d30"])),
    "long sword damage on a d12": ("ford", lambda ls: (
        {die_seq(ls, "r1/Brom/atk1/dmg"): renotate("1d12", [12]), _brom(ls): _set(damage=12)},
        [f"seq {_brom(ls)}: osric.attack_rolled damage: the rules roll 1d8 here, die 'r1/Brom/atk1/dmg' is 1d12"])),
    "random target on a d3": ("ford", lambda ls: ({die_seq(ls, "r1/Ael/atk1/target"): renotate("1d3", [2])}, [
        f"seq {_ael_shot(ls)}: osric.attack_rolled target_roll: the rules roll 1d2 here, die 'r1/Ael/atk1/target' "
        "is 1d3"])),
    "initiative on a d8": ("ford", lambda ls: ({die_seq(ls, "r1/initiative/orcs"): renotate("1d8", [3])}, [
        f"seq {seq_of(ls, 'osric.initiative_rolled', round=1)}: osric.initiative_rolled rolls.orcs: the rules roll "
        "1d6 here, die 'r1/initiative/orcs' is 1d8"])),
    "morale on a d20": ("ford", lambda ls: (
        {die_seq(ls, "r3/morale/orc4"): renotate("1d20", [15]), seq_of(ls, "osric.morale_checked"): _set(roll=15)},
        [f"seq {seq_of(ls, 'osric.morale_checked')}: osric.morale_checked roll: the rules roll 1d100 here, die "
         "'r3/morale/orc4' is 1d20"])),
}


@pytest.mark.parametrize("attack", sorted(COPIES) + sorted(SWAPS))
def test_a_forged_die_number_is_refused(attack: str, played: dict[str, list[bytes]], tmp_path: Path) -> None:
    example, build = {**COPIES, **SWAPS}[attack]
    honest = played[example]
    edits, expected = build(honest)
    # the receiver holds the combat up to the batch of the first forged event (a log ends between batches)
    receiver = Receiver(tmp_path / "receiver.db", honest, upto=batch_cut(honest, min(edits)))
    receiver.refuses(write_lines(tmp_path / "forged.jsonl", forged(honest, edits)), *expected)


def test_an_incremental_bundle_on_a_die_used_in_the_receivers_log_is_refused(played: dict[str, list[bytes]],
                                                                             tmp_path: Path) -> None:
    """The earlier use of the die is in the receiving log only (``verify`` reads it from there)."""
    honest = played["ford"]
    brom, spent = _brom(honest), seq_of(honest, "osric.attack_rolled", label="r0/orc1/atk2")
    cut = batch_cut(honest, brom)  # the receiver holds everything before Brom's attack (its dice and event)
    receiver = Receiver(tmp_path / "receiver.db", honest, upto=cut)
    # the sender has the whole combat; his bundle from that cut on swaps Brom's d20 for orc1's spent one
    sender = tmp_path / "sender.db"
    ok(sender, "import", str(write_lines(tmp_path / "whole.jsonl", honest)))
    ok(sender, "export", "ford", "--since", str(cut), "-o", str(tmp_path / "bundle.jsonl"))
    bundle = lines_of(tmp_path / "bundle.jsonl")
    assert json.loads(bundle[0])["since"] == cut and spent < cut
    receiver.refuses(write_lines(tmp_path / "forged.jsonl", forged(bundle, {brom: _set(label="r0/orc1/atk2", roll=8)})),
                     f"seq {brom}: osric.attack_rolled roll reads die 'r0/orc1/atk2', already used by seq {spent}")


# -- joint dice: labels are the rules', not the roller's --------------------------------------------------

JOINT = {
    "title": "Joint skirmish", "players": {"party": ["alice"], "orcs": ["bob"]},
    "engaged": [["Brom", "orc1"], ["Brom", "orc2"]],
    "combatants": [
        {"name": "Brom", "side": "party", "class": "fighter", "level": 3, "hp": 20, "armour": "mail",
         "shield": "medium", "weapons": ["long sword"]},
        {"name": "orc1", "side": "orcs", "hd": "1", "hp": 7, "ac": 6, "weapons": ["spear"]},
        {"name": "orc2", "side": "orcs", "hd": "1", "hp": 7, "ac": 6, "weapons": ["spear"]},
    ],
}


@pytest.fixture
def joint(tmp_path: Path) -> dict[str, Any]:
    """alice (the party) and bob (the orcs), pinned, joint dice, one key home (hot seat, in-process).

    Round 1: sealed declarations (r1/declare seeds the dice), joint initiative; then alice's tail: Brom
    attacks (two opponents: a random target), and burning oil on Brom (``osric damage`` 1d6)."""
    from combatlog.wiring import create_combat, execute
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.osric import commands as c
    from combatlog.rulesets.osric.commands import parse_declaration
    from combatlog.rulesets.osric.declare import orders_for
    from combatlog.store import open_store
    from combatlog.trust.api import CommitOrders, RevealOrders
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players

    home = tmp_path / "keys"
    with key_home(home):
        for name in ("alice", "bob"):
            new_key(name)
        db = tmp_path / "alice.db"
        store = open_store(str(db))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        signers = {"alice": sign_a, "bob": make_signer("bob")}
        # friendly mode: each choice draws its dice at once, after its decision point (in strict mode they wait for
        # a fresh seed step: tests/trust/test_foreseen_dice.py)
        create_combat(store, "skirmish", "osric", actor="alice", setup=JOINT, dice="joint", players=players,
                      signer=sign_a, options={"joint_dice": "friendly"})

        def do(actor: str, command: Any) -> Any:
            return execute(store, "skirmish", command, actor=actor, signer=signers[actor])

        def state() -> Any:
            return state_at(store, store.get_stream(store.list_streams()[0].id)).state

        do("alice", c.StartRound())
        do("alice", CommitOrders(step="r1/declare", orders=orders_for(state(), "party",
                                                                       (parse_declaration("Brom=melee"),))))
        do("bob", CommitOrders(step="r1/declare", orders=orders_for(state(), "orcs", (), "melee")))
        do("bob", RevealOrders(step="r1/declare"))
        do("alice", RevealOrders(step="r1/declare"))
        tail = do("alice", c.RollInitiative()).first_seq
        orcs_act, brom_acts = state().initiative["party"], state().initiative["orcs"]
        if orcs_act < brom_acts:  # the orcs act first (OSRIC First Party Acts): here they take no action
            do("alice", c.ReachSegment(segment=orcs_act, end=True))
        do("alice", c.Attack(who="Brom"))
        do("alice", c.Damage(who="Brom", amount="1d6", source="burning oil"))  # Brom: surely alive
        store.close()
    ok(db, "export", "skirmish", "-o", str(tmp_path / "skirmish.jsonl"))
    lines = lines_of(tmp_path / "skirmish.jsonl")
    return {"db": db, "home": home, "lines": lines, "tail": tail, "alice": signers["alice"]}


def test_an_honest_joint_osric_combat_verifies_with_no_joint_die_unbound(joint: dict[str, Any],
                                                                          tmp_path: Path) -> None:
    report = _report(tmp_path / "empty.db", write_lines(tmp_path / "honest.jsonl", joint["lines"]))
    rolled = [e for e in map(json.loads, joint["lines"][1:]) if e["type"] == "core.dice_rolled"]
    assert {e["data"]["scheme"] for e in rolled} == {"joint"}
    labels = {e["data"]["label"] for e in rolled}
    assert {"r1/initiative/party", "r1/initiative/orcs", "r1/Brom/atk1", "r1/Brom/atk1/target",
            "r1/damage/Brom"} <= labels
    assert report["dice"]["unbound"] == 0 and report["dice"]["verified"] == len(rolled)
    assert not [n for n in report["notes"] if "read by no rule" in n]


def _joint_forgery(joint: dict[str, Any], tmp_path: Path, edits: dict[int, Mutation], *expected: str) -> None:
    """alice re-signs her own (tail) events; bob's log, which has everything before her tail, refuses it."""
    assert min(edits) >= joint["tail"]
    receiver = Receiver(tmp_path / "bob.db", joint["lines"], upto=batch_cut(joint["lines"], joint["tail"]),
                        home=joint["home"])
    with key_home(joint["home"]):
        lines = forged(joint["lines"], edits, forger="alice", signer=joint["alice"])
    receiver.refuses(write_lines(tmp_path / "forged.jsonl", lines), *expected)


def test_a_joint_attack_die_under_an_invented_label_is_refused(joint: dict[str, Any], tmp_path: Path) -> None:
    # atk7 instead of the atk1 the rules draw: its faces are the seed's (anyone can compute them), so the
    # die itself verifies; only the label the rules draw from the state before the event refuses it
    lines = joint["lines"]
    die, attack = die_seq(lines, "r1/Brom/atk1"), seq_of(lines, "osric.attack_rolled", label="r1/Brom/atk1")
    relabel = relabel_joint(lines, die, "r1/Brom/atk7")
    new = dict(payload(lines, die))
    relabel(new)
    _joint_forgery(joint, tmp_path, {die: relabel, attack: _set(label="r1/Brom/atk7", roll=new["total"])},
                   f"seq {attack}: osric.attack_rolled roll reads joint die 'r1/Brom/atk7', but the rules draw "
                   "'r1/Brom/atk1' here")


def test_a_joint_damage_die_under_a_later_label_is_refused(joint: dict[str, Any], tmp_path: Path) -> None:
    # r1/damage/Brom#2 is a label next_label could give, but only after r1/damage/Brom was drawn
    lines = joint["lines"]
    die, event = die_seq(lines, "r1/damage/Brom"), seq_of(lines, "osric.damage_applied")
    relabel = relabel_joint(lines, die, "r1/damage/Brom#2")
    new = dict(payload(lines, die))
    relabel(new)
    _joint_forgery(joint, tmp_path, {die: relabel, event: _set(label="r1/damage/Brom#2", amount=new["total"])},
                   f"seq {event}: osric.damage_applied amount reads joint die 'r1/damage/Brom#2', but the rules "
                   "draw 'r1/damage/Brom' here")


def test_a_joint_attack_number_is_bound_too(joint: dict[str, Any], tmp_path: Path) -> None:
    lines = joint["lines"]
    attack = seq_of(lines, "osric.attack_rolled", label="r1/Brom/atk1")
    roll = payload(lines, attack)["roll"]
    _joint_forgery(joint, tmp_path, {attack: _set(roll=21 - roll)},
                   f"seq {attack}: osric.attack_rolled roll says {21 - roll}, but die 'r1/Brom/atk1'")


def test_a_chosen_label_is_refused_with_joint_dice(joint: dict[str, Any]) -> None:
    db, home = joint["db"], joint["home"]
    head = json.loads(ok(db, "list", "--json").out)[0]["head_seq"]
    for verb in ("damage", "heal"):
        refused = cli(db, "osric", verb, "skirmish", "Brom", "1d6", "--label", "r1/lucky", "--as", "alice", home=home)
        assert refused.code == 4 and refused.err.startswith("error[illegal]: label 'r1/lucky': with joint dice the "
                                                            "rules name each die"), refused.err
        assert f"(here 'r1/{verb}/Brom" in refused.err and "leave the label out" in refused.err
    assert json.loads(ok(db, "list", "--json").out)[0]["head_seq"] == head  # nothing appended
