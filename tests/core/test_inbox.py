"""The inbox in-process: incremental fork bundles on the recipient's parent, held and released in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute, fork_stream
from combatlog.errors import Diverged
from combatlog.exchange.bundle import export_file
from combatlog.wiring import import_file, verify_file
from combatlog.exchange.held import held_for
from combatlog.wiring import receive
from combatlog.exchange.sources import read_input
from combatlog.projections.fold import state_at
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.sqlite import SQLiteStore
from tests.core.helpers import duel


def _export(store: SQLiteStore, name: str, path: Path, since: int = 0) -> Path:
    export_file(store, resolve_stream(store, name), path, since=since)
    return path


def _receive(store: SQLiteStore, *paths: Path) -> dict[str, str]:
    return {o.where: o.status for o in receive(store, [i for p in paths for i in read_input(str(p))])}


@pytest.fixture
def both(tmp_path: Path) -> tuple[SQLiteStore, SQLiteStore]:
    """alice's log (a duel, seqs 1-4, forked at 4 into whatif with two events of its own) and bob's (#1-#4)."""
    alice, bob = SQLiteStore(tmp_path / "alice.db"), SQLiteStore(tmp_path / "bob.db")
    duel(alice)
    import_file(bob, _export(alice, "duel", tmp_path / "duel.jsonl"))
    fork_stream(alice, "duel", at_seq=4, name="whatif", actor="gm")
    execute(alice, "whatif", ff.Act(who="Bo", action="yields"), actor="gm")
    return alice, bob


def test_a_fork_bundle_resting_on_the_parent_verifies_against_the_recipients_parent(both, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = both
    bundle = _export(alice, "whatif", tmp_path / "whatif.jsonl", since=4)
    assert len(bundle.read_bytes().splitlines()) == 3  # the header and the fork's own two events
    assert verify_file(bundle, bob).head_seq == 6  # against bob's copy of duel #1-#4
    report = import_file(bob, bundle)
    assert report.created == ["whatif"] and report.appended == {"whatif": 2}
    assert (state_at(bob, resolve_stream(bob, "whatif")).core.head_hash
            == state_at(alice, resolve_stream(alice, "whatif")).core.head_hash)


def test_a_fork_bundle_on_a_parent_that_differs_here_is_a_divergence(both, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = both
    other = SQLiteStore(tmp_path / "carol.db")
    import_file(other, _export(alice, "duel", tmp_path / "d.jsonl", since=0))
    bundle = _export(alice, "whatif", tmp_path / "whatif.jsonl", since=4)
    # carol's duel is alice's, but a bundle forged to rest on another #4 is refused as a divergence
    lines = bundle.read_bytes().splitlines()
    from tests.security.forge import with_header

    forged = with_header(lines, lambda h: h.update(base_hash="a" * 64))
    (tmp_path / "forged.jsonl").write_bytes(b"\n".join(forged) + b"\n")
    with pytest.raises(Diverged, match="diverges at seq 4"):
        import_file(other, tmp_path / "forged.jsonl")
    assert other.get_stream(resolve_stream(alice, "whatif").id) is None


def test_a_fork_bundle_waits_for_the_forks_earlier_events_then_both_apply(both, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = both
    first = _export(alice, "whatif", tmp_path / "whatif-1.jsonl", since=4)  # the fork event and #6
    execute(alice, "whatif", ff.Act(who="Aldo", action="sheathes his sword"), actor="gm")
    second = _export(alice, "whatif", tmp_path / "whatif-2.jsonl", since=6)  # #7
    assert _receive(bob, second) == {str(second): "held"}
    [held] = held_for(bob, resolve_stream(bob, "duel"))  # it waits on the parent bob has
    assert held["events"] == "#7" and held["waiting_for"] == "the events of the fork whatif up to #6"
    statuses = _receive(bob, first)
    assert statuses == {str(first): "applied", f"held bundle from {second}": "applied"}
    assert bob.head(resolve_stream(bob, "whatif").id).seq == 7 and bob.held_bundles() == []


def test_a_parent_bundle_that_is_late_releases_the_fork_waiting_on_it(both, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    alice, bob = both
    execute(alice, "duel", ff.Act(who="Aldo", action="presses on"), actor="gm")  # duel #5
    fork_stream(alice, "duel", at_seq=5, name="late", actor="gm")
    parent = _export(alice, "duel", tmp_path / "duel-5.jsonl", since=4)
    fork = _export(alice, "late", tmp_path / "late.jsonl", since=5)
    assert _receive(bob, fork) == {str(fork): "held"}
    [held] = held_for(bob, resolve_stream(bob, "duel"))
    assert held["waiting_for"] == "#5"
    assert _receive(bob, parent) == {str(parent): "applied", f"held bundle from {fork}": "applied"}
    assert {m.name for m in bob.list_streams()} == {"duel", "late"}
