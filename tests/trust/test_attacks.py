"""Each attack on a signed play-by-email log is caught, with a message that says what happened.

The log is built in-process (``signed_duel``: see its docstring for the seqs); the
attacks edit an export the way a cheating player could, or append through a
modified client (``forge``) so that only ``verify`` stands between the cheat and
the other player. Where the normal write path can refuse the same cheat, the test
checks that too.
"""

from __future__ import annotations

from combatlog.events.envelope import decode_recorded

import json
from pathlib import Path

import msgspec
import pytest

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute
from combatlog.errors import Diverged, IllegalCommand, VerificationFailed
from combatlog.events.core import Acknowledged, DiceRolled, Noted, OrdersRevealed
from combatlog.events.envelope import Signature
from combatlog.wiring import import_file, verify_file, verify_stream
from combatlog.trust.commands import CommitOrders, MarkDecision, RevealOrders
from tests.trust.pbem import appended, batch_cut, export, forge, rechain, signed_duel, truncated, write_lines


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return tmp_path


def fails(path: Path, store=None) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(VerificationFailed) as err:
        verify_file(path, store)
    return str(err.value)


def stored_fails(store) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(VerificationFailed) as err:
        verify_stream(store, resolve_stream(store, "duel"))
    return str(err.value)


def test_the_untouched_log_verifies(home: Path) -> None:
    store, _, _ = signed_duel(home)
    report = verify_file(write_lines(home / "ok.jsonl", export(store, home / "ok.jsonl")))
    assert report.ok and report.signatures == 13 and report.dice.verified == 2
    assert report.acknowledged == {"alice": 13, "bob": 12}


# -- the past cannot be edited, reordered or cut -----------------------------------------


def test_an_edited_event_is_caught_by_its_hash(home: Path) -> None:
    store, _, _ = signed_duel(home)
    lines = export(store, home / "x.jsonl")
    assert b'"hp":12' in lines[2]
    lines[2] = lines[2].replace(b'"hp":12', b'"hp":30')
    assert "seq 2: hash does not match the content (event altered)" in fails(write_lines(home / "x.jsonl", lines))


def test_an_edited_event_with_every_hash_recomputed_is_caught_by_its_signature(home: Path) -> None:
    store, _, _ = signed_duel(home)
    lines = rechain(export(store, home / "x.jsonl"), 2, lambda data: data.update(hp=30))
    message = fails(write_lines(home / "x.jsonl", lines))
    assert "seq 2: the signature of alice is not valid for this event" in message


def test_a_reordered_pair_is_caught(home: Path) -> None:
    store, _, _ = signed_duel(home)
    lines = export(store, home / "x.jsonl")
    lines[10], lines[11] = lines[11], lines[10]
    assert "seq 11 where 10 was expected (events missing, added or reordered)" in fails(
        write_lines(home / "x.jsonl", lines))


def test_a_dropped_tail_is_caught(home: Path) -> None:
    store, signers, _ = signed_duel(home)
    lines = export(store, home / "x.jsonl")
    # naive: the header still announces the events that were cut
    assert "announces 13 events, the file holds 11 (events dropped or added)" in fails(
        write_lines(home / "x.jsonl", lines[:-2]))
    # careful: bob cuts alice's acknowledgement (#13), rewrites the header and carries on with his own #13;
    # alice's log has her #13, so her verify says the file diverges at #13
    forged = appended(truncated(lines, batch_cut(lines, 13)), Noted(text="alice never acknowledged"), actor="bob",
                      signer=signers["bob"])
    path = write_lines(home / "y.jsonl", forged)
    with pytest.raises(Diverged, match="diverges at seq 13"):
        verify_file(path, store)
    # her import cannot tell a cut from two players answering the same head: it merges (docs/trust.md,
    # "Concurrent moves"), and nothing is lost: her acknowledgement is placed after bob's note, and
    # her original #13 is kept as evidence
    report = import_file(store, path, signer_for=signers.get)
    assert report.merge is not None and report.merge.kept == "theirs"  # bob goes first at #13 (13 mod 2 = 1)
    assert [d.outcome for d in report.merge.decisions] == ["placed"]
    stream = store.list_streams()[0].id
    tail = [decode_recorded(r.body) for r in store.read_stream(stream, 13)]
    assert [(r.env.actor, r.env.type) for r in tail] == [("bob", "core.noted"), ("alice", "core.acknowledged")]
    assert [r.seq for r in store.superseded(stream)] == [13]


# -- nobody can forge another player's decision ---------------------------------------------


def test_an_event_by_alice_signed_with_bobs_key_is_caught(home: Path) -> None:
    store, signers, _ = signed_duel(home, rolls=False)
    bob_key = signers["bob"].fingerprint

    def as_alice(env):  # type: ignore[no-untyped-def]
        signed = signers["bob"](msgspec.structs.replace(env, actor="bob"))
        return env.with_sigs((Signature(signer="alice", key=bob_key, sig=signed.sigs[0].sig),))

    forge(store, "duel", Noted(text="alice concedes"), actor="alice", signer=as_alice)
    assert f"the signature of alice names key {bob_key}, but the key pinned for alice is" in stored_fails(store)


def test_a_forged_signature_is_caught(home: Path) -> None:
    store, signers, _ = signed_duel(home, rolls=False)
    alice_key = signers["alice"].fingerprint

    def forged(env):  # type: ignore[no-untyped-def]
        # bob signs this hash with his own key and labels it alice's (right fingerprint, wrong key)
        sig = signers["bob"](msgspec.structs.replace(env, actor="bob")).sigs[0].sig
        return env.with_sigs((Signature(signer="alice", key=alice_key, sig=sig),))

    forge(store, "duel", Noted(text="alice concedes"), actor="alice", signer=forged)
    assert "seq 9: the signature of alice is not valid for this event" in stored_fails(store)


def test_an_unsigned_event_or_one_signed_by_someone_else_is_caught(home: Path) -> None:
    store, signers, _ = signed_duel(home, rolls=False)
    # the write path refuses an unsigned append outright (an API caller that forgot the signer)
    with pytest.raises(IllegalCommand, match="seq 9 .* by bob is not signed by bob"):
        execute(store, "duel", CommitOrders(step="r2"), actor="bob")
    # bob signs, validly and as himself, an event whose actor is alice: still not alice's decision
    forge(store, "duel", Noted(text="alice concedes"), actor="alice",
          signer=lambda env: env.with_sigs(signers["bob"](msgspec.structs.replace(env, actor="bob")).sigs))
    assert "seq 9 (core.noted) by alice carries a signature by bob: an event is signed by its actor alone" in (
        stored_fails(store))


def test_an_event_without_any_signature_is_caught(home: Path) -> None:
    store, _, _ = signed_duel(home, rolls=False)
    forge(store, "duel", Noted(text="alice concedes"), actor="alice")
    assert "seq 9 (core.noted) by alice is not signed by alice" in stored_fails(store)


def test_an_altered_signature_is_caught(home: Path) -> None:
    store, _, _ = signed_duel(home)
    lines = export(store, home / "x.jsonl")
    env = json.loads(lines[5])
    sig = env["sigs"][0]["sig"]
    flipped = ("B" if sig[10] != "B" else "C")
    lines[5] = lines[5].replace(sig.encode(), (sig[:10] + flipped + sig[11:]).encode())
    assert "seq 5: the signature of bob is not valid" in fails(write_lines(home / "x.jsonl", lines))
    # a valid signature moved from another event of the same signer does not fit either
    lines = export(store, home / "y.jsonl")
    other = json.loads(lines[3])["sigs"][0]["sig"]
    lines[5] = lines[5].replace(json.loads(lines[5])["sigs"][0]["sig"].encode(), other.encode())
    assert "seq 5: the signature of bob is not valid" in fails(write_lines(home / "y.jsonl", lines))


# -- sealed orders ----------------------------------------------------------------------------------


def test_a_reveal_that_does_not_match_its_commit_is_caught(home: Path) -> None:
    store, signers, do = signed_duel(home, rolls=False)
    do("alice", CommitOrders(step="r2", orders={"Aldo": "parry"}))  # 9
    do("bob", CommitOrders(step="r2", orders={"Bo": "swing"}))  # 10
    secret = json.loads(store.get_secret(f"orders:{_commit_of(store, 10)}"))
    # through the write path: bob edits his kept orders after seeing alice's parry
    store.put_secret(f"orders:{_commit_of(store, 10)}",
                     json.dumps({"nonce": secret["nonce"], "orders": {"Bo": "feint"}}).encode())
    with pytest.raises(IllegalCommand, match="do not match the commitment at seq 10"):
        do("bob", RevealOrders(step="r2"))
    # through a modified client: the signed reveal is in the log, verify catches it
    forge(store, "duel", OrdersRevealed(step="r2", player="bob", orders={"Bo": "feint"}, nonce=secret["nonce"]),
          actor="bob", signer=signers["bob"])
    assert ("seq 11: the orders bob reveals for step r2 do not match the commitment at seq 10 "
            "(changed after committing)") in stored_fails(store)


def test_a_reveal_before_every_commit_is_caught(home: Path) -> None:
    store, signers, do = signed_duel(home, rolls=False)
    do("alice", CommitOrders(step="r2", orders={"Aldo": "parry"}))  # 9
    with pytest.raises(IllegalCommand, match="waiting for commits from bob"):
        do("alice", RevealOrders(step="r2"))
    kept = json.loads(store.get_secret(f"orders:{_commit_of(store, 9)}"))
    forge(store, "duel", OrdersRevealed(step="r2", player="alice", orders=kept["orders"], nonce=kept["nonce"]),
          actor="alice", signer=signers["alice"])
    assert "seq 10: alice reveals step r2 before every required commit is in the log (missing: bob)" in \
        stored_fails(store)


def test_a_second_commitment_to_the_same_step_is_refused(home: Path) -> None:
    store, _, do = signed_duel(home, rolls=False)
    do("alice", CommitOrders(step="r2", orders={"Aldo": "parry"}))
    with pytest.raises(IllegalCommand, match="already committed to step r2 at seq 9"):
        do("alice", CommitOrders(step="r2", orders={"Aldo": "thrust"}))
    with pytest.raises(IllegalCommand, match="opens while step r2 .* is not complete"):
        do("alice", CommitOrders(step="r2b", orders={"Aldo": "thrust"}))


# -- dice ----------------------------------------------------------------------------------------------


def test_a_label_drawn_twice_is_caught(home: Path) -> None:
    store, signers, do = signed_duel(home)
    first = _event(store, 9)
    assert isinstance(first, DiceRolled) and first.label == "r1/Aldo/act"
    forge(store, "duel", first, actor="alice", signer=signers["alice"])  # the same roll again, re-signed
    assert "seq 14: dice label 'r1/Aldo/act' was already drawn at seq 9" in stored_fails(store)


def test_a_joint_die_with_other_faces_is_caught(home: Path) -> None:
    store, signers, _ = signed_duel(home)
    lines = rechain(export(store, home / "x.jsonl"), 9, lambda d: d.update(faces=[20], total=20))
    recorded = _event(store, 9)
    if recorded.faces == (20,):  # pragma: no cover - the seed happened to roll a 20
        lines = rechain(export(store, home / "x.jsonl"), 9, lambda d: d.update(faces=[1], total=1))
    # alice re-signs her edited die: the signature is fine, the dice are not
    resigned = _resign(lines, 9, signers["alice"])
    message = fails(write_lines(home / "x.jsonl", resigned))
    assert "seq 9: joint die 'r1/Aldo/act' shows" in message and "the seed of step r1 gives" in message


def test_shopping_for_an_older_seed_is_caught(home: Path) -> None:
    store, signers, do = signed_duel(home, rolls=False)
    for player, orders in (("alice", {}), ("bob", {})):
        do(player, CommitOrders(step="r2", orders=orders))
    do("bob", RevealOrders(step="r2"))
    do("alice", RevealOrders(step="r2"))  # 12: the newest seed
    from combatlog.dice.derive import derive_faces
    from combatlog.trust.sealed import scanned
    from combatlog.projections.fold import state_at

    old = scanned(store, state_at(store, resolve_stream(store, "duel")).core).steps["r1"]
    faces = derive_faces(old.seed, "r2/Aldo/attack", 1, 20)
    forge(store, "duel", DiceRolled(label="r2/Aldo/attack", notation="1d20", count=1, sides=20, faces=faces,
                                    total=faces[0], scheme="joint", seed_ref=7, by="Aldo"),
          actor="alice", signer=signers["alice"])
    assert "joint die 'r2/Aldo/attack' names the seed of seq 7, but the newest joint seed is step r2" in \
        stored_fails(store)


def test_strict_mode_needs_a_fresh_seed_after_a_decision_point(home: Path) -> None:
    from combatlog.rulesets.freeform import commands as ff

    store, signers, do = signed_duel(home, rolls=False)
    do("bob", MarkDecision(what="Bo stays to fight"))  # 9
    with pytest.raises(IllegalCommand, match="strict mode needs a fresh commit-reveal"):
        do("alice", ff.Act(who="Aldo", action="thrusts", roll="1d20"))
    from combatlog.dice.derive import derive_faces
    from combatlog.trust.sealed import scanned
    from combatlog.projections.fold import state_at

    seed = scanned(store, state_at(store, resolve_stream(store, "duel")).core).steps["r1"].seed
    faces = derive_faces(seed, "r1/Aldo/act", 1, 20)
    forge(store, "duel", DiceRolled(label="r1/Aldo/act", notation="1d20", count=1, sides=20, faces=faces,
                                    total=faces[0], scheme="joint", seed_ref=7, by="Aldo"),
          actor="alice", signer=signers["alice"])
    assert "after the decision point at seq 9 (bob: Bo stays to fight); strict mode needs a fresh" in \
        stored_fails(store)


def test_friendly_mode_allows_and_flags_dice_after_a_decision_point(home: Path) -> None:
    from combatlog.rulesets.freeform import commands as ff

    store, _, do = signed_duel(home, mode="friendly", rolls=False)
    do("bob", MarkDecision(what="Bo stays to fight"))
    do("alice", ff.Act(who="Aldo", action="thrusts", roll="1d20"))
    report = verify_stream(store, resolve_stream(store, "duel"))
    assert any("drawn from step r1 after the decision point at seq 9" in n and "friendly mode" in n
               for n in report.notes)


def test_an_acknowledgement_of_another_history_is_caught(home: Path) -> None:
    store, signers, _ = signed_duel(home, rolls=False)
    forge(store, "duel", Acknowledged(player="bob", upto=5, hash="0" * 64), actor="bob", signer=signers["bob"])
    assert "bob acknowledges seq 5 as 000000000000..., but that event's hash is" in stored_fails(store)


def test_the_verify_command_reports_tampering_with_exit_status_8(home: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from combatlog.cli.app import main

    store, _, _ = signed_duel(home)
    lines = export(store, home / "x.jsonl")
    lines[3] = lines[3].replace(b'"hp":10', b'"hp":99')
    path = write_lines(home / "x.jsonl", lines)
    monkeypatch.chdir(home)
    with pytest.raises(SystemExit) as code:
        main(["verify", str(path)])
    assert code.value.code == 8
    assert "x.jsonl:4: seq 3: hash does not match the content (event altered)" in capsys.readouterr().err


# -- helpers ----------------------------------------------------------------------------------------------


def _event(store, seq: int):  # type: ignore[no-untyped-def]
    from combatlog.events.envelope import decode_recorded

    meta = resolve_stream(store, "duel")
    return decode_recorded(store.read_stream(meta.id, seq, seq)[0].body).event


def _commit_of(store, seq: int) -> str:  # type: ignore[no-untyped-def]
    return _event(store, seq).commitment  # type: ignore[no-any-return]


def _resign(lines: list[bytes], seq: int, signer) -> list[bytes]:  # type: ignore[no-untyped-def]
    from combatlog.events.envelope import decode_envelope, encode_envelope

    out = list(lines)
    env = decode_envelope(out[seq])
    out[seq] = encode_envelope(signer(env.with_sigs(())))
    return out
