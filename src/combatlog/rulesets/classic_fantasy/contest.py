"""The Differential Roll that settles an exchange once both rolls are known (CFI Ch.8 Attacks and
Parries steps 3-4, Evading, Leaping Attacks; CFI Ch.5 Differential Rolls). Used by the exchange,
by a counter-attack against a charge (``special.py``) and by a Luck Point re-roll (``luck.py``).
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.rules import Steps, cite
from combatlog.rulesets.classic_fantasy.state import CFIState, Exchange

replace = msgspec.structs.replace


def contest(state: CFIState, ex: Exchange, steps: Steps) -> Exchange:
    """CFI Ch.8 Attacks and Parries step 3-4 / CFI Ch.5 Differential Rolls: compare the success
    levels (skills over 100% first), and count the Special Effects the better side wins."""
    a_skill, d_skill = ex.attack_skill, ex.defence_skill
    rolled = ex.defence in ("parry", "evade", "brawn")
    excess = t.over_hundred(a_skill, d_skill) if rolled and ex.attack_roll else 0
    att_level = t.success_level(ex.attack_roll, a_skill - excess) if ex.attack_roll else t.SUCCESS
    def_level = t.success_level(ex.defence_roll, d_skill - excess) if rolled else t.FAILURE
    if excess:
        steps.add("CFI Ch.5 Opposed Skills Over 100%", f"the highest skill is over 100: both sides lose {excess} "
                  f"({ex.attacker} {a_skill - excess}%, {ex.target} {d_skill - excess}%)")
    diff = t.differential(att_level, def_level)
    winner = "attacker" if diff > 0 else ("defender" if diff < 0 else "")
    count = abs(diff)
    evade_winner = ""
    if ex.defence == "evade" or ex.mode == "leap":
        # CFI Ch.8 Evading / Leaping Attacks: an Opposed Roll decides whether the blow (or leap) lands.
        o = t.opposed_winner(att_level, ex.attack_roll or 0, def_level, ex.defence_roll if ex.defence_roll else 0)
        evade_winner = {"a": "attacker", "b": "defender"}.get(o, "")
    bonus_note = ""
    if ex.bonus and att_level >= t.SUCCESS and winner in ("attacker", ""):
        winner, count = "attacker", count + 1
        bonus_note = " (+1 for surprise)"
    if ex.redirected and winner == "attacker":
        count = 0
        bonus_note = " (none apply to a bystander struck by accident)"
    who_wins = {"attacker": ex.attacker, "defender": ex.target}.get(winner, "")
    steps.add("CFI Ch.5 Differential Rolls",
              f"attack {t.LEVEL_NAMES[att_level]} vs {('defence ' + t.LEVEL_NAMES[def_level])}: "
              + (f"{who_wins} wins {count} Special Effect(s){bonus_note}" if count else f"no Special Effects{bonus_note}"))
    if ex.mode == "leap":
        steps.add(cite("Leaping Attacks"), f"Opposed Roll: {ex.attacker if evade_winner == 'attacker' else ex.target} "
                  f"{'lands the leap: the defender is knocked prone' if evade_winner == 'attacker' else 'weathers or sidesteps the leap'}")
    elif ex.defence == "evade":
        steps.add(cite("Evading"), f"Opposed Roll: {evade_winner and {'attacker': ex.attacker, 'defender': ex.target}[evade_winner] or 'nobody'}"
                  f" wins; {'damage is completely avoided' if evade_winner != 'attacker' else 'the blow lands as normal'}")
    return replace(ex, att_level=att_level, def_level=def_level, winner=winner if count else "", count=count,
                   evade_winner=evade_winner, stage="effects" if count else "resolve")
