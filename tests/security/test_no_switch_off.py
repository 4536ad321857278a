"""No field a player writes turns a check off (issue 37, item 1).

The creator's modified client signs a genesis claiming engine 0.1.0, from before commands were recorded.
Before, everyone imported it with a note and played on; the creator then mailed signed events with no
command record (here: a lure with another player's character), which were never re-decided. Now such a
log is refused unless accepted knowingly (``--accept-unrecorded``), nothing is added to it, and in a
combat with pinned players an event of the rules without a command record is refused whatever the
genesis claims.
"""

from __future__ import annotations

from pathlib import Path

from combatlog.exchange.verify import accepting_unrecorded
from combatlog.projections.fold import state_at
from combatlog.projections.streams import resolve_stream
from combatlog.rulesets.magic_realm import commands as mr
from combatlog.store import open_store
from combatlog.wiring import dice_port, import_file
from tests.security.forge import log_fingerprint, read, reforge, write
from tests.trust.pbem import Seat, export, forge, key_home, seat_keys

G = "giant-goblins"
MR_SETUP = Path(__file__).resolve().parents[2] / "docs/examples/magic_realm/giant-and-goblins.json"


def _signer(seat: Seat):  # type: ignore[no-untyped-def]
    from combatlog.trust.players import make_signer

    with key_home(seat.home):
        return make_signer(seat.name)


def test_a_genesis_claiming_an_engine_before_command_records_turns_nothing_off(tmp_path: Path) -> None:
    alice, bob = Seat("alice", tmp_path), Seat("bob", tmp_path)
    seat_keys(tmp_path, [alice, bob], everyone_imports=True)
    alice("new", G, "--ruleset", "magic_realm", "--setup", str(MR_SETUP), "--dice", "manual",
          "--player", "alice", "--player", "bob")
    honest = tmp_path / "honest.jsonl"
    alice("export", G, "-o", str(honest))
    # 1. alice's modified client: the same genesis claiming engine 0.1.0, signed by her
    sign = _signer(alice)
    forged_genesis = write(tmp_path / "genesis.jsonl", reforge(
        read(honest), {1: lambda d: d.update(engine_version="0.1.0")}, signers={"alice": sign}))
    before = log_fingerprint(bob.cli.db)
    for verb in ("verify", "import"):
        out = bob(verb, str(forged_genesis), ok=False)
        assert out.code != 0, f"{verb} accepted it"
        assert "claims engine '0.1.0', from before commands were recorded" in out.err, out.err
        assert "not re-decided" in out.err and "--accept-unrecorded" in out.err
    assert log_fingerprint(bob.cli.db) == before
    # accepted knowingly, to read: nothing can be added to it
    report = bob("verify", str(forged_genesis), "--accept-unrecorded", "--json").json()
    assert any("with pinned players every decision was re-decided" in note for note in report["notes"])  # type: ignore[index]
    bob("import", str(forged_genesis), "--accept-unrecorded")
    accepted = log_fingerprint(bob.cli.db)
    out = bob("mr", "lure", G, "amazon", "goblin-1", ok=False)
    assert out.code == 4 and "nothing can be added to giant-goblins" in out.err, out.err
    assert "core: every decision is re-decided" in out.err
    assert log_fingerprint(bob.cli.db) == accepted

    # 2. alice lures with bob's Amazon: the rules' events, signed by her, with no command record
    store = open_store(str(tmp_path / "alice-modified.db"))
    with accepting_unrecorded(), key_home(alice.home):
        import_file(store, forged_genesis)
    folded = state_at(store, resolve_stream(store, G))
    port = dice_port(store, folded, actor="alice")
    for event in folded.ruleset.decide(folded.state, mr.Lure(character="amazon", denizens=("goblin-1",)), port):
        forge(store, G, event, actor="alice", signer=sign)
    whole = tmp_path / "lure.jsonl"
    since = tmp_path / "lure-since.jsonl"
    export(store, whole, G)
    export(store, since, G, since=1)
    store.close()
    fresh = Seat("carol", tmp_path)  # a machine that never saw the combat
    for seat, path in ((bob, since), (bob, whole), (fresh, whole)):
        kept = log_fingerprint(seat.cli.db)
        for verb in ("verify", "import"):
            out = seat(verb, str(path), "--accept-unrecorded", ok=False)
            assert out.code != 0, f"{seat.name} {verb} {path.name} accepted it"
            assert ("mr.lured was produced by no recorded command" in out.err
                    or "nothing can be added to giant-goblins" in out.err), out.err
        assert log_fingerprint(seat.cli.db) == kept
    # whatever the genesis claims, the unrecorded lure is refused as such
    out = fresh("verify", str(whole), "--accept-unrecorded", ok=False)
    assert "was produced by no recorded command" in out.err, out.err
