"""The labels of the dice the Argad rules draw, computed from the state before the command.

``decide`` draws under these labels and ``dice_uses`` expects them, so both agree by
construction. No label depends on what else was drawn: the k of a numbered label counts
the dice of that kind already read this game turn (earlier events), never the labels
taken, so nobody can move the rules to another label by drawing a free roll first.

  t<N>/shoot/<target or a+b group>/<shooter>     one shooting die per shooter (a group in name order)
  t<N>/shoot/<target>/reroll#<k>                  re-roll of a lone natural maximum
  t<N>/shoot/<target>/one#<k>                     re-roll of a lone natural 1 (shooting into a melee)
  t<N>/shoot/<a+b>/hit#<k>                        which member of a group a hit strikes (1dN)
  t<N>/melee/<target>/<attacker>                  one melee die per attacker (H2 split: one per target)
  t<N>/melee/<target>/reroll#<k>                  re-roll of a lone natural maximum
  t<N>/survival/<figure>                          survival roll at the end of the turn
  t<N>/location/<figure>/<k>                      D12 localisation of the figure's k-th wound this turn
"""

from __future__ import annotations

import re

from combatlog.rulesets.argad.shooting import group_key
from combatlog.rulesets.argad.state import Turn

# Every label above (``Ruleset.owns_label``: no player may name a die so).
RULE_LABELS = re.compile(r"t[0-9]+/(?:shoot|melee|survival|location)/")

# A chain of re-rolled maxima stops here (a guard; 40 maxima in a row do not happen).
MAX_REROLLS = 40


def group(targets: tuple[str, ...]) -> tuple[str, ...]:
    """A group of targets in name order: the order is part of the labels and means nothing else."""
    return tuple(sorted(targets))


def shot_dice(n: int, key: str, shooters: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"t{n}/shoot/{key}/{s}" for s in shooters)


def melee_dice(n: int, target: str, attackers: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"t{n}/melee/{target}/{a}" for a in attackers)


def shot_reroll(turn: Turn, key: str, j: int) -> str:
    """The j-th (from 0) re-roll of this volley: after the re-rolls of earlier volleys at ``key``."""
    return f"t{turn.number}/shoot/{key}/reroll#{turn.shoot_rerolls.get(key, 0) + j + 1}"


def melee_reroll(turn: Turn, target: str, j: int) -> str:
    """The j-th (from 0) re-roll of this strike: after the re-rolls of earlier strikes at ``target``."""
    return f"t{turn.number}/melee/{target}/reroll#{turn.melee_rerolls.get(target, 0) + j + 1}"


def one_reroll(turn: Turn, key: str) -> str:
    done = sum(1 for s in turn.shots if group_key(s.targets) == key and s.one_reroll)
    return f"t{turn.number}/shoot/{key}/one#{done + 1}"


def hit(turn: Turn, key: str, j: int) -> str:
    done = sum(len(s.hit_labels) for s in turn.shots if group_key(s.targets) == key)
    return f"t{turn.number}/shoot/{key}/hit#{done + j + 1}"


def survival(n: int, figure: str) -> str:
    return f"t{n}/survival/{figure}"


def location(n: int, figure: str, k: int) -> str:
    return f"t{n}/location/{figure}/{k}"
