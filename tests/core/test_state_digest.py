"""The state digest each batch records (engine 0.3: projections/digest.py, docs/rules.md "The state digest").

The write path puts on the last envelope of every batch the digest of the rules' state the batch leaves,
inside the hashed part; verify folds the same events and compares. A digest that differs is a note naming the
first batch (a rules change that changed an outcome under the same version), never a refusal; a ruleset
command's batch without one, in a log that records them, is refused, as is an event after it in its batch.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from combatlog import ENGINE_VERSION
from combatlog.commands.record import records_state
from combatlog.errors import VerificationFailed
from combatlog.events.canonical import canonical
from combatlog.events.envelope import GENESIS_PREV, Envelope, decode_envelope, seal
from combatlog.exchange.verify import ChainVerifier, segments_of
from combatlog.projections.digest import differences, projection, state_digest
from combatlog.projections.fold import state_at
from combatlog.projections.streams import resolve_stream
from combatlog.store import open_store
from combatlog.wiring import standard
from tests.core.helpers import duel, hit

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _envelopes(store, name: str) -> list[Envelope]:  # type: ignore[no-untyped-def]
    meta = resolve_stream(store, name)
    return [decode_envelope(row.body) for row in store.read_stream(meta.id, 1, 1000)]


def _reseal(envs: list[Envelope], change) -> list[bytes]:  # type: ignore[no-untyped-def]
    """The log re-chained after ``change(seq, env)`` edits each envelope (None: dropped)."""
    lines, prev, seq = [], GENESIS_PREV, 0
    for env in envs:
        env = change(env.seq, env)
        if env is None:
            continue
        seq += 1
        sealed = seal(stream=env.stream, seq=seq, prev=prev, event=env.payload(), actor=env.actor,
                      command_id=env.command_id, recorded_at=env.recorded_at,
                      command=None if env.command is msgspec.UNSET else bytes(env.command),
                      state=None if env.state is msgspec.UNSET else env.state)
        lines.append(canonical(sealed))
        prev = sealed.hash
    return lines


def _verify(store, name: str, lines: list[bytes]):  # type: ignore[no-untyped-def]
    verifier = ChainVerifier(segments_of(store, resolve_stream(store, name)), wiring=standard())
    for i, body in enumerate(lines):
        verifier.feed(body, f"{name}#{i + 1}")
    return verifier.finish()


def test_each_batch_records_the_digest_of_the_state_it_leaves_on_its_last_event() -> None:
    store = open_store(":memory:")
    duel(store)
    hit(store, "duel", "Bo", 5)  # a die, then the hp change: one batch of two events
    envs = _envelopes(store, "duel")
    assert records_state(ENGINE_VERSION) and len(envs) == 6
    meta = resolve_stream(store, "duel")
    batches: dict[str, list[Envelope]] = {}
    for env in envs:
        batches.setdefault(env.command_id, []).append(env)
    for batch in batches.values():
        *inner, last = batch
        assert all(env.state is msgspec.UNSET for env in inner)
        folded = state_at(store, meta, last.seq, use_snapshots=False)
        assert last.state == state_digest(folded.ruleset, folded.state)
    # hashed with the event: the hash the log holds covers it
    assert envs[-1].computed_hash() == envs[-1].hash
    assert b'"state":' in canonical(envs[-1]) and b'"state":' not in canonical(envs[-2])
    report = _verify(store, "duel", [canonical(e) for e in envs])
    assert report.states_checked == 5 and report.state_differs_at == 0 and not report.notes


def test_a_digest_this_build_does_not_fold_to_is_named_in_a_note() -> None:
    store = open_store(":memory:")
    duel(store)
    hit(store, "duel", "Bo", 5)
    envs = _envelopes(store, "duel")
    lines = _reseal(envs, lambda seq, env: msgspec.structs.replace(env, state="0" * 64)
                    if seq >= 4 and env.state is not msgspec.UNSET else env)
    report = _verify(store, "duel", lines)
    assert report.ok and report.state_differs_at == 4 and report.states_checked == 5
    [note] = report.notes
    assert note.startswith("seq 4 (gm's freeform.StartRound): this build folds another state than the one the log "
                           "records after it")
    assert "without raising their version (1)" in note


def test_a_ruleset_batch_without_its_digest_is_refused() -> None:
    store = open_store(":memory:")
    duel(store)
    envs = _envelopes(store, "duel")
    lines = _reseal(envs, lambda seq, env: msgspec.structs.replace(env, state=msgspec.UNSET) if seq == 3 else env)
    with pytest.raises(VerificationFailed, match=r"seq 3 \(gm's freeform.Join\) records no state digest"):
        _verify(store, "duel", lines)


def test_an_event_after_the_digest_in_its_batch_is_refused() -> None:
    store = open_store(":memory:")
    duel(store)
    hit(store, "duel", "Bo", 5)
    envs = _envelopes(store, "duel")
    # the digest moved onto the batch's die (seq 5), the hp change after it
    lines = _reseal(envs, lambda seq, env: msgspec.structs.replace(env, state=envs[5].state) if seq == 5
                    else msgspec.structs.replace(env, state=msgspec.UNSET) if seq == 6 else env)
    with pytest.raises(VerificationFailed, match="seq 6: an event after the state digest of its batch"):
        _verify(store, "duel", lines)


def test_a_log_of_an_earlier_engine_records_none() -> None:
    lines = (FIXTURES / "argad-version1.jsonl").read_bytes().splitlines()[1:]
    envs = [decode_envelope(line) for line in lines]
    genesis = envs[0].payload()
    assert not records_state(genesis.engine_version)  # type: ignore[attr-defined]
    assert all(env.state is msgspec.UNSET for env in envs) and all(b'"state":' not in line for line in lines)


def test_differences_name_the_path_today_and_as_played() -> None:
    played = {"characters": {"bk": {"armor": [{"name": "Armor", "condition": "damaged"}, {"condition": "intact"}]}},
              "round": 1, "rolls": [1, 2]}
    today = {"characters": {"bk": {"armor": [{"name": "Armor", "condition": "destroyed"}, {"condition": "damaged"}]}},
             "round": 1, "new": True, "rolls": [1]}
    assert differences(played, today) == [
        'characters.bk.armor[Armor].condition: "destroyed" today, "damaged" as played',
        'characters.bk.armor[1].condition: "damaged" today, "intact" as played',
        "new: true today, absent as played",
        "rolls: [1] today, [1,2] as played",
    ]
    assert differences(played, today, limit=1)[1:] == ["and 3 more"]


def test_the_projection_leaves_out_what_is_only_a_view() -> None:
    from combatlog.rulesets import load_ruleset

    from combatlog.rulesets.magic_realm.state import StepRec

    mr = load_ruleset("magic_realm")
    state = mr.state_type()
    other = msgspec.structs.replace(state, steps=(StepRec(seq=3, rule="MR 8.4.9", text="reworded"),), revision="1")
    assert state_digest(mr, state) == state_digest(mr, other)
    assert projection(mr, other)["steps"] == [] and projection(mr, other)["revision"] == ""
    assert state_digest(mr, state) != state_digest(mr, msgspec.structs.replace(state, round=2))
