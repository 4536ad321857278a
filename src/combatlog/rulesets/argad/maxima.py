"""Argad: Natural dice maximum rule, as pure functions over faces already rolled.

Values are kept in half-points (x2) so the ``two_maxima = half`` option stays in
whole numbers. ``decide`` and ``evolve`` call the same functions: ``decide`` to
learn whether one more re-roll is due (and rolls it), ``evolve`` to read the
final result from the recorded faces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import permutations

import msgspec

from combatlog.rulesets.argad.state import DieRead

RULE = "Argad: Natural dice maximum rule"


class PoolDie(msgspec.Struct, frozen=True, kw_only=True):
    who: str
    label: str
    sides: int
    faces: tuple[int, ...]
    mods: int
    counts_max: bool = True  # False: out of command (optional rule), never a natural maximum

    @property
    def natural(self) -> int:
        return sum(self.faces)

    @property
    def top(self) -> int:
        return self.sides * len(self.faces)

    @property
    def is_max(self) -> bool:
        return self.counts_max and self.natural == self.top


class PoolRead(msgspec.Struct, frozen=True, kw_only=True):
    dice: tuple[DieRead, ...]
    maxima: int  # natural maxima in this pool, re-rolls included
    auto_hit: bool  # Argad: triple natural maximum in melee
    reroll_due: bool  # one more re-roll of the lone maximum is allowed and needed
    reroll_die: str = ""  # label of the die being re-rolled


def _step(two_maxima: str) -> int:
    return 1 if two_maxima == "half" else 2


def _read(die: PoolDie, bonus2: int) -> DieRead:
    natural2 = 2 * die.natural + bonus2
    return DieRead(who=die.who, label=die.label, sides=die.sides, faces=die.faces, natural2=natural2,
                   mods=die.mods, total2=natural2 + 2 * die.mods)


def _reroll_chain(rerolls: Sequence[tuple[int, ...]], top: int) -> int:
    """How many of the re-rolls in order showed the maximum (the chain stops at the first that did not)."""
    n = 0
    for faces in rerolls:
        if sum(faces) != top:
            break
        n += 1
    return n


def _reroll_due(*, lone: bool, rerolls: Sequence[tuple[int, ...]], chained: int, top: int, chain: str,
                enough: bool) -> bool:
    """Argad: Natural dice maximum rule: a single maximum that is not sufficient can be re-rolled;
    a new maximum adds 1 and, if still not sufficient, can be re-rolled again."""
    if enough:
        return False
    if not rerolls:
        return lone or chain == "any"
    if chained < len(rerolls):  # the last re-roll missed the maximum: the chain is over
        return False
    return chain in ("single", "any")


def read_melee(dice: Sequence[PoolDie], *, carry: int, rerolls: Sequence[tuple[int, ...]],
               hits: Callable[[int], bool], two_maxima: str, chain: str, rule_on: bool = True) -> PoolRead:
    """One pool striking one opponent (Argad: Natural dice maximum rule).

    - two (or more) natural maxima against the same opponent in the same game turn add +1 each
      to one die (``carry`` counts those already rolled against this opponent this turn);
    - a single maximum not sufficient to hit is re-rolled; each new maximum adds 1 more;
    - a triple natural maximum (first roll or re-rolls) always hits in melee.
    """
    step = _step(two_maxima)
    if not rule_on:
        reads = tuple(_read(d, 0) for d in dice)
        return PoolRead(dice=reads, maxima=0, auto_hit=False, reroll_due=False)
    at_max = [d for d in dice if d.is_max]
    m = len(at_max)
    if m == 0:
        reads = tuple(_read(d, 0) for d in dice)
        return PoolRead(dice=reads, maxima=0, auto_hit=False, reroll_due=False)
    # The bonus goes where it helps most: the maximum die with the best total.
    favoured = max(at_max, key=lambda d: 2 * d.top + 2 * d.mods)
    chained = _reroll_chain(rerolls, favoured.top)
    extra = carry + m - 1 + chained
    reads = tuple(_read(d, extra * step if d is favoured else 0) for d in dice)
    maxima = m + chained
    auto = carry + maxima >= 3
    best2 = max(r.total2 for r in reads)
    due = _reroll_due(lone=carry + m == 1, rerolls=rerolls, chained=chained, top=favoured.top, chain=chain,
                      enough=auto or hits(best2))
    return PoolRead(dice=reads, maxima=maxima, auto_hit=auto, reroll_due=due,
                    reroll_die=favoured.label if due or rerolls else "")


def read_shooting(dice: Sequence[PoolDie], *, carry: int, rerolls: Sequence[tuple[int, ...]], need: int,
                  two_maxima: str, chain: str, rule_on: bool = True) -> PoolRead:
    """Shooters at a same target: each die may hit (total >= need).

    Argad: Natural dice maximum rule: maxima at a same target in a same game turn count as
    max, max+1, max+2... (the +1s going where they help most); a single maximum not sufficient
    is re-rolled. No automatic hit when shooting.
    """
    step = _step(two_maxima)
    if not rule_on:
        return PoolRead(dice=tuple(_read(d, 0) for d in dice), maxima=0, auto_hit=False, reroll_due=False)
    at_max = [i for i, d in enumerate(dice) if d.is_max]
    m = len(at_max)
    if m == 0:
        return PoolRead(dice=tuple(_read(d, 0) for d in dice), maxima=0, auto_hit=False, reroll_due=False)
    lone = carry + m == 1
    bonuses = [(carry + j) * step for j in range(m)]
    favoured_i = max(at_max, key=lambda i: 2 * dice[i].top + 2 * dice[i].mods)
    chained = _reroll_chain(rerolls, dice[favoured_i].top)
    if m == 1 or len(at_max) > 6:
        order = [[favoured_i] + [i for i in at_max if i != favoured_i]]
    else:
        order = [list(p) for p in permutations(at_max)]
    best: tuple[int, int] | None = None
    best_reads: tuple[DieRead, ...] = ()
    for perm in order:
        bonus_of = {i: bonuses[j] for j, i in enumerate(perm)}
        bonus_of[perm[-1]] += chained * step  # a re-roll chain lifts the die with the largest bonus
        reads = tuple(_read(d, bonus_of.get(i, 0)) for i, d in enumerate(dice))
        score = (sum(r.total2 >= 2 * need for r in reads), sum(r.total2 for r in reads))
        if best is None or score > best:
            best, best_reads = score, reads
    lifted = max((best_reads[i] for i in at_max), key=lambda r: r.total2)
    due = _reroll_due(lone=lone, rerolls=rerolls, chained=chained, top=dice[favoured_i].top, chain=chain,
                      enough=lifted.total2 >= 2 * need)
    return PoolRead(dice=best_reads, maxima=m + chained, auto_hit=False, reroll_due=due,
                    reroll_die=dice[favoured_i].label if due or rerolls else "")
