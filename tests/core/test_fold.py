"""The fold: state at a seq or a round, snapshots equal full replays, forks fold their lineage."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from combatlog import ENGINE_VERSION

from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute
from combatlog.projections import fold as fold_mod
from combatlog.projections.fold import round_end, state_at
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.memory import MemoryStore
from combatlog.store.sqlite import SQLiteStore
from tests.core.helpers import duel, hit


@pytest.fixture
def long_log(monkeypatch):  # type: ignore[no-untyped-def]
    """Every log counts as long: states are folded from snapshots (``FOLD_WHOLE_UP_TO``), a snapshot every 5
    events."""
    from combatlog.commands import handler

    for module in (fold_mod, handler):
        monkeypatch.setattr(module, "FOLD_WHOLE_UP_TO", 0)
        monkeypatch.setattr(module, "SNAPSHOT_EVERY", 5)


def test_state_at_seq_and_round_boundaries() -> None:
    store = MemoryStore()
    duel(store)  # 1 genesis, 2-3 joins, 4 round 1
    hit(store, "duel", "Bo", 2, "a")  # 5 dice, 6 hp
    execute(store, "duel", ff.StartRound(), actor="gm")  # 7 round 1 ends, 8 round 2 begins
    hit(store, "duel", "Bo", 3, "b")  # 9, 10
    meta = resolve_stream(store, "duel")
    head = state_at(store, meta)
    assert round_end(head, 1) == 7 and round_end(head, 2) == 10
    assert head.core.round_first[2] == 8
    assert state_at(store, meta, 7).state.participants["Bo"].hp == 8
    assert state_at(store, meta, 5).state.participants["Bo"].hp == 10  # the die alone changes nothing
    assert head.state.participants["Bo"].hp == 5


def test_snapshot_resume_equals_full_fold(tmp_path: Path, long_log: None) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    for i in range(12):
        hit(store, "duel", "Aldo" if i % 2 else "Bo", 1, f"h{i}")
    meta = resolve_stream(store, "duel")
    snaps = store.conn.execute("SELECT seq FROM snapshots ORDER BY seq").fetchall()
    assert len(snaps) >= 4  # one per crossing of a multiple of 5
    for seq in range(1, state_at(store, meta).core.head_seq + 1):
        with_snap = state_at(store, meta, seq)
        full = state_at(store, meta, seq, use_snapshots=False)
        assert with_snap.state == full.state
        assert with_snap.core.labels == full.core.labels and with_snap.core.head_hash == full.core.head_hash


def test_a_command_that_folds_a_whole_log_for_want_of_a_snapshot_saves_one(tmp_path: Path, long_log: None) -> None:
    """After an upgrade every snapshot is another build's (their key holds the code's digest): unsaved, each
    command and view would fold the whole log until the log next crossed a multiple of SNAPSHOT_EVERY. A
    command that folded that many events without a snapshot saves one at its head."""
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    for i in range(8):
        hit(store, "duel", "Bo", 1, f"h{i}")
    meta = resolve_stream(store, "duel")
    key = fold_mod.snapshot_key(state_at(store, meta).ruleset)
    with store.conn:
        store.conn.execute("UPDATE snapshots SET engine = 'another-build'")  # as an earlier build left them
    mine = "SELECT seq FROM snapshots WHERE engine = ? ORDER BY seq"
    assert store.conn.execute(mine, (key,)).fetchall() == []
    hit(store, "duel", "Bo", 1, "h8")  # folds every event (none of the snapshots is this build's), then saves one
    head = state_at(store, meta).core.head_seq
    assert head % 5 != 0  # (not the snapshot every 5 events: the one this command saved)
    assert store.conn.execute(mine, (key,)).fetchall() == [(head,)]
    hit(store, "duel", "Aldo", 1, "h9")  # from that snapshot: a few events folded, no snapshot more
    after = state_at(store, meta).core.head_seq
    assert store.conn.execute(mine, (key,)).fetchall() == [(head,)] + ([(after,)] if after // 5 > head // 5 else [])


def test_a_snapshot_of_another_engine_is_ignored(tmp_path: Path, long_log: None) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    meta = resolve_stream(store, "duel")
    good = state_at(store, meta)
    store.save_snapshot(meta.id, good.core.head_seq, "0.0.0-old/freeform/1", b"garbage")
    assert state_at(store, meta).state == good.state


def test_a_snapshot_folded_by_other_rules_code_is_ignored(tmp_path: Path, long_log: None) -> None:
    """Both versions stay "0.2.0" and "1" across rules fixes (a void sealed play now counts its chits, MR
    8.4.5), so a snapshot keyed by them alone kept the state an earlier build folded, hiding the fix on every
    machine that had one. The key now holds a digest of the code that folds: a snapshot of the previous key's
    form (or another digest) is not used; one under this build's key is (else this test could not tell)."""
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    meta = resolve_stream(store, "duel")
    good = state_at(store, meta)
    ruleset = good.ruleset
    key = fold_mod.snapshot_key(ruleset)
    assert key.startswith(f"{ENGINE_VERSION}/freeform/1/") and len(key.rsplit("/", 1)[1]) == 16
    doctored = fold_mod.Folded(ruleset, msgspec.structs.replace(good.state, round=99), good.core)
    blob = fold_mod.encode_snapshot(doctored)
    for stale in (f"{ENGINE_VERSION}/freeform/1", f"{ENGINE_VERSION}/freeform/1/0123456789abcdef"):  # old, other
        store.save_snapshot(meta.id, good.core.head_seq, stale, blob)
        assert state_at(store, meta).state == good.state
    store.save_snapshot(meta.id, good.core.head_seq, key, blob)
    assert state_at(store, meta).state.round == 99


def test_a_snapshot_whose_bytes_are_not_one_is_not_used_and_the_log_is_folded(tmp_path: Path, long_log: None) -> None:
    # a cache damaged (or edited) in the database file: every command on the combat used to fail decoding it
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    meta = resolve_stream(store, "duel")
    good = state_at(store, meta, use_snapshots=False)
    key = fold_mod.snapshot_key(good.ruleset)
    for garbage in (b"{not json", b'{"core":{},"state":{"round":"two"}}', b"[]"):
        store.save_snapshot(meta.id, good.core.head_seq, key, garbage)
        again = state_at(store, meta)
        assert fold_mod.encode_snapshot(again) == fold_mod.encode_snapshot(good)
        assert again.replayed == good.core.head_seq  # (folded from #1)
        assert fold_mod.load_snapshot_at(store, meta, good.core.head_seq) is None
    execute(store, "duel", ff.StartRound(), actor="gm")  # and the combat goes on
    assert state_at(store, meta).state.round == good.state.round + 1


@given(st.lists(st.tuples(st.sampled_from(["Aldo", "Bo"]), st.integers(1, 8), st.booleans()), max_size=25),
       st.integers(1, 30))
@settings(max_examples=40, deadline=None)
def test_fold_is_deterministic_and_fork_state_equals_parent_prefix(hits, fork_at) -> None:  # type: ignore[no-untyped-def]
    """Random play: folding twice gives the same state, and a fork at k starts from the parent's state at k."""
    store = MemoryStore()
    duel(store)
    for i, (who, faces, new_round) in enumerate(hits):
        if new_round:
            execute(store, "duel", ff.StartRound(), actor="gm")
        hit(store, "duel", who, faces, f"x{i}")
    meta = resolve_stream(store, "duel")
    head = state_at(store, meta)
    assert head.ruleset.check(head.state) == []
    assert state_at(store, meta, use_snapshots=False).state == head.state
    k = min(fork_at, head.core.head_seq)
    from combatlog.wiring import fork_stream

    fork_stream(store, "duel", at_seq=k, name="f", actor="gm")
    assert state_at(store, resolve_stream(store, "f")).state == state_at(store, meta, k).state


def _doctored(state, **changes):  # type: ignore[no-untyped-def]
    """The snapshot bytes of ``state`` (a Folded) with its rules' state changed, as someone editing the file
    would write them (the seq, the head hash and this build's key all left as they were)."""
    return fold_mod.encode_snapshot(fold_mod.Folded(state.ruleset, msgspec.structs.replace(state.state, **changes),
                                                    state.core))


def test_a_short_log_is_folded_from_its_first_event_whatever_the_snapshots_hold(tmp_path: Path) -> None:
    """Issue 37 item 7: a snapshot is a row anyone holding the file can write. Up to FOLD_WHOLE_UP_TO events
    (every real combat) no state is read from one: the views draw the fold of the events."""
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    meta = resolve_stream(store, "duel")
    good = state_at(store, meta)
    assert good.core.head_seq <= fold_mod.FOLD_WHOLE_UP_TO
    store.save_snapshot(meta.id, good.core.head_seq, fold_mod.snapshot_key(good.ruleset), _doctored(good, round=99))
    again = state_at(store, meta)
    assert again.state == good.state and again.replayed == good.core.head_seq  # (folded from #1)
    execute(store, "duel", ff.StartRound(), actor="gm")  # commands are decided on the true state too
    assert state_at(store, meta).state.round == good.state.round + 1


def test_a_long_log_reads_only_a_snapshot_of_its_own_chain_at_its_seq(tmp_path: Path, long_log: None) -> None:
    """A long log's snapshot is read only where the head it holds is the stored event at its seq: a state
    moved to another seq, or of another branch, is not (the log is folded instead)."""
    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    meta = resolve_stream(store, "duel")
    good = state_at(store, meta, use_snapshots=False)
    key, head = fold_mod.snapshot_key(good.ruleset), good.core.head_seq
    earlier = state_at(store, meta, head - 1, use_snapshots=False)
    store.conn.execute("DELETE FROM snapshots")
    store.conn.commit()
    store.save_snapshot(meta.id, head, key, fold_mod.encode_snapshot(earlier))  # a state moved to another seq
    assert state_at(store, meta).state == good.state
    other = fold_mod.Folded(good.ruleset, msgspec.structs.replace(good.state, round=99),
                            msgspec.structs.replace(good.core, head_hash="0" * 64))
    store.save_snapshot(meta.id, head, key, fold_mod.encode_snapshot(other))  # another branch's head
    again = state_at(store, meta)
    assert again.state == good.state and again.replayed == head
    store.save_snapshot(meta.id, head, key, fold_mod.encode_snapshot(good))  # its own: read
    assert state_at(store, meta).replayed == 0



def test_verify_checks_every_snapshot_of_the_history_and_names_a_doctored_one(tmp_path: Path, long_log: None) -> None:
    """Honest snapshots (the write path's every 5 events here, a fork's included) are the fold at their seq:
    verify passes. One edited in the file fails verify at its seq, though the events are sound: a long log's
    views may start at it, so verify never says ok while they would draw it."""
    from combatlog.errors import VerificationFailed
    from combatlog.wiring import fork_stream, verify_stream

    store = SQLiteStore(tmp_path / "s.db")
    duel(store)
    for i in range(12):
        hit(store, "duel", "Aldo" if i % 2 else "Bo", 1, f"h{i}")
    fork_stream(store, "duel", at_seq=17, name="f", actor="gm")
    for i in range(6):
        hit(store, "f", "Bo", 1, f"f{i}")
    meta, fork = resolve_stream(store, "duel"), resolve_stream(store, "f")
    seqs = [seq for (seq,) in store.conn.execute("SELECT seq FROM snapshots WHERE stream = ?", (fork.id,))]
    assert len(seqs) >= 2 and min(seqs) > 17  # (the fork's own, beside its parent's up to the fork point)
    assert verify_stream(store, meta).ok and verify_stream(store, fork).ok
    target = state_at(store, meta, 15)
    assert target.replayed < 15  # (from a snapshot)
    seq = target.core.head_seq - target.replayed  # the snapshot it started from
    doctored = state_at(store, meta, seq)
    store.save_snapshot(meta.id, seq, fold_mod.snapshot_key(doctored.ruleset), _doctored(doctored, round=99))
    for stream in (meta, fork):  # (the fork's history holds the parent's events up to 17)
        with pytest.raises(VerificationFailed) as refused:
            verify_stream(store, stream)
        assert f"snapshot of the state after seq {seq} " in str(refused.value)
        assert refused.value.where == f"{stream.name}#{seq}"
