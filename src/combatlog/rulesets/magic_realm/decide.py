"""``decide``: legality of each command, and the events it produces.

Steps that need dice (random assignment, the Attention chits, the Melee Step
resolution) are rehearsed here on a working copy with the dice port as the
roller, so every die they need is drawn (and recorded) now; ``evolve`` then
re-derives the same result from the recorded dice.
"""

from __future__ import annotations

from typing import Any

from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event, TypeSwitch
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm import events as e
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import letter
from combatlog.rulesets.magic_realm.magic import peaceful
from combatlog.rulesets.magic_realm.plays import check_actions, check_fatigue, check_play, check_targets
from combatlog.rulesets.magic_realm.rehearsal import rehearse
from combatlog.rulesets.magic_realm.rounds import assign_randomly, resolve, start_melee
from combatlog.rulesets.magic_realm.sealed import RULE as SEALED_RULE
from combatlog.rulesets.magic_realm.sealed import SEED_RULE, fresh_seed_events, sealed_for, step_name
from combatlog.rulesets.magic_realm.state import MRState
from combatlog.rulesets.magic_realm.turns import STEP_RULES  # noqa: F401  (ruleset.py reads it from here)
from combatlog.rulesets.magic_realm.turns import need_step, need_turn, unassigned_denizens, waiting_on
from combatlog.rulesets.magic_realm.work import Work

def _roller(dice: DicePort):  # type: ignore[no-untyped-def]
    def roll(label: str, notation: str, purpose: str, by: str) -> tuple[int, ...]:
        return dice.roll(label, notation, purpose=purpose, by=by or None).faces

    return roll


def _labels(step, state: MRState) -> list[str]:  # type: ignore[no-untyped-def]
    """The dice labels a dice-driven step would draw (a dry run with face 1 everywhere)."""
    labels: list[str] = []

    def record(label: str, notation: str, purpose: str, by: str) -> tuple[int, ...]:
        labels.append(label)
        return (1,) * int(notation.split("d")[0] or 1)

    step(Work(state, 0, record))
    return labels


# The case of ``decide`` a command takes: the class its class patterns would match first, once per class
_COMMAND = TypeSwitch(c.Lure, c.Assign, c.Deploy, c.Act, c.StartMelee, c.Target, c.Play, c.Resolve, c.Fatigue,
                      c.Concede, c.Pass)


def referee_step_due(state: MRState, command: Any) -> None:
    """Refuse a referee's step (``Assign``, ``StartMelee``, ``Resolve``) that no contribution of his could make
    due: the combat is not at its step, or the step still waits on a player's decision. The CLI asks before
    revealing his chain link or plays for the step's seed, so that a command refused reveals nothing."""
    if state.ended:
        raise IllegalCommand(f"the combat has ended ({state.end_reason})", rule="MR 001 Disengagement")
    match _COMMAND(command):
        case c.Assign:
            need_step(state, "lure", "random assignment")
            if waiting_on(state, "lure"):
                raise IllegalCommand(f"waiting for luring by {', '.join(waiting_on(state, 'lure'))}",
                                     rule="MR 001 Luring")
        case c.StartMelee:
            need_step(state, "actions", "starting the Melee Step")
            if waiting_on(state, "actions"):
                raise IllegalCommand(f"waiting for the actions of {', '.join(waiting_on(state, 'actions'))}",
                                     rule="MR 001 Actions")
        case c.Resolve:
            need_step(state, "resolve", "resolving the Melee Step")


def decide(state: MRState, command: Any, dice: DicePort) -> list[Event]:
    if state.ended:
        raise IllegalCommand(f"the combat has ended ({state.end_reason})", rule="MR 001 Disengagement")
    match _COMMAND(command):  # (value patterns: the class _COMMAND found)
        case c.Lure:
            need_step(state, "lure", "luring")
            need_turn(state, command.character, "lure")
            return [e.Lured(character=command.character, lures=_lures(state, command))]
        case c.Assign:
            referee_step_due(state, command)
            marks = fresh_seed_events(state, dice, "lure", lambda: _labels(assign_randomly, state), "assign")
            rehearse(assign_randomly, state, dice, _roller(dice))
            return [*marks, *dice.drawn, e.DenizensAssigned(round=state.round)]
        case c.Deploy:
            need_step(state, "deploy", "deployment")
            need_turn(state, command.character, "deploy")
            _passed_round_passes(state, command)
            _check_deploy(state, command)
            return [e.Deployed(character=command.character, hirelings=dict(command.hirelings),
                               charge=command.charge, chit=_chit_id(state, command.character, command.chit))]
        case c.Act:
            need_step(state, "actions", "an Encounter Step action")
            need_turn(state, command.character, "actions")
            _passed_round_passes(state, command)
            check_actions(state, command)
            return [e.ActionDeclared(character=command.character, kind=command.kind,
                                     chit=_chit_id(state, command.character, command.chit), items=command.items,
                                     spell=command.spell, horse=command.horse)]
        case c.StartMelee:
            referee_step_due(state, command)
            marks = fresh_seed_events(state, dice, "run", lambda: _labels(start_melee, state), "attention")
            rehearse(start_melee, state, dice, _roller(dice))
            return [*marks, *dice.drawn, e.MeleeStarted(round=state.round)]
        case c.Target:
            need_step(state, "targets", "target selection")
            need_turn(state, command.character, "targets")
            _passed_round_passes(state, command)
            chosen = check_targets(state, command)
            return [e.TargetsChosen(character=command.character, target=command.target,
                                    hirelings=dict(command.hirelings), positions=dict(command.positions),
                                    spell_targets=chosen)]
        case c.Play:
            need_step(state, "plays", "playing attacks and maneuvers")
            need_turn(state, command.character, "plays")
            _passed_round_passes(state, command)
            if sealed_for(state, command.character) and not state.round_passed:
                raise IllegalCommand(f"this combat pins players, so {state.characters[command.character].player} "
                                     "seals these plays: mr play ... --seal, then mr reveal once every side has "
                                     "sealed", rule=SEALED_RULE)
            fight, move = check_play(state, command)
            return [e.PlaysMade(character=command.character, round=state.round, attack=command.attack, fight=fight,
                                alert_only=command.alert_only, maneuver=command.maneuver, move=move,
                                horse=command.horse, shield=command.shield, place=dict(command.place),
                                hirelings=dict(command.hirelings), part_attack=command.part_attack,
                                part_side=command.part_side)]
        case c.Resolve:
            referee_step_due(state, command)
            plays_step = step_name(state)
            if getattr(dice, "scheme", "") == "joint" and state.players and not (
                    state.seed == plays_step or state.seed.startswith(plays_step + "#")) and not (
                    state.round_passed and not _labels(resolve, state)):
                # (a passed round's resolution that rolls nothing needs no seed: nobody sealed a play)
                # The resolution dice must come from the seed the secret plays completed: an older seed was
                # known while the plays were chosen (docs/trust.md, "Magic Realm plays").
                info = state.sealed.get(plays_step)
                waiting = ", ".join(p for p, _what in info.waiting()) if info is not None else "everyone"
                raise IllegalCommand(f"the joint dice of the resolution derive from the seed of {plays_step}, which "
                                     f"is waiting for {waiting} (mr reveal, or mr seed)", rule=SEED_RULE)
            rehearse(resolve, state, dice, _roller(dice))
            return [e.MeleeResolved(round=state.round)]
        case c.Fatigue:
            need_step(state, "fatigue", "paying fatigue")
            need_turn(state, command.character, "fatigue")
            fat, change, wounds = check_fatigue(state, command)
            return [e.FatiguePaid(character=command.character, fatigue=fat, change=change, wounds=wounds)]
        case c.Concede:
            check_concede(state, command)
            return [e.Conceded(character=command.character, reason=command.reason)]
        case c.Pass:
            return pass_round(state, command, dice)
    raise InvalidCommand(f"magic_realm does not know the command {type(command).__name__}")


CLOAK_RULE = "MR 8.4.7 Elusive Cloak"
CONCEDE_REASONS = ("no_chance", "declined")


def check_concede(state: MRState, cmd: c.Concede) -> None:
    """MR 8.4.7: "If there is no chance for the Tremendous monster to be killed by either the character or
    anyone else in the clearing (or the other characters decline to help), then the character is killed."

    Decision: whether there is "no chance" is a judgement the rules leave to the table, so it is an explicit
    ruling, legal only while a red-side-up Tremendous monster holds the character and he has the Elusive Cloak
    whose use causes the 'infinite loop'; the reason says which half of the sentence applies.
    """
    if cmd.character not in state.characters:
        raise InvalidCommand(f"no character {cmd.character!r} (characters: {', '.join(state.characters)})")
    if cmd.reason not in CONCEDE_REASONS:
        raise InvalidCommand(f"--reason is one of {', '.join(CONCEDE_REASONS)}")
    char = state.characters[cmd.character]
    if not char.alive or not char.present:
        raise IllegalCommand(f"{cmd.character} is not alive in the clearing", rule=CLOAK_RULE)
    if not q.red_on_sheet(state, cmd.character):
        raise IllegalCommand(f"no red-side-up Tremendous monster holds {cmd.character}", rule=CLOAK_RULE)
    if "Elusive Cloak" not in char.items:
        raise IllegalCommand(f"{cmd.character} has no Elusive Cloak (setup: items kind elusive_cloak): the "
                             "'infinite loop' ruling is about its use", rule=CLOAK_RULE)


def _chit_id(state: MRState, cid: str, ref: str) -> str:
    if not ref:
        return ""
    chit = state.characters[cid].chit(ref)
    if chit is None:
        chits = ", ".join(f"{x.id} {x.label}" for x in state.characters[cid].chits)
        raise InvalidCommand(f"{cid} has no chit {ref!r} (a label that is not unique needs its id; chits: {chits})")
    return chit.id


def _lures(state: MRState, cmd: c.Lure) -> dict[str, str]:
    """Luring: any number onto the character, one onto each hireling (MR 001 Luring)."""
    free = set(unassigned_denizens(state))
    char = state.characters[cmd.character]
    out: dict[str, str] = {}
    if cmd.denizens and not char.present:
        raise IllegalCommand(f"{cmd.character} is not in the clearing and cannot lure", rule="MR 001 Luring")
    for did in cmd.denizens:
        if did not in free:
            raise IllegalCommand(f"{did} is not an unassigned, uncontrolled denizen (free: "
                                 f"{', '.join(sorted(free)) or 'none'})", rule="MR 001 Luring")
        out[did] = cmd.character
    mine = set(q.hirelings_of(state, cmd.character))
    for did, hid in cmd.hirelings.items():
        if hid not in mine:
            raise InvalidCommand(f"{hid} is not a hireling of {cmd.character}")
        if did not in free or did in out:
            raise IllegalCommand(f"{did} cannot be lured (free: {', '.join(sorted(free)) or 'none'})",
                                 rule="MR 001 Luring")
        out[did] = hid
    if len(set(cmd.hirelings.values())) != len(cmd.hirelings):
        raise IllegalCommand("each minion lures at most one denizen", rule="MR 001 Luring")
    return out


def _check_deploy(state: MRState, cmd: c.Deploy) -> None:
    """Deployment: unassigned hirelings to targets; a character in the clearing may charge (MR 001)."""
    free = set(q.unassigned_hirelings(state, cmd.character))
    for hid, did in cmd.hirelings.items():
        if hid not in free:
            raise IllegalCommand(f"{hid} is not an unassigned hireling of {cmd.character} (unassigned: "
                                 f"{', '.join(sorted(free)) or 'none'})", rule="MR 001 Deployment")
        d = state.denizens.get(did)
        if d is None or not d.alive or d.parent or q.is_hireling(d):
            raise IllegalCommand(f"{did} is not an uncontrolled monster or native that can be attacked",
                                 rule="MR 8.4.7 / MR 001 Deployment")
        if peaceful(state, hid):
            raise IllegalCommand(f"{hid} is under Peace: it cannot attack", rule="MR 8.4.4 Preventing Attacks")
    if cmd.charge:
        char = state.characters[cmd.character]
        if not char.present:
            raise IllegalCommand("only a character in the clearing can charge", rule="MR 001 Deployment")
        if cmd.charge not in q.in_clearing(state) or cmd.charge == cmd.character:
            raise IllegalCommand(f"{cmd.charge} is not another character in the clearing", rule="MR 001 Deployment")
        if q.red_on_sheet(state, cmd.character):
            raise IllegalCommand("a character held by a red-side-up Tremendous monster cannot charge",
                                 rule="MR 8.4.7")
        if char.holding and cmd.charge != char.holding:
            raise IllegalCommand(f"{cmd.character} is transmorphized and red side up: he stays assigned to "
                                 f"{char.holding}", rule="MR 8.4.7")
        if peaceful(state, cmd.character):
            raise IllegalCommand(f"{cmd.character} is under Peace: he cannot attack, so he cannot charge",
                                 rule="MR 8.4.4 Preventing Attacks")
        chit = char.chit(cmd.chit) if cmd.chit else None
        # Decision: a charge is made by playing a Move chit, which counts as played this round.
        if chit is None or chit.action not in ("MOVE", "DUCK") or chit.status != "active":
            raise IllegalCommand("a charge needs an active Move chit (--chit)", rule="MR 001 Deployment")
        if chit.strength < q.items_weight(char):
            raise IllegalCommand(f"{chit.label} is weaker than his heaviest item ({letter(q.items_weight(char))})",
                                 rule="MR 8.4.5 strength restrictions")
    elif cmd.chit:
        raise InvalidCommand("--chit goes with --charge")


PASS_RULE = "MR 001 A Round of Combat: every character passes"
PASS_STEPS = ("deploy", "actions", "targets", "plays", "resolve")


def pass_round(state: MRState, command: c.Pass, dice: DicePort) -> list[Event]:
    """``mr pass``: every character passes what is left of the round, recorded step by step.

    A round in which nobody uncontrolled is left to fight (every monster and unhired native dead) still
    counts toward the end of combat (MR tables: End of combat: two consecutive rounds without harm, fatigue
    or spells), and each of its steps is recorded (MR 001: deployment, actions, the Attention chits, target
    selection, the plays, the resolution). This command takes each step's own command in turn, as the
    deciders come (deploy nobody, no action, the Melee Step started, no target, no attack and no maneuver,
    the resolution), each decided by ``decide`` on the state the previous ones made, so the events and
    dice are exactly those of the step-by-step commands. It stops at the end of the round, at a Fatigue
    Step with something owed, or (joint dice) before the Attention chits' dice where they need a fresh seed.

    Where players are pinned, nobody passes for another's character (his plays are his secret: MR 8.4.5): each
    votes for his own (``Pass.characters``, version 3), a vote lasts until a character decides something else or
    the round ends, and the vote that completes every character in the fight passes the round in the same batch.
    Once passed, its remaining steps are passes only, and ``mr pass`` without characters takes them (after a seed
    step, with joint dice). A vote is public, so it tells the others a player means to pass before they decide:
    it binds him only once every character has voted.

    *Decision:* an active shield must be played (MR 8.4.5): passing plays it in box 1 (Charge and Thrust);
    nobody attacks, so its box matters to no one.
    """
    from combatlog.rulesets.magic_realm.evolve import evolve

    if state.step not in PASS_STEPS:
        raise IllegalCommand(f"mr pass passes deployment, actions, targets, plays and resolution; the combat is at "
                             f"{state.step} of round {state.round}", rule=PASS_RULE)
    foes = sorted(d.id for d in state.denizens.values() if d.alive and not d.parent and not q.is_hireling(d))
    if foes:
        raise IllegalCommand(f"mr pass is for a round with nobody left to fight: {', '.join(foes)} still fight "
                             "(each step's own command decides it)", rule=PASS_RULE)
    if state.round_passed:
        if command.characters:
            raise IllegalCommand(f"every character has passed round {state.round} already: mr pass with no character "
                                 "takes its next steps", rule=PASS_RULE)
        return _passed_steps(state, dice, started=False)
    if not state.players:
        if command.characters:
            raise InvalidCommand("characters are named only where players are pinned (each passes for his own); "
                                 "here mr pass passes for every character")
        return _passed_steps(state, dice, started=False)
    if state.revision in ("1", "2"):
        raise IllegalCommand(f"this combat pins players and is played under Magic Realm version {state.revision}, "
                             "where each seals his own plays and nobody passes for them all (mr play ... --seal)",
                             rule=SEALED_RULE)
    vote = _vote(state, command.characters)
    if not vote.all_in:
        return [vote]
    return [vote, *_passed_steps(evolve(state, vote, 0), dice, started=True)]


def _vote(state: MRState, characters: tuple[str, ...]) -> e.PassVoted:
    """The pass vote of ``characters`` (checked), ``all_in`` when it completes every character in the fight."""
    from combatlog.rulesets.magic_realm.sealed import step_name

    fighting = q.participants(state)
    if not characters:
        mine = ", ".join(fighting)
        raise InvalidCommand(f"this combat pins players: each passes for his own characters (mr pass NAME CHARACTER...;"
                             f" in the fight: {mine})")
    for cid in characters:
        if cid not in state.characters:
            raise InvalidCommand(f"no character {cid!r} (characters: {', '.join(state.characters)})")
        if cid not in fighting:
            raise IllegalCommand(f"{cid} is not in the fight, so has nothing to pass", rule=PASS_RULE)
        if cid in state.pass_votes or characters.count(cid) > 1:
            raise IllegalCommand(f"{cid} has voted to pass round {state.round} already", rule=PASS_RULE)
    info = state.sealed.get(step_name(state))
    if info is not None and (info.committed or info.linked):
        raise IllegalCommand(f"plays are sealed for round {state.round} already (by "
                             f"{', '.join(sorted({*info.committed, *info.linked}))}): this Melee Step is played out "
                             "(mr reveal)", rule=SEALED_RULE)
    votes = {*state.pass_votes, *characters}
    return e.PassVoted(round=state.round, characters=tuple(characters), all_in=set(fighting) <= votes)


def pass_command(state: MRState, step: str, cid: str) -> Any:
    """The command by which character ``cid`` passes ``step`` (the referee's command where ``cid`` is '')."""
    if step == "deploy":
        return c.Deploy(character=cid)
    if step == "actions":
        return c.Act(character=cid, kind="none") if cid else c.StartMelee()
    if step == "targets":
        return c.Target(character=cid)
    if step == "plays":
        char = state.characters[cid]
        shield = any(a.kind == "shield" and a.active and a.condition != "destroyed" for a in char.armor)
        return c.Play(character=cid, shield=1 if shield and char.present else 0)
    return c.Resolve()


def _passed_round_passes(state: MRState, command: Any) -> None:
    """In a round every character agreed to pass, a character's decision can only be that pass."""
    if state.round_passed and command != pass_command(state, state.step, command.character):
        raise IllegalCommand(f"every character agreed to pass round {state.round}: {command.character} passes it "
                             "(mr pass)", rule=PASS_RULE)


def _passed_steps(state: MRState, dice: DicePort, *, started: bool) -> list[Event]:
    """The events of the round's remaining steps, each decided as its own command would decide it (``started``:
    after a vote in the same batch, so stopping before a seed step is progress, not a refusal)."""
    from combatlog.rulesets.magic_realm.evolve import evolve
    from combatlog.rulesets.magic_realm.sealed import SEED_RULE
    from combatlog.rulesets.magic_realm.turns import deciders

    st, out, seq, rnd = state, [], 0, state.round
    placed: set[int] = set()
    for _ in range(200):
        if st.ended or st.round != rnd or st.step not in PASS_STEPS:
            break
        who = deciders(st, st.step)
        command = pass_command(st, st.step, who[0] if who else "")
        before = len(dice.drawn)
        try:
            events = decide(st, command, dice)
        except IllegalCommand as exc:
            if exc.rule == SEED_RULE and (out or started):  # the Attention chits wait for a fresh joint seed
                break
            raise
        fresh = [d for d in dice.drawn[before:] if all(d is not x for x in events)]
        for ev in [*fresh, *events]:
            if id(ev) in placed:
                continue
            placed.add(id(ev))
            out.append(ev)
            seq += 1
            st = evolve(st, ev, seq)
    return out
