"""Property tests over random freeform play-outs: store equals memory, export then import is the identity."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute
from combatlog.errors import CombatlogError
from combatlog.exchange.bundle import export_file
from combatlog.wiring import import_file
from combatlog.projections.fold import state_at
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.base import EventStore
from combatlog.store.memory import MemoryStore
from combatlog.store.sqlite import SQLiteStore
from tests.core.helpers import duel

WHO = st.sampled_from(["Aldo", "Bo", "Cy"])
COMMANDS = st.one_of(
    st.builds(lambda w, f: ("hit", w, f), WHO, st.integers(1, 8)),
    st.builds(lambda w: ("act", w), WHO),
    st.just(("round",)),
    st.just(("end_round",)),
    st.builds(lambda w, c: ("cond", w, c), WHO, st.sampled_from(["prone", "stunned"])),
)


def play(store: EventStore, script: list[tuple]) -> list[str]:  # type: ignore[type-arg]
    """Apply the script; illegal steps are refused (and must append nothing). Returns the outcomes."""
    duel(store)
    outcomes = []
    for i, step in enumerate(script):
        try:
            if step[0] == "hit":
                label = f"s{i}"
                execute(store, "duel", ff.ChangeHp(who=step[1], amount="1d8", label=label), actor="gm",
                        manual_faces={label: (step[2],)})
            elif step[0] == "act":
                execute(store, "duel", ff.Act(who=step[1], action="swings"), actor="gm")
            elif step[0] == "round":
                execute(store, "duel", ff.StartRound(), actor="gm")
            elif step[0] == "end_round":
                execute(store, "duel", ff.EndRound(), actor="gm")
            else:
                execute(store, "duel", ff.SetCondition(who=step[1], condition=step[2]), actor="gm")
            outcomes.append("ok")
        except CombatlogError as exc:
            outcomes.append(exc.code)
    return outcomes


@given(st.lists(COMMANDS, max_size=30))
@settings(max_examples=30, deadline=None)
def test_sqlite_store_behaves_like_memory(script) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        mem, disk = MemoryStore(), SQLiteStore(Path(tmp) / "p.db")
        assert play(mem, script) == play(disk, script)
        a, b = state_at(mem, resolve_stream(mem, "duel")), state_at(disk, resolve_stream(disk, "duel"))
        assert a.state == b.state and a.core.head_seq == b.core.head_seq and a.core.labels == b.core.labels
        assert a.ruleset.check(a.state) == []
        disk.close()


@given(st.lists(COMMANDS, max_size=30))
@settings(max_examples=30, deadline=None)
def test_export_then_import_is_the_identity(script) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        source = SQLiteStore(Path(tmp) / "a.db")
        play(source, script)
        meta = resolve_stream(source, "duel")
        path = Path(tmp) / "e.jsonl"
        export_file(source, meta, path)
        target = SQLiteStore(Path(tmp) / "b.db")
        import_file(target, path)
        assert [r.body for r in target.read_stream(meta.id)] == [r.body for r in source.read_stream(meta.id)]
        assert target.get_stream(meta.id) == meta
        source.close()
        target.close()
