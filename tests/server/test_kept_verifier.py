"""The server verifies each append from where the combat's last append ended (import_bundle's ``kept``,
``ChainVerifier.continuing``) instead of folding the combat again (issue 22, item 5). What it accepts and
refuses must be what a fresh incremental import accepts and refuses; the log must not be re-read.
Real SQLite stores, real signed bundles (two pinned players, freeform, local dice: the rules read the dice
of `act` and `damage`, so the dice drawn before a bundle matter to its verification)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from combatlog.commands.core import AddNote
from combatlog.wiring import create_combat, execute
from combatlog.errors import CombatlogError
from combatlog.exchange.bundle import read_bytes
from combatlog.wiring import import_bundle
from combatlog.remote.client import _bundle
from combatlog.rulesets.freeform import commands as ff
from combatlog.store import open_store
from combatlog.store.sqlite import SQLiteStore


class ReadCountingStore(SQLiteStore):
    """The real SQLite store, counting the event rows it reads back."""

    rows_read = 0

    def read_stream(self, stream_id: str, from_seq: int = 1, to_seq: int | None = None):  # type: ignore[no-untyped-def]
        rows = super().read_stream(stream_id, from_seq, to_seq)
        self.rows_read += len(rows)
        return rows


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "keys"))
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players

    new_key("alice"), new_key("bob")
    pinned, signer = pin_players(["alice", "bob"], "alice")
    client = open_store("memory:")
    meta = create_combat(client, "arena", "freeform", actor="alice", players=pinned, signer=signer, dice="local").stream
    signers = {"alice": signer, "bob": make_signer("bob")}
    return {"client": client, "meta": meta, "signers": signers, "proof": tmp_path / "proof"}


def play(table: dict[str, Any], actor: str, command: Any) -> bytes:
    """One command on the client's log; the bundle of its events (what `push` sends)."""
    client, meta = table["client"], table["meta"]
    before = client.head(meta.id).seq
    execute(client, meta.id, command, actor=actor, signer=table["signers"][actor])
    return _bundle(client, meta, before)


def send(server: SQLiteStore, table: dict[str, Any], bundle: bytes, kept: dict[str, Any] | None) -> Any:
    header, lines = read_bytes(bundle, "the request body")
    return import_bundle(server, header, lines, "the request body", proof=table["proof"], merge_branches=False,
                         **({"kept": kept} if kept is not None else {}))


def moves(rounds: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("alice", ff.Join(name="Aldo", side="a", hp=1000)),
                                  ("bob", ff.Join(name="Bo", side="b", hp=1000))]
    for _ in range(rounds):
        out += [("alice", ff.StartRound()), ("alice", ff.Act(who="Aldo", action="lunges", roll="1d20")),
                ("bob", ff.ChangeHp(who="Aldo", amount="1d6", reason="riposte")), ("bob", AddNote(text="ouch"))]
    return out


def report_fields(report: Any) -> tuple[Any, ...]:
    v = report.verify
    return (report.appended, v.ok, v.events, v.first_seq, v.head_seq, v.head_hash, v.signatures, v.notes,
            v.acknowledged, v.dice.local, v.pending_dice)


def test_appends_verified_from_the_kept_verifier_report_what_a_fresh_import_reports(tmp_path: Path, table) -> None:  # type: ignore[no-untyped-def]
    kept: dict[str, Any] = {}
    continuing, fresh = SQLiteStore(tmp_path / "kept.db"), SQLiteStore(tmp_path / "fresh.db")
    genesis = _bundle(table["client"], table["meta"], 0)
    send(continuing, table, genesis, kept), send(fresh, table, genesis, None)
    for actor, command in moves(6):
        bundle = play(table, actor, command)
        assert report_fields(send(continuing, table, bundle, kept)) == report_fields(send(fresh, table, bundle, None))
        assert kept[table["meta"].id].folded.core.head_seq == continuing.head(table["meta"].id).seq
    assert continuing.read_stream(table["meta"].id) == fresh.read_stream(table["meta"].id)


def test_an_append_from_the_kept_verifier_reads_no_earlier_event(tmp_path: Path, table) -> None:  # type: ignore[no-untyped-def]
    kept: dict[str, Any] = {}
    server = ReadCountingStore(tmp_path / "server.db")
    send(server, table, _bundle(table["client"], table["meta"], 0), kept)
    read = []
    for actor, command in moves(10):
        bundle = play(table, actor, command)
        server.rows_read = 0
        send(server, table, bundle, kept)
        read.append(server.rows_read)
    assert max(read) == 0, read  # the new events are checked against the kept state only
    # without it, the trust checks read the combat from #1 on every append (the cost this removes)
    bundle = play(table, "bob", AddNote(text="one more"))
    server.rows_read = 0
    send(server, table, bundle, None)
    assert server.rows_read >= server.head(table["meta"].id).seq - 1


def test_a_forged_append_after_kept_ones_is_refused_and_the_next_honest_one_accepted(tmp_path: Path, table) -> None:  # type: ignore[no-untyped-def]
    kept: dict[str, Any] = {}
    server = SQLiteStore(tmp_path / "server.db")
    send(server, table, _bundle(table["client"], table["meta"], 0), kept)
    for actor, command in moves(2):
        send(server, table, play(table, actor, command), kept)
    head = server.head(table["meta"].id)
    # bob's note with its signature altered (the hash covers the event, the signature the hash)
    honest_note = play(table, "bob", AddNote(text="bob concedes"))
    at = honest_note.index(b'"sig":"') + len(b'"sig":"')
    forged = honest_note[:at] + (b"B" if honest_note[at:at + 1] == b"A" else b"A") + honest_note[at + 1:]
    with pytest.raises(CombatlogError, match="sign"):
        send(server, table, forged, kept)
    assert server.head(table["meta"].id) == head and table["meta"].id not in kept
    # the client's log still holds the refused note: an honest client starts again from the server's head
    honest = open_store("memory:")
    header, lines = read_bytes(_bundle(server, server.get_stream(table["meta"].id), 0), "the server")
    import_bundle(honest, header, lines, "the server", proof=table["proof"])
    table["client"] = honest
    assert send(server, table, play(table, "bob", AddNote(text="bob fights on")), kept).verify.ok
    assert kept[table["meta"].id].folded.core.head_seq == head.seq + 1
