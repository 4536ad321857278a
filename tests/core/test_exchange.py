"""Export, import and verify: files that travel between players' machines."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.commands.core import AddNote, RevealSeed, RollDice
from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute, fork_stream
from combatlog.errors import CombatlogError, Diverged, NotFound, VerificationFailed
from combatlog.exchange.bundle import export_file
from combatlog.wiring import import_file, verify_file
from combatlog.projections.fold import state_at
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.sqlite import SQLiteStore
from tests.core.helpers import duel, hit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def played(tmp_path: Path) -> tuple[SQLiteStore, Path]:
    store = SQLiteStore(tmp_path / "a.db")
    duel(store, dice="referee")
    execute(store, "duel", RollDice(label="r1/init", notation="2d6"), actor="gm")
    hit(store, "duel", "Bo", 4, "r1/bo")
    execute(store, "duel", RevealSeed(), actor="gm")
    path = tmp_path / "duel.jsonl"
    export_file(store, resolve_stream(store, "duel"), path)
    return store, path


def test_export_verifies_and_imports_elsewhere_identically(played, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, path = played
    report = verify_file(path)
    assert report.ok and report.dice.verified == 1 and report.dice.manual == 1
    other = SQLiteStore(tmp_path / "b.db")
    result = import_file(other, path)
    assert result.created == ["duel"] and result.appended == {"duel": report.head_seq}
    mine, theirs = resolve_stream(store, "duel"), resolve_stream(other, "duel")
    assert mine.id == theirs.id
    assert [r.body for r in other.read_stream(theirs.id)] == [r.body for r in store.read_stream(mine.id)]
    again = import_file(other, path)  # the same file again changes nothing
    assert again.up_to_date and other.head(theirs.id).seq == report.head_seq


def test_a_longer_log_appends_only_the_tail_and_a_divergent_one_is_refused(played, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, path = played
    other = SQLiteStore(tmp_path / "b.db")
    import_file(other, path)
    n = other.head(resolve_stream(other, "duel").id).seq
    execute(store, "duel", ff.Act(who="Aldo", action="parries"), actor="gm")
    longer = tmp_path / "longer.jsonl"
    export_file(store, resolve_stream(store, "duel"), longer)
    result = import_file(other, longer)
    assert result.appended == {"duel": 1} and other.head(resolve_stream(other, "duel").id).seq == n + 1
    # the other machine plays on differently from the same point: a divergent history
    execute(other, "duel", ff.Act(who="Bo", action="flees"), actor="gm")
    execute(store, "duel", ff.Act(who="Aldo", action="presses"), actor="gm")
    mine = tmp_path / "mine.jsonl"
    export_file(store, resolve_stream(store, "duel"), mine)
    with pytest.raises(Diverged) as err:
        import_file(other, mine)
    assert err.value.seq == n + 2 and err.value.ours != err.value.theirs
    assert other.head(resolve_stream(other, "duel").id).seq == n + 2  # unchanged


def test_incremental_bundle(played, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, path = played
    other = SQLiteStore(tmp_path / "b.db")
    import_file(other, path)
    since = store.head(resolve_stream(store, "duel").id).seq
    execute(store, "duel", ff.Act(who="Aldo", action="lunges"), actor="gm")
    bundle = tmp_path / "b.jsonl"
    assert export_file(store, resolve_stream(store, "duel"), bundle, since=since) == 1
    with pytest.raises(NotFound, match="incremental"):
        import_file(SQLiteStore(tmp_path / "empty.db"), bundle)
    assert import_file(other, bundle).appended == {"duel": 1}


def test_a_fork_export_stands_alone(played, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, _ = played
    fork_stream(store, "duel", at_seq=5, name="whatif", actor="gm")
    execute(store, "whatif", ff.Act(who="Bo", action="yields"), actor="gm")
    path = tmp_path / "whatif.jsonl"
    export_file(store, resolve_stream(store, "whatif"), path)
    other = SQLiteStore(tmp_path / "b.db")
    result = import_file(other, path)
    assert result.created == ["duel", "whatif"] and result.appended == {"duel": 5, "whatif": 2}
    assert other.head(resolve_stream(other, "duel").id).seq == 5  # the prefix only
    assert (state_at(other, resolve_stream(other, "whatif")).state
            == state_at(store, resolve_stream(store, "whatif")).state)


def _rewrite(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"\n".join(lines) + b"\n")


@pytest.mark.parametrize("attack,message", [
    ("edit", "hash does not match"),
    ("reorder", "expected"),
    ("drop_tail", "announces"),
    ("duplicate", "announces"),
])
def test_tampering_is_caught_with_the_line(played, tmp_path: Path, attack: str, message: str) -> None:  # type: ignore[no-untyped-def]
    _, path = played
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    if attack == "edit":
        lines[4] = lines[4].replace(b'"Bo"', b'"Cy"', 1)
    elif attack == "reorder":
        lines[3], lines[4] = lines[4], lines[3]
    elif attack == "drop_tail":
        lines = lines[:-1]
    else:
        lines.insert(3, lines[3])
    bad = tmp_path / "bad.jsonl"
    _rewrite(bad, lines)
    with pytest.raises(VerificationFailed, match=message) as err:
        verify_file(bad)
    assert str(bad) in str(err.value)
    target = SQLiteStore(tmp_path / "c.db")
    with pytest.raises(CombatlogError):
        import_file(target, bad)
    assert target.list_streams() == []  # nothing half-imported


def test_a_referee_die_that_does_not_match_the_seed_is_named(played, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Forge the faces of a referee die and re-hash the chain: the hashes hold, the seed does not."""
    import msgspec

    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope, encode_envelope
    from combatlog.exchange.bundle import Header, _header_check

    _, path = played
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    envs = [decode_envelope(line) for line in lines[1:]]
    out, prev = [], envs[0].prev
    for env in envs:
        data = msgspec.json.decode(env.data)
        if data.get("label") == "r1/init":  # forge a different first die, keeping the total consistent
            first = data["faces"][0] % 6 + 1
            data["faces"] = [first, data["faces"][1]]
            data["total"] = sum(data["faces"])
        env = msgspec.structs.replace(env, prev=prev, data=msgspec.Raw(canonical(data)))
        env = msgspec.structs.replace(env, hash=env.computed_hash())
        out.append(encode_envelope(env))
        prev = env.hash
    header = msgspec.json.decode(lines[0], type=Header)
    header = msgspec.structs.replace(header, head_hash=prev)
    header = msgspec.structs.replace(header, check=_header_check(header))
    bad = tmp_path / "forged.jsonl"
    _rewrite(bad, [canonical(header), *out])
    with pytest.raises(VerificationFailed, match="r1/init.*does not match the revealed seed"):
        verify_file(bad)


@given(data=st.data())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_single_byte_changed_is_detected(played, tmp_path: Path, data) -> None:  # type: ignore[no-untyped-def]
    _, path = played
    raw = bytearray(path.read_bytes())
    i = data.draw(st.integers(0, len(raw) - 1))
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[i]))
    raw[i] = new
    bad = tmp_path / "flipped.jsonl"
    bad.write_bytes(bytes(raw))
    with pytest.raises(CombatlogError):
        verify_file(bad)


def test_an_old_schema_log_still_reads_verifies_and_imports(tmp_path: Path) -> None:
    """tests/fixtures/freeform-schema1.jsonl holds ff.hp_changed in its schema-1 shape (see README there)."""
    from combatlog.errors import IllegalCommand
    from combatlog.exchange.verify import accepting_unrecorded

    path = tmp_path / "old.jsonl"
    shutil.copy(FIXTURES / "freeform-schema1.jsonl", path)
    # its genesis claims engine 0.1.0, before commands were recorded: refused unless accepted knowingly
    with pytest.raises(VerificationFailed, match="not re-decided"):
        verify_file(path)
    store = SQLiteStore(tmp_path / "x.db")
    with pytest.raises(VerificationFailed, match="--accept-unrecorded"):
        import_file(store, path)
    assert store.list_streams() == []
    with accepting_unrecorded():
        report = verify_file(path)
        assert report.head_seq == 6 and any("not re-decided" in note for note in report.notes)
        import_file(store, path)
    # read, never added to
    with pytest.raises(IllegalCommand, match="nothing can be added to old-duel"):
        execute(store, "old-duel", AddNote(text="more"), actor="gm")
    state = state_at(store, resolve_stream(store, "old-duel")).state
    assert state.participants["Bo"].hp == 7  # 10 - 4 + 1
