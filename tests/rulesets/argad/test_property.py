"""Property: random legal play-outs keep ``check(state)`` empty and folds deterministic.

Commands are drawn at random (most are illegal and refused, as a player's typo would be); dice come
from a seeded generator through the real DicePort. Every accepted batch is folded by ``evolve`` and
must leave the invariants intact; folding the same events twice gives the same state.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.dice.port import DicePort
from combatlog.errors import CombatlogError
from combatlog.events.core import CombatStarted
from combatlog.rulesets.argad import RULESET
from combatlog.rulesets.argad import commands as c

FIGURES = [
    {"name": "knight", "side": "a", "species": "human", "class": 5, "worn": 5, "mounted": True, "weapon": "lance"},
    {"name": "archer", "side": "a", "species": "human", "missile": "longbow", "abilities": ["elite_shooter"]},
    {"name": "dwarf", "side": "a", "species": "dwarf", "class": 4, "worn": 4, "weapon": "halberd"},
    {"name": "xbow", "side": "a", "species": "dwarf", "missile": "war_crossbow"},
    {"name": "gob-1", "side": "b", "species": "goblin", "weapon": "spear", "missile": "simple_bow"},
    {"name": "gob-2", "side": "b", "species": "goblin"},
    {"name": "ogre", "side": "b", "species": "ogre", "class": 4, "worn": 4, "weapon": "two_handed_axe"},
    {"name": "troll", "side": "b", "species": "troll_large"},
    {"name": "halfogre", "side": "b", "species": "half_ogre", "weapon": "two_handed_axe"},
]
NAMES = [f["name"] for f in FIGURES]


class RandomPort(DicePort):
    def __init__(self, rng: random.Random, taken: set[str]) -> None:
        super().__init__(scheme="manual", actor="gm", labels_taken=taken)
        self.rng = rng

    def _manual_faces(self, label: str, dice: Any) -> tuple[int, ...]:
        return tuple(self.rng.randint(1, dice.sides) for _ in range(dice.count))


def random_command(rng: random.Random, state: Any) -> Any:
    if state.turn is None:
        return c.StartTurn() if rng.random() < 0.97 else c.EndCombat(outcome="random end")
    kind = rng.choice(["turn", "move", "move", "shoot", "shoot", "strike", "strike", "strike", "strike", "end_turn",
                       "hold"])
    if kind == "turn":
        return c.StartTurn()
    if kind == "hold":  # a side's figures that will not strike this turn
        if rng.random() < 0.3:
            return c.Hold(side=rng.choice(["a", "b"]))
        return c.Hold(figures=tuple(rng.sample(NAMES, 1 if rng.random() < 0.7 else 2)))
    if kind == "end_turn":
        return c.EndTurn()
    if kind == "move":
        return c.Move(figure=rng.choice(NAMES), charge=rng.random() < 0.3, crossing=rng.random() < 0.3,
                      ground=rng.choice(["", "mineral"]))
    if kind == "shoot":
        return c.Shoot(shooters=(rng.choice(["archer", "xbow", "gob-1"]),), targets=(rng.choice(NAMES),),
                       need=rng.choice([0, 5, 6]))
    attackers = tuple(rng.sample(NAMES, 1 if rng.random() < 0.7 else 2))
    targets = tuple(rng.sample(NAMES, 2 if attackers == ("troll",) and rng.random() < 0.4 else 1))
    return c.Strike(attackers=attackers, targets=targets)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=st.fixed_dictionaries({
    "two_maxima": st.sampled_from(["plus_one", "half"]),
    "chained_maxima": st.sampled_from(["single", "once", "any"]),
    "recoil_band": st.sampled_from(["at_defence", "between"]),
    "strength": st.sampled_from(["die", "modifier"]),
    "wound_location": st.sampled_from(["on", "off"]),
}))
def test_random_playouts_keep_invariants(seed: int, options: dict[str, str]) -> None:
    rng = random.Random(seed)
    genesis = CombatStarted(name="p", ruleset="argad", ruleset_version="1", rules_digest="", engine_version="",
                            setup={"figures": FIGURES, "options": options})
    state = RULESET.initial_state(genesis)
    log: list[Any] = []
    taken: set[str] = set()
    seq = 1
    for _ in range(120):
        port = RandomPort(rng, taken)
        try:
            events = RULESET.decide(state, random_command(rng, state), port)
        except CombatlogError:
            continue
        for event in list(port.drawn) + events:
            seq += 1
            state = RULESET.evolve(state, event, seq)
            log.append((event, seq))
        taken |= {d.label for d in port.drawn}
        assert RULESET.check(state) == [], RULESET.check(state)
        RULESET.describe(state)
        RULESET.pending(state)
    again = RULESET.initial_state(genesis)
    for event, s in log:
        again = RULESET.evolve(again, event, s)
    assert again == state
