"""`run FILE` keeps each combat's folded head between its lines (cli.common.execute_keeping, execute's
``folded=``): what it keeps must be exactly what a fresh fold of the log gives, a head someone else
moved must not be used, and a line that fails leaves the log and the kept state as they were.
All against a real SQLite log; the freeform commands are those of docs/examples/freeform/tavern-brawl.cmds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.cli.common import execute_keeping
from combatlog.commands.core import AddNote
from combatlog.wiring import create_combat, execute
from combatlog.errors import ConcurrencyConflict, InvalidCommand
from combatlog.projections.fold import Folded, state_at
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.sqlite import SQLiteStore
from combatlog.wiring import standard


def encoded(folded: Folded) -> bytes:
    """The whole folded state (engine track and ruleset state), as a snapshot stores it."""
    return msgspec.json.encode({"core": folded.core, "state": folded.state})


def fresh(store: SQLiteStore, name: str) -> bytes:
    meta = next(m for m in store.list_streams() if m.name == name)
    return encoded(state_at(store, meta, use_snapshots=False))


def fight(rounds: int) -> list[Any]:
    """A brawl's commands: joins, then rounds of an act with local dice, a damage, a condition on and off."""
    cmds: list[Any] = [ff.Join(name="Aldo", side="locals", hp=10**6), ff.Join(name="Grimsby", side="bruisers", hp=10**6)]
    for rnd in range(1, rounds + 1):
        cmds += [ff.StartRound(), ff.Act(who="Aldo", action="punches Grimsby", roll="1d20+2"),
                 ff.ChangeHp(who="Grimsby", amount="1d4", reason="punch"),
                 ff.SetCondition(who="Grimsby", condition="dazed", present=rnd % 2 == 1),
                 AddNote(text=f"round {rnd}")]
    return cmds


@pytest.fixture
def brawl(tmp_path: Path) -> tuple[SQLiteStore, Any]:
    store = SQLiteStore(tmp_path / "log.db")
    create_combat(store, "brawl", "freeform", actor="gm", dice="local")
    return store, store.list_streams()[0]


def test_the_kept_head_is_what_a_fresh_fold_gives_after_every_command(brawl) -> None:  # type: ignore[no-untyped-def]
    store, meta = brawl
    heads: dict[str, Folded] = {}
    for command in fight(12):
        outcome = execute_keeping(heads, store, meta, command, actor="gm")
        assert heads[meta.id] is outcome.folded
        assert encoded(heads[meta.id]) == fresh(store, "brawl")
    # by hand: genesis, 2 joins, then per round a start (from round 2 also the end of the last), the act's die
    # and the act, the damage's die and the damage, the condition and the note
    assert heads[meta.id].core.head_seq == store.head(meta.id).seq == 1 + 2 + 12 * 7 + 11


def test_a_kept_head_that_another_writer_moved_on_is_not_used(brawl) -> None:  # type: ignore[no-untyped-def]
    store, meta = brawl
    heads: dict[str, Folded] = {}
    for command in fight(1):
        execute_keeping(heads, store, meta, command, actor="gm")
    stale = heads[meta.id]
    other = SQLiteStore(store.path)  # another process's connection to the same file
    execute(other, "brawl", ff.ChangeHp(who="Aldo", amount="3", reason="a chair from behind"), actor="gm")
    outcome = execute_keeping(heads, store, meta, ff.ChangeHp(who="Aldo", amount="2", reason="bottle"), actor="gm")
    assert outcome.first_seq == stale.core.head_seq + 2  # after the other writer's event, not over it
    assert encoded(heads[meta.id]) == fresh(store, "brawl")
    assert heads[meta.id].state.participants["Aldo"].hp == 10**6 - 5  # both hits counted


@pytest.mark.parametrize("command", [
    ff.ChangeHp(who="Nobody", amount="3"),  # refused by decide (the rules)
    AddNote(text="\x1b[2Jthe screen is wiped"),  # refused before the append (what verify would refuse)
])
def test_a_refused_line_leaves_the_log_and_the_kept_head_as_they_were(brawl, command) -> None:  # type: ignore[no-untyped-def]
    store, meta = brawl
    heads: dict[str, Folded] = {}
    for cmd in fight(2):
        execute_keeping(heads, store, meta, cmd, actor="gm")
    kept, before, head = heads[meta.id], encoded(heads[meta.id]), store.head(meta.id)
    with pytest.raises(InvalidCommand):
        execute_keeping(heads, store, meta, command, actor="gm")
    assert store.head(meta.id) == head
    assert heads[meta.id] is kept and encoded(kept) == before == fresh(store, "brawl")


def test_a_line_that_fails_after_its_rehearsal_drops_the_kept_head(brawl) -> None:  # type: ignore[no-untyped-def]
    """Another writer appends between the fold and the append: the append is refused (expected version),
    after the rehearsal has applied the line to the kept state, which must therefore not be kept."""
    store, meta = brawl
    heads: dict[str, Folded] = {}
    for cmd in fight(1):
        execute_keeping(heads, store, meta, cmd, actor="gm")
    other = SQLiteStore(store.path)

    def meanwhile(_store: Any, _folded: Folded, _envelopes: list[Any]) -> None:
        if store.head(meta.id).seq == heads_at:  # once: the other writer's note lands now
            execute(other, "brawl", AddNote(text="the landlord calls the watch"), actor="gm")

    heads_at = store.head(meta.id).seq
    racing = msgspec.structs.replace(standard(), pre_append=(*standard().pre_append, meanwhile))
    with pytest.raises(ConcurrencyConflict):
        execute_keeping(heads, store, meta, ff.ChangeHp(who="Aldo", amount="2"), actor="gm", wiring=racing)
    assert meta.id not in heads
    assert store.head(meta.id).seq == heads_at + 1  # only the other writer's note
    execute_keeping(heads, store, meta, ff.ChangeHp(who="Aldo", amount="2"), actor="gm")  # folds the log again
    assert encoded(heads[meta.id]) == fresh(store, "brawl")
