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


OSRIC_SETUP = {
    "title": "Sealed skirmish",
    "players": {"party": ["alice"], "orcs": ["bob"]},
    "engaged": [["Brom", "orc1"], ["Halvaine", "orc2"]],
    "combatants": [
        {"name": "Brom", "side": "party", "class": "fighter", "level": 1, "hp": 10, "armour": "mail",
         "shield": "medium", "weapons": ["long sword"]},
        {"name": "Halvaine", "side": "party", "class": "magic-user", "level": 1, "hp": 4, "weapons": ["dagger"]},
        {"name": "orc1", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
        {"name": "orc2", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
    ],
}


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
