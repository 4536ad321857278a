"""A hostile player cannot make the Magic Realm rules read a die they did not draw for that purpose.

No Magic Realm event names a die: ``evolve`` reads each one by the rules' label (``r1/assign/goblin-2``,
``r1/attention/1``, ``r1/reposition/amazon``, ``r1/tactics/amazon/box1``, ``r1/missile/wg``...), and
``MagicRealm.dice_uses`` declares every die the fold of an event reads (dice_uses.py). The honest logs
are the example combats (docs/examples/magic_realm/*.cmds, manual dice, nobody pinned) and a joint-dice
round by mail with three pinned players (alice: Black Knight, bob: Amazon, carol: no character, who only
seeds the dice), built in-process like tests/trust/test_mr_sealed.py.

The forger edits an export as a modified client would: re-chains every hash and the header
(``rebuilt``, like ``tests.trust.pbem.rechain``), and in the signed combat rewrites only his own tail,
re-signed with his own key, with joint faces recomputed from the revealed seed (``derive_faces``), so
that only the dice binding stands between the cheat and the other players. Each forged file is refused
by ``combatlog verify FILE`` and ``combatlog import FILE`` (the real CLI) with a message naming the die,
and the receiving log is left byte for byte as it was. A joint die under a label no rule reads is refused
inside a command's batch (re-deciding the batch finds no such die), and outside one changes nothing and is
reported (``dice.unbound``); a rules' die drawn at an earlier step than its own (so known before the
choices between) is refused since the core binds a joint die to the command that resolves with it (the
last test). Receiving logs end between batches (``tests.trust.pbem.batch_cut``), as honest logs do.

The joint round's seqs (``joint`` fixture; the seed, so the dice, differ at each run): 10
``r1/assign/goblin-2`` 1d2, 11 mr.denizens_assigned; 16 ``r1/attention/1`` 1d2, 17 mr.melee_started;
18-19 target selection; 20-25 the commits and reveals of ``r1/plays`` (bob reveals last, at 25: the
round's joint seed); from 26 bob's resolution dice (``r1/reposition/amazon``, ``r1/reposition/bk``
1d6, a 2d6 per box that changes tactics, at least one on the Amazon's sheet where goblin-1 attacks),
then bob's mr.melee_resolved. The Amazon plays two effort asterisks, so the round stays in the Fatigue
Step whatever the dice (armor covers her on every side: she cannot be killed in round 1).
"""

from __future__ import annotations

import random
import types
import unittest.mock
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.dice.derive import derive_faces
from combatlog.errors import VerificationFailed
from combatlog.events.canonical import canonical
from combatlog.events.core import DiceRolled
from combatlog.events.envelope import Envelope, decode_envelope, encode_envelope, seal
from combatlog.exchange.bundle import Header, _header_check
from combatlog.wiring import import_file, verify_file
from combatlog.rulesets import available, load_ruleset
from tests.conftest import REPO, Cli
from tests.played import copy_log, played_log
from tests.trust.pbem import batch_cut, export, key_home, truncated, write_lines

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

replace = msgspec.structs.replace
EXAMPLES = {"giant-and-goblins": "giant-goblins", "bashkar-ambush": "bashkars", "peace-and-goblins": "peace-goblins"}


# -- forging an export --------------------------------------------------------------------------


def envelopes(lines: list[bytes]) -> list[Envelope]:
    return [decode_envelope(line) for line in lines[1:]]


def at(envs: list[Envelope], seq: int) -> int:
    """The index of the envelope of ``seq``."""
    return next(i for i, env in enumerate(envs) if env.seq == seq)


def labelled(envs: list[Envelope], label: str) -> int:
    """The index of the die drawn under ``label``."""
    return next(i for i, env in enumerate(envs) if env.type == "core.dice_rolled" and env.payload().label == label)


def redrawn(env: Envelope, **changes: Any) -> Envelope:
    """The same die with some fields changed (count, sides, total follow the notation and faces)."""
    die = replace(env.payload(), **changes)
    assert isinstance(die, DiceRolled)
    n, _, sides = die.notation.partition("d")
    die = replace(die, count=int(n), sides=int(sides), total=sum(die.faces))
    return sealed_like(env, die)


def sealed_like(env: Envelope, event: Any) -> Envelope:
    """``event`` in ``env``'s place: the same envelope fields, the command record of its batch included."""
    return seal(stream=env.stream, seq=env.seq, prev=env.prev, event=event, actor=env.actor,
                command_id=env.command_id, recorded_at=env.recorded_at,
                command=None if env.command is msgspec.UNSET else bytes(env.command))


def added_like(env: Envelope, event: Any) -> Envelope:
    """``event`` added beside ``env`` (in its batch or, with another command id, alone): no command record."""
    return replace(sealed_like(env, event), command=msgspec.UNSET)


def rebuilt(lines: list[bytes], envs: list[Envelope], signers: dict[str, Any] | None = None) -> list[bytes]:
    """The forger's export: seqs renumbered, every hash and the header recomputed; each event whose hash
    changed is re-signed when the forger holds its actor's key (his own events), else keeps its signatures."""
    first = decode_envelope(lines[1])
    prev, seq, out = first.prev, first.seq, []
    for env in envs:
        new = replace(env, seq=seq, prev=prev)
        new = replace(new, hash=new.computed_hash())
        if signers and env.actor in signers and (new.hash != env.hash or not env.sigs):
            new = signers[env.actor](new.with_sigs(()))
        out.append(encode_envelope(new))
        prev, seq = new.hash, seq + 1
    header = msgspec.json.decode(lines[0], type=Header)
    header = replace(header, head_hash=prev, count=len(out), head_seq=seq - 1)
    header = replace(header, check=_header_check(header))
    return [canonical(header), *out]


# -- the receiving player --------------------------------------------------------------------------


def snapshot(db: Path) -> dict[str, bytes]:
    """The log's files, byte for byte (SQLite and its write-ahead log)."""
    return {p.name: p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")) if not p.name.endswith("-shm")}


def receiver(tmp: Path, lines: list[bytes], upto: int, home: Path | None = None) -> tuple[Cli, Path]:
    """A player's log holding the honest events up to ``upto`` (the end of a batch, as every honest log
    ends: ``batch_cut``), and a CLI on it."""
    from combatlog.store import open_store

    db = tmp / "receiver" / "log.db"
    db.parent.mkdir(parents=True)
    store = open_store(str(db))
    import_file(store, write_lines(tmp / "prefix.jsonl", truncated(lines, upto)))
    store.close()
    env = {"COMBATLOG_HOME": str(home)} if home else {}
    return Cli(db, REPO, env), db


def refused(cli: Cli, db: Path, forged: Path, *messages: str) -> None:
    """``verify FILE`` and ``import FILE`` both fail naming the cheat; the log is untouched."""
    before = snapshot(db)
    for command in ("verify", "import"):
        result = cli(command, str(forged), ok=False)
        assert result.code != 0, f"combatlog {command} accepted the forged file:\n{result.out}"
        for message in messages:
            assert message in result.err, f"combatlog {command}: {message!r} not in\n{result.err}"
    assert snapshot(db) == before


# -- the honest logs ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    """Each example combat played through the CLI (``combatlog run``), exported."""
    from combatlog.store import open_store

    out = {}
    for file, name in EXAMPLES.items():
        tmp = tmp_path_factory.mktemp(file)  # the example played once per run (tests/played.py), copied
        copy_log(played_log(tmp_path_factory, REPO / "docs/examples/magic_realm" / f"{file}.cmds"), tmp / "log.db")
        store = open_store(str(tmp / "log.db"))
        out[file] = export(store, tmp / "honest.jsonl", name)
        store.close()
    return out


SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "giant", "monster": "Giant"}, {"id": "goblin-1", "monster": "Axe Goblin"},
                 {"id": "goblin-2", "monster": "Axe Goblin"}],
}
PLAYERS = ("alice", "bob", "carol")
OWNER = {"bk": "alice", "amazon": "bob"}
BK = {"attack": 3, "fight": "F3", "maneuver": 1, "move": "M3", "shield": 1}
AMAZON = {"attack": 1, "fight": "F6", "maneuver": 2, "move": "M2", "shield": 3}  # FIGHT M4* and MOVE M3*: she owes


def seal_step(do: Callable[[str, Any], None], step: str, orders: dict[str, Any],
              order: tuple[str, ...] = PLAYERS) -> None:
    from combatlog.trust.commands import CommitOrders, RevealOrders

    for p in order:
        do(p, CommitOrders(step=step, orders=orders.get(p, {})))
    for p in order:
        do(p, RevealOrders(step=step))


def seal_plays(do: Callable[[str, Any], None]) -> None:
    """Round 1's secret plays; carol, who has no character, seals empty plays: a nonce for the seed."""
    seal_step(do, "r1/plays", {"alice": {"plays": {"bk": BK}}, "bob": {"plays": {"amazon": AMAZON}},
                               "carol": {"plays": {}}}, order=("carol", "alice", "bob"))


class Joint(msgspec.Struct, kw_only=True):
    lines: list[bytes]  # the honest export
    signers: dict[str, Any]
    seed: bytes  # the joint seed of r1/plays, which every player knows once it is revealed
    seed_ref: int
    home: Path
    tactics: str  # a change tactics die on the Amazon's sheet
    resolved: int  # the seq of bob's mr.melee_resolved


@pytest.fixture(scope="module")
def joint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Joint]:
    """Round 1 by mail with joint dice, strict mode, three pinned players (seqs: see the module docstring).

    The joint dice come from the players' secret nonces, new every run, so the round ends differently each
    time. "reuse a die" needs a round after which a second resolution would read a die again (someone is
    still on a sheet to reposition): 3 rounds of 40 played here left nobody (and the test failed on chance),
    so the round is played again until it leaves someone, at most 30 times."""
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.magic_realm import events as mr_events
    from combatlog.store import open_store

    for _attempt in range(30):
        played = _joint_round(tmp_path_factory)
        store = open_store(str(played.home.parent / "log.db"))
        try:
            final = state_at(store, store.list_streams()[0])
        finally:
            store.close()
        again = final.ruleset.dice_uses(final.state, mr_events.MeleeResolved(round=1))
        if any(use.label.startswith("r1/reposition/") for use in again):
            yield played
            return
    raise AssertionError("30 rounds in a row left nobody to reposition: the fixture's fight is not what it was")


def _joint_round(tmp_path_factory: pytest.TempPathFactory) -> Joint:
    from combatlog.wiring import create_combat, execute
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.store import open_store
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players
    from combatlog.trust.sealed import joint_key

    tmp = tmp_path_factory.mktemp("joint")
    with key_home(tmp / "home"):
        for name in PLAYERS:
            new_key(name)
        store = open_store(str(tmp / "log.db"))
        players, sign_a = pin_players(list(PLAYERS), "alice")
        signers = {"alice": sign_a, "bob": make_signer("bob"), "carol": make_signer("carol")}
        create_combat(store, "cave", "magic_realm", actor="alice", setup=SETUP, dice="joint", players=players,
                      signer=sign_a, options={"joint_dice": "strict"})

        def do(actor: str, command: Any) -> None:
            execute(store, "cave", command, actor=actor, signer=signers[actor])

        do("bob", c.Lure(character="amazon", denizens=("goblin-1",)))
        do("alice", c.Lure(character="bk", denizens=("giant",)))
        seal_step(do, "r1/assign", {})  # goblin-2 is left to the random assignment: a seed first
        do("alice", c.Assign())
        do("alice", c.Deploy(character="bk"))
        do("bob", c.Deploy(character="amazon"))
        do("bob", c.Act(character="amazon", kind="none"))
        do("alice", c.Act(character="bk", kind="none"))
        do("alice", c.StartMelee())
        meta = store.list_streams()[0]
        for cid in state_at(store, meta).state.attention:
            do(OWNER[cid], c.Target(character=cid, target={"bk": "giant", "amazon": "goblin-1"}[cid]))
        seal_plays(do)
        do("bob", c.Resolve())
        folded = state_at(store, meta)
        assert folded.state.step == "fatigue" and folded.state.round == 1
        seed_ref, seed = joint_key(store, folded.core)
        lines = export(store, tmp / "honest.jsonl", "cave")
        store.close()
        tail = [decode_envelope(line) for line in lines[26:]]
        assert tail[-1].type == "mr.melee_resolved" and {e.type for e in tail[:-1]} == {"core.dice_rolled"}
        assert {e.actor for e in tail} == {"bob"} and decode_envelope(lines[25]).actor == "bob"
        tactics = next(e.payload().label for e in tail if e.payload().label.startswith("r1/tactics/amazon/"))
        return Joint(lines=lines, signers=signers, seed=seed, seed_ref=seed_ref, home=tmp / "home",
                     tactics=tactics, resolved=tail[-1].seq)


def joint_die(j: Joint, like: Envelope, label: str, notation: str) -> Envelope:
    """A joint die as bob's modified client draws it: faces from the revealed seed, any label and notation."""
    n, _, sides = notation.partition("d")
    faces = derive_faces(j.seed, label, int(n), int(sides))
    die = DiceRolled(label=label, notation=notation, count=int(n), sides=int(sides), modifier=0, faces=faces,
                     total=sum(faces), scheme="joint", seed_ref=j.seed_ref, by="bob", purpose="forged")
    return sealed_like(like, die)


# -- every die the rules read is declared, and only those ---------------------------------------------


def batches_match_declared_uses(lines: list[bytes]) -> int:
    """For each Magic Realm event, the dice its fold reads (``dice_uses``) are exactly the dice its command
    drew just before it, label and notation; the label decide drew is the one declared. Returns the number
    of dice checked."""
    from combatlog.events.envelope import Recorded
    from combatlog.projections.fold import empty

    ruleset = load_ruleset("magic_realm")
    folded = empty(ruleset)
    batch: list[tuple[str, str]] = []
    checked = 0
    for env in envelopes(lines):
        rec = Recorded(env, env.payload())
        if isinstance(rec.event, DiceRolled):
            batch.append((rec.event.label, rec.event.notation))
        elif folded.state is not None and env.type.startswith("mr."):
            uses = ruleset.dice_uses(folded.state, rec.event)
            assert sorted((u.label, u.notation) for u in uses) == sorted(batch), f"seq {env.seq} {env.type}"
            assert all(u.expected_label == u.label and not u.reuse for u in uses)
            checked += len(batch)
            batch = []
        folded.apply(rec)
    assert not batch, f"dice drawn after the last rules event: {batch}"
    return checked


@pytest.mark.parametrize("file", EXAMPLES)
def test_each_example_declares_exactly_the_dice_its_commands_draw(examples, file: str) -> None:  # type: ignore[no-untyped-def]
    assert batches_match_declared_uses(examples[file]) == {"giant-and-goblins": 16, "bashkar-ambush": 26,
                                                           "peace-and-goblins": 9}[file]


def test_the_joint_round_declares_exactly_the_dice_its_commands_draw(joint: Joint) -> None:
    assert batches_match_declared_uses(joint.lines) == 2 + len(joint.lines) - 27


DEMONS = ["Demon", "Winged Demon", "Imp", "Giant", "Axe Goblin"]


@pytest.mark.parametrize(("monsters", "seed"), [(None, 8), (DEMONS, 11), (DEMONS, 38)])
def test_random_playouts_declare_exactly_the_dice_they_draw(monsters: list[str] | None, seed: int, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Random legal play-outs (tests/rulesets/magic_realm/test_property.py); these seeds draw every kind of
    die but the spells': assignment, Attention chits, repositioning, tactics, Missile Table, Curse (the
    Imp) and Power of the Pit (Demons)."""
    from combatlog.wiring import create_combat
    from combatlog.projections.fold import state_at
    from combatlog.store import open_store
    from tests.rulesets.magic_realm import test_property as playout

    if monsters:
        monkeypatch.setattr(playout, "MONSTERS", monsters)
        monkeypatch.setattr(playout, "CHARS", ["Woods Girl", "Amazon", "Black Knight", "Captain"])
    rng, dice_rng = random.Random(seed), random.Random(seed ^ 0x5EED)
    store = open_store("memory:")
    with unittest.mock.patch("combatlog.dice.port.secrets", types.SimpleNamespace(randbelow=dice_rng.randrange)):
        create_combat(store, "p", "magic_realm", actor="gm", setup=playout._setup(rng), dice="local")
        meta = store.list_streams()[0]
        for _ in range(160):
            state = state_at(store, meta).state
            if state.ended or state.round > 4:
                break
            playout._try(store, playout._command(state, rng))
    lines = export(store, tmp_path / "p.jsonl", "p")
    kinds = {e.payload().label.split("/")[1] for e in envelopes(lines) if e.type == "core.dice_rolled"}
    assert kinds >= {"reposition", "tactics", "missile"} | ({"pit", "curse", "assign"} if monsters else {"curse"})
    assert batches_match_declared_uses(lines) > 0
    assert verify_file(tmp_path / "p.jsonl").ok


def test_an_attack_spell_declares_its_missile_die(tmp_path: Path) -> None:
    """Fiery Blast cast at an Axe Goblin (as in tests/rulesets/magic_realm/test_rounds.py): its Missile
    Table die is ``r1/missile/<caster>/<target>``."""
    from combatlog.rulesets.magic_realm import commands as c
    from tests.rulesets.magic_realm.mr_helpers import Game, char

    g = Game({"clearing": {"color_magic": "purple"}, "first_round_of_day": False,
              "characters": [char("sorc", "Sorceror", spells=["Fiery Blast"])],
              "denizens": [{"id": "goblin", "monster": "Axe Goblin"}], "assigned": {"goblin": "sorc"}})
    chit = next(ch.id for ch in g.state.characters["sorc"].chits if ch.label == "MAGIC IV3*")
    g.do(c.Act(character="sorc", kind="cast", spell="Fiery Blast", chit=chit))
    g.do(c.StartMelee())
    g.do(c.Target(character="sorc", spell_targets=("goblin",)))
    g.do(c.Play(character="sorc", attack=1, place={"goblin": 1}))
    g.do(c.Resolve(), {"r1/reposition/sorc": (4,), "r1/tactics/sorc/box1": (1, 1), "r1/missile/sorc/goblin": (3, 1)})
    lines = export(g.store, tmp_path / "t.jsonl", "t")
    assert batches_match_declared_uses(lines) == 3


# -- the honest logs verify, every joint die bound to a rule -----------------------------------------


@pytest.mark.parametrize("file", EXAMPLES)
def test_each_honest_example_verifies(examples, file: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = write_lines(tmp_path / f"{file}.jsonl", examples[file])
    report = Cli(tmp_path / "empty.db", REPO)("verify", str(path), "--json").json()
    assert report["ok"] and report["dice"]["unbound"] == 0  # type: ignore[index]
    assert report["dice"]["manual"] == len([e for e in envelopes(examples[file]) if e.type == "core.dice_rolled"])  # type: ignore[index]


def test_the_honest_joint_round_verifies_and_imports_with_no_unbound_die(joint: Joint, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "honest.jsonl", joint.lines)
    cli, _db = receiver(tmp_path, joint.lines, batch_cut(joint.lines, 25), joint.home)
    report = cli("verify", str(path), "--json").json()
    dice = [e for e in envelopes(joint.lines) if e.type == "core.dice_rolled"]
    assert report["ok"] and report["dice"]["unbound"] == 0 and report["dice"]["verified"] == len(dice)  # type: ignore[index]
    assert report["signatures"] == report["head_seq"] == len(joint.lines) - 1  # type: ignore[index]
    cli("import", str(path))
    assert cli("verify", "cave", "--json").json()["dice"]["unbound"] == 0  # type: ignore[index]


# -- attacks on the example combats (manual dice, nobody pinned: any event can be rewritten) ---------------

# Each attack: (example, the seq before the first forged event, edit of the envelopes, what the refusal says).
# The receiving log holds the example up to the batch of the first forged event (``batch_cut``): the forged
# file carries that whole batch, as an honest one would.
Edit = Callable[[list[Envelope]], list[Envelope]]


def _swap_labels(a: str, b: str) -> Edit:
    """The repositioning of the Amazon's sheet reads the 2d6 die drawn for a change of tactics, and back."""

    def edit(envs: list[Envelope]) -> list[Envelope]:
        i, k = labelled(envs, a), labelled(envs, b)
        envs[i], envs[k] = redrawn(envs[i], label=b), redrawn(envs[k], label=a)
        return envs

    return edit


def _notation(label: str, notation: str, faces: tuple[int, ...]) -> Edit:
    def edit(envs: list[Envelope]) -> list[Envelope]:
        i = labelled(envs, label)
        envs[i] = redrawn(envs[i], notation=notation, faces=faces)
        return envs

    return edit


def _again(seq: int) -> Edit:
    """The event of ``seq`` folded a second time just after itself: the same dice read again."""

    def edit(envs: list[Envelope]) -> list[Envelope]:
        i = at(envs, seq)
        return [*envs[: i + 1], replace(envs[i], command_id=envs[i].command_id + "-again"), *envs[i + 1:]]

    return edit


def _after(label: str, seq: int) -> Edit:
    """A die moved after the event that reads it."""

    def edit(envs: list[Envelope]) -> list[Envelope]:
        die = envs.pop(labelled(envs, label))
        i = at(envs, seq)
        return [*envs[: i + 1], die, *envs[i + 1:]]

    return edit


MANUAL_ATTACKS = {
    # giant-and-goblins round 1: 17-24 gm's Resolve (17-23 its dice, 24 mr.melee_resolved).
    "swap a rule's die for another": (
        "giant-and-goblins", 18, _swap_labels("r1/reposition/amazon", "r1/tactics/amazon/box1"),
        ("seq 24: mr.melee_resolved (reposition amazon)", "the rules roll 1d6 here, die 'r1/reposition/amazon' is 2d6")),
    # goblin-2 is assigned by one die over four targets: a d6 lets the roller reach targets the rules cannot
    # (4-6 gm's Assign: the dice of goblin-2 and goblin-3, then mr.denizens_assigned).
    "wrong notation": (
        "giant-and-goblins", 4, _notation("r1/assign/goblin-2", "1d6", (1,)),
        ("seq 6: mr.denizens_assigned (random assignment of goblin-2)",
         "the rules roll 1d4 here, die 'r1/assign/goblin-2' is 1d6")),
    # bashkar-ambush round 1: 23 resolves the Melee Step and the round waits for fatigue; resolving it again
    # re-reads the repositioning and tactics dice for a second set of attacks.
    "reuse a die": (
        "bashkar-ambush", 23, _again(23),
        ("seq 24: mr.melee_resolved (reposition wg) reads die 'r1/reposition/wg', already used by seq 23",)),
    # bashkar-ambush round 1: the Archer's Missile Table die moved after the resolution that reads it.
    "a die drawn after its use": (
        "bashkar-ambush", 15, _after("r1/missile/archer", 23),
        ("seq 22: mr.melee_resolved (Missile Table for archer) reads die 'r1/missile/archer', "
         "which was not drawn before it",)),
}


@pytest.mark.parametrize("attack", MANUAL_ATTACKS)
def test_a_forged_example_is_refused(examples, attack: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    file, upto, edit, messages = MANUAL_ATTACKS[attack]
    lines = examples[file]
    forged = write_lines(tmp_path / "forged.jsonl", rebuilt(lines, edit(envelopes(lines))))
    cli, db = receiver(tmp_path, lines, batch_cut(lines, upto + 1))
    refused(cli, db, forged, *messages)


# -- attacks on the joint round by mail: bob rewrites his own resolution (from seq 26), re-signed ----------------


def _bob_redraws(notation: str) -> Callable[[Joint, list[Envelope]], list[Envelope]]:
    def edit(j: Joint, envs: list[Envelope]) -> list[Envelope]:
        i = labelled(envs, j.tactics)
        envs[i] = joint_die(j, envs[i], j.tactics, notation)
        return envs

    return edit


def _bob_swaps(j: Joint, envs: list[Envelope]) -> list[Envelope]:
    """The repositioning and a change tactics label, each on the other's die, faces recomputed from the seed
    (so the seed check passes)."""
    i, k = labelled(envs, "r1/reposition/amazon"), labelled(envs, j.tactics)
    envs[i], envs[k] = joint_die(j, envs[i], j.tactics, "1d6"), joint_die(j, envs[k], "r1/reposition/amazon", "2d6")
    return envs


def _bob_relabels(j: Joint, envs: list[Envelope]) -> list[Envelope]:
    """The rule's die replaced by one under a label of bob's choosing (the best of several he tried)."""
    i = labelled(envs, "r1/reposition/amazon")
    envs[i] = joint_die(j, envs[i], "r1/reposition/amazon#2", "1d6")
    return envs


def _bob_resolves_again(j: Joint, envs: list[Envelope]) -> list[Envelope]:
    last = envs[-1]
    assert last.type == "mr.melee_resolved" and last.actor == "bob"
    return [*envs, replace(last, command_id=last.command_id + "-again")]


JOINT_ATTACKS = {
    # Faces are derived in order, so a 3d6 keeps the two honest dice and adds a third chance of a 6.
    "wrong notation": (
        _bob_redraws("3d6"),
        ("seq {resolved}: mr.melee_resolved (change tactics amazon box ",
         "the rules roll 2d6 here, die '{tactics}' is 3d6")),
    "swap a rule's die for another": (
        _bob_swaps,
        ("seq {resolved}: mr.melee_resolved (reposition amazon)",
         "the rules roll 1d6 here, die 'r1/reposition/amazon' is 2d6")),
    "a label the rules do not draw": (
        _bob_relabels,
        ("seq {resolved}: mr.melee_resolved (reposition amazon) reads die 'r1/reposition/amazon', "
         "which was not drawn before it",)),
    # The round is still in the Fatigue Step: a second resolution would fight round 1 again.
    "reuse a die": (
        _bob_resolves_again,
        ("seq {again}: mr.melee_resolved (reposition ", "reads die 'r1/reposition/",
         "already used by seq {resolved}")),
}


@pytest.mark.parametrize("attack", JOINT_ATTACKS)
def test_a_forged_joint_resolution_is_refused(joint: Joint, attack: str, tmp_path: Path) -> None:
    edit, messages = JOINT_ATTACKS[attack]
    with key_home(joint.home):
        forged_lines = rebuilt(joint.lines, edit(joint, envelopes(joint.lines)), {"bob": joint.signers["bob"]})
    forged = write_lines(tmp_path / "forged.jsonl", forged_lines)
    # Only bob's events changed, each validly signed by him, and every joint die matches the seed.
    changed = [decode_envelope(line) for line in forged_lines[1:] if line not in joint.lines]
    assert changed and all(env.actor == "bob" and env.seq > 25 for env in changed)
    cli, db = receiver(tmp_path, joint.lines, batch_cut(joint.lines, 25), joint.home)
    refused(cli, db, forged, *(m.format(resolved=joint.resolved, again=joint.resolved + 1, tactics=joint.tactics)
                               for m in messages))


def test_a_joint_die_no_rule_reads_is_refused_inside_a_batch_and_reported_outside(joint: Joint,
                                                                                   tmp_path: Path) -> None:
    """A die under an invented label next to the rule's own. Slipped into bob's Resolve batch, it is refused:
    every machine re-decides the batch, and the rules draw no such die (exchange/redecide.py). Drawn as a
    batch of its own (a free roll, which the CLI refuses with joint dice: bob's modified client forges it),
    the rules never read it (they find each die by its rules' label), so it cannot change the combat;
    ``verify`` reports it as a roll no rule reads."""
    first = labelled(envelopes(joint.lines), "r1/reposition/amazon")
    die_seq = envelopes(joint.lines)[first].seq  # the first of bob's Resolve batch (seq 26)

    def inside(envs: list[Envelope]) -> list[Envelope]:
        i = labelled(envs, "r1/reposition/amazon")
        die = replace(joint_die(joint, envs[i], "r1/reposition/amazon#2", "1d6"), command=msgspec.UNSET)
        return [*envs[: i + 1], die, *envs[i + 1:]]

    def free_roll(label: str) -> Callable[[list[Envelope]], list[Envelope]]:
        def edit(envs: list[Envelope]) -> list[Envelope]:
            i = labelled(envs, "r1/reposition/amazon")
            die = replace(joint_die(joint, envs[i], label, "1d6"), command_id="bob-free-roll", command=msgspec.UNSET)
            return [*envs[:i], die, *envs[i:]]
        return edit

    with key_home(joint.home):
        signers = {"bob": joint.signers["bob"]}
        batched = write_lines(tmp_path / "inside.jsonl", rebuilt(joint.lines, inside(envelopes(joint.lines)), signers))
        ruled = write_lines(tmp_path / "ruled.jsonl", rebuilt(
            joint.lines, free_roll("r1/reposition/amazon#2")(envelopes(joint.lines)), signers))
        alone = write_lines(tmp_path / "alone.jsonl", rebuilt(
            joint.lines, free_roll("bob/amazon-reposition")(envelopes(joint.lines)), signers))
    cli, db = receiver(tmp_path, joint.lines, batch_cut(joint.lines, 25), joint.home)
    refused(cli, db, batched,
            f"seq {die_seq}-{joint.resolved + 1}: bob's magic_realm Resolve does not re-decide to the recorded "
            f"events: seq {die_seq + 1} records core.dice_rolled", '"label":"r1/reposition/amazon#2"')
    # alone, under a label of the rules' own kind: refused (the rules own their labels)
    refused(cli, db, ruled, f"seq {die_seq}: a free roll under 'r1/reposition/amazon#2', a label the magic_realm "
                            "rules draw their own dice under")
    report = cli("verify", str(alone), "--json").json()
    assert report["ok"] and report["dice"]["unbound"] == 1  # type: ignore[index]
    assert any("bob/amazon-reposition" in note and "read by no rule" in note for note in report["notes"])  # type: ignore[union-attr,index]
    honest = write_lines(tmp_path / "honest.jsonl", joint.lines)
    assert _final_state(alone) == _final_state(honest)


def _final_state(path: Path) -> bytes:
    from combatlog.projections.fold import empty
    from combatlog.events.envelope import Recorded

    folded = empty(load_ruleset("magic_realm"))
    for line in path.read_bytes().split(b"\n")[1:-1]:
        env = decode_envelope(line)
        folded.apply(Recorded(env, env.payload()))
    state = replace(folded.state, steps=(), rolls={})
    return msgspec.json.encode(state)


def test_a_resolution_die_drawn_before_the_plays_are_sealed(joint: Joint, tmp_path: Path) -> None:
    """bob draws his repositioning die with a plain ``combatlog roll`` right after target selection, from the
    newest seed then (r1/assign's), so he knows it before anybody seals plays; the round goes on, and at the
    resolution his modified client reads that die (the honest one refuses: the label is taken) and draws the
    others from the seed of r1/plays. Label, notation and seed of every die are right: only the time is wrong.
    The early die is a free roll under a label the rules draw, refused as such at its own seq (the rules own
    their labels); a rule's die drawn by another command than the step it resolves is refused too."""
    from combatlog.wiring import dice_port, execute
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.magic_realm.events import MeleeResolved
    from combatlog.rulesets.magic_realm.rounds import resolve
    from combatlog.rulesets.magic_realm.work import Work
    from combatlog.store import open_store
    from tests.trust.pbem import forge

    bob = joint.signers["bob"]
    targets = max(e.seq for e in envelopes(joint.lines) if e.type == "mr.targets_chosen")
    with key_home(joint.home):
        store = open_store(str(tmp_path / "bob.db"))
        import_file(store, write_lines(tmp_path / "prefix.jsonl", truncated(joint.lines, targets)))

        def do(actor: str, command: Any) -> None:
            execute(store, "cave", command, actor=actor, signer=joint.signers[actor])

        before = state_at(store, store.list_streams()[0])  # the CLI refuses a free joint roll: bob forges it
        early = dice_port(store, before, actor="bob")
        early.roll("r1/reposition/amazon", "1d6")
        forge(store, "cave", early.drawn[0], actor="bob", signer=bob)
        seal_plays(do)
        folded = state_at(store, store.list_streams()[0])
        port = dice_port(store, folded, actor="bob")
        rolls = folded.state.rolls

        def roll(label: str, notation: str, purpose: str, by: str) -> tuple[int, ...]:
            return rolls[label] if label in rolls else port.roll(label, notation, purpose=purpose, by=by or None).faces

        resolve(Work(folded.state, 0, roll))
        for die in port.drawn:
            forge(store, "cave", die, actor="bob", signer=bob)
        forge(store, "cave", MeleeResolved(round=1), actor="bob", signer=bob)
        path = tmp_path / "forged.jsonl"
        export(store, path, "cave")
    with pytest.raises(VerificationFailed, match="a free roll under 'r1/reposition/amazon', a label the magic_realm "
                                                 "rules draw their own dice under"):
        verify_file(path)
