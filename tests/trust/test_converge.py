"""Concurrent moves converge (issue #11, item 1): three machines, every order the mail can take.

Each case plays a combat up to a point on three machines (alice, bob and the referee gm, each with
its own store and only its own key), lets two or three players decide on the same head, then
delivers the bundles in an order hypothesis chooses (any sender to any receiver, repeats and stale
mail included) and finally lets everyone mail everyone until nothing changes. Whatever the order:

- every machine ends with the same head, and its log verifies (signatures, sealed orders, dice);
- every decision made is in the log (same actor and command id) or was refused by the rules on its
  owner's machine, with the rule named; nothing is silently lost;
- no merge is taken for equivocation, and the superseded events are kept;
- the secrets follow the decisions: sealed commits made concurrently are revealed afterwards.

The Magic Realm cases use the set-up and plays of tests/trust/test_mr_sealed.py (MR 8.4.5 sealed
plays; lures MR 8.3.3; deployment MR 8.4.2), with joint dice; the OSRIC case the sealed
declarations of tests/trust/test_osric_sealed.py (OSRIC Combat: Declare Spells and General Actions).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.commands.handler import resolve_stream
from combatlog.projections.fold import state_at
from combatlog.rulesets import available
from combatlog.store.memory import MemoryStore
from combatlog.trust.commands import CommitOrders, RevealOrders
from tests.trust.converge import Machine, gossip, send, table
from tests.trust.pbem import key_home
from tests.trust.test_osric_sealed import SETUP as OSRIC_SEALED_SETUP

pytestmark = pytest.mark.skipif(not {"magic_realm", "osric"} <= set(available()), reason="rulesets not installed")

S = "cave"
NAMES = ("alice", "bob", "gm")
SEATS = {"A": ("alice",), "B": ("bob",), "G": ("gm",)}
MR_SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "giant", "monster": "Giant"}, {"id": "goblin-1", "monster": "Axe Goblin"},
                 {"id": "goblin-2", "monster": "Axe Goblin"}],
}
Make = Callable[[Any], Any]  # state -> command
Move = tuple[str, str, Make]  # machine, actor, command


def _state(m: Machine) -> Any:
    return state_at(m.store, resolve_stream(m.store, S)).state


def _step(ms: dict[str, Machine], machine: str, actor: str, make: Make) -> None:
    m = ms[machine]
    m.do(actor, make(_state(m)), S)
    gossip(list(ms.values()), S)


def _everyone(ms: dict[str, Machine], make: Callable[[Any, str], Any]) -> None:
    for machine, (actor,) in SEATS.items():
        _step(ms, machine, actor, lambda s, a=actor: make(s, a))


# -- the games, played up to a point (sequentially, every step mailed to everyone) -------------------

def mr_game(tmp: Path, upto: str, sequencer: bool) -> dict[str, Machine]:
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.rulesets.magic_realm.sealed import play_orders, seed_step_name, step_name

    with key_home(tmp / "keys"):
        ms = table(tmp, NAMES, SEATS, stream=S, ruleset="magic_realm", setup=MR_SETUP, dice="joint",
                   options={"sequencer": "gm"} if sequencer else None)
    if upto == "lures":
        return ms
    _step(ms, "B", "bob", lambda s: c.Lure(character="amazon", denizens=("goblin-1",)))
    _step(ms, "A", "alice", lambda s: c.Lure(character="bk", denizens=("giant",)))
    if upto == "seed-commits":
        return ms
    _everyone(ms, lambda s, a: CommitOrders(step=seed_step_name(s, "assign")))
    if upto == "seed-reveals":
        return ms
    _everyone(ms, lambda s, a: RevealOrders(step="r1/assign"))
    _step(ms, "G", "gm", lambda s: c.Assign())
    if upto == "deploys":
        return ms
    _step(ms, "A", "alice", lambda s: c.Deploy(character="bk"))
    _step(ms, "B", "bob", lambda s: c.Deploy(character="amazon"))
    _step(ms, "A", "alice", lambda s: c.Act(character="bk", kind="none"))
    _step(ms, "B", "bob", lambda s: c.Act(character="amazon", kind="none"))
    _step(ms, "G", "gm", lambda s: c.StartMelee())
    targets = {"bk": ("A", "alice", "giant"), "amazon": ("B", "bob", "goblin-1")}
    for cid in _state(ms["G"]).attention:
        machine, actor, target = targets[cid]
        _step(ms, machine, actor, lambda s, cid=cid, target=target: c.Target(character=cid, target=target))
    bk = c.Play(character="bk", attack=3, fight="F3", maneuver=1, move="M3", shield=1)
    amazon = c.Play(character="amazon", attack=1, fight="F6", maneuver=2, move="M1", shield=3)
    _step(ms, "A", "alice", lambda s: CommitOrders(step=step_name(s), orders={"plays": {"bk": play_orders(bk)}}))
    _step(ms, "B", "bob", lambda s: CommitOrders(step=step_name(s), orders={"plays": {"amazon": play_orders(amazon)}}))
    _step(ms, "G", "gm", lambda s: CommitOrders(step=step_name(s), orders={"plays": {}}))
    assert upto == "plays-reveals", upto
    return ms


OSRIC_SETUP = OSRIC_SEALED_SETUP  # tests/trust/test_osric_sealed.py: alice the party, bob the orcs


def osric_game(tmp: Path, upto: str, sequencer: bool) -> dict[str, Machine]:
    from combatlog.rulesets.osric import commands as oc

    with key_home(tmp / "keys"):
        ms = table(tmp, NAMES, SEATS, stream=S, ruleset="osric", setup=OSRIC_SETUP, dice="joint",
                   options={"sequencer": "gm"} if sequencer else None)
    _step(ms, "G", "gm", lambda s: oc.StartRound())
    assert upto == "declarations", upto
    return ms


def _declare(side: str, *entries: str) -> Make:
    from combatlog.rulesets.osric.commands import parse_declaration
    from combatlog.rulesets.osric.declare import orders_for, step_name

    def make(s: Any) -> Any:
        decls = tuple(parse_declaration(x) for x in entries)
        return CommitOrders(step=step_name(s.round), orders=orders_for(s, side, decls))

    return make


# -- the concurrent decisions of each case -------------------------------------------------------

def _mr(name: str) -> Any:
    from combatlog.rulesets.magic_realm import commands as c

    return {
        "lures": [("A", "alice", lambda s: c.Lure(character="bk", denizens=("giant",))),
                  ("B", "bob", lambda s: c.Lure(character="amazon", denizens=("goblin-1",)))],
        # both characters lure the same goblin: the one merged second is refused by the rules
        "lures-clash": [("A", "alice", lambda s: c.Lure(character="bk", denizens=("goblin-1",))),
                        ("B", "bob", lambda s: c.Lure(character="amazon", denizens=("goblin-1",)))],
        "seed-commits": [(m, a, lambda s: CommitOrders(step="r1/assign")) for m, (a,) in SEATS.items()],
        "seed-reveals": [(m, a, lambda s: RevealOrders(step="r1/assign")) for m, (a,) in SEATS.items()],
        "deploys": [("A", "alice", lambda s: c.Deploy(character="bk")),
                    ("B", "bob", lambda s: c.Deploy(character="amazon"))],
        "plays-reveals": [(m, a, lambda s: RevealOrders(step="r1/plays")) for m, (a,) in SEATS.items()],
    }[name]


CASES: dict[str, tuple[Callable[[Path, str, bool], dict[str, Machine]], str, Callable[[], list[Move]]]] = {
    "mr-lures": (mr_game, "lures", lambda: _mr("lures")),
    "mr-lures-clash": (mr_game, "lures", lambda: _mr("lures-clash")),
    "mr-seed-commits": (mr_game, "seed-commits", lambda: _mr("seed-commits")),
    "mr-seed-reveals": (mr_game, "seed-reveals", lambda: _mr("seed-reveals")),
    "mr-deploys": (mr_game, "deploys", lambda: _mr("deploys")),
    "mr-plays-reveals": (mr_game, "plays-reveals", lambda: _mr("plays-reveals")),
    "osric-declarations": (osric_game, "declarations", lambda: [
        ("A", "alice", _declare("party", "Brom=melee", "Halvaine=spell:sleep:1")),
        ("B", "bob", _declare("orcs", "orc1=melee", "orc2=melee")),
        ("G", "gm", lambda s: CommitOrders(step=f"r{s.round}/declare"))]),
}

_PREFIXES: dict[tuple[str, bool], dict[str, Machine]] = {}


def _prefix(case: str, sequencer: bool, tmp: Path) -> dict[str, Machine]:
    key = (case, sequencer)
    if key not in _PREFIXES:
        game, upto, _moves = CASES[case]
        _PREFIXES[key] = game(tmp, upto, sequencer)
    return _PREFIXES[key]


def _clone(m: Machine) -> Machine:
    """The same machine again (log, secrets, players), so that every example starts from the same point."""
    copy = Machine(m.name, m.players, m.signers, MemoryStore())
    copy.receive(m.bundle(S), "clone")
    for name, value in m.store._secrets.items():  # type: ignore[attr-defined]
        copy.store.put_secret(name, value)
    return copy


MACHINES = list(SEATS)
schedules = st.lists(st.tuples(st.sampled_from(MACHINES), st.sampled_from(MACHINES)).filter(lambda p: p[0] != p[1]),
                     max_size=8)


def play_concurrently(base: dict[str, Machine], moves: list[Move], order: tuple[int, ...],
                      schedule: list[tuple[str, str]]) -> dict[str, Machine]:
    ms = {name: _clone(m) for name, m in base.items()}
    decided = []
    for i in order:  # each on its own machine, on the same head (nothing is mailed in between)
        machine, actor, make = moves[i]
        cid = f"{actor}-concurrent-{i}"
        ms[machine].do(actor, make(_state(ms[machine])), S, command_id=cid)
        decided.append((actor, cid))
    for sender, receiver in schedule:
        send(ms[sender], ms[receiver], S)
    gossip(list(ms.values()), S)
    _check(ms, decided)
    return ms


def _check(ms: dict[str, Machine], decided: list[tuple[str, str]]) -> None:
    heads = {m.head(S) for m in ms.values()}
    assert len(heads) == 1, heads
    final = ms["G"].events(S)
    in_log = {(e.actor, e.command_id) for e in final}
    refused = {(d.actor, d.command_id): d for m in ms.values() for r in m.merges for d in r.decisions
               if d.outcome == "refused" and d.actor in m.players}
    for key in decided:
        assert key in in_log or key in refused, f"{key} is neither in the log nor refused"
        if key in refused:
            assert refused[key].rule and refused[key].message
    for m in ms.values():
        report = m.verify(S)
        assert report.ok and report.signatures == report.head_seq
    merged = [r for m in ms.values() for r in m.merges]
    if merged:  # what lost a merge is kept where it lost
        assert any(m.store.superseded(resolve_stream(m.store, S).id) for m in ms.values())


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("sequencer", [False, True], ids=["rotation", "sequencer"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_concurrent_decisions_converge_in_any_delivery_order(case: str, sequencer: bool, data: st.DataObject,
                                                             tmp_path_factory: pytest.TempPathFactory) -> None:
    base = _prefix(case, sequencer, tmp_path_factory.mktemp(f"{case}-{sequencer}"))
    moves = CASES[case][2]()
    order = data.draw(st.permutations(range(len(moves))), label="order")
    schedule = data.draw(schedules, label="schedule")
    play_concurrently(base, moves, tuple(order), schedule)


def test_every_interleaving_of_two_concurrent_lures(tmp_path: Path) -> None:
    """Exhaustively for two decisions: each first-delivery order between the three machines."""
    base = _prefix("mr-lures", False, tmp_path)
    moves = CASES["mr-lures"][2]()
    pairs = [(a, b) for a in MACHINES for b in MACHINES if a != b]
    for first, second in itertools.product(pairs, repeat=2):
        play_concurrently(base, moves, (0, 1), [first, second])


def test_a_clash_is_refused_with_its_rule_and_the_first_lure_stands(tmp_path: Path) -> None:
    """Both lure goblin-1 on the same head (MR 8.3.3: a denizen is lured once). At #n the players' order
    decides which lure is kept; the other is re-run on its owner's machine and refused by the rules."""
    base = _prefix("mr-lures-clash", False, tmp_path)
    ms = play_concurrently(base, CASES["mr-lures-clash"][2](), (0, 1), [("A", "B"), ("B", "A")])
    refused = [d for m in ms.values() for r in m.merges for d in r.decisions if d.outcome == "refused"]
    assert len(refused) == 1 and "goblin-1" in refused[0].message
    kept = [e for e in ms["G"].events(S) if e.command_id.endswith(("concurrent-0", "concurrent-1"))]
    assert len(kept) >= 1 and {e.actor for e in kept} == {"alice", "bob"} - {refused[0].actor}


def test_a_sealed_step_committed_concurrently_is_revealed_after_the_merge(tmp_path: Path) -> None:
    """The secrets follow the decisions: the seed commits made on one head are re-sealed with their own
    nonces where they lost, so each player's reveal still opens them and the joint seed exists."""
    base = _prefix("mr-seed-commits", False, tmp_path)
    ms = play_concurrently(base, CASES["mr-seed-commits"][2](), (0, 1, 2), [("A", "G"), ("B", "G"), ("G", "A")])
    for machine, (actor,) in SEATS.items():
        ms[machine].do(actor, RevealOrders(step="r1/assign"), S)
    gossip(list(ms.values()), S)
    from combatlog.trust.sealed import scanned

    g = ms["G"]
    checker = scanned(g.store, state_at(g.store, resolve_stream(g.store, S)).core)
    assert checker.seed_step is not None and checker.seed_step.name == "r1/assign"


# -- a hostile player and the merge ------------------------------------------------------------------

def _pad_until(ms: dict[str, Machine], first: str) -> int:
    """Notes until the next event's place puts ``first`` first in the rotation (alice 0, bob 1, gm 2);
    returns the head they both answer."""
    from combatlog.commands.core import AddNote

    while (ms["G"].head(S)[0] + 1) % 3 != NAMES.index(first):
        ms["G"].do("gm", AddNote(text="the referee waits"), S)
        gossip(list(ms.values()), S)
    return ms["G"].head(S)[0]


def test_a_rebase_that_changes_a_sealed_commitment_is_refused(tmp_path: Path) -> None:
    """bob's commit loses a merge at gm, which places it after alice's, unchanged. bob's hostile client then
    'decides it again' with other orders (another commitment under the same command id), chosen after seeing
    alice's branch, and mails a branch without the placed one. gm, who keeps bob's first commit, refuses it
    and appends nothing."""
    from combatlog.errors import VerificationFailed
    from combatlog.events.core import OrdersCommitted
    from combatlog.events.envelope import encode_envelope, seal
    from combatlog.store.base import NewRow

    ms = {name: _clone(m) for name, m in _prefix("mr-seed-commits", False, tmp_path).items()}
    _pad_until(ms, "alice")
    ms["A"].do("alice", CommitOrders(step="r1/assign"), S, command_id="a1")
    ms["B"].do("bob", CommitOrders(step="r1/assign"), S, command_id="b1")
    send(ms["B"], ms["G"], S)  # gm holds bob's commit
    send(ms["A"], ms["G"], S)  # alice goes first at this place: bob's is superseded at gm, kept as evidence
    assert [d.outcome for r in ms["G"].merges for d in r.decisions] == ["placed"]
    before = ms["G"].head(S)
    cheat = Machine("bob-hostile", ("bob",), ms["B"].signers, MemoryStore())
    cheat.receive(ms["A"].bundle(S), "alice's log")  # alice's branch, without bob's placed commit
    meta = resolve_stream(cheat.store, S)
    head = cheat.store.head(meta.id)
    forged = OrdersCommitted(step="r1/assign", player="bob", commitment="ab" * 32, required=NAMES)
    env = cheat.signers["bob"](seal(stream=meta.id, seq=head.seq + 1, prev=head.hash, event=forged, actor="bob",
                                    command_id="b1"))
    cheat.store.append(meta.id, [NewRow(env.seq, env.type, env.hash, encode_envelope(env), "b1")],
                       expected_version=head.seq, command_id="b1")
    with pytest.raises(VerificationFailed, match="a merge moves a sealed decision, it never changes it"):
        ms["G"].receive(cheat.bundle(S), "bob's re-seal")
    assert ms["G"].head(S) == before
    # bob's honest machine re-seals the same commitment, and gm accepts it
    send(ms["G"], ms["B"], S)
    send(ms["B"], ms["G"], S)
    commits = [e.payload() for e in ms["G"].events(S) if e.command_id == "b1"]
    evidence = [r for r in ms["G"].store.superseded(resolve_stream(ms["G"].store, S).id)]
    from combatlog.events.envelope import decode_envelope

    assert [c.commitment for c in commits] == [decode_envelope(evidence[0].body).payload().commitment]


def test_with_a_sequencer_a_dropped_decision_cannot_be_overtaken(tmp_path: Path) -> None:
    """Feigned concurrency: bob sees alice's lure, drops it and lures the same goblin on the same head, at
    a place where the rotation would put him first. With --option sequencer=gm, the branch gm signed on
    (his acknowledgement of alice's lure) goes first on every machine, and bob's lure, re-run after it,
    is refused by the rules."""
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.trust.commands import Acknowledge

    ms = {name: _clone(m) for name, m in _prefix("mr-lures", True, tmp_path).items()}
    head = _pad_until(ms, "bob")
    ms["A"].do("alice", c.Lure(character="bk", denizens=("goblin-1",)), S, command_id="a-lure")
    send(ms["A"], ms["G"], S)
    ms["G"].do("gm", Acknowledge(), S)  # the sequencer saw alice's lure first
    ms["B"].do("bob", c.Lure(character="amazon", denizens=("goblin-1",)), S, command_id="b-lure")
    send(ms["B"], ms["A"], S)
    send(ms["B"], ms["G"], S)
    gossip(list(ms.values()), S)
    events = ms["G"].events(S)
    assert events[head].actor == "alice" and events[head].command_id == "a-lure"  # alice's lure stands
    assert not any(e.command_id == "b-lure" for e in events)
    refused = [d for r in ms["B"].merges for d in r.decisions if d.outcome == "refused"]
    assert refused and "goblin-1" in refused[0].message
    assert any("the sequencer gm signed on it" in line for r in ms["B"].merges for line in r.lines())


def test_without_a_sequencer_the_rotation_decides_and_nothing_is_lost(tmp_path: Path) -> None:
    """The same feigned concurrency without a sequencer: bob goes first at this place (the merge cannot
    tell a cut from concurrency: docs/trust.md says so); alice's lure is re-run after his and refused by
    the rules, with the rule named, and her original event is kept as evidence on every machine that saw it."""
    from combatlog.rulesets.magic_realm import commands as c

    ms = {name: _clone(m) for name, m in _prefix("mr-lures", False, tmp_path).items()}
    head = _pad_until(ms, "bob")
    ms["A"].do("alice", c.Lure(character="bk", denizens=("goblin-1",)), S, command_id="a-lure")
    ms["B"].do("bob", c.Lure(character="amazon", denizens=("goblin-1",)), S, command_id="b-lure")
    gossip(list(ms.values()), S)
    events = ms["G"].events(S)
    assert events[head].command_id == "b-lure"
    refused = [d for r in ms["A"].merges for d in r.decisions if d.outcome == "refused"]
    assert refused and refused[0].command_id == "a-lure" and refused[0].rule
    for m in ms.values():
        kept = m.store.superseded(resolve_stream(m.store, S).id)
        assert any(b"a-lure" in r.body for r in kept)


def test_a_bundle_continuing_a_superseded_branch_is_kept_as_evidence_and_a_forged_one_refused(tmp_path: Path) -> None:
    """bob's lure lost a merge at gm; bob's next bundle, made before he heard of it, continues his old branch.
    gm keeps it as evidence and applies nothing. The same bundle with an altered signature (outside the hash,
    so its chain still checks) is refused: evidence is checked before it is kept."""
    import json

    from combatlog.commands.core import AddNote
    from combatlog.errors import VerificationFailed
    from combatlog.exchange.bundle import export_lines
    from combatlog.rulesets.magic_realm import commands as c

    ms = {name: _clone(m) for name, m in _prefix("mr-lures", False, tmp_path).items()}
    _pad_until(ms, "alice")
    ms["A"].do("alice", c.Lure(character="bk", denizens=("giant",)), S)
    ms["B"].do("bob", c.Lure(character="amazon", denizens=("goblin-1",)), S)
    send(ms["A"], ms["G"], S)
    send(ms["B"], ms["G"], S)  # alice goes first at this place: bob's lure superseded at gm
    since = ms["B"].head(S)[0]
    ms["B"].do("bob", AddNote(text="bob, still on his own branch"), S)
    meta = resolve_stream(ms["B"].store, S)
    lines = list(export_lines(ms["B"].store, meta, since))
    g = ms["G"]
    before = (g.head(S), len(g.store.superseded(resolve_stream(g.store, S).id)))
    env = json.loads(lines[1])
    sig = env["sigs"][0]["sig"]
    env["sigs"][0]["sig"] = ("A" if sig[0] != "A" else "B") + sig[1:]
    forged = [lines[0], json.dumps(env, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()]
    with pytest.raises(VerificationFailed, match="signature"):
        g.receive(b"".join(line + b"\n" for line in forged), "forged evidence")
    assert (g.head(S), len(g.store.superseded(resolve_stream(g.store, S).id))) == before
    report = g.receive(b"".join(line + b"\n" for line in lines), "bob's late bundle")
    assert report.up_to_date and report.superseded == 1 and g.head(S) == before[0]
