"""Argad: every number the fold reads from a die is bound to the die the rules drew for it.

A hostile player rewrites an exported combat (``rechain``: hashes, chain and header recomputed;
the forger's own events re-signed with the forger's key) so that an ``argad.*`` event reads
another die than the one the rules drew for it: another die's label, two labels swapped in a
tuple, a die already read by another event, a die of another notation, a re-roll or survival
roll left out, and, with joint dice, a die drawn under an invented label whose faces the
forger computed from the revealed seed. ``combatlog verify FILE`` and ``combatlog import FILE``
(the real CLI) refuse each, naming the event and the die, and the receiving log is left
byte for byte as it was. The honest example combats verify, and a joint-dice combat leaves no
joint die unbound. A property test plays random turns and checks that ``dice_uses`` declares
exactly the dice ``decide`` drew, with their labels and notations.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.dice.derive import derive_faces
from combatlog.dice.notation import parse_dice
from combatlog.dice.port import DicePort
from combatlog.errors import CombatlogError
from combatlog.events.core import CombatStarted, DiceRolled
from combatlog.rulesets.argad import RULESET
from combatlog.rulesets.argad import commands as c
from tests.conftest import REPO, Cli
from tests.trust.pbem import batch_cut, is_batch_cut, key_home, rechain, truncated, write_lines

EXAMPLES = REPO / "docs" / "examples" / "argad"
Mutate = Callable[[dict[str, Any]], None]


# -- helpers ------------------------------------------------------------------------------------


def events(lines: list[bytes]) -> Iterator[dict[str, Any]]:
    for line in lines[1:]:
        yield json.loads(line)


def seq_of(lines: list[bytes], type_: str, **fields: Any) -> int:
    """The seq of the first event of ``type_`` whose payload has ``fields``."""
    for env in events(lines):
        if env["type"] == type_ and all(env["data"].get(k) == v for k, v in fields.items()):
            return int(env["seq"])
    raise AssertionError(f"no {type_} with {fields}")


def die_seq(lines: list[bytes], label: str) -> int:
    return seq_of(lines, "core.dice_rolled", label=label)


def forge(lines: list[bytes], *edits: tuple[int, Mutate], signer: Any = None) -> list[bytes]:
    """The export with each (seq, mutate) applied and re-chained; with ``signer``, every event from
    the first edited one on is re-signed by the forger (they must all be the forger's own)."""
    for seq, mutate in edits:
        lines = rechain(lines, seq, mutate)
    if signer is not None:
        from combatlog.events.envelope import decode_envelope, encode_envelope

        first = min(seq for seq, _ in edits)
        out = [lines[0]]
        for line in lines[1:]:
            env = decode_envelope(line)
            out.append(encode_envelope(signer(env.with_sigs(()))) if env.seq >= first else line)
        lines = out
    return lines


def snapshot(db: Path) -> dict[str, bytes]:
    """Every file of a SQLite log (the database and any journal beside it)."""
    return {p.name: p.read_bytes() for p in sorted(db.parent.glob(db.name + "*"))}


class Table:
    """A played combat's export, a log to verify it from and a receiving log holding its start (up to the
    end of a batch, ``keep_to_seq``: a log cut inside a command's batch would itself be refused)."""

    def __init__(self, root: Path, lines: list[bytes], keep_to_seq: int, env: dict[str, str] | None = None) -> None:
        assert is_batch_cut(lines, keep_to_seq), f"seq {keep_to_seq} is inside a batch"
        self.root, self.lines = root, lines
        self.checker = Cli(root / "checker" / "log.db", REPO, env)
        (root / "checker").mkdir(exist_ok=True)
        (root / "receiver").mkdir(exist_ok=True)
        self.receiver = Cli(root / "receiver" / "log.db", REPO, env)
        start = write_lines(root / "start.jsonl", truncated(lines, keep_to_seq))
        self.receiver("import", str(start))
        self.count = 0

    def refused(self, forged: list[bytes], *expected: str) -> str:
        """Both ``verify FILE`` and ``import FILE`` fail naming ``expected``; the receiver is untouched."""
        self.count += 1
        path = write_lines(self.root / f"forged-{self.count}.jsonl", forged)
        result = self.checker("verify", str(path), ok=False)
        assert result.code != 0, result.out
        for text in expected:
            assert text in result.err, result.err
        before = snapshot(self.receiver.db)
        imported = self.receiver("import", str(path), ok=False)
        assert imported.code != 0, imported.out
        for text in expected:
            assert text in imported.err, imported.err
        assert snapshot(self.receiver.db) == before
        return result.err


def play_example(root: Path, example: str, stream: str) -> list[bytes]:
    cli = Cli(root / "played.db", REPO)
    cli("run", str(EXAMPLES / f"{example}.cmds"), "--quiet")
    cli("export", stream, "-o", str(root / f"{example}.jsonl"))
    return (root / f"{example}.jsonl").read_bytes().split(b"\n")[:-1]


@pytest.fixture(scope="module")
def goblins(tmp_path_factory: pytest.TempPathFactory) -> Table:
    root = tmp_path_factory.mktemp("goblins")
    lines = play_example(root, "warrior-vs-goblins", "goblins")
    return Table(root, lines, keep_to_seq=batch_cut(lines, 3))  # the genesis and turn 1's start (seq 2)


@pytest.fixture(scope="module")
def wall(tmp_path_factory: pytest.TempPathFactory) -> Table:
    root = tmp_path_factory.mktemp("wall")
    lines = play_example(root, "band-vs-ogre-and-troll", "wall")
    return Table(root, lines, keep_to_seq=batch_cut(lines, 3))  # the genesis and turn 1's start (seq 2)


# -- the honest examples ------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["goblins", "wall"])
def test_the_honest_examples_verify_and_import(which: str, request: pytest.FixtureRequest) -> None:
    table: Table = request.getfixturevalue(which)
    path = write_lines(table.root / "honest.jsonl", table.lines)
    report = table.checker("verify", str(path), "--json").json()
    assert report["ok"] and report["dice"]["unbound"] == 0  # type: ignore[index]
    fresh = Cli(table.root / "fresh.db", REPO)
    fresh("import", str(path))
    assert fresh("verify", which, "--json").json()["ok"]  # type: ignore[index]


# -- forgeries of the warrior against six Goblins (manual dice, unsigned) ------------------------


def test_a_strike_pointed_at_another_die(goblins: Table) -> None:
    # turn 2: the warrior's axe rolled 3; the forger points it at Gob B's 4 instead
    seq = seq_of(goblins.lines, "argad.struck", attackers=["warrior"], target="gob-a")
    forged = forge(goblins.lines, (seq, lambda d: d.update(dice=["t2/melee/warrior/gob-b"])))
    goblins.refused(forged, f"seq {seq}", "dice[0] names die 't2/melee/warrior/gob-b'",
                    "the rules draw 't2/melee/gob-a/warrior'")


def test_two_labels_swapped_in_a_pool(goblins: Table) -> None:
    seq = seq_of(goblins.lines, "argad.struck", attackers=["gob-e", "gob-f"])

    def swap(d: dict[str, Any]) -> None:
        d["dice"].reverse()

    goblins.refused(forge(goblins.lines, (seq, swap)), f"seq {seq}", "dice[0] names die 't2/melee/warrior/gob-f'")


def test_a_die_swapped_with_its_re_roll(goblins: Table) -> None:
    # Gob F's 1 read as the re-roll and the re-roll's 2 as Gob F's die: the order decides which die
    # is the lone maximum's re-roll
    seq = seq_of(goblins.lines, "argad.struck", attackers=["gob-e", "gob-f"])

    def swap(d: dict[str, Any]) -> None:
        d["dice"][1], d["rerolls"][0] = d["rerolls"][0], d["dice"][1]

    goblins.refused(forge(goblins.lines, (seq, swap)), "dice[1] names die 't2/melee/warrior/reroll#1'")


def test_a_re_roll_left_out(goblins: Table) -> None:
    seq = seq_of(goblins.lines, "argad.struck", attackers=["gob-e", "gob-f"])
    goblins.refused(forge(goblins.lines, (seq, lambda d: d.update(rerolls=[]))),
                    "rerolls lacks 't2/melee/warrior/reroll#1'")


def test_a_re_roll_added(goblins: Table) -> None:
    # the swords' strike of turn 1 had no maximum: no re-roll is due, whatever die is named
    seq = seq_of(goblins.lines, "argad.struck", attackers=["gob-a", "gob-b", "gob-c"])
    goblins.refused(forge(goblins.lines, (seq, lambda d: d.update(rerolls=["t1/melee/warrior/gob-d"]))),
                    "rerolls names 1 re-roll(s) of a natural maximum where the faces call for 0")


def test_a_die_read_by_two_events(goblins: Table) -> None:
    # the swords' strike of turn 1 rewritten as a second blow of the axe with the same die (4 +1 kills)
    first = seq_of(goblins.lines, "argad.struck", attackers=["warrior"], target="gob-d")
    seq = seq_of(goblins.lines, "argad.struck", attackers=["gob-a", "gob-b", "gob-c"])
    forged = forge(goblins.lines, (seq, lambda d: d.update(
        attackers=["warrior"], target="gob-d", dice=["t1/melee/gob-d/warrior"], ranks=[], over="")))
    goblins.refused(forged, f"seq {seq}", f"reads die 't1/melee/gob-d/warrior', already used by seq {first}")


def test_a_die_of_another_notation(goblins: Table) -> None:
    # the axe is a 1D6 (=H); the forger records its die as a 1d8 showing 8
    seq = die_seq(goblins.lines, "t1/melee/gob-d/warrior")
    forged = forge(goblins.lines, (seq, lambda d: d.update(notation="1d8", sides=8, faces=[8], total=8)))
    goblins.refused(forged, "the rules roll 1d6 here, die 't1/melee/gob-d/warrior' is 1d8")


def test_a_game_turn_renumbered(goblins: Table) -> None:
    # the turn number is part of every label: a free choice of it would be a free choice of dice
    seq = seq_of(goblins.lines, "argad.turn_started", turn=2)
    goblins.refused(forge(goblins.lines, (seq, lambda d: d.update(turn=7))),
                    "game turn 7 cannot begin: the rules are at turn 2")


# -- forgeries of the band against an Ogre and a Troll ------------------------------------------


def test_a_survival_roll_left_out(wall: Table) -> None:
    # turn 1: the Ogre and the Troll, both wounded by shots, roll to survive; the forger drops one
    seq = seq_of(wall.lines, "argad.turn_ended", turn=1)
    wall.refused(forge(wall.lines, (seq, lambda d: d.update(survival=["t1/survival/ogre"]))),
                 "survival names 1 dice where the rules draw 2")


def test_survival_rolls_swapped(wall: Table) -> None:
    seq = seq_of(wall.lines, "argad.turn_ended", turn=1)

    def swap(d: dict[str, Any]) -> None:
        d["survival"].reverse()

    wall.refused(forge(wall.lines, (seq, swap)), "survival[0] names die 't1/survival/troll'",
                 "the rules draw 't1/survival/ogre'")


def test_a_shot_swapped_with_its_re_roll(wall: Table) -> None:
    # turn 3: the archer's 6 was re-rolled to 3; swapped, the 6 disappears from the melee's maxima
    seq = seq_of(wall.lines, "argad.shot", turn=3)

    def swap(d: dict[str, Any]) -> None:
        d["dice"][0], d["rerolls"][0] = d["rerolls"][0], d["dice"][0]

    wall.refused(forge(wall.lines, (seq, swap)), "dice[0] names die 't3/shoot/troll/reroll#1'",
                 "the rules draw 't3/shoot/troll/archer'")


def test_a_survival_die_of_another_notation(wall: Table) -> None:
    # the Troll's life points are 1D4: a 1d6 showing 6 would survive more wounds
    seq = die_seq(wall.lines, "t4/survival/troll")
    forged = forge(wall.lines, (seq, lambda d: d.update(notation="1d6", sides=6, faces=[6], total=6)))
    wall.refused(forged, "survival[0]: the rules roll 1d4 here, die 't4/survival/troll' is 1d6")


# -- a joint-dice combat: labels the forger could try offline -------------------------------------

JOINT_SETUP = {
    "figures": [
        {"name": "archer", "side": "men", "species": "human", "class": 4, "worn": 4, "missile": "longbow",
         "abilities": ["elite_shooter"]},
        {"name": "hero", "side": "men", "species": "human", "class": 5, "worn": 5, "weapon": "two_handed_axe",
         "abilities": ["strong"]},
        {"name": "axeman", "side": "men", "species": "human", "class": 4, "worn": 4, "weapon": "two_handed_axe"},
        {"name": "troll", "side": "beasts", "species": "troll_large"},
        {"name": "brute", "side": "beasts", "species": "half_ogre"},
    ],
    "options": {"wound_location": "on"},
}


class Joint(Table):
    seed: bytes
    bob: Any


@pytest.fixture(scope="module")
def joint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Joint]:
    """alice and bob pin their keys; after the seed step bob plays the whole game turn (so every event
    after the seed is his, and he can re-sign them all): a volley at a group, a pool of two axes with
    different modifiers, the Troll's 2D6 split on two men, the survival rolls."""
    from combatlog.commands.handler import resolve_stream
    from combatlog.wiring import create_combat, execute
    from combatlog.exchange.bundle import export_file
    from combatlog.projections.fold import state_at
    from combatlog.store import open_store
    from combatlog.trust.commands import CommitOrders, RevealOrders
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players
    from combatlog.trust.sealed import joint_key

    root = tmp_path_factory.mktemp("joint")
    home = root / "keys"
    with key_home(home):
        for name in ("alice", "bob"):
            new_key(name)
        store = open_store(str(root / "played.db"))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        signers = {"alice": sign_a, "bob": make_signer("bob")}
        # friendly mode: each choice draws its dice at once, after its decision point (in strict mode they wait for
        # a fresh seed step: tests/trust/test_foreseen_dice.py)
        create_combat(store, "skirmish", "argad", actor="alice", dice="joint", players=players, signer=sign_a,
                      setup=JOINT_SETUP, options={"joint_dice": "friendly"})

        def do(actor: str, command: Any) -> None:
            execute(store, "skirmish", command, actor=actor, signer=signers[actor])

        do("alice", CommitOrders(step="s1"))
        do("bob", CommitOrders(step="s1"))
        do("alice", RevealOrders(step="s1"))
        do("bob", RevealOrders(step="s1"))
        do("bob", c.StartTurn())
        do("bob", c.Shoot(shooters=("archer",), targets=("troll", "brute"), need=5))
        do("bob", c.Strike(attackers=("hero", "axeman"), targets=("brute",)))
        do("bob", c.Strike(attackers=("troll",), targets=("hero", "axeman")))
        do("bob", c.EndTurn())
        meta = resolve_stream(store, "skirmish")
        export_file(store, meta, root / "skirmish.jsonl")
        lines = (root / "skirmish.jsonl").read_bytes().split(b"\n")[:-1]
        # the receiver holds the seed step (seqs 1-5): everything before bob's game turn
        table = Joint(root, lines, keep_to_seq=batch_cut(lines, 6), env={"COMBATLOG_HOME": str(home)})
        table.seed = joint_key(store, state_at(store, meta).core)[1]
        table.bob = signers["bob"]
        yield table


def test_the_honest_joint_combat_leaves_no_die_unbound(joint: Joint) -> None:
    path = write_lines(joint.root / "honest.jsonl", joint.lines)
    report = joint.checker("verify", str(path), "--json").json()
    drawn = sum(1 for env in events(joint.lines) if env["type"] == "core.dice_rolled")
    assert report["ok"] and report["signatures"] == len(joint.lines) - 1  # type: ignore[index]
    assert report["dice"] == {"verified": drawn, "pending": 0, "manual": 0, "local": 0, "unbound": 0}  # type: ignore[index]


def test_a_die_drawn_under_an_invented_label(joint: Joint) -> None:
    # The Troll's 1D6 against the hero: bob tries labels offline until one shows a 6 (a kill against
    # class 5), redraws the die under it with the faces the seed gives, and points the strike at it.
    # The faces are right for the label and the notation is right: only the label gives it away.
    rules = "t1/melee/hero/troll"
    label = next(f"{rules}/{i}" for i in range(1000) if derive_faces(joint.seed, f"{rules}/{i}", 1, 6) == (6,))
    forged = forge(joint.lines,
                   (die_seq(joint.lines, rules), lambda d: d.update(label=label, faces=[6], total=6)),
                   (seq_of(joint.lines, "argad.struck", target="hero"), lambda d: d.update(dice=[label])),
                   signer=joint.bob)
    joint.refused(forged, f"dice[0] names die '{label}', but the rules draw '{rules}' there")


def test_a_group_named_in_another_order(joint: Joint) -> None:
    # The volley at the Troll and the half-Ogre: the rules label its dice "brute+troll". Named the other
    # way round, the same shots would read other faces: bob redraws the archer's die under the
    # "troll+brute" label with the seed's faces and renames the group.
    rules = "t1/shoot/brute+troll/archer"
    label = "t1/shoot/troll+brute/archer"
    faces = derive_faces(joint.seed, label, 1, 6)
    shot = seq_of(joint.lines, "argad.shot", targets=["brute", "troll"])
    forged = forge(joint.lines,
                   (die_seq(joint.lines, rules), lambda d: d.update(label=label, faces=list(faces), total=faces[0])),
                   (shot, lambda d: d.update(targets=["troll", "brute"], dice=[label], rerolls=[], allocation=[])),
                   signer=joint.bob)
    joint.refused(forged, f"seq {shot}", "the rules name a group in name order (brute + troll)")


def test_a_pool_swapped_in_a_joint_combat(joint: Joint) -> None:
    # the hero strikes at +2 (strong, axe), the axeman at +1: a swap gives the better die the better bonus
    seq = seq_of(joint.lines, "argad.struck", attackers=["hero", "axeman"])

    def swap(d: dict[str, Any]) -> None:
        d["dice"].reverse()

    joint.refused(forge(joint.lines, (seq, swap), signer=joint.bob),
                  "dice[0] names die 't1/melee/brute/axeman', but the rules draw 't1/melee/brute/hero'")


def test_a_joint_die_of_another_notation(joint: Joint) -> None:
    # the Troll splitting its 2D6 rolls 1D6 against each man; redrawn as a 1d12 under the same label,
    # with the faces the seed gives a 1d12
    label = "t1/melee/hero/troll"
    faces = derive_faces(joint.seed, label, 1, 12)
    forged = forge(joint.lines, (die_seq(joint.lines, label), lambda d: d.update(
        notation="1d12", sides=12, faces=list(faces), total=faces[0])), signer=joint.bob)
    joint.refused(forged, f"the rules roll 1d6 here, die '{label}' is 1d12")


# -- 1D2 thrown with a d6 (Argad: Wounds) -------------------------------------------------------------


def test_a_1d2_survival_roll_is_a_d6_read_odd_or_even(tmp_path: Path) -> None:
    # Seed 'Wounds': "Creatures which can receive 1D2 wounds roll 1D2 at the end of game turn when a first
    # wound happens. Any die may be used as 1D2, odd result =1, even result =2 [...] If the die rolls 1
    # after this first wound, the creature dies." A half-Ogre (1D2 life points) struck by a strong
    # axeman (6 +2 = 8 > 4: a wound) rolls a d6 at the end of the turn: a 5 is odd, a 1: it dies.
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"figures": [
        {"name": "hero", "side": "men", "species": "human", "weapon": "two_handed_axe", "abilities": ["strong"]},
        {"name": "brute", "side": "beasts", "species": "half_ogre"}]}))
    cli = Cli(tmp_path / "log.db", REPO)
    cli("new", "d2", "--ruleset", "argad", "--setup", str(setup), "--dice", "manual")
    cli("argad", "turn", "d2")
    cli("argad", "strike", "d2", "hero", "--at", "brute", "--face", "t1/melee/brute/hero=6")
    cli("argad", "end-turn", "d2", "--face", "t1/survival/brute=5")
    explained = cli("explain", "d2").out
    assert "brute: survival 1D2 = 1 (d6 5 -> 1 (odd)) with 1 wound(s): dies" in explained
    summary = cli("argad", "turn-summary", "d2", "--json").json()
    assert summary["survival"] == [{"figure": "brute", "label": "t1/survival/brute", "roll": 1, "wounds": 1,  # type: ignore[index]
                                    "died": True, "read": "d6 5 -> 1 (odd)"}]
    cli("export", "d2", "-o", str(tmp_path / "d2.jsonl"))
    lines = (tmp_path / "d2.jsonl").read_bytes().split(b"\n")[:-1]
    assert "ok:" in cli("verify", str(tmp_path / "d2.jsonl")).out
    # recorded as a 1d6 whatever the scheme: a die recorded as a 1d2 (a 2 would survive) is refused
    seq = die_seq(lines, "t1/survival/brute")
    forged = write_lines(tmp_path / "forged.jsonl", forge(lines, (seq, lambda d: d.update(
        notation="1d2", sides=2, faces=[2], total=2))))
    refused = cli("verify", str(forged), ok=False)
    assert "survival[0]: the rules roll 1d6 here, die 't1/survival/brute' is 1d2" in refused.err


# -- property: dice_uses declares exactly the dice decide drew ----------------------------------------

FIGURES = [
    {"name": "knight", "side": "a", "species": "human", "class": 5, "worn": 5, "mounted": True, "weapon": "lance"},
    {"name": "archer", "side": "a", "species": "human", "missile": "longbow", "abilities": ["elite_shooter"]},
    {"name": "dwarf", "side": "a", "species": "dwarf", "class": 4, "worn": 4, "weapon": "halberd",
     "missile": "war_crossbow"},
    {"name": "hero", "side": "a", "species": "human", "weapon": "two_handed_axe", "abilities": ["strong"]},
    {"name": "gob-1", "side": "b", "species": "goblin", "weapon": "spear", "missile": "simple_bow"},
    {"name": "gob-2", "side": "b", "species": "goblin", "missile": "simple_bow"},
    {"name": "ogre", "side": "b", "species": "ogre", "class": 4, "worn": 4, "weapon": "two_handed_axe"},
    {"name": "troll", "side": "b", "species": "troll_large"},
    {"name": "brute", "side": "b", "species": "half_ogre", "weapon": "two_handed_axe"},
]
NAMES = [f["name"] for f in FIGURES]


class RandomPort(DicePort):
    def __init__(self, rng: random.Random, taken: set[str]) -> None:
        super().__init__(scheme="manual", actor="gm", labels_taken=taken)
        self.rng = rng

    def _manual_faces(self, label: str, dice: Any) -> tuple[int, ...]:
        # maxima often, so that chains of re-rolls happen
        return tuple(dice.sides if self.rng.random() < 0.3 else self.rng.randint(1, dice.sides)
                     for _ in range(dice.count))


def random_command(rng: random.Random, state: Any) -> Any:
    if state.turn is None:
        return c.StartTurn()
    kind = rng.choice(["move", "shoot", "shoot", "group", "into", "strike", "strike", "strike", "end"])
    if kind == "end":
        return c.EndTurn()
    if kind == "move":
        return c.Move(figure=rng.choice(NAMES), charge=rng.random() < 0.3, crossing=rng.random() < 0.3)
    side_a = [n for n in NAMES if n in ("knight", "archer", "dwarf", "hero")]
    side_b = [n for n in NAMES if n not in side_a]
    if kind in ("shoot", "group"):
        shooters, foes = (("archer", "dwarf"), side_b) if rng.random() < 0.5 else (("gob-1", "gob-2"), side_a)
        shooter = (rng.choice(shooters),) if rng.random() < 0.5 else shooters
        targets = tuple(rng.sample(foes, 2 if kind == "group" else 1))
        return c.Shoot(shooters=shooter, targets=targets, need=rng.choice([3, 4, 5, 6]))
    if kind == "into":  # small shooters into a melee, with a friend close to the target
        return c.Shoot(shooters=tuple(rng.sample(["gob-1", "gob-2"], rng.choice([1, 2]))),
                       targets=(rng.choice(side_a),), need=rng.choice([3, 4]), into_melee=True, range_cm=5,
                       friends=("brute",))
    attackers = tuple(rng.sample(NAMES, 1 if rng.random() < 0.6 else 2))
    targets = tuple(rng.sample(NAMES, 2 if attackers == ("troll",) and rng.random() < 0.5 else 1))
    return c.Strike(attackers=attackers, targets=targets)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=st.fixed_dictionaries({
    "chained_maxima": st.sampled_from(["single", "once", "any"]),
    "two_maxima": st.sampled_from(["plus_one", "half"]),
    "strength": st.sampled_from(["die", "modifier"]),
    "h2_single_die": st.sampled_from(["d12", "2d6"]),
    "wound_location": st.sampled_from(["on", "off"]),
}))
def test_dice_uses_declares_every_die_decide_draws(seed: int, options: dict[str, str]) -> None:
    rng = random.Random(seed)
    genesis = CombatStarted(name="p", ruleset="argad", ruleset_version="1", rules_digest="", engine_version="",
                            setup={"figures": FIGURES, "options": options})
    state = RULESET.initial_state(genesis)
    taken: set[str] = set()
    seq = 1
    for _ in range(150):
        port = RandomPort(rng, taken)
        try:
            produced = RULESET.decide(state, random_command(rng, state), port)
        except CombatlogError:
            continue
        drawn: dict[str, DiceRolled] = {d.label: d for d in port.drawn}
        declared: list[str] = []
        for event in [*port.drawn, *produced]:
            if not isinstance(event, DiceRolled):
                for use in RULESET.dice_uses(state, event):
                    assert use.label == use.expected_label and not use.reuse
                    assert str(parse_dice(use.notation)) == drawn[use.label].notation, (use, drawn[use.label])
                    declared.append(use.label)
            seq += 1
            state = RULESET.evolve(state, event, seq)
        assert sorted(declared) == sorted(drawn), (produced, sorted(drawn))
        taken |= set(drawn)
