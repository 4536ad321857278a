"""Crossings leave nobody a choice (issue 37): where a crossing decision lands, which of two exclusive ones
stands, whether a stale one is revived, whether a die is rolled again (docs/trust.md, "Crossings").

Each player sits at a machine of his own (its own store, only his own key's signer: tests/trust/converge.py),
and what travels are bundle files. The hostile placer's log is written as a file the way a modified client
would write it (placed envelopes built with ``Envelope.placed_at``, which needs no key), and every other
machine's import and ``verify`` must refuse it, the importer's log left as it was. The honest crossings of three
and four players are imported in every order on fresh copies: every copy ends with the same head.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.errors import CombatlogError, VerificationFailed
from combatlog.events.envelope import Envelope, decode_envelope
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.memory import MemoryStore
from combatlog.wiring import verify_file
from tests.security.test_placement_attacks import _extended
from tests.trust.converge import Machine, gossip, table
from tests.trust.pbem import key_home, write_lines

S = "duel"


def _table(tmp: Path, names: tuple[str, ...]) -> dict[str, Machine]:
    return table(tmp, names, {n: (n,) for n in names}, stream=S, ruleset="freeform", dice="local")


def _to_fork(ms: dict[str, Machine], names: tuple[str, ...], first: str) -> int:
    """Notes by the creator until the head ``f`` is where ``first`` goes first in the players' order at ``f + 1``
    (``trust/rewind.rank``: the player at index ``f + 1 mod players``... as the rotation counts), then gossip."""
    creator = ms[names[0]]
    gossip(list(ms.values()), S)
    while (names.index(first) - creator.head(S)[0] - 1) % len(names) != 0:
        creator.do(names[0], _note(f"pad {creator.head(S)[0]}"), S)
    gossip(list(ms.values()), S)
    return creator.head(S)[0]


def _note(text: str) -> Any:
    from combatlog.commands.core import AddNote

    return AddNote(text=text)


def _file(machine: Machine, path: Path) -> Path:
    path.write_bytes(machine.bundle(S))
    return path


def _receive(machine: Machine, path: Path) -> Any:
    return machine.receive(path.read_bytes(), str(path))


def _fresh(name: str, players: tuple[str, ...], signers: dict[str, Any], *files: Path) -> Machine:
    machine = Machine(name, players, signers, MemoryStore())
    for path in files:
        _receive(machine, path)
    return machine


def _log(machine: Machine) -> list[bytes]:
    return [encode for encode in (msgspec.json.encode(e) for e in machine.events(S))]


def _env(machine: Machine, seq: int) -> Envelope:
    return next(e for e in machine.events(S) if e.seq == seq)


def _lines(machine: Machine, tmp: Path, upto: int) -> list[bytes]:
    """``machine``'s export cut after ``upto`` (its header rewritten to end there)."""
    from tests.trust.pbem import truncated

    lines = _file(machine, tmp / f"{machine.name}-cut.jsonl").read_bytes().split(b"\n")[:-1]
    return truncated(lines, upto)


def _refused_everywhere(tmp: Path, lines: list[bytes], machines: list[Machine], match: str) -> None:
    """verify refuses the file, and so does every machine's import, its log unchanged."""
    path = write_lines(tmp / "hostile.jsonl", lines)
    with pytest.raises(VerificationFailed, match=match):
        verify_file(path)
    for machine in machines:
        before = _log(machine)
        with pytest.raises(CombatlogError, match=match):
            _receive(machine, path)
        assert _log(machine) == before


# -- attack 2: the placer chooses where a crossing decision lands ---------------------------------------------


def test_a_placer_cannot_put_a_crossing_decision_inside_the_branch_it_crossed(tmp_path: Path) -> None:
    """bob holds alice's signed join (made on #f), plays two joins of his own on #f and places hers *between*
    them (his second one placed after hers, still with his signature from where he made it). The rule puts hers
    after his whole branch: verify and every import refuse the order; the honest merge verifies."""
    names = ("alice", "bob")
    with key_home(tmp_path / "keys"):
        ms = _table(tmp_path, names)
        alice, bob = ms["alice"], ms["bob"]
        alice.do("alice", ff.Join(name="Aldo", side="red", hp=12, player="alice"), S)
        fork = _to_fork(ms, names, "bob")
        alice.do("alice", ff.Join(name="Ann", side="red", hp=5, player="alice"), S)  # #f+1, hers
        bob.do("bob", ff.Join(name="Bo", side="blue", hp=5, player="bob"), S)  # #f+1, his
        b1 = _env(bob, fork + 1)
        bob.do("bob", ff.Join(name="Bix", side="blue", hp=5, player="bob"), S)  # #f+2, his, made on his #f+1
        b2 = _env(bob, fork + 2)
        hers = _env(alice, fork + 1)
        cut = _lines(bob, tmp_path, fork + 1)
        # the hostile order: his first, hers, then his second (placed from where he made it)
        placed_hers = hers.placed_at(seq=fork + 2, prev=b1.hash)
        placed_his = b2.placed_at(seq=fork + 3, prev=placed_hers.hash)
        hostile = _extended(cut, [placed_hers, placed_his])
        witness = _fresh("witness", (), {}, _file(alice, tmp_path / "base-alice.jsonl"))
        _refused_everywhere(tmp_path, hostile, [alice, witness],
                            r"bob's ff.participant_joined \(decided at #\d+, on #\d+\) is placed after alice's "
                            "ff.participant_joined .* where the placement rule puts it before")
        # the honest merge: hers after his whole branch, on every machine
        report = _receive(bob, _file(alice, tmp_path / "alice.jsonl"))
        assert [(d.outcome, d.now) for d in report.merge.decisions] == [("placed", f"#{fork + 3}")]
        _receive(alice, _file(bob, tmp_path / "bob.jsonl"))
        assert alice.head(S) == bob.head(S) and bob.verify(S).ok


# -- attack 3: a decision that went back is revived later ---------------------------------------------------


def act_crossing_the_end_of_round(tmp_path: Path) -> tuple[dict[str, Machine], Any, int]:
    """alice's act crosses bob's end of round 1, and gm's merge cannot place it (no round is open): the three
    machines, gm's merge report of her act and the head where the branches parted. The caller holds the key
    home (``key_home(tmp_path / "keys")``) open."""
    names = ("alice", "bob", "gm")
    ms = _table(tmp_path, names)
    alice, bob, gm = ms["alice"], ms["bob"], ms["gm"]
    alice.do("alice", ff.Join(name="Aldo", side="red", hp=12, player="alice"), S)
    gossip(list(ms.values()), S)
    gm.do("gm", ff.StartRound(), S)
    fork = _to_fork(ms, names, "bob")
    alice.do("alice", ff.Act(who="Aldo", action="thrusts"), S)
    bob.do("bob", ff.EndRound(), S)
    _receive(gm, _file(bob, tmp_path / "bob.jsonl"))
    (act,) = _receive(gm, _file(alice, tmp_path / "alice.jsonl")).merge.decisions
    assert act.outcome == "refused" and "round" in act.message, act
    return ms, act, fork


def test_a_decision_a_merge_could_not_place_is_not_revived_in_a_later_round(tmp_path: Path) -> None:
    """alice's act crosses bob's end of round 1; gm's merge cannot place it (no round is open). gm opens round
    2; bob, holding alice's signed act, places it in round 2, where the rules alone would take it. The act was
    decided in round 1: verify and every import refuse it placed in round 2."""
    with key_home(tmp_path / "keys"):
        ms, _act, fork = act_crossing_the_end_of_round(tmp_path)
        alice, bob, gm = ms["alice"], ms["bob"], ms["gm"]
        gm.do("gm", ff.StartRound(), S)  # round 2 opens at #f+2
        assert gm.head(S)[0] == fork + 2
        _receive(bob, _file(gm, tmp_path / "gm.jsonl"))
        hers = _env(alice, fork + 1)
        cut = _lines(gm, tmp_path, fork + 2)
        last = decode_envelope(cut[-1])
        hostile = _extended(cut, [hers.placed_at(seq=fork + 3, prev=last.hash)])
        _refused_everywhere(tmp_path, hostile, [gm, bob],
                            r"alice's ff.action_taken was decided in round 1 .* and is placed in round 2")


# -- attack 4: the placer chooses which of two exclusive decisions stands -------------------------------------


def _exclusive(tmp_path: Path) -> tuple[dict[str, Machine], int, dict[str, Path], Path]:
    """Four players; at #f alice and carol both join Cid (one name: exclusive), bob joins Bo, dave waits. bob
    goes first at #f+1; the rule then puts carol's join before alice's (the players' order at #f), so alice's
    is refused there. Files: each player's log, and the base at #f."""
    names = ("alice", "bob", "carol", "dave")
    ms = _table(tmp_path, names)
    fork = _to_fork(ms, names, "bob")
    base = _file(ms["dave"], tmp_path / "base.jsonl")
    ms["alice"].do("alice", ff.Join(name="Cid", side="red", hp=5, player="alice"), S)
    ms["carol"].do("carol", ff.Join(name="Cid", side="green", hp=9, player="carol"), S)
    ms["bob"].do("bob", ff.Join(name="Bo", side="blue", hp=5, player="bob"), S)
    files = {n: _file(ms[n], tmp_path / f"{n}.jsonl") for n in ("alice", "bob", "carol")}
    return ms, fork, files, base


def test_two_exclusive_decisions_land_in_one_order_whatever_the_mail_order(tmp_path: Path) -> None:
    with key_home(tmp_path / "keys"):
        ms, fork, files, base = _exclusive(tmp_path)
        signers = {n: m.signers[n] for n, m in ms.items()}
        heads = set()
        for order in itertools.permutations(files):
            copy = _fresh("copy", (), {}, base, *(files[n] for n in order))
            heads.add(copy.head(S))
            assert copy.verify(S).ok
        for player in ("alice", "carol"):  # a player's own copy, his own decision first
            for order in itertools.permutations([n for n in files if n != player]):
                copy = _fresh(player, (player,), signers, base, files[player], *(files[n] for n in order))
                heads.add(copy.head(S))
        assert len(heads) == 1, heads
        (head,) = heads
        copy = _fresh("copy", (), {}, base, *files.values())
        joined = [(e.actor, e.type) for e in copy.events(S) if e.seq > fork]
        assert joined == [("bob", "ff.participant_joined"), ("carol", "ff.participant_joined")], joined


def test_a_placer_who_keeps_one_exclusive_decision_and_drops_the_other_does_not_choose(tmp_path: Path) -> None:
    """bob receives both joins of Cid, places alice's and drops carol's, and mails that. A machine that holds
    carol's places hers where the rule puts it (before alice's, which the rules then refuse), in that one import;
    a machine that had only bob's log reaches the same head as soon as carol's join arrives."""
    with key_home(tmp_path / "keys"):
        ms, fork, files, base = _exclusive(tmp_path)
        signers = {n: m.signers[n] for n, m in ms.items()}
        hostile_bob = _fresh("bob", ("bob",), signers, base, files["bob"], files["alice"])  # carol's dropped
        assert [e.actor for e in hostile_bob.events(S) if e.seq > fork] == ["bob", "alice"]
        hostile = _file(hostile_bob, tmp_path / "hostile.jsonl")
        honest = _fresh("copy", (), {}, base, *files.values())
        carol = _fresh("carol", ("carol",), signers, base, files["carol"])
        report = _receive(carol, hostile)
        assert carol.head(S) == honest.head(S), report.merge.lines()
        assert [e.actor for e in carol.events(S) if e.seq > fork] == ["bob", "carol"]
        dave = _fresh("dave", ("dave",), signers, base, hostile)  # only bob's log: accepted as slow mail
        _receive(dave, files["carol"])
        assert dave.head(S) == honest.head(S)


# -- honest crossings of three and four players, in every mail order ------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_honest_crossings_converge_in_one_exchange_whatever_the_mail_order(tmp_path: Path, players: int) -> None:
    """Every player acts on the same head; with four, dave acts on alice's act instead (a crossing one step
    further along her branch). Each copy imports the bundles once, in every order: one head everywhere, every
    decision in it, verified."""
    names = ("alice", "bob", "carol", "dave")[:players]
    with key_home(tmp_path / "keys"):
        ms = _table(tmp_path, names)
        for name in names:
            ms[name].do(name, ff.Join(name=name.capitalize(), side=name, hp=5, player=name), S)
            gossip(list(ms.values()), S)
        ms[names[0]].do(names[0], ff.StartRound(), S)
        gossip(list(ms.values()), S)
        fork = ms["alice"].head(S)[0]
        base = _file(ms["alice"], tmp_path / "base.jsonl")
        ms["alice"].do("alice", ff.Act(who="Alice", action="feints"), S)
        if players == 4:
            _receive(ms["dave"], _file(ms["alice"], tmp_path / "alice-early.jsonl"))
        for name in names[1:]:
            ms[name].do(name, ff.Act(who=name.capitalize(), action="strikes"), S)
        files = {n: _file(ms[n], tmp_path / f"{n}.jsonl") for n in names}
        signers = {n: m.signers[n] for n, m in ms.items()}
        heads = set()
        for order in itertools.permutations(names):
            copy = _fresh("copy", (), {}, base, *(files[n] for n in order))
            heads.add(copy.head(S))
        for name in names:  # each player's own copy, which holds his own decision first
            for order in itertools.permutations([n for n in names if n != name]):
                copy = _fresh(name, (name,), signers, base, files[name], *(files[n] for n in order))
                heads.add(copy.head(S))
        assert len(heads) == 1, heads
        assert copy.verify(S).ok
        acts = sorted(e.actor for e in copy.events(S) if e.seq > fork and e.type == "ff.action_taken")
        assert acts == sorted(names)


def test_a_decision_made_in_one_round_is_not_re_run_in_the_next(tmp_path: Path) -> None:
    """alice's act in round 1 crosses bob's end of round 1 and start of round 2 (his branch goes first). It
    cannot be placed (verify's round rule), and her own machine, which holds her key and used to re-run it on
    top, where round 2 accepts an act, now refuses it: an order given for round 1 is not spent in round 2. The
    merge's reason is the one every later status and mail gives (tests/trust/test_dropped_decisions.py)."""
    from combatlog.exchange.merge import RULE_ITS_ROUND

    names = ("alice", "bob")
    with key_home(tmp_path / "keys"):
        ms = _table(tmp_path, names)
        alice, bob = ms["alice"], ms["bob"]
        alice.do("alice", ff.Join(name="Aldo", side="red", hp=12, player="alice"), S)
        gossip(list(ms.values()), S)
        bob.do("bob", ff.StartRound(), S)
        fork = _to_fork(ms, names, "bob")
        alice.do("alice", ff.Act(who="Aldo", action="thrusts"), S)
        bob.do("bob", ff.EndRound(), S)
        bob.do("bob", ff.StartRound(), S)
        report = _receive(alice, _file(bob, tmp_path / "bob.jsonl"))
        (act,) = report.merge.decisions
        assert (act.outcome, act.rule) == ("refused", RULE_ITS_ROUND), act
        assert "made in round 1, and the combat is in round 2 now" in act.message, act
        assert alice.head(S)[0] == fork + 2  # nothing of hers after bob's two events
        _receive(bob, _file(alice, tmp_path / "alice.jsonl"))
        assert alice.head(S) == bob.head(S) and alice.verify(S).ok
