"""Argad views: figure status, the turn summary, explain steps with citations and dice."""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events.base import Event
from combatlog.rulesets.argad import derive as dv
from combatlog.rulesets.argad import melee as ml
from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.decide import R_HOLD
from combatlog.rulesets.argad.events import (
    CombatEnded, FigureAdded, FigureRemoved, Held, Moved, PhaseStarted, RecoilPolicySet, ShotFired, Struck,
    TurnEnded, TurnStarted,
)
from combatlog.rulesets.argad.maxima import RULE as R_MAX
from combatlog.rulesets.argad.state import ArgadState, DieRead, Effect, Figure, Shot, Strike, Turn
from combatlog.rulesets.base import Step

R_TURN = "Argad: game turn (simultaneous movement, shooting, melee; reference 3.1)"
R_WOUNDS = "Argad: Wounds"
R_LOCAL = "Argad: Wound localisation"
LOCATION = {1: "head", **{k: "trunk/arm" for k in range(2, 8)}, **{k: "stomach/underbelly/leg" for k in range(8, 13)}}


def half(v2: int) -> str:
    return str(v2 // 2) if v2 % 2 == 0 else f"{v2 // 2}.5"


def life(fig: Figure) -> str:
    return "1" if fig.wounds_die == 1 else f"1D{fig.wounds_die}"


def status_of(fig: Figure, eff: Effect | None, held: bool = False) -> dict[str, Any]:
    """One figure's status: wounds, recoiled, lasting effects, what it did this turn (``held``: its side
    held its blow this turn)."""
    effects = []
    if fig.stunned_until:
        effects.append(f"half-stunned till the end of turn {fig.stunned_until}")
    if fig.strength_loss:
        effects.append(f"strikes {fig.strength_loss} die step(s) lower, no two-handed weapon bonus")
    if fig.move_loss_cm:
        effects.append(f"movement -{fig.move_loss_cm} cm")
    if fig.ground == "mineral":
        effects.append("on solid mineral ground")
    # A figure killed this turn is out of the fight at once (it strikes no more: decide.py) and is
    # removed as dead when the turn ends (Argad: Wounds): "killed", never "standing".
    killed = eff is not None and eff.killed_at != -9
    state = "removed" if fig.removed else "dead" if fig.dead else "killed" if killed else "standing"
    out: dict[str, Any] = {
        "name": fig.name, "side": fig.side, "species": fig.species, "strength": fig.strength,
        "class": fig.klass, "armour": fig.armour, "shooting_armour": fig.shooting_armour,
        "melee_die": f"1D{fig.melee_die}", "life_points": life(fig), "wounds": fig.wounds,
        "weapon": fig.weapon, "missile": fig.missile, "mounted": fig.mounted, "base_mm": fig.base_mm,
        "abilities": list(fig.abilities), "status": state, "effects": effects,
        "locations": [LOCATION[x] for x in fig.locations],
    }
    if fig.removed:
        out["removed"] = fig.removed
    if eff is not None:
        out["this_turn"] = {
            "killed": eff.killed_at != -9, "new_wounds": len(eff.wounds), "recoiled": eff.recoiled_at != -9,
            "recoil_refused": eff.recoil_refused, "struck": eff.struck_at != -9, "shot": eff.shot, "held": held,
        }
    return out


def strike_json(s: Strike) -> dict[str, Any]:
    return {
        "seq": s.seq, "attackers": list(s.attackers), "target": s.target, "order": t.TIERS[s.tier],
        "dice": [{"who": d.who, "label": d.label, "faces": list(d.faces), "natural": half(d.natural2),
                  "total": half(d.total2)} for d in s.dice],
        "rerolls": list(s.rerolls), "best": half(s.best2), "defence": s.defence, "result": s.result,
        "auto_hit": s.auto_hit, "cancelled": bool(s.cancelled_by), "priority": s.priority_note,
        "recoil_refused": s.recoil_refused,
    }


def shot_json(s: Shot) -> dict[str, Any]:
    return {
        "seq": s.seq, "shooters": list(s.shooters), "targets": list(s.targets), "need": s.need,
        "dice": [{"who": d.who, "label": d.label, "faces": list(d.faces), "total": half(d.total2)} for d in s.dice],
        "rerolls": list(s.rerolls), "hits": list(s.hits), "friend_hits": list(s.friend_hits),
    }


def survival_json(state: ArgadState, turn: Turn, row: tuple[str, str, int, int, bool]) -> dict[str, Any]:
    """One survival roll; a 1D2 thrown as a d6 shows how its face was read (``d6 5 -> 1 (odd)``)."""
    name, label, roll, wounds, died = row
    out: dict[str, Any] = {"figure": name, "label": label, "roll": roll, "wounds": wounds, "died": died}
    if state.figures[name].wounds_die == 2 and label in turn.faces:
        out["read"] = dv.d2_text(turn.faces[label][0])
    return out


def describe(state: ArgadState) -> dict[str, Any]:
    turn = state.turn
    out: dict[str, Any] = {
        "turn": state.number, "phase": turn.phase if turn else ("ended" if state.ended else "between turns"),
        "ended": state.ended, "outcome": state.outcome,
        "options": msgspec.to_builtins(state.options),
        "figures": [status_of(f, _this_turn(turn, f.name), held=bool(turn and f.name in turn.held))
                    for f in state.figures.values()],
        "history": list(state.history),
    }
    if turn:
        out["turn_summary"] = {"shots": [shot_json(s) for s in turn.shots],
                               "strikes": [strike_json(s) for s in turn.strikes], "held": sorted(turn.held)}
    return out


def _this_turn(turn: Turn | None, name: str) -> Effect | None:
    """What happened to a figure in the open turn (None: nothing, or no turn open); a held figure has its
    ``this_turn`` too."""
    if turn is None:
        return None
    eff = turn.effects.get(name)
    return Effect() if eff is None and name in turn.held else eff


def render(state: ArgadState) -> str:
    turn = state.turn
    if state.ended:
        head = "combat ended" + (f": {state.outcome}" if state.outcome else "")
    elif turn:
        head = f"game turn {turn.number}, {turn.phase} phase"
    else:
        head = f"between game turns (turns played: {state.turns_done})"
    lines = [head]
    width = max((len(n) for n in state.figures), default=4)
    for fig in state.figures.values():
        eff = turn.effects.get(fig.name) if turn else None
        flags: list[str] = []
        if fig.dead:
            flags.append(f"dead (turn {fig.dead_turn})")
        elif fig.removed:
            flags.append(f"removed: {fig.removed}")
        if eff is not None:
            if eff.killed_at != -9:
                flags.append("killed this turn")
            if eff.wounds:
                flags.append(f"+{len(eff.wounds)} wound(s) this turn")
            if eff.recoiled_at != -9:
                flags.append("recoil refused" if eff.recoil_refused else "recoiled")
            if eff.struck_at != -9:
                flags.append("struck")
            if eff.shot:
                flags.append("shot")
        if turn and fig.name in turn.held:
            flags.append("holds its blow")
        flags += status_of(fig, None)["effects"]
        lines.append(f"  {fig.name:<{width}}  {fig.side:<8} {fig.strength:<3} C{fig.klass} A{fig.armour:<2} "
                     f"1D{fig.melee_die:<2} wounds {fig.wounds}/{life(fig):<4} {', '.join(flags)}".rstrip())
    for line in state.history[-3:]:
        lines.append(f"  {line}")
    return "\n".join(lines)


# -- explain ---------------------------------------------------------------------------


def _die_text(d: DieRead) -> str:
    faces = "+".join(str(f) for f in d.faces)
    nat = half(d.natural2)
    shown = f"{faces}" if nat == faces or (len(d.faces) == 1 and nat == str(d.faces[0])) else f"{faces} (natural {nat})"
    mods = f" {d.mods:+d}" if d.mods else ""
    return f"{d.who} {len(d.faces)}D{d.sides} {shown}{mods} = {half(d.total2)}"


def _rerolls_text(after: ArgadState, labels: tuple[str, ...]) -> str:
    if not labels or after.turn is None:
        return ""
    rolled = ", ".join("+".join(str(f) for f in after.turn.faces[x]) for x in labels)
    return f" [re-rolls of the lone maximum: {rolled}]"


def _mod_steps(seq: int, mods: dict[str, tuple[Any, ...]]) -> list[Step]:
    steps = []
    for who, ms in mods.items():
        for m in ms:
            steps.append(Step(seq=seq, rule=m.rule, text=f"{who}: {m.value:+d} {m.why}"))
    return steps


def explain_strike(before: ArgadState, after: ArgadState, seq: int) -> list[Step]:
    assert after.turn is not None
    s = next(x for x in after.turn.strikes if x.seq == seq)
    steps = [Step(seq=seq, rule=ml.R_MELEE, text=(
        f"{', '.join(s.attackers)} strike{'s' if s.solo else ''} {s.target} at the "
        f"{t.TIERS[s.tier].replace('_', '-')} step" + "".join(f" ({a} from rank {r})" for a, r in zip(s.attackers, s.ranks) if r > 1)
        + (" (2D6 split: 1D6 against each of two enemies)" if s.split else "")))]
    steps += _mod_steps(seq, s.mods)
    dice_labels = tuple(d.label for d in s.dice) + s.rerolls
    steps.append(Step(seq=seq, rule=R_MAX if (s.maxima or s.maxima_before) else ml.R_STRENGTH, dice=dice_labels,
                      text="; ".join(_die_text(d) for d in s.dice) + _rerolls_text(after, s.rerolls)
                      + (f" (natural maxima this turn against {s.target}: {s.maxima_before} before, "
                         f"{s.maxima} now)" if s.maxima or s.maxima_before else "")))
    if s.auto_hit:
        steps.append(Step(seq=seq, rule=R_MAX, text="triple natural maximum against a same opponent in melee: "
                                                    "always hits"))
    target = before.figures[s.target]
    band = f"{s.low}-{s.defence}" if s.low != s.defence else str(s.defence)
    verdict = {"kill": f"{s.target} is killed", "wound": f"{s.target} is wounded",
               "recoil": f"{s.target} recoils", "none": "no effect"}[s.result]
    steps.append(Step(seq=seq, rule=ml.R_RESULT, text=(
        f"best total {half(s.best2)} against class {target.klass} / armour {target.armour}: kill above "
        f"{s.defence}, recoil at {band}: {verdict}")))
    if s.recoil_refused:
        steps.append(Step(seq=seq, rule=ml.R_MELEE, text=s.recoil_refused))
    if s.priority_note:
        steps.append(Step(seq=seq, rule="Argad: Melee peculiarities (priority)", text=s.priority_note
                          + (" - this strike is cancelled" if s.cancelled_by else "")))
    for old in after.turn.strikes:
        if old.seq != seq and old.cancelled_by == seq:
            steps.append(Step(seq=seq, rule="Argad: Melee peculiarities (priority)",
                              text=f"{', '.join(old.attackers)}'s {old.result} on {old.target} is cancelled"))
    return steps


def explain_shot(after: ArgadState, seq: int) -> list[Step]:
    assert after.turn is not None
    s = next(x for x in after.turn.shots if x.seq == seq)
    verb = "shoots" if len(s.shooters) == 1 else "shoot"
    steps = [Step(seq=seq, rule="Argad: Ranged weapons",
                  text=f"{', '.join(s.shooters)} {verb} at {' + '.join(s.targets)}: a die hits on {s.need} or more "
                       f"({s.need_source})")]
    steps += _mod_steps(seq, s.mods)
    steps.append(Step(seq=seq, rule=R_MAX, dice=tuple(d.label for d in s.dice) + s.rerolls,
                      text="; ".join(_die_text(d) for d in s.dice) + _rerolls_text(after, s.rerolls)))
    hits = ", ".join(s.hits) if s.hits else "no hit"
    steps.append(Step(seq=seq, rule="Argad: Ranged weapons", dice=s.hit_labels, text=f"hits: {hits}"))
    if s.into_melee and (s.ones or s.friend_hits):
        steps.append(Step(seq=seq, rule="Argad: Ranged weapons (shooting into a melee)",
                          dice=(s.one_reroll,) if s.one_reroll else (),
                          text=f"{s.ones} natural 1(s): friends hit: {', '.join(s.friend_hits) or 'none'}"))
    return steps


def explain_turn_end(before: ArgadState, after: ArgadState, seq: int) -> list[Step]:
    """Argad: Wounds: deaths of the turn, survival rolls, localisation of surviving wounds."""
    turn = after.last_turn
    assert turn is not None
    steps = []
    for name, eff in sorted(turn.effects.items()):
        if eff.killed_at != -9:
            steps.append(Step(seq=seq, rule=R_WOUNDS, text=f"{name} is dead"))
    for name, label, roll, wounds, died in turn.survival:
        die = before.figures[name].wounds_die
        read = f" ({dv.d2_text(turn.faces[label][0])})" if die == 2 else ""
        steps.append(Step(seq=seq, rule=dv.R_D2 if die == 2 else R_WOUNDS, dice=(label,), text=(
            f"{name}: survival 1D{die} = {roll}{read} with {wounds} wound(s): "
            + ("dies (the roll is not above its wounds)" if died else "survives"))))
    for name, label, d12 in turn.locations:
        steps.append(Step(seq=seq, rule=R_LOCAL, dice=(label,), text=f"{name}: wound in the {LOCATION[d12]} (D12 {d12})"))
    steps.append(Step(seq=seq, rule=R_TURN, text=f"end of game turn {turn.number}: {after.history[-1]}"))
    return steps


def explain(before: ArgadState, event: Event, after: ArgadState, seq: int) -> list[Step]:
    match event:
        case TurnStarted():
            return [Step(seq=seq, rule=R_TURN, text=f"game turn {event.turn}: simultaneous movement, shooting "
                                                    "and melee; no initiative")]
        case PhaseStarted():
            return [Step(seq=seq, rule=R_TURN, text=f"turn {event.turn}: {event.phase} phase")]
        case Struck():
            return explain_strike(before, after, seq)
        case ShotFired():
            return explain_shot(after, seq)
        case TurnEnded():
            return explain_turn_end(before, after, seq)
        case Moved():
            bits = [b for b, on in (("charges", event.charge), ("crosses an obstacle", event.crossing),
                                    ("stays still", event.stationary), ("is out of command", event.out_of_command))
                    if on]
            if event.ground:
                bits.append(f"now on {event.ground} ground")
            text = f"{event.figure} moves" + (": " + ", ".join(bits) if bits else "")
            return [Step(seq=seq, rule=R_TURN, text=text + (f" ({event.note})" if event.note else ""))]
        case Held():
            who = ", ".join(event.figures)
            one = len(event.figures) == 1
            return [Step(seq=seq, rule=R_HOLD, text=(
                f"{who} {'does' if one else 'do'} not strike in game turn {event.turn} (held by {'its' if one else 'their'} "
                f"side): shorter blows at {'it' if one else 'them'} need not wait, and ending the turn gives up no blow "
                f"of {'its' if one else 'theirs'}"))]
        case FigureRemoved():
            return [Step(seq=seq, rule=R_TURN, text=f"{event.figure} leaves the table: {event.reason}")]
        case RecoilPolicySet():
            return [Step(seq=seq, rule=ml.R_MELEE, text=f"{event.figure} will {'refuse' if event.refuse else 'accept'}"
                                                       " recoils it may refuse")]
        case FigureAdded():
            return [Step(seq=seq, rule="Argad: Often encountered humanoid species",
                         text=f"{event.figure.get('name')} joins side {event.figure.get('side')}")]
        case CombatEnded():
            return [Step(seq=seq, rule=R_TURN, text=f"combat ends: {event.outcome or 'no outcome given'}")]
    return []
