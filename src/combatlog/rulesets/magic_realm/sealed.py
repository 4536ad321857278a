# Over 500 lines on purpose: the commit, fold and reveal of sealed plays and the joint-dice seed steps are one protocol over the same state; split, its steps would be read apart.
"""Sealed secret plays and joint dice for Magic Realm played by mail (MR 8.4.5 with the trust layer).

MR 8.4.5: each side plays its attack, maneuver and armor *secretly*, then all sides reveal
simultaneously. In a combat that pins players (``combatlog new ... --player``), concealment in the
views is not enough (each player holds the whole log), so each pinned player seals his side's plays
with the trust layer's commit-reveal (``trust.api``):

- step ``r<N>/plays``: the orders are ``{"plays": {CHARACTER: {attack, fight, ...}}}``, the same
  fields as ``mr play``, for every character of that player taking part in the Melee Step;
  ``check_orders`` validates them exactly as ``mr play`` does before the commit (on the committing
  machine); the reveal makes them the side's plays (``apply_revealed``);
- steps ``r<N>/assign`` and ``r<N>/attention`` (``#2``, ``#3``... when one is needed again): empty
  orders, only a nonce, to seed the joint dice of the random assignment or the Attention chits when
  no usable seed is known (docs/trust.md, "Magic Realm plays").

With ``joint`` dice every pinned player commits to ``r<N>/plays`` (a player without a character in
the fight commits empty plays), so its reveals form the round's seed and the repositioning, change
tactics and missile dice of ``mr resolve`` derive from it (docs/trust.md, "Magic Realm plays").
"""

from __future__ import annotations

from collections.abc import Callable

import re
from typing import Any

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.events.core import ChainCommitted, ChainReleased, DecisionMarked, LinkRevealed, OrdersCommitted, OrdersRevealed
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.base import Pending
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.plays import check_play, void_chits
from combatlog.rulesets.magic_realm.state import MRState, Plays
from combatlog.rulesets.magic_realm.turns import deciders, need_step
from combatlog.rulesets.magic_realm.work import Work
from combatlog.trust.api import RefusedAtReveal, SealedStep, decision_point, track_chains, track_sealed

RULE = "MR 8.4.5 / trust: sealed orders"
SEED_RULE = 'trust: joint dice, docs/trust.md "Magic Realm plays"'
_STEP = re.compile(r"^r([1-9][0-9]{0,5})/(plays|assign|attention)(#[2-9]|#[1-9][0-9]+)?$")
FORMAT = '{"plays": {"CHARACTER": {"attack": 1, "fight": "F1", "maneuver": 2, "move": "M1", "shield": 1}}}'


def step_name(state: MRState, phase: str = "plays") -> str:
    """Deterministic step names: ``r<round>/plays``, ``r<round>/assign``, ``r<round>/attention``."""
    return f"r{state.round}/{phase}"


def seed_step_name(state: MRState, phase: str) -> str:
    """A fresh seed step for ``phase``: ``r<N>/assign``, then ``r<N>/assign#2`` ... once one completed."""
    base = name = step_name(state, phase)
    k = 1
    while name in state.sealed and state.sealed[name].complete:
        k += 1
        name = f"{base}#{k}"
    return name


def parse_step(step: str) -> tuple[int, str] | None:
    m = _STEP.match(step)
    return (int(m.group(1)), m.group(2)) if m else None


def sealed_for(state: MRState, cid: str) -> bool:
    """A character's plays are sealed when his player is pinned in the genesis."""
    return state.characters[cid].player in state.players


def owners(state: MRState) -> list[str]:
    """Pinned players with a character still to play in this Melee Step."""
    return sorted({state.characters[cid].player for cid in deciders(state, "plays") if sealed_for(state, cid)})


# -- the ruleset hooks (docs/trust.md, "For ruleset authors") ----------------------------------


def sealed_required(state: MRState, step: str) -> tuple[str, ...]:
    """Who must commit before anyone reveals.

    ``r<N>/plays``: with joint dice every pinned player, so the step seeds the round's dice
    (docs/trust.md, "Magic Realm plays"); otherwise the pinned players with a character in the Melee Step (MR 8.4.5:
    every side plays). Seed-only steps: the default (every pinned player)."""
    parsed = parse_step(step)
    if parsed is None or parsed[1] != "plays" or not state.players:
        return ()
    if state.joint:
        return tuple(state.players)
    return tuple(owners(state))


def plays_of(orders: Any) -> dict[str, c.Play]:
    """The ``mr play`` commands a sealed order holds (shape errors are InvalidCommand)."""
    if not isinstance(orders, dict) or set(orders) != {"plays"} or not isinstance(orders["plays"], dict):
        raise InvalidCommand(f"Magic Realm plays are sealed as {FORMAT}")
    out: dict[str, c.Play] = {}
    for cid, entry in orders["plays"].items():
        if not isinstance(entry, dict) or "character" in entry:
            raise InvalidCommand(f"the plays of {cid!r} are an object of mr play fields (attack, fight, alert_only, "
                                 "maneuver, move, horse, shield, place, hirelings, part_attack, part_side)")
        try:
            out[cid] = msgspec.convert({**entry, "character": cid}, c.Play)
        except msgspec.ValidationError as exc:
            raise InvalidCommand(f"the plays of {cid}: {exc}") from None
    return out


def play_orders(cmd: c.Play) -> dict[str, Any]:
    """One ``mr play`` as the orders entry for its character (defaults left out)."""
    raw = msgspec.to_builtins(cmd)
    raw.pop("character")
    default = msgspec.to_builtins(c.Play(character=cmd.character))
    return {k: v for k, v in raw.items() if v != default.get(k)}


def check_orders(state: MRState, step: str, player: str, orders: dict[str, Any]) -> None:
    """Refuse sealed orders ``mr play`` would refuse (MR 8.4.5), naming the rule; steps that are not
    Magic Realm's (no ``r<N>/plays|assign|attention`` name) are left to the players.

    Orders that are not this player's to seal now, or malformed, are refused outright. A play the
    reveal would void (``apply_revealed``: wrong chit type, a counter not on his sheet...) or cancel
    (``rules.cancellations``: strength, effort limit) is refused as ``RefusedAtReveal``, every problem
    named with its rule; the player may seal it anyway (``--anyway``)."""
    parsed = parse_step(step)
    if parsed is None:
        return
    rnd, phase = parsed
    if phase != "plays":
        if orders:
            raise InvalidCommand(f"step {step} only seeds the joint dice: its orders are empty (mr seed)")
        return
    if state.ended:
        raise IllegalCommand(f"the combat has ended ({state.end_reason})", rule="MR 001 Disengagement")
    if state.round_passed and rnd == state.round:
        raise IllegalCommand(f"every character agreed to pass round {state.round}: nobody seals plays in it (mr pass "
                             "takes its next steps)", rule="MR 001 A Round of Combat: every character passes")
    early = state.step == "targets" and rnd == state.round and orders == {"plays": {}} and not any(
        state.characters[cid].player == player for cid in q.participants(state))
    if early:
        # A player with no character in this Melee Step has no plays to choose: his (empty) commit may come
        # during target selection, with the Attention chits, so the step waits for no message of his.
        return
    need_step(state, "plays", "sealing attacks and maneuvers")
    if rnd != state.round:
        raise IllegalCommand(f"this is round {state.round}: its plays are sealed in step {step_name(state)}",
                             rule=RULE)
    plays = plays_of(orders)
    mine = [cid for cid in q.participants(state) if state.characters[cid].player == player
            and sealed_for(state, cid) and cid not in state.done]
    if set(plays) != set(mine):
        raise IllegalCommand(f"{player} seals the plays of exactly his characters in this Melee Step: "
                             f"{', '.join(mine) or 'none (empty plays: mr seed)'}; the orders name "
                             f"{', '.join(sorted(plays)) or 'none'}", rule=RULE)
    problems: list[tuple[str, str]] = []
    for cid, cmd in sorted(plays.items()):
        try:
            fight, move = check_play(state, cmd)
        except IllegalCommand as exc:
            void = void_chits(state, cmd)
            still = (f" (his chits {_labels(state, cid, void)} would still count toward his effort limit and "
                     "fatigue, MR 8.4.5)" if void else "")
            problems.append((f"{cid}'s plays would be void at the reveal, so he would play nothing{still}: "
                             f"{exc.message.removesuffix(f' ({exc.rule})')}", exc.rule))
            continue
        char = state.characters[cid]
        for kind, chit_id, why, rule in q.cancellations(state, char, fight, move):
            if why:
                label = char.chit(chit_id).label  # type: ignore[union-attr]
                problems.append((f"{cid}'s {kind} with {chit_id} {label} would be cancelled at the reveal: {why}",
                                 rule))
    if problems:
        raise RefusedAtReveal(problems)


# -- evolve: the sealed events ----------------------------------------------------------------


def fold_sealed(w: Work, event: Event) -> None:
    """Track the sealed steps and nonce chains; a completed seed step becomes the current seed (with the
    choices made while its seed was foreknown); revealed plays of this round become the side's plays; a
    decision point is noted."""
    st = w.view()
    steps = track_sealed(st.sealed, event, st.chains)
    w.set(sealed=steps, chains=track_chains(st.chains, event))
    parsed = parse_step(getattr(event, "step", "") or "")
    match event:
        case OrdersCommitted():
            if parsed and parsed[1] == "plays":
                w.step(RULE, f"{event.player} seals the plays for {event.step}: only a hash is in the log")
            elif parsed:
                w.step(SEED_RULE, f"{event.player} commits a nonce to {event.step} (joint dice seed)")
        case LinkRevealed():
            w.step(SEED_RULE, f"{event.player} reveals link {event.index} of his nonce chain for {event.step} "
                   "(joint dice seed)")
        case ChainCommitted():
            w.step(SEED_RULE, f"{event.player} commits to a chain of {event.length} nonces (joint dice seeds)")
        case ChainReleased():
            w.step(SEED_RULE, f"{event.player} releases his nonce chain: his links now contribute by themselves")
        case DecisionMarked():
            w.step(SEED_RULE, f"decision point: {event.player} chose after the seed of {st.seed or '-'} was known "
                   f"({event.what})")
    for name, info in steps.items():
        before = st.sealed.get(name)
        if info.complete and not (before is not None and before.complete) and st.players \
                and set(st.players) <= set(info.required):
            foreknown = tuple((k, p, what) for s, k, p, what in w.get("foreknown") if s == name)
            w.set(seed=name, seed_choices=foreknown,
                  foreknown=tuple(x for x in w.get("foreknown") if x[0] != name))
            if st.joint:
                w.step(SEED_RULE, f"step {name} is complete: the joint dice now derive from its seed")
    if isinstance(event, OrdersRevealed) and parsed and parsed[1] == "plays" and parsed[0] == st.round \
            and st.step == "plays":
        apply_revealed(w, event.player, event.orders)
    if isinstance(event, LinkRevealed) and parsed and parsed[1] == "plays" and parsed[0] == st.round \
            and st.step == "plays" and any(st.characters[cid].player == event.player for cid in deciders(st, "plays")):
        # Decision: a bare link from a player with characters in the Melee Step seals no plays: they play
        # nothing this round (as orders that leave them out), and the round goes on.
        apply_revealed(w, event.player, {"plays": {}})


def apply_revealed(w: Work, player: str, orders: Any) -> None:
    """The revealed orders become the plays of the player's characters (MR 8.4.5).

    Decision: a revealed play that ``mr play`` would refuse (possible only from a client that
    skipped ``check_orders``) is void: that character plays nothing this round, and the step says
    why with the rule. A character the orders leave out plays nothing."""
    st = w.view()
    try:
        plays = plays_of(orders)
    except InvalidCommand as exc:
        w.step(RULE, f"{player}'s revealed plays are malformed ({exc}): his characters play nothing")
        plays = {}
    mine = [cid for cid in deciders(st, "plays") if st.characters[cid].player == player and sealed_for(st, cid)]
    for cid in sorted(set(plays) - set(mine)):
        w.step(RULE, f"{player}'s revealed plays for {cid} are ignored: not his character in this Melee Step")
    for cid in mine:
        cmd = plays.get(cid)
        fight = move = ""
        void: tuple[str, ...] = ()
        if cmd is None:
            w.step(RULE, f"{player} sealed no plays for {cid}: he plays nothing")
            cmd = c.Play(character=cid)
        else:
            try:
                fight, move = check_play(st, cmd)
            except (IllegalCommand, InvalidCommand) as exc:
                void = void_chits(st, cmd)
                w.step(getattr(exc, "rule", "") or RULE,
                       f"{cid}'s revealed plays are illegal ({exc}): void, he plays nothing this round"
                       + (f"; the chits he played ({_labels(st, cid, void)}) are cancelled but still count toward "
                          "his effort limit and fatigue" if void else ""))
                cmd, fight, move = c.Play(character=cid), "", ""
        record_plays(w, cid, cmd, fight, move, void)


def _labels(state: MRState, cid: str, chits: tuple[str, ...]) -> str:
    char = state.characters[cid]
    return ", ".join(f"{i} {char.chit(i).label}" for i in chits)  # type: ignore[union-attr]


def record_plays(w: Work, cid: str, cmd: Any, fight: str, move: str, void: tuple[str, ...] = ()) -> None:
    """One side's plays enter the state (from ``mr.plays_made`` or a reveal); secret until every
    side has played (MR 8.4.5). ``void``: the chits of a revealed play the rules void (``void_chits``),
    put in Used This Round when the plays are revealed (``rounds.reveal``)."""
    plays = Plays(attack=cmd.attack, fight=fight, alert_only=cmd.alert_only, maneuver=cmd.maneuver, move=move,
                  horse=cmd.horse, shield=cmd.shield, place=dict(cmd.place), hirelings=dict(cmd.hirelings),
                  part_attack=getattr(cmd, "part_attack", 0), part_side=getattr(cmd, "part_side", ""), void=void)
    flips = dict(w.get("weapon_flip"))
    if fight and not cmd.attack:
        flips[cid] = cmd.alert_only or "alert"
    w.set(plays={**w.get("plays"), cid: plays}, done=w.get("done") + (cid,), weapon_flip=flips)
    w.step("MR 8.4.5", f"{cid} has played (secret until every side has played)")


def reveal_early(w: Work) -> None:
    """Orders of this round's plays revealed before the Melee Step reached the plays (a log written
    by a client that skipped ``check_orders``) take effect when it does."""
    st = w.view()
    info = st.sealed.get(step_name(st))
    for player, orders in sorted((info.orders if info else {}).items()):
        apply_revealed(w, player, orders)


# -- joint dice: a fresh seed where a choice was made with the seed known ---------------------------


def note_choice(w: Work, kind: str, cid: str, what: str) -> None:
    """Record a choice made while the joint seed was known (for a later decision point), and one made while
    every other contribution to the open chained seed step was public: the chooser could compute that
    step's seed from his own chain (docs/trust.md, "Nonce chains", foreknowledge)."""
    st = w.view()
    player = st.characters[cid].player
    if st.joint and st.seed:
        w.set(seed_choices=w.get("seed_choices") + ((kind, player, what),))
    step = foreknown_step(st, player)
    if st.joint and step:
        w.set(foreknown=w.get("foreknown") + ((step, kind, player, what),))


def open_seed_step(state: MRState) -> SealedStep | None:
    for info in state.sealed.values():
        if info.chained and not info.complete:
            return info
    return None


def foreknown_step(state: MRState, player: str) -> str:
    """The open chained seed step whose seed ``player`` can compute now ('' if none)."""
    info = open_seed_step(state)
    if info is None or player not in info.required or info.contributed(player):
        return ""
    return info.step if all(info.contributed(p) for p in info.required if p != player) else ""


def fresh_seed_events(state: MRState, dice: Any, kind: str, labels_of: Callable[[], list[str]],
                      phase: str) -> list[Event]:
    """Before joint dice that depend on choices made while their seed was known: strict mode
    refuses (a fresh seed step ``r<N>/<phase>`` first), friendly mode marks the decision points
    (docs/trust.md, "Decision points" and "Magic Realm plays"). ``labels_of`` names the dice the step
    would draw (a dry run of the step: made only for joint dice)."""
    if getattr(dice, "scheme", "") != "joint":
        return []
    labels = labels_of()
    if not labels:
        return []
    fresh = seed_step_name(state, phase)
    how = seed_instruction(state.chains.all_chained, fresh, full=True, waiting=seed_waiting(state, fresh))
    if not state.seed:
        raise IllegalCommand(f"joint dice need a seed first: {how}", rule=SEED_RULE)
    choices = [(p, what) for k, p, what in state.seed_choices if k == kind]
    if not choices:
        return []
    if state.joint == "strict":
        who = "; ".join(f"{p}: {what}" for p, what in choices)
        raise IllegalCommand(f"{', '.join(labels)} would depend on choices made after the seed of {state.seed} was "
                             f"known ({who}); strict joint dice need a fresh seed: {how}", rule=SEED_RULE)
    return [decision_point(p, what) for p, what in choices]


def seed_hint(state: MRState, kind: str, phase: str) -> str:
    """For ``pending``: what joint dice need before the next roll ('' if nothing)."""
    if not state.joint:
        return ""
    fresh = seed_step_name(state, phase)
    waiting = seed_waiting(state, fresh)
    needs = bool(waiting) or not state.seed or (
        state.joint == "strict" and any(k == kind for k, _p, _w in state.seed_choices))
    how = seed_instruction(state.chains.all_chained, fresh, waiting=waiting)
    return f"; joint dice need a fresh seed first: {how}" if needs else ""


# The referee's command that draws a seed step's dice, by the step's phase: it reveals the referee's own
# link first when it is the last one missing (cli/ride.py, ``before_referee``).
_DRAWN_BY = {"assign": "mr assign", "attention": "mr melee", "plays": "mr resolve"}


def seed_waiting(state: MRState, step: str) -> list[tuple[str, str]]:
    """Who still owes what to the seed step ``step`` once it is open (``[]`` before anyone contributed).

    A player with no character in the fight (the referee) owes his link as ``closes``: it goes with the
    command that draws the step's dice, once every other part is in, as his ``status --mine`` says."""
    info = state.sealed.get(step)
    if info is None or info.complete:
        return []
    playing = {c.player for c in state.characters.values()}
    return [(p, "closes" if what == "link" and p not in playing else what) for p, what in info.waiting()]


# What each player owes a seed step, in the same words everywhere (status, status --mine, mail).
SEED_MOVES = {"link": "reveal your next chain link (one message): mr seed",
              "commit": "commit a nonce: mr seed (then mr reveal once every player has committed)",
              "reveal": "reveal your nonce (every player has committed): mr reveal"}


def seed_instruction(chained: bool, step: str, full: bool = False,
                     waiting: list[tuple[str, str]] | None = None) -> str:
    """The one wording of what every player does for a fresh joint-dice seed: ``status``, the refusal of
    ``mr assign`` and the rolls that need it say the same (``full``: whole command lines). Once the step is
    open (``waiting``: ``seed_waiting``), only those who still owe their part are named, each with his."""
    seed, reveal = ("combatlog mr seed STREAM", "combatlog mr reveal STREAM") if full else ("mr seed", "mr reveal")
    if waiting:
        parsed = parse_step(step)
        closer = _DRAWN_BY.get(parsed[1] if parsed else "", "the command that draws the dice")
        part = {"link": f"next chain link: {seed}", "commit": f"a nonce: {seed}", "reveal": f"reveal: {reveal}",
                "closes": f"his link goes with {closer}, once the others are in"}
        return f"step {step} waits for " + ", ".join(f"{p} ({part.get(what, what)})" for p, what in waiting)
    if chained:
        return f"every player runs: {seed} (step {step}: their next chain link, one message)"
    # Someone has no chain yet: mr seed commits one with its first link (one message), unless his machine
    # keeps him off chains (COMBATLOG_NONCE_CHAINS=off), where it commits a nonce that mr reveal opens.
    return (f"every player runs: {seed} (step {step}: their next chain link, one message; "
            f"with nonce chains off, then: {reveal})")


def plays_pending(state: MRState, plain: list[str]) -> list[Any]:
    """``pending`` at the plays of a combat with pinned players: who commits, who reveals."""
    step = step_name(state)
    info = state.sealed.get(step)
    waiting = info.waiting() if info is not None else [(p, "commit") for p in
                                                        (sealed_required(state, step) or state.players)]
    out = []
    for p, what in waiting:
        chars = [cid for cid in deciders(state, "plays") if state.characters[cid].player == p]
        if what == "reveal":
            text = "reveal the sealed plays (every side has sealed): mr reveal"
        elif not chars and what == "link":
            text = "commit empty plays (a chain link for the round's joint dice): mr seed"
        elif chars:
            text = f"seal the plays of {', '.join(chars)} (secret): mr play STREAM CHARACTER ... --seal"
        else:
            text = "commit empty plays (a nonce for the round's joint dice): mr seed"
        out.append(Pending(who=p, what=f"{text} [step {step}]", rule=RULE))
    for cid in plain:
        out.append(Pending(who=f"{state.characters[cid].player} ({cid})", rule="MR 8.4.5",
                           what="play attack, maneuver, armor (his player is not pinned: not sealed): mr play"))
    return out


# -- nonce chains: which contribution rides along with a command (docs/trust.md, "Nonce chains") -------------

_DICE_PHASE = {"lure": "assign", "deploy": "attention", "actions": "attention"}


def _owners(state: MRState, cids: list[str]) -> set[str]:
    return {state.characters[cid].player for cid in cids}


def _pending_before_dice(state: MRState) -> set[str]:
    """Players who still decide something before the next dice step (the random assignment after luring,
    the Attention chits after deployment and actions)."""
    if state.step == "lure":
        return _owners(state, deciders(state, "lure"))
    if state.step == "deploy":
        acting = [cid for cid in q.in_clearing(state) if cid not in state.charges]
        return _owners(state, deciders(state, "deploy")) | _owners(state, acting)
    if state.step == "actions":
        return _owners(state, deciders(state, "actions"))
    return set()


def ride_step(state: MRState, player: str) -> str:
    """The seed step to which ``player``'s next link should be revealed now, with the decision he just
    made ('' when none is due, or when revealing it now would let the last decider know the seed).

    Rule 3 (foreknowledge): a decision made while every other contribution is public is a decision point;
    so a player reveals his link only if someone who decides nothing more before the dice (the referee,
    or a player who is done) is still to contribute and will close the step, or if he is the last to decide.
    Otherwise he is the first mover and reveals last (``mr seed``), after the others' decisions."""
    chains = state.chains
    if not state.joint or player not in state.players or not chains.all_chained or player in chains.released:
        return ""
    info = open_seed_step(state)
    if info is not None:
        parsed = parse_step(info.step)
        if parsed is None or parsed[1] == "plays" or info.contributed(player) or player in info.committed:
            return ""
        step, required = info.step, info.required
    else:
        phase = _DICE_PHASE.get(state.step)
        if phase is None or any(not s.complete for s in state.sealed.values()):
            return ""
        step, required = seed_step_name(state, phase), state.players
    remaining = [p for p in required if p != player and p not in chains.released
                 and not (info is not None and info.contributed(p))]
    if not remaining:
        return step
    pending = _pending_before_dice(state)
    return step if any(p not in pending for p in remaining) else ""


def closing_link(state: MRState, player: str) -> str:
    """The open chained seed step in which ``player`` is the only one still to contribute, by a link ('' if
    none): the referee's command that draws from it reveals his link first."""
    info = open_seed_step(state)
    if info is None or player in info.committed or info.contributed(player):
        return ""
    parsed = parse_step(info.step)
    if parsed is not None and parsed[1] == "plays" and any(
            state.characters[cid].player == player for cid in q.participants(state)):
        return ""
    return info.step if all(info.contributed(p) for p in info.required if p != player) else ""


def early_plays_due(state: MRState, player: str) -> str:
    """The plays step a player with no character in the Melee Step commits to early (empty plays, his next
    link as the nonce), with the Attention chits, so that it waits for no message of his ('' if not due)."""
    if not state.joint or player not in state.players or not state.chains.all_chained \
            or player in state.chains.released or state.step not in ("targets", "plays"):
        return ""
    if any(state.characters[cid].player == player for cid in q.participants(state)):
        return ""
    step = step_name(state)
    info = state.sealed.get(step)
    if info is not None and (player in info.committed or info.contributed(player)):
        return ""
    if info is None and any(not s.complete for s in state.sealed.values()):
        return ""
    return step


def release_due(state: MRState, player: str) -> bool:
    """A player whose characters are all out of the fight (dead, or gone with no hireling left) and who
    owes nothing has nothing left to decide: he may release his chain (docs/trust.md, "Nonce chains")."""
    chains = state.chains
    if not state.joint or player not in chains.committed or player in chains.released or state.ended:
        return False
    mine = [cid for cid, ch in state.characters.items() if ch.player == player]
    if not mine or any(cid in q.participants(state) for cid in mine):
        return False
    if any(state.characters[cid].player == player for cid in deciders(state, state.step)):
        return False
    # someone else must still hold an unreleased chain (one with no chain is no secret: trust/track.py)
    secret = [p for p in state.players if p != player and p in chains.committed and p not in chains.released]
    return bool(secret) and not any(player in s.committed and player not in s.orders and not s.complete
                                    for s in state.sealed.values())


# -- the commands of the seed steps: ``mr seed`` and what a referee's step contributes first ---------------------

_SEED_PHASE = {"lure": "assign", "deploy": "attention", "actions": "attention", "targets": "plays", "plays": "plays"}


def seed_command(state: MRState) -> Any:
    """The command ``mr seed`` runs now (the CLI and the legal moves build it here, alike): a contribution to the
    seed step left open (a link where it is chained, else a nonce; one seed step at a time, so it comes first);
    else empty plays for the round's plays step (a player with no character in the Melee Step); else a
    contribution to a fresh ``r<N>/assign``/``r<N>/attention`` for the next dice: the player's next chain link
    where every player has a chain, else a nonce to commit. Raises ``InvalidCommand`` at a step that seeds no
    dice."""
    from combatlog.trust.commands import CommitOrders, RevealLink

    phase = _SEED_PHASE.get(state.step)
    if phase is None:
        raise InvalidCommand(f"no Magic Realm dice seed is due at this step ({state.step}); a seed is sealed before "
                             "mr assign, mr melee, or as empty plays")
    left = next((s for s in state.sealed.values() if not s.complete and set(state.players) <= set(s.required)
                 and (parse_step(s.step) or (0, "plays"))[1] != "plays"), None)
    if left is not None:
        return RevealLink(step=left.step) if left.chained else CommitOrders(step=left.step, orders={})
    if phase == "plays":
        return CommitOrders(step=step_name(state), orders={"plays": {}})
    step = seed_step_name(state, phase)
    if state.chains.all_chained and not any(not s.complete for s in state.sealed.values()):
        return RevealLink(step=step)
    return CommitOrders(step=step, orders={})


def seed_owers(state: MRState, step: str) -> tuple[str, ...]:
    """The pinned players who may still contribute to seed step ``step`` (all of them before it opens), but for a
    player with no character in the fight whose link closes the open step (``seed_waiting``: it goes with the
    referee's step that draws the dice, ``contributed_first``)."""
    info = state.sealed.get(step)
    if info is None:
        return tuple(state.players)
    closes = {p for p, what in seed_waiting(state, step) if what == "closes"}
    return tuple(p for p in info.required if not info.contributed(p) and p not in info.committed and p not in closes)


def contributed_first(state: MRState, command: Any, actor: str) -> tuple[Any, ...]:
    """What ``actor``'s command for a referee's step (``mr assign``, ``mr melee``, ``mr resolve``) contributes to
    its dice's seed step first, so that the step completes in the same bundle (cli/ride.py ``before_referee``;
    commands/legal.py probes the step after it): his link where it is the last one missing (``closing_link``), or
    for the resolution his sealed plays where his reveal is the last one missing. Nothing for other commands."""
    from combatlog.trust.commands import RevealLink, RevealOrders

    if state.ended or not state.joint or actor not in state.players:
        return ()
    if isinstance(command, c.Resolve):
        info = state.sealed.get(step_name(state))
        if info is not None and actor in info.committed and actor not in info.orders and info.all_committed \
                and all(p in info.orders or info.contributed(p) for p in info.required if p != actor):
            return (RevealOrders(step=info.step),)
        return ()
    if isinstance(command, (c.Assign, c.StartMelee)):
        step = closing_link(state, actor)
        return (RevealLink(step=step),) if step else ()
    return ()
