"""Attacks on placed decisions (docs/trust.md, "Crossings": the table of attacks).

A merge places a decision of the branch it did not keep after the kept one, unchanged, carrying its
author's signature over the event as he made it (``Envelope.placed``). Each test below builds the placed
envelope a hostile client would send and checks that ``verify`` (the same checks every import runs)
refuses it, naming the rule; the first shows the honest placement verifying, so the refusals are the
attacks' and not the harness's.

The log: ``signed_duel(rolls=False)`` (tests/trust/pbem.py): #1-#8, alice and bob pinned, #8 alice's
round 1. bob decides on #8 (his original #9); alice's #9 is kept; bob's decision is placed at #10.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.errors import VerificationFailed
from combatlog.events.core import Noted
from combatlog.events.envelope import Envelope, Placement, decode_envelope, encode_envelope, seal
from combatlog.rulesets.freeform import commands as ff
from combatlog.wiring import verify_file
from tests.trust.pbem import export, signed_duel, write_lines


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return tmp_path


def _extended(lines: list[bytes], envs: list[Envelope]) -> list[bytes]:
    """The export with ``envs`` (already chained on its last event) added, and its header rewritten."""
    from combatlog.events.canonical import canonical
    from combatlog.exchange.bundle import Header, _header_check

    header = msgspec.json.decode(lines[0], type=Header)
    last = envs[-1]
    header = msgspec.structs.replace(header, head_hash=last.hash, count=header.count + len(envs), head_seq=last.seq)
    header = msgspec.structs.replace(header, check=_header_check(header))
    return [canonical(header), *lines[1:], *(encode_envelope(e) for e in envs)]


def _rehashed(env: Envelope, **changes: Any) -> Envelope:
    changed = msgspec.structs.replace(env, **changes)
    return msgspec.structs.replace(changed, hash=changed.computed_hash())


def _verify(home: Path, lines: list[bytes], name: str = "x.jsonl") -> Any:
    return verify_file(write_lines(home / name, lines))


def _refused(home: Path, lines: list[bytes]) -> str:
    with pytest.raises(VerificationFailed) as err:
        _verify(home, lines)
    return str(err.value)


def _crossed(home: Path) -> tuple[Any, dict[str, Any], Any, Envelope]:
    """alice's note kept at #9; bob's note, made and signed on #8 as his #9, not in the log."""
    store, signers, do = signed_duel(home, rolls=False)
    stream = store.list_streams()[0].id
    head = store.head(stream)
    bobs = signers["bob"](seal(stream=stream, seq=9, prev=head.hash, event=Noted(text="bob parleys"), actor="bob",
                               command_id="bob-parley"))
    do("alice", ff.StartRound())  # alice's #9-#10 (round 1 ends, round 2 begins): kept
    return store, signers, do, bobs


def _placed_next(lines: list[bytes], original: Envelope) -> Envelope:
    last = decode_envelope(lines[-1])
    return original.placed_at(seq=last.seq + 1, prev=last.hash)


def test_an_honest_placement_verifies(home: Path) -> None:
    store, _signers, _do, bobs = _crossed(home)
    lines = export(store, home / "log.jsonl")
    placed = _placed_next(lines, bobs)
    report = _verify(home, _extended(lines, [placed]))
    assert report.ok and report.head_seq == 11 and report.signatures == 11  # bob's signature, checked at #11
    assert placed.original().hash == bobs.hash and placed.sigs == ()


def test_a_placed_event_with_a_changed_payload_is_refused(home: Path) -> None:
    store, _signers, _do, bobs = _crossed(home)
    lines = export(store, home / "log.jsonl")
    placed = _placed_next(lines, bobs)
    changed = _rehashed(placed, data=msgspec.Raw(b'{"about":[],"text":"bob surrenders","type":"core.noted"}'))
    assert "the signature of bob is not valid for this event" in _refused(home, _extended(lines, [changed]))


def test_a_decision_made_elsewhere_is_not_placed(home: Path) -> None:
    store, signers, _do, bobs = _crossed(home)
    lines = export(store, home / "log.jsonl")
    # bob signs a note on a head this log never had (another #8): placing it here is refused
    elsewhere = signers["bob"](_rehashed(msgspec.structs.replace(bobs, sigs=()), prev="ab" * 32))
    refused = _refused(home, _extended(lines, [_placed_next(lines, elsewhere)]))
    assert "was made on an event (#8, abababababab...) that is not in this log" in refused


def test_a_dropped_decision_is_not_revived(home: Path) -> None:
    store, _signers, do, bobs = _crossed(home)
    do("bob", ff.Join(name="Cid", side="blue", hp=5))  # bob signs #11 on the kept branch: his note is gone
    lines = export(store, home / "log.jsonl")
    refused = _refused(home, _extended(lines, [_placed_next(lines, bobs)]))
    assert "bob made this decision at #9 and has signed #11 here since" in refused


def test_a_decision_is_placed_once(home: Path) -> None:
    store, signers, _do, bobs = _crossed(home)
    lines = export(store, home / "log.jsonl")
    first = _placed_next(lines, bobs)
    between = signers["alice"](seal(stream=first.stream, seq=first.seq + 1, prev=first.hash, actor="alice",
                                    event=Noted(text="alice waits"), command_id="alice-waits"))
    again = bobs.placed_at(seq=between.seq + 1, prev=between.hash)
    assert "a decision is placed once" in _refused(home, _extended(lines, [first, between, again]))


def test_a_placed_decision_the_rules_refuse_there_is_refused(home: Path) -> None:
    """bob joins Cid on #8 on his machine; alice joins another Cid, kept at #9: bob's join, placed at #10,
    is refused by the rules there (a second participant of one name), though bob signed it."""
    from combatlog.store import open_store
    from combatlog.wiring import execute

    store, signers, do = signed_duel(home, rolls=False)
    store.close()
    shutil.copy2(home / "log.db", home / "bob.db")
    bob_store = open_store(str(home / "bob.db"))
    execute(bob_store, "duel", ff.Join(name="Cid", side="blue", hp=5), actor="bob", signer=signers["bob"],
            command_id="bob-cid")
    bobs = decode_envelope(bob_store.read_stream(bob_store.list_streams()[0].id, 9, 9)[0].body)
    bob_store.close()
    store = open_store(str(home / "log.db"))
    execute(store, "duel", ff.Join(name="Cid", side="red", hp=7), actor="alice", signer=signers["alice"])
    lines = export(store, home / "log.jsonl")
    refused = _refused(home, _extended(lines, [_placed_next(lines, bobs)]))
    assert "bob's freeform Join is refused by the rules on re-deciding" in refused, refused


def test_a_placement_carries_only_its_authors_signature(home: Path) -> None:
    store, signers, _do, bobs = _crossed(home)
    lines = export(store, home / "log.jsonl")
    placed = _placed_next(lines, bobs)
    # a placer who signs the placement itself (bob's machine, as bob): nobody signs a placement
    countersigned = signers["bob"](placed)
    assert "carries signatures of its own" in _refused(home, _extended(lines, [countersigned]))
    # a placement with the author's signature stripped
    unsigned = _rehashed(placed, placed=Placement(seq=9, prev=bobs.prev, sigs=()))
    assert "is not signed by bob" in _refused(home, _extended(lines, [unsigned]))
    # alice signs bob's original with her own key and places it (her signer refuses to: a modified client)
    from combatlog.events.envelope import Signature
    from combatlog.trust.keys import KeySigner
    from combatlog.trust.players import signed_message

    key = KeySigner("alice")
    hers = Signature(signer="alice", key=key.fingerprint, sig=key.sign(signed_message(bobs.hash)))
    forged = _rehashed(placed, placed=Placement(seq=9, prev=bobs.prev, sigs=(hers,)))
    assert "carries a signature by alice" in _refused(home, _extended(lines, [forged]))


def test_no_placement_without_pinned_players(home: Path) -> None:
    from combatlog.store import open_store
    from combatlog.wiring import create_combat, execute

    store = open_store(str(home / "open.db"))
    create_combat(store, "duel", "freeform", actor="gm")
    execute(store, "duel", ff.Join(name="Aldo", side="red", hp=12), actor="gm")
    meta = store.list_streams()[0]
    head = store.head(meta.id)
    theirs = seal(stream=meta.id, seq=head.seq + 1, prev=head.hash, event=Noted(text="elsewhere"), actor="bob",
                  command_id="bob-note")
    execute(store, "duel", ff.Join(name="Bo", side="blue", hp=10), actor="gm")
    lines = export(store, home / "open.jsonl")
    assert "a placed decision in a combat without pinned players" in _refused(
        home, _extended(lines, [_placed_next(lines, theirs)]))


def test_a_branch_of_many_decisions_that_cannot_be_placed_costs_a_bounded_merge(home: Path) -> None:
    """A hostile branch of many small decisions, each refused at its new place, would cost the merge one
    fresh verification of the kept branch per decision. Each of them was made on the one before, so once the
    first cannot be placed the rest are not tried (one verification), and past ``MAX_PLACEMENT_FAILURES``
    failures of separate decisions the rest go back to their authors untried. Here bob's twelve joins are kept
    (at #9 the players' order starts with bob, 9 mod 2 = 1) and alice's twelve joins of the same names cannot
    be placed after them."""
    from combatlog.store import open_store
    from combatlog.wiring import execute, import_file

    store, signers, do = signed_duel(home, rolls=False)
    store.close()
    shutil.copy2(home / "log.db", home / "alice.db")
    theirs = open_store(str(home / "alice.db"))
    names = [f"N{i}" for i in range(12)]
    for name in names:
        execute(theirs, "duel", ff.Join(name=name, side="red", hp=3), actor="alice", signer=signers["alice"])
    export(theirs, home / "alice.jsonl", since=8)
    theirs.close()
    store = open_store(str(home / "log.db"))
    for name in names:
        execute(store, "duel", ff.Join(name=name, side="blue", hp=3), actor="bob", signer=signers["bob"])
    report = import_file(store, home / "alice.jsonl")
    assert report.merge is not None and report.merge.kept == "ours"
    decisions = report.merge.decisions
    # the first is tried and refused; the others, made on it, are not tried: the rules refuse each on the merged
    # log too (a second N1...), so nobody can make them again
    assert [d.outcome for d in decisions] == ["refused"] * 12
    first = decisions[0]
    assert first.rule and "N0" in first.message and not first.message.endswith(f"({first.rule})")
    assert all("N" + str(i) in d.message for i, d in enumerate(decisions))


def test_two_decisions_signed_at_one_place_are_equivocation_even_when_one_was_placed(home: Path) -> None:
    """alice signs two different notes on #8 as her #9 and mails one to each side. bob's #9 is kept (at #9 the
    players' order starts with bob) and her first note is placed at #10; when her second arrives, it does not
    part from this log where the first did, so import's own comparison never sees the pair. The merge
    compares originals: equivocation, with the proof written, nothing changed; and verify refuses a log that
    holds both placed."""
    from combatlog.trust.evidence import Equivocation
    from combatlog.wiring import import_file, verify_file as verify_path

    store, signers, do = signed_duel(home, rolls=False)
    stream = store.list_streams()[0].id
    h8 = store.head(stream).hash

    def alices(text: str, cid: str) -> Envelope:
        return signers["alice"](seal(stream=stream, seq=9, prev=h8, event=Noted(text=text), actor="alice",
                                     command_id=cid))

    first, second = alices("alice parleys", "a-1"), alices("alice attacks", "a-2")
    base = export(store, home / "base.jsonl")
    do("bob", ff.StartRound())  # bob's #9-#10: kept
    for name, env in (("first.jsonl", first), ("second.jsonl", second)):
        lines = _extended(base, [env])
        header = msgspec.json.decode(lines[0])
        assert header["head_seq"] == 9
        write_lines(home / name, lines)
    report = import_file(store, home / "first.jsonl")
    assert [d.outcome for d in report.merge.decisions] == ["placed"]  # type: ignore[union-attr]
    head = store.head(stream)
    with pytest.raises(Equivocation, match="two different events signed by alice at duel seq 9"):
        import_file(store, home / "second.jsonl")
    assert store.head(stream) == head
    assert list(home.glob("second.jsonl.equivocation-9.jsonl"))
    # a log that holds both placed (a hostile placer's) is refused by verify
    lines = export(store, home / "log.jsonl")
    both = _extended(lines, [_placed_next(lines, second)])
    with pytest.raises(VerificationFailed, match="alice signed two different decisions at #9"):
        verify_path(write_lines(home / "both.jsonl", both))
