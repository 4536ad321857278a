"""A dice-driven step computed once per command (rulesets/magic_realm/rehearsal.py) gives the states and
the events that computing it twice gives.

``decide`` rehearses random assignment, the start of the Melee Step and the resolution to draw their dice;
``evolve`` used to compute them again. Now the second computation takes the first when its inputs are the
same. These tests compare, event by event, what the write path and ``verify`` get with the kept computations
against a plain fold that keeps nothing, over random legal play-outs (the property test's driver), and
perform the misuses the cache must refuse: another state, other faces, a fold that watches its dice.
"""

from __future__ import annotations

import random
import types
import unittest.mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand
from combatlog.projections.fold import state_at
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm import events as e
from combatlog.rulesets.magic_realm import rehearsal
from combatlog.rulesets.magic_realm.decide import decide
from combatlog.rulesets.magic_realm.dice_uses import dice_uses
from combatlog.rulesets.magic_realm.evolve import evolve
from combatlog.store import open_store
from combatlog.wiring import create_combat, execute, verify_stream
from tests.rulesets.magic_realm.mr_helpers import Game, char
from tests.rulesets.magic_realm.test_property import _command, _setup


def _encoded(state) -> bytes:  # type: ignore[no-untyped-def]
    return msgspec.json.encode(state)


def _plain_state(store, meta):  # type: ignore[no-untyped-def]
    rehearsal.set_enabled(False)
    try:
        return state_at(store, meta, use_snapshots=False).state
    finally:
        rehearsal.set_enabled(True)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_write_path_and_verify_agree_with_a_plain_fold(seed: int) -> None:
    """After every command the write path's state (the fold took decide's computation) is byte for byte the
    state a plain fold of the log gives, and verify (which folds first and re-decides after) accepts the log."""
    rng = random.Random(seed)
    dice_rng = random.Random(seed ^ 0x5EED)  # as test_property: the same seed replays the same play-out
    with unittest.mock.patch("combatlog.dice.port.secrets", types.SimpleNamespace(randbelow=dice_rng.randrange)):
        store = open_store("memory:")
        create_combat(store, "p", "magic_realm", actor="gm", setup=_setup(rng), dice="local")
        meta = store.list_streams()[0]
        compared = 0
        for _ in range(120):
            state = state_at(store, meta).state
            if state.ended or state.round > 3:
                break
            for command in _command(state, rng):
                try:
                    out = execute(store, "p", command, actor="gm", scheme="local")
                except IllegalCommand:
                    continue
                assert _encoded(out.folded.state) == _encoded(_plain_state(store, meta)), type(command).__name__
                compared += 1
                break
    assert compared >= 1  # (some play-outs end at once: everyone runs away)
    assert verify_stream(store, meta).ok


def _at_resolution() -> Game:
    """test_seed_examples' MR 8.4.9 example (two thrusts on a horse doing the Charge maneuver) up to the
    Melee Step's resolution, which reads a repositioning and a change-tactics die."""
    g = Game({"first_round_of_day": False, "characters": [char("wk", "White Knight"), char("amazon", "Amazon")],
              "denizens": [{"id": "bashkar", "native": "Bashkar 1"}], "assigned": {"bashkar": "wk"}})
    g.encounter(["amazon", "wk"], attention=(1,))
    g.do(c.Target(character="amazon", target="bashkar"))
    g.do(c.Target(character="wk", target="bashkar"))
    g.do(c.Play(character="amazon", attack=1, fight="F4", shield=3))
    g.do(c.Play(character="wk", attack=1, fight="F5", maneuver=2, move="M2", place={"bashkar": 1}))
    assert g.state.step == "resolve"
    return g


class _Faces(DicePort):
    """A port that hands out the faces given by label (manual dice)."""

    def __init__(self, faces: dict[str, tuple[int, ...]]) -> None:
        super().__init__(scheme="manual", actor="gm", labels_taken=set(), manual_faces=faces)


def _with_rolls(state, port: DicePort):  # type: ignore[no-untyped-def]
    for die in port.drawn:
        state = evolve(state, die, 0)
    return state


def _plain_evolve(state, event, seq):  # type: ignore[no-untyped-def]
    rehearsal.set_enabled(False)
    try:
        return evolve(state, event, seq)
    finally:
        rehearsal.set_enabled(True)


FACES = {"r1/reposition/wk": (4,), "r1/tactics/wk/box1": (1, 2)}  # as the seed example's test


def test_the_fold_takes_decides_resolution_only_on_the_same_inputs() -> None:
    state = _at_resolution().state
    port = _Faces(FACES)
    decide(state, c.Resolve(), port)
    assert port.drawn, "the resolution of this fight reads dice"
    after_dice = _with_rolls(state, port)
    taken = evolve(after_dice, e.MeleeResolved(round=1), 40)
    assert _encoded(taken) == _encoded(_plain_evolve(after_dice, e.MeleeResolved(round=1), 40))
    assert {s.seq for s in taken.steps} == {40}  # the rehearsal's steps are stamped with the fold's seq


def test_another_state_computes_afresh() -> None:
    """Attack: a kept resolution must not stand for a state that differs in one field (here the White
    Knight already has a wound): the fold computes it again."""
    state = _at_resolution().state
    port = _Faces(FACES)
    decide(state, c.Resolve(), port)
    changed = msgspec.structs.replace(state, characters={
        **state.characters, "wk": msgspec.structs.replace(state.characters["wk"], wounds=1)})
    other = _with_rolls(changed, port)
    got = evolve(other, e.MeleeResolved(round=1), 40)
    assert _encoded(got) == _encoded(_plain_evolve(other, e.MeleeResolved(round=1), 40))
    assert _encoded(got) != _encoded(_plain_evolve(_with_rolls(state, port), e.MeleeResolved(round=1), 40))


def test_other_faces_compute_afresh() -> None:
    """Attack: the fold's state holds other faces for a die the kept resolution read: it is not taken."""
    state = _at_resolution().state
    other_faces = {**FACES, "r1/reposition/wk": (6,), "r1/tactics/wk/box2": (1, 2), "r1/tactics/wk/box3": (1, 2)}
    other = _with_rolls(state, _drawn(other_faces, state))
    port = _Faces(FACES)
    decide(state, c.Resolve(), port)  # kept, with the faces of FACES
    got = evolve(other, e.MeleeResolved(round=1), 40)
    assert _encoded(got) == _encoded(_plain_evolve(other, e.MeleeResolved(round=1), 40))
    assert _encoded(got) != _encoded(_plain_evolve(_with_rolls(state, port), e.MeleeResolved(round=1), 40))


def _drawn(faces: dict[str, tuple[int, ...]], state) -> DicePort:  # type: ignore[no-untyped-def]
    rehearsal.set_enabled(False)
    try:
        port = _Faces(faces)
        decide(state, c.Resolve(), port)
        return port
    finally:
        rehearsal.set_enabled(True)


def test_decide_replays_a_folds_dice_only_from_a_port_that_holds_them() -> None:
    """verify folds a batch before re-deciding it: decide then draws the dice the fold read, in order, from
    the replaying port, without computing the step again; a port that draws fresh dice computes it."""
    state = _at_resolution().state
    plain = _drawn(FACES, state)
    after = _with_rolls(state, plain)
    evolve(after, e.MeleeResolved(round=1), 40)  # keeps what it read

    class Replaying(_Faces):
        def recorded(self, label: str) -> tuple[int, ...] | None:
            return FACES.get(label)

    replayed = Replaying(FACES)
    computing = unittest.mock.patch("combatlog.rulesets.magic_realm.rehearsal.Work",
                                    side_effect=AssertionError("computed again"))  # rehearse computes on a Work
    with computing:
        decide(state, c.Resolve(), replayed)
    assert [_encoded(d) for d in replayed.drawn] == [_encoded(d) for d in plain.drawn]

    evolve(after, e.MeleeResolved(round=1), 40)
    fresh = _Faces(FACES)  # no ``recorded``: the resolution is computed
    with computing, pytest.raises(AssertionError, match="computed again"):
        decide(state, c.Resolve(), fresh)


def test_dice_uses_reads_the_fold_it_watches_not_a_kept_one() -> None:
    """The dice-use check of verify must see every die the fold reads: with a kept resolution waiting, the
    dry run still reads them all (a fold that watches its dice neither takes nor keeps a computation)."""
    state = _at_resolution().state
    port = _Faces(FACES)
    decide(state, c.Resolve(), port)  # keeps a resolution the fold could take
    after = _with_rolls(state, port)
    uses = dice_uses(after, e.MeleeResolved(round=1))
    assert [u.label for u in uses] == [d.label for d in port.drawn]
