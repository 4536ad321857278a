"""Classic Fantasy: every number the fold derives is bound to the die the rules drew for it.

A hostile player edits a combat they mail (re-hashing the chain, re-signing their own events
with their own key, as ``tests.trust.pbem.rechain`` does) so that an event names a die the rules
did not draw for it: another die, the same dice in another order, a die already used, a die of
the wrong notation, or (with ``joint`` dice, whose faces anyone can compute for any label once
the seed is revealed) a die drawn under a label of their choosing. ``combatlog verify FILE`` and
``combatlog import FILE`` must refuse each with a message that says what is wrong, and leave the
receiving log byte for byte as it was. The honest examples verify, with no joint die unbound.

The forged files are incremental bundles (``export --since K``) on top of a receiving log that
holds the combat up to K, as a player would mail them; K ends a batch (the one before the forged event's:
``tests.trust.pbem.batch_cut``), as every honest log does.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import create_combat, execute
from combatlog.dice.derive import derive_faces
from combatlog.events.envelope import decode_envelope, decode_recorded, encode_envelope
from combatlog.wiring import verify_stream
from combatlog.projections.fold import empty, state_at
from combatlog.rulesets import load_ruleset
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.store import open_store
from combatlog.trust.crypto import joint_seed
from tests.conftest import REPO, Cli
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter
from tests.trust.pbem import batch_cut, export, key_home, rechain, truncated, write_lines

EXAMPLES = sorted((REPO / "docs" / "examples" / "classic_fantasy").glob("*.cmds"))
Mutate = Callable[[dict[str, Any]], None]


def _stream_name(cmds: Path) -> str:
    for line in cmds.read_text().splitlines():
        args = shlex.split(line, comments=True)
        if args and args[0] == "new":
            return args[1]
    raise AssertionError(f"{cmds} creates no combat")


# -- the honest combats ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each shipped example played by the CLI into its own log: combat name -> database."""
    root = tmp_path_factory.mktemp("cfi-examples")
    out = {}
    for cmds in EXAMPLES:
        db = root / f"{cmds.stem}.db"
        Cli(db, REPO)("run", str(cmds.relative_to(REPO)), "--quiet")
        out[_stream_name(cmds)] = db
    return out


@pytest.fixture(scope="module")
def joint(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A small joint-dice combat between pinned players: alice creates it, both seal the seed step
    r1, then alice (who plays both sides here) rolls Initiative, attacks and has the target parry,
    every die joint. Whatever the dice, seqs 6-7 are the Initiative dice, 8 the round, 9 the attack's
    decision point, 10 the attack die and 11 the attack (the duel's DEX differ, so there is no roll-off).
    Friendly mode, so that each choice draws its dice at once, after its decision point (in strict mode they
    wait for a fresh seed step: tests/trust/test_foreseen_dice.py)."""
    from combatlog.trust.commands import CommitOrders, RevealOrders
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players

    root = tmp_path_factory.mktemp("cfi-joint")
    home = root / "keys"
    with key_home(home):
        for name in ("alice", "bob"):
            new_key(name)
        store = open_store(str(root / "alice.db"))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        signers = {"alice": sign_a, "bob": make_signer("bob")}
        setup = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
        create_combat(store, "joint", "classic_fantasy", actor="alice", setup=setup, dice="joint",
                      players=players, signer=sign_a, options={"joint_dice": "friendly"})

        def do(actor: str, command: Any) -> None:
            execute(store, "joint", command, actor=actor, signer=signers[actor])

        do("alice", CommitOrders(step="r1"))
        do("bob", CommitOrders(step="r1"))
        do("bob", RevealOrders(step="r1"))
        do("alice", RevealOrders(step="r1"))
        do("alice", c.StartRound())
        state = state_at(store, resolve_stream(store, "joint")).state
        attacker = state.turn
        target = next(n for n in state.combatants if n != attacker)
        do("alice", c.Attack(attacker=attacker, target=target, moving=True))
        do("alice", c.Defend(defender=target, kind="parry"))
    lines = export(store, root / "joint.jsonl", "joint")
    reveals = [decode_recorded(line).event for line in lines[1:] if b'"core.orders_revealed"' in line]
    seed = joint_seed(decode_envelope(lines[1]).hash, "r1", {ev.player: ev.nonce for ev in reveals})
    return {"db": root / "alice.db", "home": home, "seed": seed, "store": store}


def _envelopes(db: Path, name: str) -> list[Any]:
    return [decode_recorded(line) for line in export(open_store(str(db)), db.with_suffix(".all.jsonl"), name)[1:]]


def _dice_of(recs: list[Any]) -> dict[int, list[str]]:
    """seq -> the ``dice`` tuple of every cfi event that names dice."""
    return {r.seq: list(r.event.dice) for r in recs if r.env.type.startswith("cfi.") and getattr(r.event, "dice", ())}


def _seq_naming(recs: list[Any], label: str) -> int:
    return next(seq for seq, dice in _dice_of(recs).items() if label in dice)


def _seq_of_die(recs: list[Any], label: str) -> int:
    return next(r.seq for r in recs if r.env.type == "core.dice_rolled" and r.event.label == label)


@pytest.mark.parametrize("cmds", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_die_of_the_examples_is_bound_in_the_order_drawn(examples: dict[str, Path], cmds: Path) -> None:
    """The rules declare each die the fold reads, under the label they draw, in the event's order."""
    name = _stream_name(cmds)
    recs = _envelopes(examples[name], name)
    ruleset = load_ruleset("classic_fantasy")
    folded = empty(ruleset)
    declared: list[str] = []
    for rec in recs:
        if rec.env.type.startswith("cfi."):
            uses = ruleset.dice_uses(folded.state, rec.event)
            assert [u.label for u in uses] == list(getattr(rec.event, "dice", ()))
            assert all(u.expected_label == u.label and u.notation and not u.reuse for u in uses)
            declared += [u.label for u in uses]
        folded.apply(rec)
    drawn = [r.event.label for r in recs if r.env.type == "core.dice_rolled"]
    assert sorted(declared) == sorted(drawn) and len(set(declared)) == len(declared)


def test_the_honest_examples_verify(examples: dict[str, Path], tmp_path: Path) -> None:
    for name, db in examples.items():
        cli = Cli(db, REPO)
        assert cli("verify", name, "--json").json()["ok"] is True  # type: ignore[index]
        path = tmp_path / f"{name}.jsonl"
        cli("export", name, "-o", str(path))
        report = Cli(tmp_path / "elsewhere.db", REPO)("verify", str(path), "--json").json()
        assert report["ok"] is True and report["dice"]["unbound"] == 0  # type: ignore[index]


def test_the_honest_joint_combat_verifies_with_every_joint_die_bound(joint: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "joint.jsonl"
    write_lines(path, export(joint["store"], path, "joint"))
    report = Cli(tmp_path / "bob.db", REPO, {"COMBATLOG_HOME": str(joint["home"])})("verify", str(path), "--json").json()
    assert report["ok"] is True  # type: ignore[index]
    drawn = sum(1 for line in path.read_bytes().splitlines() if b'"core.dice_rolled"' in line)
    assert drawn >= 4 and report["dice"] == {"verified": drawn, "pending": 0, "manual": 0, "local": 0,  # type: ignore[index]
                                             "unbound": 0}


def test_a_luck_re_roll_reads_the_blow_dice_again_and_verifies() -> None:
    """CFI Ch.7 Cheat Fate re-derives the blow just resolved with the same dice but the one changed:
    the one legitimate second reading of a die (``reuse``), here the hit location."""
    fight = _luck_fight()
    assert verify_stream(fight.store, fight.meta).ok
    ruleset = load_ruleset("classic_fantasy")
    folded = empty(ruleset)
    seen = []
    for rec in _store_records(fight.store):
        if rec.env.type == "cfi.luck_spent":
            seen = [(u.label, u.reuse) for u in ruleset.dice_uses(folded.state, rec.event)]
        folded.apply(rec)
    assert seen == [("r1/a1/damage-luck", False), ("r1/a1/dm-luck", False), ("r1/a1/location", True)]


def _luck_fight() -> Combat:
    fight = Combat(fighter("A", "a"), fighter("D", "b", worn=4))
    fight.round({"r1/init/A": 9, "r1/init/D": 1})
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", (), {"r1/a1/location": 11, "r1/a1/damage": 8, "r1/a1/dm": 2})
    fight.run(c.UseLuck(who="D", roll="damage"), {"r1/a1/damage-luck": (1,), "r1/a1/dm-luck": (1,)})
    return fight


def _store_records(store: Any) -> list[Any]:
    meta = store.list_streams()[0]
    return [decode_recorded(row.body) for row in store.read_stream(meta.id, 1, store.head(meta.id).seq)]


# -- forging ----------------------------------------------------------------------------------


def _snapshot(db: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(db.parent.glob(db.name + "*"))}


def _resigned(lines: list[bytes], from_seq: int, signer: Any) -> list[bytes]:
    """The forger signs their own events again (a signature covers the event hash only)."""
    out = [lines[0]]
    for line in lines[1:]:
        env = decode_envelope(line)
        out.append(encode_envelope(signer(env)) if env.seq >= from_seq else line)
    return out


def _forge(tmp: Path, db: Path, name: str, edits: dict[int, Mutate], *, home: Path | None = None,
           signer: str = "") -> tuple[Cli, Path]:
    """The receiving log holds ``name`` up to the batch of the first edited seq (a log ends between
    batches); the forged bundle carries the rest, that whole batch first, with ``edits`` applied (and,
    with ``signer``, the forger's events signed again)."""
    tmp.mkdir(parents=True, exist_ok=True)
    store = open_store(str(db))
    first = min(edits)
    full = export(store, tmp / "full.jsonl", name)
    cut = batch_cut(full, first)
    env = {"COMBATLOG_HOME": str(home)} if home else {}
    victim = Cli(tmp / "victim.db", REPO, env)
    victim("import", str(write_lines(tmp / "prefix.jsonl", truncated(full, cut))))
    lines = export(store, tmp / "bundle.jsonl", name, since=cut)
    for seq, mutate in sorted(edits.items()):
        lines = rechain(lines, seq, mutate)
    if signer:
        from combatlog.trust.players import make_signer

        with key_home(home):  # type: ignore[arg-type]
            lines = _resigned(lines, first, make_signer(signer))
    return victim, write_lines(tmp / "forged.jsonl", lines)


def _refused(victim: Cli, path: Path, *expected: str) -> str:
    before = _snapshot(victim.db)
    checked = victim("verify", str(path), ok=False)
    imported = victim("import", str(path), ok=False)
    for result in (checked, imported):
        assert result.code != 0 and "verify_failed" in result.err, result.err
        for text in expected:
            assert text in result.err, result.err
    assert _snapshot(victim.db) == before  # nothing was appended, not a byte changed
    return checked.err


def _set_dice(*labels: str) -> Mutate:
    def mutate(data: dict[str, Any]) -> None:
        data["dice"] = list(labels)

    return mutate


def test_an_event_pointed_at_another_die_is_refused(examples: dict[str, Path], tmp_path: Path) -> None:
    # Brom's Circumvent Parry blow (r1/a2) names round 1's first hit location (11, the chest)
    # instead of its own (14, the right arm).
    db = examples["duel"]
    recs = _envelopes(db, "duel")
    seq = _seq_naming(recs, "r1/a2/location")
    dice = _dice_of(recs)[seq]
    victim, path = _forge(tmp_path, db, "duel", {seq: _set_dice(*[
        "r1/a1/location" if lb == "r1/a2/location" else lb for lb in dice])})
    _refused(victim, path, f"seq {seq}", "dice[0] names 'r1/a1/location', but the rules draw 'r1/a2/location' (1d20)")


def test_two_labels_swapped_within_one_event_are_refused(examples: dict[str, Path], tmp_path: Path) -> None:
    # The order of an event's dice is the rules' order: hit location (1d20) then damage (2d6).
    db = examples["duel"]
    recs = _envelopes(db, "duel")
    seq = _seq_naming(recs, "r1/a1/location")
    dice = _dice_of(recs)[seq]
    assert dice[:2] == ["r1/a1/location", "r1/a1/damage"]
    victim, path = _forge(tmp_path, db, "duel", {seq: _set_dice("r1/a1/damage", "r1/a1/location", *dice[2:])})
    _refused(victim, path, f"seq {seq}", "dice[0] names 'r1/a1/damage', but the rules draw 'r1/a1/location'",
             "out of order")


def test_a_die_already_used_is_refused(examples: dict[str, Path], tmp_path: Path) -> None:
    # Brom's attack r1/a2 names Grak's successful attack die of r1/a1 (23) a second time.
    db = examples["duel"]
    recs = _envelopes(db, "duel")
    seq = _seq_naming(recs, "r1/a2/attack")
    victim, path = _forge(tmp_path, db, "duel", {seq: _set_dice("r1/a1/attack")})
    _refused(victim, path, f"seq {seq}", "dice[0] names 'r1/a1/attack', but the rules draw 'r1/a2/attack' (1d100)",
             "no die 'r1/a1/attack' was drawn for this event (it is another event's, or none)")


def test_a_die_named_twice_or_left_out_is_refused(examples: dict[str, Path], tmp_path: Path) -> None:
    db = examples["skirmish"]
    recs = _envelopes(db, "skirmish")
    seq, dice = next((s, d) for s, d in _dice_of(recs).items() if len(d) >= 2)
    victim, path = _forge(tmp_path / "more", db, "skirmish", {seq: _set_dice(*dice, dice[0])})
    _refused(victim, path, f"seq {seq}", f"its dice name ['{dice[0]}'] besides the {len(dice)} its rules read")
    victim, path = _forge(tmp_path / "fewer", db, "skirmish", {seq: _set_dice(*dice[:-1])})
    _refused(victim, path, f"seq {seq}", f"its rules read die '{dice[-1]}'", f"its dice name only {len(dice) - 1}")


def test_a_die_of_the_wrong_notation_is_refused(examples: dict[str, Path], tmp_path: Path) -> None:
    # The hit location is 1d20; the same face re-sealed as a d100 keeps the fold's reading but not the rules'.
    db = examples["duel"]
    recs = _envelopes(db, "duel")
    die = _seq_of_die(recs, "r1/a1/location")

    def as_d100(data: dict[str, Any]) -> None:
        data.update(notation="1d100", sides=100)

    victim, path = _forge(tmp_path, db, "duel", {die: as_d100})
    _refused(victim, path, "cfi.exchange_resolved dice[0]: the rules roll 1d20 here, die 'r1/a1/location' is 1d100")


def test_a_luck_re_roll_pointed_at_the_old_dice_is_refused(tmp_path: Path) -> None:
    # D's forced damage re-roll names the blow's first damage dice instead of the new ones.
    fight = _luck_fight()
    db = tmp_path / "luck.db"
    src = tmp_path / "luck.jsonl"
    export(fight.store, src, "t")
    Cli(db, REPO)("import", str(src))
    recs = _envelopes(db, "t")
    seq = _seq_naming(recs, "r1/a1/damage-luck")
    victim, path = _forge(tmp_path, db, "t", {seq: _set_dice("r1/a1/damage", "r1/a1/dm")})
    _refused(victim, path, f"seq {seq}", "dice[0] names 'r1/a1/damage', but the rules draw 'r1/a1/damage-luck'")


# -- joint dice: faces anyone can compute, so the label is what binds them ----------------------


def _joint_die(seed: bytes, label: str, notation: str) -> Mutate:
    count, sides = (int(x) for x in notation.split("d"))
    faces = derive_faces(seed, label, count, sides)

    def mutate(data: dict[str, Any]) -> None:
        data.update(label=label, notation=notation, count=count, sides=sides, faces=list(faces), total=sum(faces))

    return mutate


def test_a_joint_die_drawn_under_a_label_of_the_forgers_choosing_is_refused(joint: dict[str, Any],
                                                                            tmp_path: Path) -> None:
    # alice tries labels offline until one rolls a Critical (01-05), draws the attack under it with the
    # true faces of the revealed seed (so the joint dice check passes) and points her attack at it.
    seed = joint["seed"]
    label = next(f"r1/a1/attack#{k}" for k in range(2, 2000) if derive_faces(seed, f"r1/a1/attack#{k}", 1, 100)[0] <= 5)
    victim, path = _forge(tmp_path, joint["db"], "joint", {10: _joint_die(seed, label, "1d100"), 11: _set_dice(label)},
                          home=joint["home"], signer="alice")
    _refused(victim, path, "seq 11", f"dice[0] names '{label}', but the rules draw 'r1/a1/attack' (1d100)")


def test_a_joint_die_re_drawn_with_the_wrong_notation_is_refused(joint: dict[str, Any], tmp_path: Path) -> None:
    # The attack die under its own label, but drawn as 1d20: the seed gives its true d20 face, and the
    # fold would read 1-20 as a d100 roll, nearly always a success or a Critical.
    victim, path = _forge(tmp_path, joint["db"], "joint", {10: _joint_die(joint["seed"], "r1/a1/attack", "1d20")},
                          home=joint["home"], signer="alice")
    _refused(victim, path, "seq 11: cfi.attack_declared dice[0]: the rules roll 1d100 here, die 'r1/a1/attack' is 1d20")


def test_joint_initiative_dice_swapped_between_combatants_are_refused(joint: dict[str, Any], tmp_path: Path) -> None:
    # Both Initiative dice are 1d10 and drawn honestly: only their order says whose is whose.
    victim, path = _forge(tmp_path, joint["db"], "joint", {8: _set_dice("r1/init/Grak", "r1/init/Brom")},
                          home=joint["home"], signer="alice")
    _refused(victim, path, "seq 8", "dice[0] names 'r1/init/Grak', but the rules draw 'r1/init/Brom' (1d10)",
             "out of order")


def test_the_joint_combat_is_as_the_forgeries_assume(joint: dict[str, Any]) -> None:
    """The seqs the joint forgeries edit, and every event from the seed on is alice's own to re-sign."""
    recs = _envelopes(joint["db"], "joint")
    assert {r.env.actor for r in recs if r.seq >= 5} == {"alice"}
    assert [r.env.type for r in recs[5:11]] == ["core.dice_rolled", "core.dice_rolled", "cfi.round_started",
                                               "core.decision_marked", "core.dice_rolled", "cfi.attack_declared"]
