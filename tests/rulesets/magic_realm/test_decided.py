"""Who owes a decision, as the fold found it (rulesets/magic_realm/work.py ``decided``).

``advance`` ends every fold by asking ``deciders(state, step)``; ``decide`` asks the same question of the state
the fold made, and ``verify`` re-decides every command right after folding the state before it. The fold's
answer is remembered for that state object (frozen), and ``need_turn`` takes it instead of asking again.
These tests compare the remembered answers with fresh ones over random legal play-outs (the property test's
driver), and perform the misuses the memo must refuse: a state equal in content but another object, another
step, a change made after ``advance`` asked.
"""

from __future__ import annotations

import random
import types
import unittest.mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.errors import IllegalCommand
from combatlog.events.envelope import decode_recorded
from combatlog.projections.fold import state_at
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.evolve import evolve
from combatlog.rulesets.magic_realm.ruleset import MagicRealm
from combatlog.rulesets.magic_realm.rounds import advance
from combatlog.rulesets.magic_realm.turns import deciders, need_turn
from combatlog.rulesets.magic_realm.work import Work, decided, forget_deciders
from combatlog.store import open_store
from combatlog.wiring import create_combat, execute
from tests.rulesets.magic_realm.mr_helpers import Game, char
from tests.rulesets.magic_realm.test_property import _command, _setup


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_remembered_answer_is_the_fresh_one(seed: int) -> None:
    """Play a random legal combat, then fold its log event by event: after each event the remembered answer
    (when there is one) is what ``deciders`` says of that state, and most states have one."""
    rng = random.Random(seed)
    dice_rng = random.Random(seed ^ 0x5EED)
    with unittest.mock.patch("combatlog.dice.port.secrets", types.SimpleNamespace(randbelow=dice_rng.randrange)):
        store = open_store("memory:")
        create_combat(store, "p", "magic_realm", actor="gm", setup=_setup(rng), dice="local")
        meta = store.list_streams()[0]
        for _ in range(80):
            state = state_at(store, meta).state
            if state.ended:
                break
            for command in _command(state, rng):
                try:
                    execute(store, "p", command, actor="gm", scheme="local")
                except IllegalCommand:
                    continue
                break
    events = [decode_recorded(r.body) for r in store.read_stream(meta.id, 1, 10**9)]
    state = MagicRealm().initial_state(events[0].event)
    remembered = checked = 0
    for rec in events[1:]:
        state = evolve(state, rec.event, rec.seq)
        if state.ended:
            continue
        checked += 1
        known = decided(state, state.step)
        if known is not None:
            remembered += 1
            assert known == tuple(deciders(state, state.step)), (rec.seq, state.step)
    # every event of the rules' own ends in ``advance``; a die or a core event keeps no answer
    assert checked == 0 or remembered >= checked // 3


def _deploying() -> Game:
    """Two characters in the clearing at the Deployment step of round 1 (each may charge the other)."""
    g = Game({"first_round_of_day": False, "characters": [char("wk", "White Knight"), char("amazon", "Amazon")],
              "denizens": []})
    assert g.state.step == "deploy"
    return g


def test_the_fold_remembers_who_decides_and_need_turn_still_refuses_out_of_turn() -> None:
    g = _deploying()
    g.do(c.Deploy(character="wk"))
    assert decided(g.state, "deploy") == ("amazon",)
    need_turn(g.state, "amazon", "deploy")  # his turn
    with pytest.raises(IllegalCommand, match="nothing to decide"):
        need_turn(g.state, "wk", "deploy")  # done already: the remembered answer refuses him as a fresh one would


def test_a_copy_of_the_state_is_asked_afresh() -> None:
    """Attack: an answer must stand only for the state object it was found for. A copy equal in content is
    another object; a copy with one field changed must not inherit the original's answer."""
    g = _deploying()
    g.do(c.Deploy(character="wk"))
    same = msgspec.structs.replace(g.state)
    assert decided(same, "deploy") is None
    undone = msgspec.structs.replace(g.state, done=())
    assert decided(undone, "deploy") is None
    need_turn(undone, "wk", "deploy")  # asked afresh: with ``done`` emptied, wk deploys again


def test_another_step_is_not_answered() -> None:
    g = _deploying()
    assert decided(g.state, "deploy") is not None
    assert decided(g.state, "actions") is None


def test_a_change_after_advance_asked_forgets_the_answer() -> None:
    """A rule that changed the state after ``advance`` asked (none does today, but nothing forbids it) makes
    the answer stale: the frozen state keeps none."""
    g = _deploying()
    w = Work(g.state, 99)
    advance(w)
    assert w.waiting is not None
    w.set(done=("wk",))
    out = w.freeze()
    assert decided(out, out.step) is None
    w2 = Work(g.state, 99)
    advance(w2)
    w2.char("wk", hidden=True)
    assert decided(w2.freeze(), "deploy") is None


def test_forgetting_clears_every_answer() -> None:
    state = _deploying().state  # (each ``Game.state`` folds the log again: a new state object)
    assert decided(state, "deploy") is not None
    forget_deciders()
    assert decided(state, "deploy") is None
