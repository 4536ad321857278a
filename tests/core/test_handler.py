"""The write path: validation before append, dice labels, referee seeds, idempotency."""

from __future__ import annotations

import pytest

from combatlog.commands.core import CommitSeed, RevealSeed, RollDice
from combatlog.commands.handler import resolve_stream
from combatlog.wiring import create_combat, execute, fork_stream
from combatlog.errors import AmbiguousCommand, IllegalCommand, InvalidCommand, NotFound
from combatlog.wiring import verify_stream
from combatlog.projections.fold import state_at
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.memory import MemoryStore
from tests.core.helpers import duel, hit


def head(store: MemoryStore, name: str = "duel") -> int:
    return state_at(store, resolve_stream(store, name)).core.head_seq


def test_a_refused_command_appends_nothing() -> None:
    store = MemoryStore()
    duel(store)
    before = head(store)
    with pytest.raises(InvalidCommand, match="no participant 'Cy'"):
        execute(store, "duel", ff.Act(who="Cy", action="x"), actor="gm")
    with pytest.raises(InvalidCommand, match="no faces given"):  # manual dice missing: nothing half-done
        execute(store, "duel", ff.Act(who="Aldo", action="x", roll="1d20"), actor="gm")
    assert head(store) == before
    execute(store, "duel", ff.EndRound(), actor="gm")
    with pytest.raises(IllegalCommand, match="no round is open"):
        execute(store, "duel", ff.EndRound(), actor="gm")
    assert head(store) == before + 1  # only the first EndRound landed


def test_hp_follow_the_dice_and_the_fold() -> None:
    store = MemoryStore()
    duel(store)
    hit(store, "duel", "Bo", 6)
    hit(store, "duel", "Bo", 5)
    state = state_at(store, resolve_stream(store, "duel")).state
    assert state.participants["Bo"].hp == 10 - 6 - 5
    assert state.participants["Bo"].down


def test_a_label_is_drawn_once_per_stream_and_across_commands() -> None:
    store = MemoryStore()
    duel(store)
    execute(store, "duel", RollDice(label="r1/morale", notation="2d6"), actor="gm", scheme="local")
    with pytest.raises(IllegalCommand, match="already drawn"):
        execute(store, "duel", RollDice(label="r1/morale", notation="2d6"), actor="gm", scheme="local")


def test_same_command_id_is_recorded_once() -> None:
    store = MemoryStore()
    duel(store)
    a = execute(store, "duel", ff.Act(who="Aldo", action="feints"), actor="gm", command_id="cmd-1")
    b = execute(store, "duel", ff.Act(who="Aldo", action="feints"), actor="gm", command_id="cmd-1")
    assert not a.duplicate and b.duplicate and (a.first_seq, a.last_seq) == (b.first_seq, b.last_seq)
    assert head(store) == a.last_seq


def test_referee_dice_verify_after_the_reveal() -> None:
    store = MemoryStore()
    duel(store, dice="referee")  # seq 2 is the seed commitment
    execute(store, "duel", RollDice(label="r1/a", notation="3d6"), actor="gm")
    execute(store, "duel", RollDice(label="r1/b", notation="1d20"), actor="gm")
    meta = resolve_stream(store, "duel")
    before = verify_stream(store, meta)
    assert before.dice.pending == 2 and before.pending_dice == ["r1/a", "r1/b"]
    execute(store, "duel", RevealSeed(), actor="gm")
    after = verify_stream(store, meta)
    assert after.dice.verified == 2 and after.dice.pending == 0
    with pytest.raises(IllegalCommand, match="no referee seed is open"):
        execute(store, "duel", RollDice(label="r1/c", notation="1d6"), actor="gm")
    execute(store, "duel", CommitSeed(), actor="gm")
    execute(store, "duel", RollDice(label="r1/c", notation="1d6"), actor="gm")
    assert verify_stream(store, meta).dice.pending == 1


def test_referee_dice_cannot_be_drawn_where_the_seed_is_absent() -> None:
    store = MemoryStore()
    duel(store, dice="referee")
    store._secrets.clear()  # another machine: the log without the referee's secret
    with pytest.raises(IllegalCommand, match="not on this machine"):
        execute(store, "duel", RollDice(label="r1/a", notation="1d6"), actor="gm")


def test_stream_references_by_name_id_and_prefix() -> None:
    store = MemoryStore()
    out = create_combat(store, "one", "freeform", actor="gm")
    assert resolve_stream(store, "one").id == out.stream.id
    assert resolve_stream(store, out.stream.id[:6]).name == "one"
    with pytest.raises(NotFound):
        resolve_stream(store, "two")
    create_combat(store, "two", "freeform", actor="gm")
    ids = [m.id for m in store.list_streams()]
    common = ""
    for a, b in zip(*ids):
        if a != b:
            break
        common += a
    if len(common) >= 4:  # rare: both random ids share a 4-character prefix
        with pytest.raises(AmbiguousCommand):
            resolve_stream(store, common)


def test_new_refuses_bad_names_unknown_rulesets_and_floats() -> None:
    store = MemoryStore()
    with pytest.raises(InvalidCommand):
        create_combat(store, "has space", "freeform", actor="gm")
    with pytest.raises(NotFound, match="unknown ruleset"):
        create_combat(store, "x", "chess", actor="gm")
    with pytest.raises(InvalidCommand, match="whole numbers"):
        create_combat(store, "x", "freeform", actor="gm", setup={"speed": 1.5})
    assert store.list_streams() == []


def test_fork_chains_to_the_parent_hash_and_diverges_freely() -> None:
    store = MemoryStore()
    duel(store)
    hit(store, "duel", "Bo", 3, "r1/bo")
    parent = resolve_stream(store, "duel")
    at3 = state_at(store, parent, 3)
    out = fork_stream(store, "duel", at_seq=3, name="whatif", actor="gm")
    first = out.events[0].env
    assert first.seq == 4 and first.prev == at3.core.head_hash
    # the label drawn after the fork point in the parent is free again in the fork
    execute(store, "whatif", ff.StartRound(), actor="gm")
    execute(store, "whatif", ff.ChangeHp(who="Bo", amount="1d8", label="r1/bo"), actor="gm", manual_faces={"r1/bo": (8,)})
    assert state_at(store, resolve_stream(store, "whatif")).state.participants["Bo"].hp == 2
    assert state_at(store, parent).state.participants["Bo"].hp == 7
