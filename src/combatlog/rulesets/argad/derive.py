"""Derivations shared by ``decide`` (to know when a re-roll is due) and ``evolve`` (the result).

Everything here is pure: faces in, records out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from combatlog.rulesets.argad import maxima as mx
from combatlog.rulesets.argad import melee as ml
from combatlog.rulesets.argad import shooting as sh
from combatlog.rulesets.argad.state import ArgadState, Effect, Figure, Strike, Turn

R_D2 = "Argad: Wounds (any die may be used as 1D2, odd result =1, even result =2)"


def pool(dice: Sequence[ml.DieSpec], faces: Mapping[str, tuple[int, ...]]) -> list[mx.PoolDie]:
    return [mx.PoolDie(who=d.who, label=d.label, sides=d.sides, faces=faces[d.label], mods=d.mods,
                       counts_max=d.counts_max) for d in dice]


def read_strike(state: ArgadState, plan: ml.StrikePlan, target: str, faces: Mapping[str, tuple[int, ...]],
                rerolls: Sequence[tuple[int, ...]]) -> mx.PoolRead:
    turn = state.turn
    carry = turn.melee_maxima.get(target, 0) if turn else 0
    opts = state.options
    return mx.read_melee(pool(plan.dice, faces), carry=carry, rerolls=rerolls,
                         hits=lambda best2: best2 > 2 * plan.defence, two_maxima=opts.two_maxima,
                         chain=opts.chained_maxima)


def read_volley(state: ArgadState, plan: sh.ShotPlan, key: str, faces: Mapping[str, tuple[int, ...]],
                rerolls: Sequence[tuple[int, ...]]) -> mx.PoolRead:
    turn = state.turn
    carry = turn.shoot_maxima.get(key, 0) if turn else 0
    opts = state.options
    return mx.read_shooting(pool(plan.dice, faces), carry=carry, rerolls=rerolls, need=plan.need,
                            two_maxima=opts.two_maxima, chain=opts.chained_maxima)


def survival_notation(fig: Figure) -> str:
    """The dice of a survival roll: the figure's life-point die (1D2, 1D3, 1D4).

    Argad: Wounds: "Any die may be used as 1D2, odd result =1, even result =2; or toss a coin."
    Decision: a 1D2 is always recorded as a d6 read odd/even (the same odds), so a player at the
    table may enter any d6 face, or a coin's 1 or 2 (1 is odd, 2 even), and ``verify`` checks one
    notation whatever the dice scheme: a roller cannot pick between a d2 and a d6 reading.
    """
    return "1d6" if fig.wounds_die == 2 else f"1d{fig.wounds_die}"


def survival_roll(fig: Figure, faces: tuple[int, ...]) -> int:
    """The survival roll a die shows: for 1D2 the d6 face read odd = 1, even = 2."""
    face = faces[0]
    if fig.wounds_die == 2:
        return 1 if face % 2 else 2
    return face


def d2_text(face: int) -> str:
    """How a d6 face was read as 1D2, for the views: ``d6 5 -> 1 (odd)``."""
    return f"d6 {face} -> {1 if face % 2 else 2} ({'odd' if face % 2 else 'even'})"


def effects(state: ArgadState, turn: Turn) -> dict[str, Effect]:
    """What the open turn's shots and strikes did to each figure (cancelled strikes left out).

    Argad: Wounds: a creature dies when its wounds reach its life-point die (1D2: the second
    wound, 1D3: the third, 1D4: the fourth); earlier wounds wait for the survival roll.
    """
    out: dict[str, dict] = {}

    def get(name: str) -> dict:
        return out.setdefault(name, {"killed_at": -9, "wounds": [], "recoiled_at": -9, "recoil_refused": False,
                                     "struck_at": -9, "shot": False})

    def hit(name: str, tier: int, kind: str) -> None:
        e = get(name)
        fig = state.figures[name]
        if kind == "kill" or fig.wounds_die == 1:
            e["killed_at"] = tier if e["killed_at"] == -9 else min(e["killed_at"], tier)
            return
        e["wounds"].append(tier)
        if fig.wounds + len(e["wounds"]) >= fig.wounds_die and e["killed_at"] == -9:
            e["killed_at"] = tier

    for shot in turn.shots:
        for who in shot.shooters:
            get(who)["shot"] = True
        for name in shot.hits + shot.friend_hits:
            hit(name, -1, "wound")
    for strike in turn.strikes:
        for who in strike.attackers:
            e = get(who)
            e["struck_at"] = strike.tier if e["struck_at"] == -9 else min(e["struck_at"], strike.tier)
        if strike.cancelled_by:
            continue
        if strike.result in ("kill", "wound"):
            hit(strike.target, strike.tier, strike.result)
        elif strike.result == "recoil":
            e = get(strike.target)
            if e["recoiled_at"] == -9:
                e["recoiled_at"] = strike.tier
                e["recoil_refused"] = bool(strike.recoil_refused)
    return {name: Effect(killed_at=e["killed_at"], wounds=tuple(e["wounds"]), recoiled_at=e["recoiled_at"],
                         recoil_refused=e["recoil_refused"], struck_at=e["struck_at"], shot=e["shot"])
            for name, e in out.items()}


def mutual(earlier: Strike, new: Strike, state: ArgadState) -> tuple[str, str] | None:
    """The pair (a, b) when ``new`` answers ``earlier`` one vs one at the same time, else None.

    Argad: Natural dice maximum rule: two or more strikes rolled together against one opponent
    ignore the priority (blended together); optional: a hero (PC, very good swordsperson)
    designates one opponent of the pool so the priority still applies between them.
    """
    if earlier.tier != new.tier or earlier.cancelled_by or earlier.split or new.split:
        return None
    if earlier.target not in new.attackers or new.target not in earlier.attackers:
        return None
    if earlier.solo and new.solo:
        return earlier.attackers[0], new.attackers[0]
    for solo, pooled in ((earlier, new), (new, earlier)):
        if solo.solo and state.figures[solo.attackers[0]].has("hero") and solo.target in pooled.attackers:
            a = solo.attackers[0]
            return (a, solo.target) if solo is earlier else (solo.target, a)
    return None
