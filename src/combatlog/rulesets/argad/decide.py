# Over 500 lines on purpose: one function per Argad command, and the strike-order rules they share; split, the order rules would be read apart from the strikes they order.
"""Argad ``decide``: legality checks, the dice (with every re-roll the rules allow), the events.

Dice labels are the rules' own (``labels.py``): stable, so players entering manual dice know
them in advance, and never chosen by a player, so ``dice_uses`` can bind each one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.dice.port import DicePort
from combatlog.errors import CombatlogError, IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.rulesets.argad import commands as c
from combatlog.rulesets.argad import derive as dv
from combatlog.rulesets.argad import labels as lb
from combatlog.rulesets.argad import melee as ml
from combatlog.rulesets.argad import shooting as sh
from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.events import (
    CombatEnded, FigureAdded, FigureRemoved, Held, Moved, PhaseStarted, RecoilPolicySet, ShotFired, Struck,
    TurnEnded, TurnStarted,
)
from combatlog.rulesets.argad.figures import build_figure
from combatlog.rulesets.argad.state import ArgadState, Effect, Figure, Turn

R_TURN = "Argad: game turn (simultaneous movement, shooting, melee; reference 3.1)"
R_WOUNDS = "Argad: Wounds"
R_MELEE = ml.R_MELEE
R_BASES = "Argad: Bases of different sizes in melee"
# Who fights whom is the players' declaration (docs/argad.md, Decisions): the engine cannot tell a figure out of
# contact from one about to strike, so a side says which of its figures will not strike this turn.
R_HOLD = ("Argad: Wounds (a blow comes at its step of the strike order, or not at all this turn); who fights "
          "whom is the players' declaration")
NO_EFFECT = Effect()
MAX_REROLLS = lb.MAX_REROLLS


def decide(state: ArgadState, command: Any, dice: DicePort) -> list[Event]:
    if state.ended:
        raise IllegalCommand("the combat has ended", rule=R_TURN)
    match command:
        case c.AddFigure(figure=entry):
            fig = build_figure(entry)
            if fig.name in state.figures:
                raise InvalidCommand(f"a figure named {fig.name} is already in the combat")
            return [FigureAdded(figure=dict(entry))]
        case c.StartTurn():
            if state.turn is not None:
                raise IllegalCommand(f"game turn {state.turn.number} is still open; end it first", rule=R_TURN)
            if not any(f.active for f in state.figures.values()):
                raise IllegalCommand("no figure is on the table; add figures first", rule=R_TURN)
            if no_enemy_left(state) and not state.revision:  # (versions 1 and 2 started it: ArgadState.revision)
                raise IllegalCommand(f"{no_enemy_left(state)} on the table: there is no enemy to fight; end the "
                                     "combat (argad end), or add figures first", rule=R_TURN)
            return [TurnStarted(turn=state.turns_done + 1)]
        case c.Move():
            return _move(state, command)
        case c.Shoot():
            return _shoot(state, command, dice)
        case c.Strike():
            return _strike(state, command, dice)
        case c.Hold():
            return _hold(state, command)
        case c.SetRecoilPolicy(figure=name, refuse=refuse):
            _figure(state, name)
            return [RecoilPolicySet(figure=name, refuse=refuse)]
        case c.Remove(figure=name, reason=reason):
            fig = _figure(state, name)
            if not fig.active:
                raise IllegalCommand(f"{name} is no longer on the table", rule=R_TURN)
            return [FigureRemoved(figure=name, reason=reason)]
        case c.EndTurn():
            return _end_turn(state, dice)
        case c.EndCombat(outcome=outcome):
            if state.turn is not None:
                raise IllegalCommand(_end_turn_first(state.turn), rule=R_TURN)
            return [CombatEnded(outcome=outcome)]
    raise InvalidCommand(f"argad does not know the command {type(command).__name__}")


# -- helpers ---------------------------------------------------------------------------


def no_enemy_left(state: ArgadState) -> str:
    """When no two sides are left on the table, once figures have fought or left it (a game turn played, a
    figure dead or gone): why, in words ("only side goblins is left", "no figure is left"); else ''. A combat
    no figure has left yet waits for the figures still to come (argad add)."""
    sides = sorted({f.side for f in state.figures.values() if f.active})
    gone = any(not f.active for f in state.figures.values())
    if len(sides) > 1 or not (state.turns_done > 0 or gone):
        return ""
    return f"only side {sides[0]} is left" if sides else "no figure is left"


def _figure(state: ArgadState, name: str) -> Figure:
    fig = state.figures.get(name)
    if fig is None:
        known = ", ".join(state.figures) or "none yet"
        raise InvalidCommand(f"no figure {name!r} (figures: {known})")
    return fig


def _open_turn(state: ArgadState) -> Turn:
    if state.turn is None:
        raise IllegalCommand(f"no game turn is open; start game turn {state.turns_done + 1} first", rule=R_TURN)
    return state.turn


def _effect(turn: Turn, name: str) -> Effect:
    return turn.effects.get(name, NO_EFFECT)


def _unique(names: tuple[str, ...], what: str) -> None:
    if not names:
        raise InvalidCommand(f"name at least one {what}")
    if len(set(names)) != len(names):
        raise InvalidCommand(f"a {what} is named twice")


# -- movement --------------------------------------------------------------------------


def _move(state: ArgadState, cmd: c.Move) -> list[Event]:
    """Argad: game turn: movement is simultaneous; the move records what matters to the rules."""
    turn = _open_turn(state)
    fig = _figure(state, cmd.figure)
    if turn.phase != "movement":
        raise IllegalCommand(f"the movement phase of turn {turn.number} is over", rule=R_TURN)
    if not fig.active:
        raise IllegalCommand(f"{fig.name} is no longer on the table", rule=R_TURN)
    if fig.stunned_until >= turn.number and not cmd.stationary:
        raise IllegalCommand(f"{fig.name} is half-stunned and cannot move", rule="Argad: Wound localisation")
    if cmd.figure in turn.moves:
        raise IllegalCommand(f"{fig.name} has already moved this turn", rule=R_TURN)
    if cmd.charge and not fig.mounted:
        raise IllegalCommand(f"{fig.name} is on foot: only mounts give a charge", rule=ml.R_MOUNTED)
    if cmd.charge and cmd.stationary:
        raise InvalidCommand("a charge is a move: --charge and --stationary exclude each other")
    if cmd.ground not in ("", "mineral", "other"):
        raise InvalidCommand("ground is 'mineral' or 'other'")
    return [Moved(turn=turn.number, figure=cmd.figure, charge=cmd.charge, crossing=cmd.crossing,
                  stationary=cmd.stationary, out_of_command=cmd.out_of_command, ground=cmd.ground, note=cmd.note)]


# -- shooting --------------------------------------------------------------------------


def _shoot(state: ArgadState, cmd: c.Shoot, dice: DicePort) -> list[Event]:
    """Argad: Ranged weapons: a volley of one weapon at a same target (or group)."""
    turn = _open_turn(state)
    out: list[Event] = []
    if turn.phase == "melee":
        raise IllegalCommand(f"the shooting phase of turn {turn.number} is over (melee has begun)", rule=R_TURN)
    _unique(cmd.shooters, "shooter")
    _unique(cmd.targets, "target")
    # A group's order means nothing to the rules but is part of the labels: fixed, so nobody chooses it.
    cmd = msgspec.structs.replace(cmd, targets=lb.group(cmd.targets))
    if cmd.range not in t.RANGES:
        raise InvalidCommand(f"range is one of {', '.join(t.RANGES)}")
    if cmd.need < 0 or cmd.cover > 0 or cmd.range_cm < 0:
        raise InvalidCommand("--need is positive, --cover is a negative modifier, --range-cm is positive")
    low, high = sh.NEED_RANGE
    if cmd.need and not low <= cmd.need <= high and not state.revision:  # (versions 1 and 2 took any need)
        raise InvalidCommand(f"--need {cmd.need}: the referee's reading of the generic shooting table is a need "
                             f"from {low} to {high} (a natural result; 7 and 8 need re-rolled maxima)")
    shooters = [_figure(state, n) for n in cmd.shooters]
    targets = [_figure(state, n) for n in cmd.targets]
    side = shooters[0].side
    weapon = shooters[0].missile
    for fig in shooters:
        if not fig.active:
            raise IllegalCommand(f"{fig.name} is no longer on the table", rule=R_TURN)
        if fig.side != side:
            raise InvalidCommand("shooters of one volley are on the same side")
        if not fig.missile or not sh.shooting_die(fig):
            raise IllegalCommand(f"{fig.name} has no missile weapon", rule=sh.R_RANGED)
        if fig.missile != weapon:
            raise InvalidCommand("a volley uses one kind of missile weapon; shoot the others separately")
        if _effect(turn, fig.name).shot:
            raise IllegalCommand(f"{fig.name} has already shot this turn", rule=R_TURN)
        if fig.stunned_until >= turn.number:
            raise IllegalCommand(f"{fig.name} is half-stunned and cannot act", rule="Argad: Wound localisation")
        moved = fig.name in turn.moves and not turn.moves[fig.name].stationary
        w = t.missile_weapons()[fig.missile]
        if w.immobile and moved:
            raise IllegalCommand(f"{fig.name} moved: a {w.name} shoots immobile", rule=sh.R_RANGED)
        if fig.missile == "longbow" and fig.longbow_immobile and (moved or fig.mounted):
            raise IllegalCommand(f"{fig.name} can only use a longbow immobile on foot", rule=sh.R_RANGED)
    for fig in targets:
        if not fig.active:
            raise IllegalCommand(f"{fig.name} is no longer on the table", rule=R_TURN)
        if fig.side == side:
            raise InvalidCommand(f"{fig.name} is on the shooters' side")
        if cmd.into_melee:
            for s in shooters:
                sh.check_into_melee(s, fig, cmd.range_cm)
    for name in cmd.friends:
        friend = _figure(state, name)
        if friend.side != side or not friend.active:
            raise InvalidCommand(f"{name} is not a friend of the shooters on the table")
    if cmd.friends and not cmd.into_melee:
        raise InvalidCommand("--friend only matters when shooting into a melee (--into-melee)")
    if turn.phase == "movement":
        out.append(PhaseStarted(turn=turn.number, phase="shooting"))
    n = turn.number
    key = sh.group_key(cmd.targets)
    labels = lb.shot_dice(n, key, cmd.shooters)
    plan = sh.plan_shot(state, cmd.shooters, cmd.targets, range_=cmd.range, need=cmd.need, cover=cmd.cover,
                        idle=cmd.idle, mod=cmd.mod, why=cmd.why, labels=labels)
    faces: dict[str, tuple[int, ...]] = {}
    for spec in plan.dice:
        faces[spec.label] = dice.roll(spec.label, spec.notation, purpose=f"{spec.who} shoots at {key}",
                                      by=None).faces
    rerolls: list[str] = []
    for j in range(MAX_REROLLS):
        read = dv.read_volley(state, plan, key, faces, [faces[x] for x in rerolls])
        if not read.reroll_due:
            break
        spec = next(d for d in plan.dice if d.label == read.reroll_die)
        label = lb.shot_reroll(turn, key, j)
        faces[label] = dice.roll(label, spec.notation, purpose=f"re-roll of a natural maximum at {key}").faces
        rerolls.append(label)
    read = dv.read_volley(state, plan, key, faces, [faces[x] for x in rerolls])
    one_reroll = ""
    if cmd.into_melee and cmd.friends:
        ones = sum(1 for s in plan.dice if faces[s.label] == (1,))
        if ones % 2:
            one_reroll = lb.one_reroll(turn, key)
            dice.roll(one_reroll, sh.one_reroll_notation(plan, faces), purpose="re-roll of a single natural 1 in a melee")
    allocation: list[str] = []
    if len(cmd.targets) > 1:
        n_hits = sum(1 for r in read.dice if r.total2 >= 2 * plan.need)
        for j in range(n_hits):
            label = lb.hit(turn, key, j)
            dice.roll(label, f"1d{len(cmd.targets)}", purpose=f"which of {key} the hit strikes")
            allocation.append(label)
    out.append(ShotFired(turn=n, shooters=cmd.shooters, targets=cmd.targets, range=cmd.range, need=cmd.need,
                         cover=cmd.cover, idle=cmd.idle, into_melee=cmd.into_melee, range_cm=cmd.range_cm,
                         friends=cmd.friends, mod=cmd.mod, why=cmd.why, dice=labels, rerolls=tuple(rerolls),
                         one_reroll=one_reroll, allocation=tuple(allocation)))
    return out


# -- melee -----------------------------------------------------------------------------


def _can_strike(state: ArgadState, turn: Turn, fig: Figure, tier: int) -> None:
    """Who may still strike at this point of the melee.

    Argad: Wounds: a creature wounded in melee before it could strike cannot strike this turn.
    Argad: Melee peculiarities (Recoil in melee): a recoil forbids striking if the enemy struck
    first, even when the recoil is ignored (option refused_recoil_blocks_strike).
    Argad: Ranged weapons: having shot, a figure cannot strike in melee the same turn.
    """
    e = _effect(turn, fig.name)
    if not fig.active:
        raise IllegalCommand(f"{fig.name} is no longer on the table", rule=R_TURN)
    if fig.name in turn.held:
        raise IllegalCommand(f"{fig.name} held its blow this turn (argad hold): it does not strike again before "
                             f"game turn {turn.number + 1}", rule=R_HOLD)
    if e.killed_at != -9 and e.killed_at < tier:
        raise IllegalCommand(f"{fig.name} was killed before it could strike", rule=R_MELEE)
    if e.struck_at != -9:
        raise IllegalCommand(f"{fig.name} has already struck this turn", rule=R_MELEE)
    if e.shot:
        raise IllegalCommand(f"{fig.name} shot this turn and cannot strike in melee", rule=sh.R_RANGED)
    if fig.stunned_until >= turn.number:
        raise IllegalCommand(f"{fig.name} is half-stunned and cannot act", rule="Argad: Wound localisation")
    stops = [w for w in e.wounds if w < tier and (w >= 0 or state.options.on("shooting_wound_stops_strike"))]
    if stops:
        raise IllegalCommand(f"{fig.name} was wounded before it could strike", rule=R_WOUNDS)
    if e.recoiled_at != -9 and e.recoiled_at < tier and (
            not e.recoil_refused or state.options.on("refused_recoil_blocks_strike")):
        raise IllegalCommand(f"{fig.name} recoiled before it could strike", rule=R_MELEE)


def step_name(tier: int) -> str:
    return t.TIERS[tier].replace("_", "-")


def still_to_strike(state: ArgadState, turn: Turn, fig: Figure) -> bool:
    """Whether a figure can still strike this turn at its own step of the strike order."""
    try:
        _can_strike(state, turn, fig, ml.tier_of(state, fig)[0])
    except CombatlogError:
        return False
    return True


def may_still_strike(state: ArgadState, turn: Turn) -> list[Figure]:
    """The figures that may still strike this turn (``still_to_strike``: not dead, held, struck...) and have
    an enemy left to strike at their step, in the order of the set-up. Ending the turn gives up their blows
    (argad/authority.py)."""
    out = []
    for fig in state.figures.values():
        if not still_to_strike(state, turn, fig):
            continue
        tier = ml.tier_of(state, fig)[0]
        if any(foe.side != fig.side and foe.active and not -9 < _effect(turn, foe.name).killed_at < tier
               for foe in state.figures.values()):
            out.append(fig)
    return out


def could_strike_back(state: ArgadState, turn: Turn, target: Figure, attackers: list[Figure]) -> bool:
    """Whether the target may strike one of its attackers at all: not when charging cavalry fights
    them and the target is not charging cavalry (Argad: Melee peculiarities, knight vs Troll)."""
    for fig in attackers:
        try:
            _check_cavalry(state, turn, fig.name, ml.charging(state, target), [target])
        except IllegalCommand:
            continue
        return True
    return False


def _check_order(state: ArgadState, turn: Turn, target: Figure, tier: int, attackers: list[Figure]) -> None:
    """Strike order between opponents: longer weapons strike first.

    Argad: Wounds: "If a creature is wounded in melee before it could strike its opponent(s) the
    wound prevents it to strike" - the order binds a figure and the opponents it fights, so a blow
    at the target waits for the target's own earlier strike (the Goblin example: spears and axe
    "at the same time", "Then" the swords). A blow that would come before a strike already
    resolved cannot be recorded after it.
    """
    done = _effect(turn, target.name).struck_at
    if done != -9 and done > tier:
        raise IllegalCommand(
            f"strike order: {target.name} already struck at the {step_name(done)} step; a {step_name(tier)} "
            f"blow at it comes first and had to be recorded before {target.name}'s strike", rule=R_MELEE)
    own = ml.tier_of(state, target)[0]
    if own < tier and still_to_strike(state, turn, target) and could_strike_back(state, turn, target, attackers):
        raise IllegalCommand(
            f"strike order: {target.name} strikes first (the {step_name(own)} step comes before the "
            f"{step_name(tier)} step); record {target.name}'s strike, then this one", rule=R_MELEE)


def _check_rank(state: ArgadState, fig: Figure, rank: int, over: str) -> None:
    """Argad: Bases of different sizes in melee: spears and staff weapons strike from the second
    rank above the first rank's shoulders (not above two-handed weapons); a third rank with spears
    or other long staff weapons; further ranks with pikes."""
    if rank == 1:
        return
    w = t.melee_weapons()[fig.weapon]
    if not w.staff or fig.mounted:
        raise IllegalCommand(f"{fig.name} needs a spear or staff weapon on foot to strike from rank {rank}",
                             rule=R_BASES)
    length = ml.weapon_length(fig)
    if rank == 3 and length not in ("long", "very_long"):
        raise IllegalCommand(f"{fig.name}: only long staff weapons fight from the third rank", rule=R_BASES)
    if rank >= 4 and fig.weapon != "pike":
        raise IllegalCommand(f"{fig.name}: only pikes fight from rank {rank}", rule=R_BASES)
    if over:
        front = _figure(state, over)
        if front.side != fig.side or not front.active:
            raise InvalidCommand(f"{over} is not a friend of {fig.name} on the table")
        if t.melee_weapons()[front.weapon].two_handed:
            raise IllegalCommand(f"{front.name} wields a two-handed weapon: no strike above its shoulders",
                                 rule=R_BASES)


def _strike(state: ArgadState, cmd: c.Strike, dice: DicePort) -> list[Event]:
    """Argad: melee: one pool against one opponent (an H2 creature may split 2D6 on two)."""
    turn = _open_turn(state)
    _unique(cmd.attackers, "attacker")
    _unique(cmd.targets, "target")
    attackers = [_figure(state, n) for n in cmd.attackers]
    targets = [_figure(state, n) for n in cmd.targets]
    if cmd.ranks and (len(cmd.ranks) != len(cmd.attackers) or not all(1 <= r <= 6 for r in cmd.ranks)):
        raise InvalidCommand("give one rank (1 in contact, up to 6) per attacker")
    ranks = cmd.ranks or tuple(1 for _ in cmd.attackers)
    split = len(targets) == 2
    if len(targets) > 2 or (split and (len(attackers) != 1 or attackers[0].strength != "H2")):
        raise IllegalCommand("only a lone H2 creature strikes two enemies (2D6 split, 1D6 each)", rule=R_MELEE)
    side = attackers[0].side
    tiers = {ml.tier_of(state, f)[0] for f in attackers}
    if len(tiers) != 1:
        raise IllegalCommand("attackers rolling together strike at the same time: split them by weapon length",
                             rule=R_MELEE)
    tier = tiers.pop()
    for fig, rank in zip(attackers, ranks):
        if fig.side != side:
            raise InvalidCommand("attackers rolling together are on the same side")
        _can_strike(state, turn, fig, tier)
        _check_rank(state, fig, rank, cmd.over)
    cavalry = any(ml.charging(state, f) for f in attackers)
    for target in targets:
        if target.side == side:
            raise InvalidCommand(f"{target.name} is on the attackers' side")
        e = _effect(turn, target.name)
        if not target.active or (e.killed_at != -9 and e.killed_at < tier):
            raise IllegalCommand(f"{target.name} is already dead", rule=R_MELEE)
        try:
            _check_order(state, turn, target, tier, attackers)
        except IllegalCommand:
            # Version 1 (ArgadState.revision) also read the strike order of the whole table until 2026-11-28: a
            # blow was refused only once a shorter step's blows had been struck. A blow either reading allowed
            # stands in its logs.
            if state.revision != "1" or tier < turn.tier:
                raise
        _check_cavalry(state, turn, target.name, cavalry, attackers)
        _check_contact(state, turn, target, cmd.attackers, ranks)
    out: list[Event] = []
    if turn.phase != "melee":
        out.append(PhaseStarted(turn=turn.number, phase="melee"))
    for target in targets:
        out.append(_roll_strike(state, cmd, target.name, split, dice))
    return out


def _check_cavalry(state: ArgadState, turn: Turn, target: str, cavalry: bool, attackers: list[Figure]) -> None:
    """Argad: Melee peculiarities (knight vs Troll): no other character can strike a same enemy in
    the same game turn as charging cavalry (except other charging cavalry)."""
    for s in turn.strikes:
        if s.target != target:
            continue
        if s.charging_cavalry != cavalry:
            raise IllegalCommand(f"{target} is fought by {'charging cavalry' if s.charging_cavalry else 'others'} "
                                 "this turn: only charging cavalry strikes it together with charging cavalry",
                                 rule=ml.R_KNIGHT)


def _check_contact(state: ArgadState, turn: Turn, target: Figure, attackers: tuple[str, ...],
                   ranks: tuple[int, ...]) -> None:
    """Argad: Bases of different sizes in melee: how many first-rank foes can reach one figure."""
    new = {a for a, r in zip(attackers, ranks) if r == 1}
    if not state.options.on("base_contact_limit") or not new:
        return
    front = {a for s in turn.strikes if s.target == target.name for a in s.attackers if s.rank_of(a) == 1}
    front |= new
    smallest = min(state.figures[a].base_mm for a in front)
    limit = ml.contact_limit(target, smallest)
    if len(front) > limit:
        raise IllegalCommand(f"at most {limit} figures on those bases can be in contact with {target.name}; "
                             "strike from the second rank (NAME@2) if the weapon allows", rule=R_BASES)


def _roll_strike(state: ArgadState, cmd: c.Strike, target: str, split: bool, dice: DicePort) -> Struck:
    turn = _open_turn(state)
    n = turn.number
    labels = lb.melee_dice(n, target, cmd.attackers)
    plan = ml.plan_strike(state, cmd.attackers, target, mod=cmd.mod, why=cmd.why, split=split, labels=labels)
    faces: dict[str, tuple[int, ...]] = {}
    for spec in plan.dice:
        faces[spec.label] = dice.roll(spec.label, spec.notation, purpose=f"{spec.who} strikes {target}").faces
    rerolls: list[str] = []
    for j in range(MAX_REROLLS):
        read = dv.read_strike(state, plan, target, faces, [faces[x] for x in rerolls])
        if not read.reroll_due:
            break
        spec = next(d for d in plan.dice if d.label == read.reroll_die)
        label = lb.melee_reroll(turn, target, j)
        faces[label] = dice.roll(label, spec.notation, purpose=f"re-roll of a natural maximum against {target}").faces
        rerolls.append(label)
    return Struck(turn=n, attackers=cmd.attackers, target=target, ranks=cmd.ranks, over=cmd.over, mod=cmd.mod,
                  why=cmd.why, split=split, dice=labels, rerolls=tuple(rerolls))


# -- holding --------------------------------------------------------------------------


def _hold(state: ArgadState, cmd: c.Hold) -> list[Event]:
    """A side declares that some of its figures will not strike this turn (R_HOLD): out of contact, or
    giving up their blow. A held figure no longer holds back the shorter blows at it (``_check_order``)
    and may not strike later this turn; ending the turn no longer passes over it (authority.py)."""
    turn = _open_turn(state)
    if cmd.figures and cmd.side:
        raise InvalidCommand("name the figures to hold, or --side for all of a side's figures that may still "
                             "strike, not both")
    if cmd.side:
        sides = sorted({f.side for f in state.figures.values()})
        if cmd.side not in sides:
            raise InvalidCommand(f"no side {cmd.side!r} (sides: {', '.join(sides) or 'none yet'})")
        names = tuple(f.name for f in may_still_strike(state, turn) if f.side == cmd.side)
        if not names:
            raise IllegalCommand(f"no figure of side {cmd.side} may still strike in game turn {turn.number}: "
                                 "there is no blow to hold", rule=R_HOLD)
        return [Held(turn=turn.number, figures=names)]
    _unique(cmd.figures, "figure to hold")
    figures = [_figure(state, n) for n in cmd.figures]
    side = figures[0].side
    for fig in figures:
        if fig.side != side:
            raise InvalidCommand(f"the figures held together are of one side: {fig.name} is of side {fig.side}, "
                                 f"{figures[0].name} of side {side}")
        if fig.name in turn.held:
            raise IllegalCommand(f"{fig.name} already holds its blow in game turn {turn.number}", rule=R_HOLD)
        try:
            _can_strike(state, turn, fig, ml.tier_of(state, fig)[0])
        except IllegalCommand as exc:  # the reason it may not strike, under its own rule
            why = exc.message.removesuffix(f" ({exc.rule})")
            raise IllegalCommand(f"{why}: there is no blow left to hold in game turn {turn.number}",
                                 rule=exc.rule) from None
    return [Held(turn=turn.number, figures=cmd.figures)]


# -- end of turn -----------------------------------------------------------------------


def survival_due(turn: Turn) -> list[str]:
    """Argad: Wounds: the wounded who survive the turn so far roll for survival at its end."""
    return sorted(name for name, e in turn.effects.items() if e.wounds and e.killed_at == -9)


def _end_turn_first(turn: Turn) -> str:
    due = survival_due(turn)
    why = f"survival rolls are due for {', '.join(due)}" if due else "it applies the turn's results"
    return f"end game turn {turn.number} first with argad end-turn ({why})"


def _end_turn(state: ArgadState, dice: DicePort) -> list[Event]:
    """Argad: Wounds: survival rolls at the end of the game turn; Argad: Wound localisation."""
    turn = _open_turn(state)
    n = turn.number
    survival: list[str] = []
    locations: list[str] = []
    for name in survival_due(turn):
        e = turn.effects[name]
        fig = state.figures[name]
        total = fig.wounds + len(e.wounds)
        label = lb.survival(n, name)
        roll = dice.roll(label, dv.survival_notation(fig), purpose=f"survival of {name} with {total} wound(s)")
        survival.append(label)
        if dv.survival_roll(fig, roll.faces) <= total:
            continue
        if state.options.on("wound_location"):
            for k in range(1, len(e.wounds) + 1):
                loc = lb.location(n, name, k)
                dice.roll(loc, "1d12", purpose=f"where wound {k} of {name} struck")
                locations.append(loc)
    return [TurnEnded(turn=n, survival=tuple(survival), locations=tuple(locations))]
