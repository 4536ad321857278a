"""What one player must decide now in a Magic Realm combat, with the command to paste (``status --mine``).

``pending`` says who the combat waits for; this says, for one player, which command each of his
decisions takes: the combat's name, his character, the hirelings the command needs and ``--seal``
when his plays are sealed. Words in capitals are his to choose (``CIRCLE``, ``CHIT``, ``BOX``...), with
the choices in ``options`` where they are few.

Steps that no character decides (the random assignment, the Attention chits, the resolution) are the
referee's: ``referee`` says whether this player takes them (docs/trust.md, "Whose move").
"""

from __future__ import annotations

import json

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.authority import player_of
from combatlog.rulesets.magic_realm.decide import STEP_RULES
from combatlog.rulesets.magic_realm.fatigue import options, owed
from combatlog.rulesets.magic_realm.rounds import deciders, unassigned_denizens
from combatlog.rulesets.magic_realm.sealed import (
    RULE, SEED_MOVES, SEED_RULE, closing_link, seed_hint, seed_step_name, sealed_for, sealed_required, step_name,
)
from combatlog.rulesets.magic_realm.state import MRState
from combatlog.trust.api import MyMove, command_line

TABLE_STEPS = {"lure": ("assign", "random assignment", "MR 001 Random assignment", "assign"),
               "actions": ("melee", "start the Melee Step (Attention chits)", "MR 8.4.2", "attention"),
               "resolve": ("resolve", "reposition, change tactics and resolve the Melee Step", "MR 8.4.6", "")}


def my_moves(state: MRState, player: str, stream: str, referee: bool, unplayed: bool = False) -> list[MyMove]:
    """``unplayed``: ``player`` moves the characters whose set-up names no player too (authority.py)."""
    if state.ended:
        return []
    cmd = lambda *words: command_line(*words, actor=player)  # noqa: E731
    rule = STEP_RULES.get(state.step, "MR 001")
    mine = [cid for cid in deciders(state, state.step)
            if player_of(state, cid) == player or (unplayed and not player_of(state, cid))]
    out: list[MyMove] = []
    if state.step == "plays":
        out += _plays(state, player, stream, mine, cmd)
    elif state.step == "fatigue":
        out += [_fatigue(state, cid, stream, cmd, rule) for cid in mine]
    else:
        for cid in mine:
            out.append(_step_move(state, cid, stream, cmd, rule))
    out += _seed_moves(state, player, stream, cmd, referee)
    if referee and not deciders(state, state.step) and state.step in TABLE_STEPS and (
            not _seed_needed(state) or closing_link(state, player)):
        # With nonce chains the referee's command reveals his link first when it is the last one missing.
        word, what, table_rule, _phase = TABLE_STEPS[state.step]
        # mr resolve also reveals the referee's sealed plays: it stands for that step, not beside it
        step = step_name(state) if state.step == "resolve" else ""
        out.append(MyMove(what=f"{what} (a step of the referee's)", rule=table_rule, command=cmd("mr", word, stream),
                          step=step))
    return out


def out_of_the_fight(state: MRState, player: str) -> str:
    """'' while one of ``player``'s characters is in the fight; else how they are out of it ("bk is dead",
    "bk is gone from the clearing"): ``trust/mine.out_of_the_fight`` words it for the views."""
    own = [c for c in state.characters.values() if c.player == player]
    if not own or any(c.alive and c.present for c in own):
        return ""
    return ", ".join(f"{c.id} is {'dead' if not c.alive else 'gone from the clearing'}" for c in own)


def _step_move(state: MRState, cid: str, stream: str, cmd, rule: str) -> MyMove:  # type: ignore[no-untyped-def]
    c = state.characters[cid]
    if state.step == "lure":
        free = unassigned_denizens(state)
        return MyMove(what=f"{cid} lures denizens (add their ids) or passes (as it stands)", rule=rule,
                      command=cmd("mr", "lure", stream, cid), options=tuple(free))
    if state.step == "deploy":
        idle = q.unassigned_hirelings(state, cid)
        return MyMove(what=f"{cid} deploys hirelings (--hireling HIRELING=DENIZEN) or charges (--charge CHARACTER "
                           "--chit MOVE-CHIT), or passes (as it stands)", rule=rule,
                      command=cmd("mr", "deploy", stream, cid), options=tuple(idle))
    if state.step == "actions":
        return MyMove(what=f"{cid} declares an action (alert, run, fly, cast, activate, deactivate, abandon) or none "
                           "(as it stands)", rule=rule, command=cmd("mr", "action", stream, cid, "none"),
                      options=("none", "alert --chit CHIT", "run --chit CHIT", "fly --chit CHIT",
                               "cast --spell SPELL --chit CHIT"))
    if state.step == "targets":
        words = ["mr", "target", stream, cid]
        candidates = _targets(state, cid)
        if c.present:
            words.append(candidates[0] if len(candidates) == 1 else "TARGET")
        where = q.sheets(state)
        for hid in q.hirelings_of(state, cid):
            if where.get(hid) != hid:
                continue
            attackers = [p for p in q.on_sheet(state, hid, where)
                         if p in state.denizens and not state.denizens[p].parent]
            if attackers:
                words += ["--hireling", f"{hid}={attackers[0] if len(attackers) == 1 else 'ATTACKER'}"]
        return MyMove(what=f"{cid} selects a target (and his hirelings attacked on their own sheets theirs)",
                      rule=rule, command=cmd(*words), options=tuple(candidates))
    return MyMove(what=f"{cid}: {state.step}", rule=rule)


def _targets(state: MRState, cid: str) -> list[str]:
    """Whom he could name as his target: the characters and denizens in the fight he can attack."""
    out = [d.id for d in state.denizens.values() if d.alive and not d.parent and d.owner != cid]
    out += [o for o in q.in_clearing(state) if o != cid]
    return sorted(out)


def _play_words(state: MRState, cid: str) -> list[str]:
    """The options of ``mr play`` one character needs: attack and Fight chit when he has a target,
    maneuver and Move chit, the shield when it is active, a box for each hireling on its own sheet."""
    c = state.characters[cid]
    words: list[str] = []
    if c.present:
        if state.targets.get(cid):
            words += ["--attack", "CIRCLE"] + ([] if c.form is not None else ["--fight", "CHIT"])
        words += ["--maneuver", "SQUARE"] + ([] if c.form is not None else ["--move", "CHIT"])
        if any(a.kind == "shield" and a.active and a.condition != "destroyed" for a in c.armor):
            words += ["--shield", "BOX"]
    where = q.sheets(state)
    for hid in q.hirelings_of(state, cid):
        if where.get(hid) == hid:
            words += ["--hireling-box", f"{hid}=BOX"]
    return words


def _plays(state: MRState, player: str, stream: str, mine: list[str], cmd) -> list[MyMove]:  # type: ignore[no-untyped-def]
    plain = [cid for cid in mine if not sealed_for(state, cid)]
    out = [MyMove(what=f"{cid} plays attack, maneuver and armor (secret; his player is not pinned, so not sealed)",
                  rule="MR 8.4.5", command=cmd("mr", "play", stream, cid, *_play_words(state, cid)))
           for cid in plain]
    if not state.players or player not in state.players:
        return out
    step = step_name(state)
    info = state.sealed.get(step)
    waiting = info.waiting() if info is not None else [(p, "commit") for p in
                                                        (sealed_required(state, step) or state.players)]
    todo = dict(waiting).get(player)
    if todo == "link":  # a chained step: a player's contribution to the plays is his sealed plays (or empty ones)
        todo = "commit"
    sealed = [cid for cid in mine if sealed_for(state, cid)]
    if todo == "reveal":
        out.append(MyMove(what=f"reveal your sealed plays (every side has sealed) [step {step}]", rule=RULE,
                          command=cmd("mr", "reveal", stream), step=step))
    elif todo == "commit" and len(sealed) == 1:
        cid = sealed[0]
        out.append(MyMove(what=f"seal the plays of {cid} (secret; checked now as the reveal will) [step {step}]",
                          rule=RULE, command=cmd("mr", "play", stream, cid, *_play_words(state, cid), "--seal"),
                          step=step))
    elif todo == "commit" and sealed:
        fields = {cid: {"attack": "CIRCLE", "fight": "CHIT", "maneuver": "SQUARE", "move": "CHIT"} for cid in sealed}
        out.append(MyMove(what=f"seal the plays of {', '.join(sealed)} together (secret) [step {step}]", rule=RULE,
                          command=cmd("seal", "commit", stream, "--step", step, "--orders-json",
                                      json.dumps({"plays": fields})), step=step))
    elif todo == "commit":
        out.append(MyMove(what=f"commit empty plays (a nonce for the round's joint dice) [step {step}]", rule=RULE,
                          command=cmd("mr", "seed", stream), step=step))
    return out


def _fatigue(state: MRState, cid: str, stream: str, cmd, rule: str) -> MyMove:  # type: ignore[no-untyped-def]
    c = state.characters[cid]
    need, types = owed(c, state.used.get(cid, ()))
    opts = options(c, need, types)
    words = ["mr", "fatigue", stream, cid]
    if len(opts) == 1:
        for chit in opts[0].fatigue:
            words += ["--chit", chit]
        if opts[0].change:
            words += ["--change", opts[0].change]
    elif opts:
        words += ["--chit", "CHIT"]
    words += ["--wound", "CHIT"] * c.wounds
    return MyMove(what=f"{cid} pays {need} asterisk(s) of fatigue and takes {c.wounds} wound(s)", rule=rule,
                  command=cmd(*words), options=tuple(o.text(c) for o in opts)[:20])


def _seed_needed(state: MRState) -> bool:
    """Joint dice: the referee's next step needs a fresh seed step first (``sealed.seed_hint``)."""
    kind = {"lure": "lure", "actions": "run"}.get(state.step)
    return bool(kind and seed_hint(state, kind, TABLE_STEPS[state.step][3]))


def _seed_moves(state: MRState, player: str, stream: str, cmd, referee: bool = False) -> list[MyMove]:  # type: ignore[no-untyped-def]
    """A seed step (``r<N>/assign``, ``r<N>/attention``) the joint dice need before the referee's next
    step, when this player must commit or reveal to it."""
    if not state.joint or player not in state.players or state.step not in ("lure", "actions"):
        return []
    if deciders(state, state.step) or not _seed_needed(state):
        return []
    step = seed_step_name(state, TABLE_STEPS[state.step][3])
    info = state.sealed.get(step)
    todo = dict(info.waiting()).get(player) if info is not None else (
        "link" if state.chains.all_chained and player not in state.chains.released else "commit")
    if todo == "commit":
        dice = {"lure": "random assignment", "actions": "Attention chits"}[state.step]
        return [MyMove(what=f"joint dice of the {dice}: {SEED_MOVES['commit']} [step {step}]",
                       rule=SEED_RULE, command=cmd("mr", "seed", stream), step=step)]
    if todo == "reveal":
        return [MyMove(what=f"{SEED_MOVES['reveal']} [step {step}]", rule=SEED_RULE,
                       command=cmd("mr", "reveal", stream), step=step)]
    if todo == "link" and not (referee and info is not None):
        # The referee reveals his link last, with the step that draws from it (first mover reveals last). Any
        # other player owes his link, even the last one missing: only the referee's command reveals it for him.
        return [MyMove(what=f"{SEED_MOVES['link']} [step {step}]", rule=SEED_RULE,
                       command=cmd("mr", "seed", stream), step=step)]
    return []
