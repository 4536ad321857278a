"""What one player must decide now in a Classic Fantasy combat, with the command lines to paste
(``status --mine``).

A combatant is its own player's, else its side's players' (a side no player plays: whoever moves the pieces no player plays,
``unplayed``): its Turn, its Reaction to an attack, the Special Effects it won, an Interrupt while it delays
(CFI Ch.8 Running Combat, Reactive Actions, Special Effects, Interrupt). Starting a round and ending the
combat go to ``referee``. Words in capitals are the player's to choose, with the choices where they are few;
a Reaction's other choices are whole command lines.
"""

from __future__ import annotations

from combatlog.rulesets.classic_fantasy.actions import PROACTIVE
from combatlog.rulesets.classic_fantasy.exchange import best_parry
from combatlog.rulesets.classic_fantasy.rules import default_weapon, legs_problem, weapon_problem
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, players_for
from combatlog.rulesets.classic_fantasy.views import pending
from combatlog.rulesets.base import Pending
from combatlog.trust.api import MyMove, command_line

# a Reaction in pending's words -> its command (CFI Ch.8 Parry, Evading, Unable or Unwilling to Parry, Charging,
# Leaping Attacks); --longer is the counter-attacker's declaration
REACTIONS = {"parry": ("parry",), "evade": ("evade",), "none": ("no-defence",), "counter": ("counter",),
             "brawn": ("brawn",)}


def my_moves(s: CFIState, player: str, stream: str, referee: bool, unplayed: bool = False) -> list[MyMove]:
    if s.ended:
        return []
    cmd = lambda *words: command_line(*words, actor=player)  # noqa: E731
    out: list[MyMove] = []
    for p in pending(s):
        if p.who == "gm":
            if referee:
                out.append(_referee(s, p, stream, cmd))
            continue
        players = players_for(s, p.who)
        if player in players or (not players and unplayed):
            out.append(_move(s, p, stream, cmd))
    return out


def _referee(s: CFIState, p: Pending, stream: str, cmd) -> MyMove:  # type: ignore[no-untyped-def]
    if s.round == 0:  # round 1 rolls Initiative (CFI Ch.8 Initiative)
        return MyMove(what=p.what, rule=p.rule, command=cmd("cfi", "round", stream), dice=True)
    # a later round keeps the Initiative rolled (no dice unless --reroll)
    return MyMove(what=p.what, rule=p.rule, command=cmd("cfi", "round", stream),
                  options=(cmd("cfi", "end", stream, "--outcome", "TEXT"),))


def _move(s: CFIState, p: Pending, stream: str, cmd) -> MyMove:  # type: ignore[no-untyped-def]
    who = p.who
    what = f"{who}: {p.what}"
    ex = s.exchange
    if ex is not None and ex.stage == "defence":
        kinds = [k for k in p.options if not (k == "parry" and ex.mode == "ranged" and not best_parry(
            s.combatants[who], True))]  # only shields parry missiles
        lines = [cmd("cfi", *REACTIONS[k], stream, who, *(("--longer", "LONGER") if k == "counter" else ()))
                 for k in kinds]
        return MyMove(what=what, rule=p.rule, command=lines[0], options=tuple(lines[1:]), dice=True)
    if ex is not None and ex.stage == "effects":  # then hit location and damage are rolled
        return MyMove(what=what, rule=p.rule, command=cmd("cfi", "effects", stream, who, "EFFECT"),
                      options=tuple(p.options), dice=True)
    if s.turn != who:  # a delaying combatant may halt another's Turn
        return MyMove(what=what, rule=p.rule, command=cmd("cfi", "act", stream, who, "interrupt"))
    c = s.combatants[who]
    attack = _attack(s, c)
    if attack is None:
        return MyMove(what=what, rule=p.rule, command=cmd("cfi", "act", stream, who, "ACTION"), options=PROACTIVE)
    flags, targets = attack
    return MyMove(what=what, rule=p.rule, command=cmd("cfi", "attack", stream, who, "TARGET", *flags),
                  options=targets, dice=True)


def _attack(s: CFIState, c: Combatant) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """How ``c`` may attack on his Turn with the weapon an attack takes by default (flags, targets), or None
    when he may not attack now (CFI Ch.8 Attack, Engagement, Surprise, Stun Location; CFI Ch.7 Serious
    Wounds): he takes another Combat Action."""
    weapon = default_weapon(c)
    if (c.surprised or c.has("no_attack") or weapon_problem(c, weapon)
            or any(x.name == "stunned" and x.location in ("chest", "abdomen") for x in c.conditions)):
        return None
    w = c.weapons[weapon]
    if w.ranged and w.reload_left > 0:
        return None
    foes = [o for o in s.combatants.values() if o.side != c.side and not o.has("dead") and c.name not in o.blocked]
    engaged = [o for o in foes if o.name in c.engaged]
    if w.ranged:
        return (), tuple(o.name for o in foes)
    if engaged:
        return (), tuple(o.name for o in engaged)
    if legs_problem(c) or not foes:  # he must move into contact first (Move, Engagement)
        return None
    return ("--moving",), tuple(o.name for o in foes)
