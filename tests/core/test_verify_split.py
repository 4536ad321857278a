"""A verify split over two processes (exchange/split.py, issue #22 item 4) answers only success, and only where one
process does: on a clean log it reports exactly what one process reports; on an edited one it answers nothing and
the ordinary verify names the first problem, word for word as without the split. The edits are a cheat's on the
database file, each caught by one side or the other: the line checks (hash, time, text for bytes) made in the
second process, or the checks that need the fold (the payload's meaning, re-deciding a command) made here."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.errors import VerificationFailed
from combatlog.exchange.split import SPLIT_UP_TO, verify_split, worth_splitting
from combatlog.exchange.verify import ChainVerifier, segments_of
from combatlog.projections.fold import lineage
from combatlog.store.sqlite import SQLiteStore
from combatlog.wiring import standard, verify_stream
from tests.conftest import REPO
from tests.edited_logs import small_brawl
from tests.played import copy_log, played_log


def split_report(store: Any, meta: Any) -> Any:
    segments, wiring = segments_of(store, meta), standard()
    lines = [(f"{meta.name}#{seq}", body) for seg, low, high in lineage(store, meta)
             for seq, body in store.read_bodies(seg.id, low, high)]
    return verify_split(lambda: ChainVerifier(segments, wiring=wiring), lines, meta.name)


def answer(store: Any, meta: Any, *, split: bool) -> tuple[str, Any]:
    try:
        return "ok", msgspec.to_builtins(verify_stream(store, meta, split=split))
    except VerificationFailed as exc:
        return "failed", str(exc)


@pytest.fixture(autouse=True)
def _split_short_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMBATLOG_VERIFY_SPLIT_FROM", "1")  # these logs are short; the split is the same code


@pytest.mark.parametrize("example", ["magic_realm/giant-and-goblins.cmds", "osric/ford.cmds",
                                     "classic_fantasy/duel.cmds", "argad/warrior-vs-goblins.cmds"])
def test_a_clean_log_split_reports_what_one_process_reports(example: str, tmp_path: Path,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    log = copy_log(played_log(tmp_path_factory, REPO / "docs" / "examples" / example), tmp_path / "log.db")
    store = SQLiteStore(log)
    meta = store.list_streams()[0]
    assert worth_splitting(store.head(meta.id).seq)
    report = split_report(store, meta)
    assert report is not None  # the split itself succeeded (not the ordinary way behind it)
    assert msgspec.to_builtins(report) == answer(store, meta, split=False)[1]
    assert answer(store, meta, split=True) == answer(store, meta, split=False)


def rewrite(store: Any, seq: int, change: Callable[[Any], Any], *, rechain: bool) -> None:
    """Event ``seq``'s stored bytes become ``change(its envelope)``; with ``rechain``, as a careful cheat would,
    its hash is computed again and every later event re-linked to it (the line checks then all pass)."""
    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope

    rows = store.conn.execute("SELECT seq, body FROM events WHERE seq >= ? ORDER BY seq", (seq,)).fetchall()
    prev = None
    for at, body in rows:
        env = decode_envelope(bytes(body))
        if at == seq:
            env = change(env)
        elif not rechain:
            break
        if rechain:
            env = msgspec.structs.replace(env, prev=prev or env.prev)
            env = msgspec.structs.replace(env, hash=env.computed_hash())
            prev = env.hash
        store.conn.execute("UPDATE events SET body = ? WHERE seq = ?", (canonical(env), at))
    store.conn.commit()


def with_data(update: Callable[[dict[str, Any]], None]) -> Callable[[Any], Any]:
    from combatlog.events.canonical import canonical

    def change(env: Any) -> Any:
        data = json.loads(bytes(env.data))
        update(data)
        return msgspec.structs.replace(env, data=msgspec.Raw(canonical(data)))

    return change


# (the brawl: 1 genesis, 2-3 joins, then per round: start, die, act, hp change; round 1 is seqs 4-7)
EDITS = {
    # caught by the line checks (the second process)
    "a hash that is not the event's": (7, lambda env: msgspec.structs.replace(env, hash="0" * 64), False),
    "a time set before the event it follows": (6, lambda env: msgspec.structs.replace(
        env, recorded_at="2001-01-01T00:00:00Z"), True),
    # caught by the checks that need the fold (this process), the line checks all passing
    "a blow made harder than its command decided": (7, with_data(lambda d: d.update(amount=-9)), True),
    "a die with a face it cannot show": (5, with_data(lambda d: d.update(faces=[25], total=25)), True),
}


def edited_brawl(path: Path, edit: str | None) -> tuple[Any, Any]:
    """tests/edited_logs.py's brawl, with the edit of EDITS named (or none): (store, meta)."""
    store, meta, _last = small_brawl(path)
    if edit is not None:
        seq, change, rechain = EDITS[edit]
        rewrite(store, seq, change, rechain=rechain)
    return store, meta


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_problem_is_named_as_one_process_names_it(edit: str, tmp_path: Path) -> None:
    store, meta = edited_brawl(tmp_path / "log.db", edit)
    seq = EDITS[edit][0]
    assert split_report(store, meta) is None  # the split answers nothing...
    one = answer(store, meta, split=False)
    assert one[0] == "failed" and f"#{seq}" in one[1], one  # (the edit is caught, where it was made)
    assert answer(store, meta, split=True) == one  # ...and the ordinary verify names the problem


def test_text_for_bytes_is_named_as_one_process_names_it(tmp_path: Path) -> None:
    # SQLite keeps what it is given: a row edited to hold text decodes alike, and only the line check refuses it
    store, meta, _last = small_brawl(tmp_path / "log.db")
    store.conn.execute("UPDATE events SET body = CAST(body AS TEXT) WHERE seq = 5")
    store.conn.commit()
    assert split_report(store, meta) is None
    one = answer(store, meta, split=False)
    assert one[0] == "failed" and "not an event line" in one[1]
    assert answer(store, meta, split=True) == one


def test_a_short_log_or_one_core_is_not_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMBATLOG_VERIFY_SPLIT_FROM")
    assert not worth_splitting(999) and worth_splitting(1000)
    assert worth_splitting(SPLIT_UP_TO) and not worth_splitting(SPLIT_UP_TO + 1)  # (its lines held in memory)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0})
    assert not worth_splitting(10_000)


def test_the_cli_splits_and_answers_as_before(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, _meta, _last = small_brawl(tmp_path / "brawl.db")
    rewrite(store, 7, with_data(lambda d: d.update(amount=-9)), rechain=True)
    store.conn.close()
    split_env = {**cli.env, "COMBATLOG_DB": str(tmp_path / "brawl.db"), "COMBATLOG_VERIFY_SPLIT_FROM": "1"}
    one_env = {**split_env, "COMBATLOG_VERIFY_SPLIT_FROM": "1000000"}
    answers = []
    for env in (split_env, one_env):
        cli.env = env
        result = cli("verify", "brawl", ok=False)
        answers.append((result.code, result.out, result.err))
    assert answers[0] == answers[1] and answers[0][0] != 0 and "#7" in answers[0][2], answers


def file_answer(path: Path, *, split: bool) -> tuple[str, Any]:
    from combatlog.wiring import verify_file

    try:
        return "ok", msgspec.to_builtins(verify_file(path, split=split))
    except VerificationFailed as exc:
        return "failed", str(exc)


@pytest.mark.parametrize("edit", [None, *sorted(EDITS)])
def test_an_export_file_split_answers_as_one_process(edit: str | None, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # `verify FILE` (a player checking the file another mailed him) splits too; the same edits, in the file
    from combatlog.exchange import split
    from combatlog.exchange.bundle import export_file

    store, meta = edited_brawl(tmp_path / "log.db", edit)
    path = tmp_path / "brawl.jsonl"
    export_file(store, meta, path)
    answers: list[Any] = []
    real = split.verify_split
    monkeypatch.setattr(split, "verify_split", lambda *a, **k: answers.append(real(*a, **k)) or answers[-1])
    one = file_answer(path, split=False)
    assert not answers  # (one process: no split)
    assert file_answer(path, split=True) == one
    assert len(answers) == 1 and (answers[0] is None) is (edit is not None)  # the split ran, and answered so
    assert one[0] == ("ok" if edit is None else "failed")


def _signed_duel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """tests/trust/pbem.py's signed duel, written in-process: every event signed by alice or bob, two dice
    derived from both players' revealed nonces (seqs 9 and 11), alice's acknowledgement last (13)."""
    from tests.trust.pbem import signed_duel

    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "keys"))
    store, _signers, _do = signed_duel(tmp_path)
    return store


def test_a_signed_log_split_reports_its_signatures_dice_and_acknowledgements_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the trust layer's checks (signatures, joint dice, acknowledgements) are the second process's: what they add
    # to the report comes back whole
    store = _signed_duel(tmp_path, monkeypatch)
    meta = store.list_streams()[0]
    report = split_report(store, meta)
    assert report is not None
    one = answer(store, meta, split=False)
    assert msgspec.to_builtins(report) == one[1]
    assert report.signatures == report.events and report.dice.verified == 2 and report.acknowledged, report


def forge_signature(env: Any) -> Any:
    """``env`` with its first signature's bytes changed: signed by nobody."""
    sig = env.sigs[0]
    forged = msgspec.structs.replace(sig, sig=("A" if sig.sig[0] != "A" else "B") + sig.sig[1:])
    return msgspec.structs.replace(env, sigs=[forged, *env.sigs[1:]])


@pytest.mark.parametrize("at", ["first", "last"])
def test_a_forged_signature_is_named_as_one_process_names_it(at: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # an event re-signed... by nobody: its signature's bytes changed, the line re-chained (the line checks pass).
    # The second process checks everything about the signatures of the first events (here 1-7 of 13), and all
    # but their cryptography for the later ones, which this process checks (``signatures_split``): a forgery on
    # either side is refused (bob's join, seq 3; alice's acknowledgement, seq 13)
    store = _signed_duel(tmp_path, monkeypatch)
    meta = store.list_streams()[0]
    last = 3 if at == "first" else store.head(meta.id).seq
    rewrite(store, last, forge_signature, rechain=True)
    assert split_report(store, meta) is None
    one = answer(store, meta, split=False)
    assert one[0] == "failed" and "signature" in one[1], one
    assert answer(store, meta, split=True) == one
