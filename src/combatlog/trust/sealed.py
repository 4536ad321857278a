"""Sealed orders, acknowledgements and decision points: the trust layer's core commands.

Commands (imperative, local input) become events (facts in the log):

- ``CommitOrders(step, orders, required)`` -> ``core.orders_committed``: a fresh
  32-byte nonce is drawn, the orders and nonce are kept in this log's local
  secrets (never exported) and only the commitment is appended;
- ``RevealOrders(step)`` -> ``core.orders_revealed``: the kept orders and nonce,
  accepted once every required commit of the step is in the log;
- ``Acknowledge(upto)`` -> ``core.acknowledged``: a signed countersignature of
  the log up to a seq (default: the head);
- ``MarkDecision(what)`` -> ``core.decision_marked``: a decision point on the
  newest joint dice seed.

The same checks as ``verify`` run before anything is appended (``pre_append``).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand, StoreError
from combatlog.events.base import Event, tag_of
from combatlog.events.canonical import canonical
from combatlog.events.core import (
    TRUST_EVENTS, Acknowledged, DecisionMarked, DiceRolled, OrdersCommitted, OrdersRevealed,
)
from combatlog.events.envelope import Envelope
from combatlog.projections.fold import CoreTrack, Folded, history
from combatlog.store.base import EventStore
from combatlog.trust.api import RefusedAtReveal
from combatlog.trust.commands import Acknowledge, CommitOrders, MarkDecision, RevealOrders
from combatlog.trust.crypto import check_orders_value, commitment, is_hex64, new_nonce
from combatlog.trust.track import _STEP, RULE_ACK, RULE_JOINT, RULE_SEAL, TrustChecker, TrustViolation

TRUST_TAGS = frozenset(tag_of(cls) for cls in TRUST_EVENTS)
DICE_TAG = tag_of(DiceRolled)


# -- the trust state of a stream ----------------------------------------------------

# Keyed by the head hash, which fixes the whole history: a cache hit is the same log.
_CACHE: dict[tuple[str, int, str], TrustChecker] = {}


def scanned(store: EventStore, core: CoreTrack) -> TrustChecker:
    """The trust state after ``core``'s head (read-only: copy it before feeding more)."""
    if not core.stream:
        return TrustChecker()
    key = (core.stream, core.head_seq, core.head_hash)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    meta = store.get_stream(core.stream)
    if meta is None:
        raise StoreError(f"stream {core.stream} vanished")
    checker = TrustChecker()
    try:
        for rec in history(store, meta, 1, core.head_seq):
            checker.feed(rec.env, rec.event, check_sigs=False)
    except TrustViolation as exc:
        raise IllegalCommand(f"the stored log of {meta.name} breaks a trust rule: {exc.message} "
                             "(run: combatlog verify)", rule=exc.rule) from None
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[key] = checker
    return checker


def pre_append(store: EventStore, folded: Folded, envelopes: list[Envelope]) -> None:
    """Refuse a batch that ``verify`` would reject (registered in the handler's PRE_APPEND).

    Cheap for the common case: a combat that pins nobody and a batch with no trust
    events and no joint dice is not looked at further.
    """
    genesis = folded.core.genesis
    dice = [env for env in envelopes if env.type == DICE_TAG]
    joint = any(getattr(env.payload(), "scheme", "") == "joint" for env in dice)
    if genesis is None:
        checker = TrustChecker()  # a new combat: its genesis comes in this batch
    elif joint or any(env.type in TRUST_TAGS for env in envelopes):
        checker = copy.deepcopy(scanned(store, folded.core))
    elif genesis.players:
        checker = TrustChecker.from_genesis(genesis)
    else:
        return
    for env in envelopes:
        try:
            checker.feed(env, env.payload())
        except TrustViolation as exc:
            raise IllegalCommand(f"refusing to append: {exc.message}", rule=exc.rule) from None


# -- dice key source -------------------------------------------------------------------


def joint_key(store: EventStore, core: CoreTrack) -> tuple[int, bytes]:
    """The newest joint seed: (seq of the reveal that completed its step, seed)."""
    checker = scanned(store, core)
    step = checker.seed_step
    if step is None:
        open_step = checker.step_open()
        hint = (f"step {open_step.name} is waiting for "
                + (f"commits from {', '.join(open_step.missing_commits())}" if open_step.missing_commits()
                   else f"reveals from {', '.join(open_step.missing_reveals())}")) if open_step else \
            "every player runs: combatlog seal commit STREAM --step r1, then: combatlog seal reveal STREAM"
        raise IllegalCommand(f"no joint dice seed yet ({hint})", rule=RULE_JOINT)
    decisions = checker.decisions.get(step.name)
    if decisions and checker.mode == "strict":
        d = decisions[0]
        raise IllegalCommand(
            f"the seed of step {step.name} was known when {d.player} decided ({d.what}, seq {d.seq}); strict mode "
            "needs a fresh commit-reveal before the next joint die: every player runs "
            "combatlog seal commit STREAM --step NEW-STEP, then seal reveal", rule=RULE_JOINT)
    return step.completed_at, step.seed


# -- deciders ------------------------------------------------------------------------------


def _required(store: EventStore, folded: Folded, checker: TrustChecker, cmd: CommitOrders) -> tuple[str, ...]:
    if cmd.required:
        return tuple(cmd.required)
    hook = getattr(folded.ruleset, "sealed_required", None)
    if hook is not None:
        from_rules = tuple(hook(folded.state, cmd.step) or ())
        if from_rules:
            return from_rules
    if checker.players:
        return tuple(checker.players)
    raise InvalidCommand(f"name who must commit to step {cmd.step} (this combat pins no players): "
                         "--require alice --require bob")


def decide_commit(store: EventStore, folded: Folded, cmd: CommitOrders, dice: DicePort, actor: str) -> list[Event]:
    if not _STEP.match(cmd.step):
        raise InvalidCommand(f"step {cmd.step!r}: 1-200 letters, digits and _.:/#@+- (e.g. r3/melee)")
    check_orders_value(cmd.orders)
    checker = scanned(store, folded.core)
    info = checker.steps.get(cmd.step)
    if info is not None:
        if cmd.required and tuple(cmd.required) != info.required:
            raise InvalidCommand(f"step {cmd.step} already requires {', '.join(info.required)}")
        required = info.required
        if info.completed_at:
            raise IllegalCommand(f"step {cmd.step} is complete (seq {info.completed_at}); seal a new step",
                                 rule=RULE_SEAL)
        if actor in info.commits:
            raise IllegalCommand(f"{actor} already committed to step {cmd.step} at seq {info.commits[actor][0]} "
                                 "(a commitment cannot be changed)", rule=RULE_SEAL)
    else:
        required = _required(store, folded, checker, cmd)
    if actor not in required:
        raise IllegalCommand(f"{actor} is not among the players of step {cmd.step} ({', '.join(required)})",
                             rule=RULE_SEAL)
    refused = foreseen(folded, cmd.step, actor, dict(cmd.orders))
    if refused is not None and not cmd.anyway:
        refused.message += "; nothing is sealed (to seal it regardless, as a deliberate choice: --anyway)"
        raise refused
    if cmd.nonce and not is_hex64(cmd.nonce):
        raise InvalidCommand("a nonce is 64 lowercase hex digits")
    nonce = cmd.nonce or new_nonce()
    digest = commitment(cmd.orders, nonce)
    store.put_secret(f"orders:{digest}", canonical({"nonce": nonce, "orders": dict(cmd.orders)}))
    return [OrdersCommitted(step=cmd.step, player=actor, commitment=digest, required=required)]


def foreseen(folded: Folded, step: str, player: str, orders: dict[str, Any]) -> RefusedAtReveal | None:
    """Run the ruleset's ``check_orders`` on orders about to be sealed: raises what can never be sealed,
    returns what the rules would cancel or void at the reveal (None when nothing)."""
    check = getattr(folded.ruleset, "check_orders", None)
    if check is None:
        return None
    try:
        check(folded.state, step, player, orders)
    except RefusedAtReveal as exc:
        return exc
    return None


def decide_reveal(store: EventStore, folded: Folded, cmd: RevealOrders, dice: DicePort, actor: str) -> list[Event]:
    checker = scanned(store, folded.core)
    step = cmd.step
    if not step:
        waiting = [s.name for s in checker.steps.values() if actor in s.commits and actor not in s.reveals]
        if len(waiting) != 1:
            raise InvalidCommand(f"{actor} has {len(waiting)} sealed steps to reveal"
                                 + (f" ({', '.join(waiting)}); name one with --step" if waiting else ""))
        step = waiting[0]
    info = checker.steps.get(step)
    if info is None:
        raise InvalidCommand(f"nobody has committed to step {step!r} in this combat")
    if actor not in info.commits:
        raise IllegalCommand(f"{actor} has not committed to step {step}", rule=RULE_SEAL)
    if actor in info.reveals:
        raise IllegalCommand(f"{actor} already revealed step {step} at seq {info.reveals[actor][0]}",
                             rule=RULE_SEAL)
    missing = info.missing_commits()
    if missing:
        raise IllegalCommand(f"step {step} cannot be revealed yet: waiting for commits from {', '.join(missing)} "
                             "(import their bundle first)", rule=RULE_SEAL)
    seq, digest = info.commits[actor]
    secret = store.get_secret(f"orders:{digest}")
    if secret is None:
        raise IllegalCommand(f"the orders {actor} sealed at seq {seq} are not in this log's secrets (they were "
                             "committed from another database)", rule=RULE_SEAL)
    kept = msgspec.json.decode(secret)
    return [OrdersRevealed(step=step, player=actor, orders=kept["orders"], nonce=kept["nonce"])]


def decide_ack(store: EventStore, folded: Folded, cmd: Acknowledge, dice: DicePort, actor: str) -> list[Event]:
    checker = scanned(store, folded.core)
    if not checker.players:
        raise IllegalCommand("acknowledgements need pinned players (combatlog new ... --player NAME)",
                             rule=RULE_ACK)
    head = folded.core.head_seq
    upto = cmd.upto or head
    if not 1 <= upto <= head:
        raise InvalidCommand(f"--upto {upto}: this combat has events 1-{head}")
    already = checker.acknowledged().get(actor, 0)
    if already >= upto:
        raise InvalidCommand(f"{actor} has already signed or acknowledged everything up to #{already}")
    return [Acknowledged(player=actor, upto=upto, hash=checker.hashes[upto])]


def decide_decision(store: EventStore, folded: Folded, cmd: MarkDecision, dice: DicePort, actor: str) -> list[Event]:
    if not cmd.what.strip():
        raise InvalidCommand("say what was decided")
    checker = scanned(store, folded.core)
    if checker.seed_step is None:
        raise InvalidCommand("no joint dice seed is known yet, so no decision can depend on it")
    player = cmd.player or actor
    if checker.players and player not in checker.players:
        raise InvalidCommand(f"--player {player!r} is not a player of this combat ({', '.join(checker.players)})")
    return [DecisionMarked(player=player, what=cmd.what)]


DECIDERS: dict[type, Any] = {
    CommitOrders: decide_commit,
    RevealOrders: decide_reveal,
    Acknowledge: decide_ack,
    MarkDecision: decide_decision,
}


def status(store: EventStore, folded: Folded) -> dict[str, Any]:
    """The sealed steps of a combat, the joint seed and acknowledgements, as JSON-able data."""
    checker = scanned(store, folded.core)
    steps = []
    for info in checker.steps.values():
        steps.append({
            "step": info.name, "required": list(info.required), "opened_at": info.opened_at,
            "seeds_dice": info.seeds,
            "committed": {p: s for p, (s, _c) in info.commits.items()},
            "revealed": {p: s for p, (s, _n) in info.reveals.items()},
            "waiting_commits": info.missing_commits(),
            "waiting_reveals": [] if info.missing_commits() else info.missing_reveals(),
            "completed_at": info.completed_at or None,
        })
    seed = checker.seed_step
    return {
        "players": {p.name: p.fingerprint for p in checker.players.values()},
        "joint_dice_mode": checker.mode,
        "joint_seed": {"step": seed.name, "seq": seed.completed_at,
                       "decision_points": [d.seq for d in checker.decisions.get(seed.name, [])]} if seed else None,
        "steps": steps,
        "acknowledged": checker.acknowledged(),
        "head_seq": folded.core.head_seq,
    }


def sealed_by(store: EventStore, folded: Folded, player: str, step: str = "") -> list[dict[str, Any]]:
    """The orders ``player`` sealed from this log (``seal show``), read from its local secrets: only the
    commitments ``player`` made, so no one else's orders are ever shown, even in a database that holds
    them (hot seat). Each: step, seq of the commit, the commitment, the seq of the reveal (or None), and
    the orders kept here (None when this log does not hold them: sealed from another database)."""
    checker = scanned(store, folded.core)
    if step and step not in checker.steps:
        raise InvalidCommand(f"nobody has committed to step {step!r} in this combat")
    out = []
    for info in checker.steps.values():
        if (step and info.name != step) or player not in info.commits:
            continue
        seq, digest = info.commits[player]
        revealed = info.reveals.get(player)
        kept = store.get_secret(f"orders:{digest}")
        orders = None
        if kept is not None:
            try:
                value = msgspec.json.decode(kept)
                if commitment(value["orders"], value["nonce"]) == digest:
                    orders = value["orders"]
            except (ValueError, KeyError, TypeError):  # the local secrets were altered: shown as not matching
                orders = None
        out.append({"step": info.name, "player": player, "committed_at": seq, "commitment": digest,
                    "revealed_at": revealed[0] if revealed else None, "complete": bool(info.completed_at),
                    "held": kept is not None, "matches": orders is not None or kept is None, "orders": orders})
    return out
