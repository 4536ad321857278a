"""Property test: random legal play-outs (random dice, random choices among the legal ones)
keep ``check(state)`` empty, and a replay from the log derives the same state."""

from __future__ import annotations

import random
import types

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import combatlog.dice.port as port_module
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.projections.fold import state_at
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.rulesets.classic_fantasy.effects import EFFECTS, offered
from combatlog.rulesets.classic_fantasy.ruleset import ClassicFantasy
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

RULES = ClassicFantasy()


def _party() -> list[dict]:
    return [
        fighter("A", "a", weapons=["great axe"], worn=2),
        fighter("B", "a", weapons=[{"name": "bow", "damage": "1d6", "size": "S", "types": ["impaling"],
                                    "force": "M", "range": [10, 50, 100], "load": 1}], worn=1),
        fighter("X", "x", weapons=["mace"], shield="kite", worn=3, chars={"SIZ": 9, "STR": 9}),
        fighter("Y", "x", weapons=["dagger"], chars={"CON": 8}),
    ]


def _choose_effects(state, ex, rng: random.Random) -> c.ChooseEffects:  # type: ignore[no-untyped-def]
    opts = offered(state, ex)
    picks: list[str] = []
    for _ in range(ex.count):
        if not opts or rng.random() < 0.2:
            break
        k = rng.choice(opts)
        if k in picks and not EFFECTS[k].stack:
            continue
        if k == "force_failure":
            continue
        picks.append(k)
    if "sharpshooter" in picks and "choose_location" in picks:
        picks.remove("sharpshooter")
    target = state.combatants[ex.target]
    others = [n for n in state.combatants if n not in (ex.attacker, ex.target) and not state.combatants[n].dead]
    if "select_target" in picks and not others:
        picks.remove("select_target")
    params = {"location": rng.choice(target.locations).name, "counter": "trip_opponent>withdraw", "blind": "hard",
              "sharpshooter": rng.choice(target.locations).name}
    if others:
        params["bystander"] = rng.choice(others)
    winner = ex.attacker if ex.winner == "attacker" else ex.target
    return c.ChooseEffects(who=winner, effects=tuple(picks), params=params)


def _next_command(state, rng: random.Random):  # type: ignore[no-untyped-def]
    ex = state.exchange
    if ex is not None:
        if ex.stage == "defence":
            kinds = {"charge": ["parry", "evade", "none", "counter"], "leap": ["brawn", "evade", "none"]}
            kind = rng.choice(kinds.get(ex.mode, ["parry", "evade", "none"]))
            if rng.random() < 0.1:
                return c.UseLuck(who=rng.choice([ex.attacker, ex.target]), roll="attack")
            return c.Defend(defender=ex.target, kind=kind,
                            longer=rng.choice(["recipient", "charger", "same"]) if kind == "counter" else "")
        return _choose_effects(state, ex, rng)
    if state.undo is not None and rng.random() < 0.2:
        who = rng.choice(list(state.combatants))
        return c.UseLuck(who=who, roll=rng.choice(["damage", "location", "endurance", "mitigate", "attack"]))
    if not state.turn:
        return c.StartRound(reroll=rng.random() < 0.2)
    me = state.combatants[state.turn]
    foes = [n for n, x in state.combatants.items() if x.side != me.side and not x.dead]
    roll = rng.random()
    if foes and roll < 0.7:
        target = rng.choice(foes)
        weapon = rng.choice([w for w in me.held] or ["unarmed"])
        melee = not me.weapons[weapon].ranged
        style = rng.choice(["plain", "plain", "charge", "leap", "sweep"]) if melee else "plain"
        others = [f for f in foes if f != target]
        return c.Attack(attacker=me.name, target=target, weapon=weapon, charge=style == "charge",
                        leap=style == "leap", sweep=tuple(others[:1]) if style == "sweep" else (),
                        moving=target not in me.engaged and melee and style in ("plain", "sweep"))
    action = rng.choice(["dither", "brace", "delay", "regain_footing", "ready"])
    detail = {"weapon": next(iter(me.weapons)), "mode": "reload"} if action == "ready" else {}
    return c.Act(who=me.name, action=action, detail=detail)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_random_playouts_keep_invariants(seed: int) -> None:
    rng = random.Random(seed)
    dice_rng = random.Random(seed ^ 0x5EED)
    saved = port_module.secrets
    port_module.secrets = types.SimpleNamespace(randbelow=dice_rng.randrange)  # type: ignore[assignment]
    try:
        fight = Combat(*_party())
        fight.store  # noqa: B018
        from combatlog.wiring import execute

        for _ in range(60):
            state = fight.state
            if state.round >= 4:
                break
            cmd = _next_command(state, rng)
            try:
                execute(fight.store, "t", cmd, actor="gm", scheme="local")
            except (IllegalCommand, InvalidCommand):
                continue  # a random choice the rules refuse: nothing was appended
            assert RULES.check(fight.state) == []
        fresh = state_at(fight.store, fight.meta, use_snapshots=False).state
        assert fresh == fight.state
    finally:
        port_module.secrets = saved
