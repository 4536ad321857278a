"""Property: random legal play-outs keep ``check(state)`` empty, and every event survives its codec.

Commands are drawn at random (many are illegal and refused, which must append nothing); dice come from a
seeded generator through a manual-scheme port, so a failing example replays exactly.
"""

from __future__ import annotations

import random

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.dice.port import DicePort
from combatlog.errors import CombatlogError
from combatlog.events.base import decode_payload, tag_of
from combatlog.events.core import CombatStarted
from combatlog.rulesets.osric import RULESET
from combatlog.rulesets.osric import commands as c
from tests.rulesets.osric.osric_helpers import FIGHTER, MAGE, orc

ARCHER = {"name": "Ael", "side": "party", "class": "ranger", "level": 8, "hp": 20, "dex": 17,
          "weapons": ["long bow", "short sword", "dagger"]}
OGRE = {"name": "ogre", "side": "orcs", "hd": "4+1", "hp": 18, "ac": 5, "size": "L",
        "attacks": [{"name": "club", "damage": "1d10"}, {"name": "bite", "damage": "1d4"}]}
ACTIONS = ["melee", "missile", "charge", "close", "retreat", "flee", "parry", "hold", "set", "none", "grapple",
           "overbear", "spell:sleep:1", "spell:web:3", "spell:slow:12"]


class SeededPort(DicePort):
    def __init__(self, rng: random.Random, taken: set[str]) -> None:
        super().__init__(scheme="manual", actor="gm", labels_taken=taken)
        self.rng = rng

    def _manual_faces(self, label, dice):  # type: ignore[no-untyped-def]
        return tuple(self.rng.randint(1, dice.sides) for _ in range(dice.count))


def _command(rng: random.Random, state) -> object:  # type: ignore[no-untyped-def]
    names = list(state.roster)
    who = rng.choice(names)
    other = rng.choice(names)
    side = rng.choice(state.sides)
    # steer towards the phase's natural next step most of the time, so play-outs get deep
    if rng.random() < 0.7:
        if state.phase == "setup":
            return c.CheckSurprise() if rng.random() < 0.5 else c.StartRound()
        if state.phase == "between":
            return c.StartRound()
        if state.phase == "round" and not state.initiative:
            waiting = [x for x in state.sides if x not in state.declared]
            if waiting:
                side = waiting[0]
            else:
                return c.RollInitiative()
        elif state.phase in ("round", "surprise"):
            kind = rng.choice([4, 4, 4, 5, 6, 6, 7, 8, 9, 10, 14, 15, 11])
            return _pick(rng, state, kind, who, other, side, names)
    return _pick(rng, state, 2 if state.phase == "round" and not state.initiative else rng.randrange(16),
                 who, other, side, names)


def _pick(rng: random.Random, state, kind: int, who: str, other: str, side: str, names: list[str]) -> object:  # type: ignore[no-untyped-def]
    if kind == 0:
        return c.CheckSurprise()
    if kind == 1:
        return c.StartRound()
    if kind == 2:
        decls = tuple(c.parse_declaration(f"{n}={rng.choice(ACTIONS)}") for n in names
                      if state.roster[n].side == side and rng.random() < 0.5)
        return c.Declare(side=side, declarations=decls, rest=rng.choice(["melee", "none", "missile"]))
    if kind == 3:
        return c.RollInitiative()
    if kind in (4, 5):
        return c.Attack(who=who, flags=tuple(rng.sample(["rear", "flank", "cover:50"], rng.randrange(2))),
                        offhand=rng.choice(["", "dagger"]))
    if kind == 6:
        return c.Shoot(who=who, target=other, range=rng.choice([0, 30, 150]))
    if kind == 7:
        return c.Cast(who=who)
    if kind == 8:
        return c.Charge(who=who, target=other, defender_longer=rng.random() < 0.5, overbear=rng.random() < 0.2)
    if kind == 9:
        return c.Flee(who=who)
    if kind == 10:
        return c.Close(who=who, target=other)
    if kind == 11:
        return c.EndRound()
    if kind == 12:
        return c.Damage(who=who, amount=rng.choice(["1", "1d4"]))
    if kind == 13:
        return c.Morale(who=(who,), modifier=rng.randrange(-20, 20))
    if kind == 14:
        return c.ReachSegment(segment=rng.randrange(1, 11), end=rng.random() < 0.5)
    return c.Engage(a=who, b=other)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(20, 120),
       timing=st.sampled_from(["first_segment", "halvaine"]))
def test_random_playouts_keep_invariants(seed: int, steps: int, timing: str) -> None:
    rng = random.Random(seed)
    setup = RULESET.validate_setup({"combatants": [FIGHTER, MAGE, ARCHER, orc(1), orc(2), OGRE],
                                    "options": {"spell_timing": timing}})
    genesis = CombatStarted(name="p", ruleset="osric", ruleset_version="1", rules_digest="x",
                            engine_version="0", setup=setup)
    state = RULESET.initial_state(genesis)
    taken: set[str] = set()
    seq = 1
    for _ in range(steps):
        port = SeededPort(rng, taken)
        try:
            events = RULESET.decide(state, _command(rng, state), port)
        except CombatlogError:
            continue
        drawn = [d for d in port.drawn if d not in events]
        for ev in drawn + list(events):
            raw = msgspec.json.encode(ev)
            again = decode_payload(tag_of(type(ev)), type(ev).schema_version, raw)
            assert again == ev
            seq += 1
            state = RULESET.evolve(state, again, seq)
            taken.update(d.label for d in drawn)
        assert RULESET.check(state) == []
        if state.ended:
            break
