"""A split verify that also splits the fold at a snapshot (exchange/split.py ``snapshot_cut``, issue #22 item 4): the
second process verifies the head up to the cut and proves the state there is the snapshot's, this one verifies the
tail from it. It answers only success, and only where one process does: on a clean log the same report; on an
edited log (head or tail), or with a doctored snapshot, nothing, and the ordinary verify answers as it always has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.errors import VerificationFailed
from combatlog.events.envelope import decode_envelope
from combatlog.exchange.split import Cut, snapshot_cut, verify_split
from combatlog.exchange.verify import ChainVerifier, HeadDone, segments_of
from combatlog.projections.fold import encode_snapshot, lineage, save_snapshot, snapshot_key, state_at
from combatlog.store.sqlite import SQLiteStore
from combatlog.wiring import standard
from tests.conftest import REPO
from tests.core.test_verify_split import EDITS, answer, forge_signature, rewrite, with_data
from tests.edited_logs import small_brawl
from tests.played import copy_log, played_log


@pytest.fixture(autouse=True)
def _split_short_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMBATLOG_VERIFY_SPLIT_FROM", "1")  # these logs are short; the split is the same code


def lines_of(store: Any, meta: Any) -> list[tuple[str, bytes]]:
    return [(f"{meta.name}#{seq}", body) for seg, low, high in lineage(store, meta)
            for seq, body in store.read_bodies(seg.id, low, high)]


def snapshot_every_command(store: Any, meta: Any) -> list[int]:
    """A snapshot at the end of every command (the write path saves one every 500 events, at a command's end):
    the seqs where one command ends and another begins."""
    ids = [decode_envelope(body).command_id for _where, body in lines_of(store, meta)]
    ends = [seq for seq in range(1, len(ids)) if ids[seq - 1] != ids[seq]]
    for seq in ends:
        save_snapshot(store, meta, state_at(store, meta, seq))
    return ends


def cut_report(store: Any, meta: Any, cut: Cut | None = None) -> Any:
    segments, wiring, lines = segments_of(store, meta), standard(), lines_of(store, meta)
    cut = cut or snapshot_cut(store, meta, lines)
    assert cut is not None
    return verify_split(lambda: ChainVerifier(segments, wiring=wiring), lines, meta.name, cut=cut,
                        from_cut=lambda base: ChainVerifier(segments, base=base, wiring=wiring))


@pytest.mark.parametrize("example", ["magic_realm/giant-and-goblins.cmds", "osric/ford.cmds",
                                     "classic_fantasy/duel.cmds", "argad/warrior-vs-goblins.cmds"])
def test_a_clean_log_cut_at_a_snapshot_reports_what_one_process_reports(
        example: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    log = copy_log(played_log(tmp_path_factory, REPO / "docs" / "examples" / example), tmp_path / "log.db")
    store = SQLiteStore(log)
    meta = store.list_streams()[0]
    snapshot_every_command(store, meta)
    lines = lines_of(store, meta)
    cut = snapshot_cut(store, meta, lines)
    assert cut is not None and 0.15 * len(lines) <= cut.seq <= 0.3 * len(lines), cut and cut.seq
    report = cut_report(store, meta, cut)
    assert report is not None  # the split at the cut itself succeeded (not the ordinary way behind it)
    assert msgspec.to_builtins(report) == answer(store, meta, split=False)[1]
    assert answer(store, meta, split=True) == answer(store, meta, split=False)


def test_a_signed_log_cut_at_a_snapshot_reports_its_signatures_dice_and_acknowledgements_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # tests/trust/pbem.py's signed duel: every event signed, two joint dice (seqs 9, 11), an acknowledgement last
    from tests.trust.pbem import signed_duel

    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "keys"))
    store, _signers, _do = signed_duel(tmp_path)
    meta = store.list_streams()[0]
    snapshot_every_command(store, meta)
    report = cut_report(store, meta)
    assert report is not None
    assert msgspec.to_builtins(report) == answer(store, meta, split=False)[1]
    assert report.signatures == report.events and report.dice.verified == 2 and report.acknowledged, report


# (the brawl: 1 genesis, 2-3 joins, then per round: start, die + act, hp change, end; 17 events, cut after seq 4)
HEAD_EDITS = {
    "a fighter joined with more hit points than his command gave": (3, with_data(lambda d: d.update(hp=99)), True),
    "a hash that is not the event's, before the cut": (2, lambda env: msgspec.structs.replace(env, hash="0" * 64),
                                                       False),
}


@pytest.mark.parametrize("edit", sorted({**EDITS, **HEAD_EDITS}))
def test_an_edit_on_either_side_of_the_cut_is_named_as_one_process_names_it(edit: str, tmp_path: Path) -> None:
    store, meta, _last = small_brawl(tmp_path / "log.db")
    snapshot_every_command(store, meta)
    assert snapshot_cut(store, meta, lines_of(store, meta)).seq == 4  # type: ignore[union-attr]
    assert cut_report(store, meta) is not None  # (before the edit, the split at the cut succeeds)
    seq, change, rechain = {**EDITS, **HEAD_EDITS}[edit]
    rewrite(store, seq, change, rechain=rechain)
    assert cut_report(store, meta) is None  # the split answers nothing...
    one = answer(store, meta, split=False)
    assert one[0] == "failed" and f"#{seq}" in one[1], one  # (the edit is caught, where it was made)
    assert answer(store, meta, split=True) == one  # ...and the ordinary verify names the problem


def doctor_snapshot(store: Any, meta: Any, seq: int, change: Any) -> None:
    from combatlog.rulesets import load_ruleset

    key = snapshot_key(load_ruleset(meta.ruleset))
    blob = store.conn.execute("SELECT blob FROM snapshots WHERE stream = ? AND seq = ? AND engine = ?",
                              (meta.id, seq, key)).fetchone()[0]
    snap = json.loads(blob)
    change(snap)
    store.conn.execute("UPDATE snapshots SET blob = ? WHERE stream = ? AND seq = ? AND engine = ?",
                       (json.dumps(snap, separators=(",", ":")).encode(), meta.id, seq, key))
    store.conn.commit()


def test_a_doctored_snapshot_is_never_trusted(tmp_path: Path) -> None:
    # a cheat with the database file lowers Bo's hit points in the snapshot the tail would start from: the head's
    # fold reaches another state at the cut, the split answers nothing, and the log (untouched) verifies as it is
    store, meta, _last = small_brawl(tmp_path / "log.db")
    snapshot_every_command(store, meta)
    clean = answer(store, meta, split=False)
    doctor_snapshot(store, meta, 4, lambda snap: snap["state"]["participants"]["Bo"].update(hp=1))
    assert cut_report(store, meta) is None
    assert answer(store, meta, split=True) == clean and clean[0] == "ok"


def test_a_snapshot_that_is_not_one_is_no_cut_and_the_log_verifies(tmp_path: Path) -> None:
    # the bytes of the snapshot the cut would start from replaced by garbage (a damaged or edited file): no cut,
    # and verify answers about the log as it is, split or not
    from combatlog.rulesets import load_ruleset

    store, meta, _last = small_brawl(tmp_path / "log.db")
    snapshot_every_command(store, meta)
    clean = answer(store, meta, split=False)
    store.conn.execute("UPDATE snapshots SET blob = ? WHERE stream = ? AND seq = 4 AND engine = ?",
                       (b"{not a snapshot", meta.id, snapshot_key(load_ruleset(meta.ruleset))))
    store.conn.commit()
    assert snapshot_cut(store, meta, lines_of(store, meta)) is None
    assert answer(store, meta, split=True) == clean and clean[0] == "ok"


def test_a_cut_inside_a_command_is_not_made(tmp_path: Path) -> None:
    # seqs 5-6 are one command (Aldo's die, then his act): a snapshot after 5 cuts it, so no cut there (the tail
    # would otherwise re-decide half a command, and an event tacked on a command's end would pass for its own)
    store, meta, _last = small_brawl(tmp_path / "log.db")
    save_snapshot(store, meta, state_at(store, meta, 5))
    assert snapshot_cut(store, meta, lines_of(store, meta)) is None
    # and a line made to continue the command before it (seq 5 given seq 4's command) is no place to cut
    store2, meta2, _last = small_brawl(tmp_path / "log2.db")
    snapshot_every_command(store2, meta2)
    four = decode_envelope(lines_of(store2, meta2)[3][1]).command_id
    rewrite(store2, 5, lambda env: msgspec.structs.replace(env, command_id=four), rechain=True)
    assert snapshot_cut(store2, meta2, lines_of(store2, meta2)) is None
    one = answer(store2, meta2, split=False)
    assert one[0] == "failed" and answer(store2, meta2, split=True) == one


def test_a_die_read_on_both_sides_of_the_cut_is_refused_when_they_join(tmp_path: Path) -> None:
    # the tail reads r2/Aldo/act (seq 11); a head that had read it too (as a crafted log could make one side
    # believe) must not join: each die is read once over the whole log
    store, meta, _last = small_brawl(tmp_path / "log.db")
    snapshot_every_command(store, meta)
    lines = lines_of(store, meta)
    cut = snapshot_cut(store, meta, lines)
    assert cut is not None
    tail = ChainVerifier(segments_of(store, meta), base=cut.base, wiring=standard())
    tail.take_head_dice(body for _where, body in lines[:cut.seq])
    for where, body in lines[cut.seq:]:
        tail.feed(body, where)
    tail.head_done = HeadDone(count=cut.seq, first_seq=1, manual=0, local=0, used={"r2/Aldo/act": 3}, awaiting=[],
                              notes=[], rules_ok=True, rules_revision="")
    with pytest.raises(VerificationFailed, match="r2/Aldo/act.*already used by seq 3"):
        tail.finish("end")


def test_the_cli_cuts_at_a_snapshot_and_answers_as_before(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, meta, _last = small_brawl(tmp_path / "brawl.db")
    snapshot_every_command(store, meta)
    split_env = {**cli.env, "COMBATLOG_DB": str(tmp_path / "brawl.db"), "COMBATLOG_VERIFY_SPLIT_FROM": "1"}
    one_env = {**split_env, "COMBATLOG_VERIFY_SPLIT_FROM": "1000000"}

    def both() -> list[tuple[int, str, str]]:
        out = []
        for env in (split_env, one_env):
            cli.env = env
            result = cli("verify", "brawl", "--json", ok=False)
            out.append((result.code, result.out, result.err))
        return out

    clean = both()
    assert clean[0] == clean[1] and clean[0][0] == 0 and json.loads(clean[0][1])["events"] == 17, clean
    rewrite(store, 12, with_data(lambda d: d.update(delta=-9)), rechain=True)  # a harder blow, in the tail
    store.conn.close()
    edited = both()
    assert edited[0] == edited[1] and edited[0][0] != 0 and "#12" in edited[0][2], edited


def test_referee_dice_drawn_before_the_cut_and_revealed_after_it_are_recomputed(tmp_path: Path) -> None:
    # the referee's seed is committed (seq 2) and two free rolls drawn from it in the head; it is revealed in the
    # tail, whose verifier must know those dice (``take_head_dice``) to recompute them: 2 verified, as one process
    # says; and, before the reveal, the same two pending
    from combatlog.commands.core import RevealSeed, RollDice
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.wiring import execute
    from tests.core.helpers import duel

    store = SQLiteStore(tmp_path / "log.db")
    duel(store, dice="referee")  # seqs 1-5
    for label in ("r1/a", "r1/b"):
        execute(store, "duel", RollDice(label=label, notation="2d6"), actor="gm")
    for _ in range(20):  # (the cut is at 30% of the log: after the dice)
        execute(store, "duel", ff.Act(who="Aldo", action="circles"), actor="gm")
    meta = store.list_streams()[0]
    snapshot_every_command(store, meta)
    pending = cut_report(store, meta)
    assert pending is not None and pending.pending_dice == ["r1/a", "r1/b"]
    assert msgspec.to_builtins(pending) == answer(store, meta, split=False)[1]
    execute(store, "duel", RevealSeed(), actor="gm")
    execute(store, "duel", ff.Act(who="Bo", action="circles"), actor="gm")
    assert snapshot_cut(store, meta, lines_of(store, meta)).seq > 7  # type: ignore[union-attr]  # (the dice: 6, 7)
    report = cut_report(store, meta)
    assert report is not None and report.dice.verified == 2 and report.dice.pending == 0, report
    assert msgspec.to_builtins(report) == answer(store, meta, split=False)[1]


def test_an_imported_combat_keeps_snapshots_to_cut_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a combat received whole (a file mailed by another player) has none of the write path's snapshots: the import
    # keeps the states its verify folded at command ends past every SNAPSHOT_EVERY events, so its later verify
    # splits the fold too; and they are the states state_at folds
    from combatlog.exchange import bundle
    from combatlog.wiring import import_file

    monkeypatch.setattr(bundle, "SNAPSHOT_EVERY", 3)  # (the brawl is 17 events; 500 in use)
    store, meta, _last = small_brawl(tmp_path / "sent.db")
    path = tmp_path / "brawl.jsonl"
    bundle.export_file(store, meta, path)
    here = SQLiteStore(tmp_path / "received.db")
    import_file(here, path)
    received = here.list_streams()[0]
    kept = [seq for (seq,) in here.conn.execute("SELECT seq FROM snapshots WHERE stream = ? ORDER BY seq",
                                                  (received.id,))]
    # the brawl's commands end at seqs 1, 2, 3, 4, 6, 7, 9, 11, 12, 14, 16 (and 17): the first at or past 3, 6,
    # 9, 12, 15 (the cut, at most 30% in: 3)
    assert kept == [3, 6, 9, 12, 16], kept
    for seq in kept:
        assert encode_snapshot(state_at(here, received, seq)) == encode_snapshot(
            state_at(here, received, seq, use_snapshots=False))
    assert snapshot_cut(here, received, lines_of(here, received)) is not None
    report = cut_report(here, received)
    assert report is not None and msgspec.to_builtins(report) == answer(here, received, split=False)[1]


@pytest.mark.parametrize("seq", [3, 13])
def test_a_forged_signature_on_either_side_of_the_cut_is_named_as_one_process_names_it(
        seq: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the signed duel cut after seq 5 (42% of 13, signed): the head's signatures are checked whole by the second
    # process, the tail's cryptography by this one (``signatures_split``); bob's join (3) or alice's
    # acknowledgement (13) re-signed by nobody, the line re-chained, is refused either way
    from tests.core.test_verify_split import _signed_duel

    store = _signed_duel(tmp_path, monkeypatch)
    meta = store.list_streams()[0]
    snapshot_every_command(store, meta)
    assert snapshot_cut(store, meta, lines_of(store, meta)).seq == 5  # type: ignore[union-attr]
    assert cut_report(store, meta) is not None
    rewrite(store, seq, forge_signature, rechain=True)
    assert cut_report(store, meta) is None
    one = answer(store, meta, split=False)
    assert one[0] == "failed" and "signature" in one[1] and f"#{seq}" in one[1], one
    assert answer(store, meta, split=True) == one
