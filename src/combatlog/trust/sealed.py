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
  newest joint dice seed;
- ``CommitChain()`` -> ``core.chain_committed``, ``RevealLink(step)`` ->
  ``core.link_revealed``, ``ReleaseChain()`` -> ``core.chain_released``: a nonce
  chain whose secret stays in this log's local secrets (docs/trust.md, "Nonce chains").

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
    TRUST_EVENTS, Acknowledged, ChainCommitted, ChainReleased, DecisionMarked, DiceRolled, LinkRevealed,
    OrdersCommitted, OrdersRevealed,
)
from combatlog.events.envelope import Envelope
from combatlog.projections.fold import CoreTrack, Folded, history
from combatlog.store.base import EventStore
from combatlog.trust.api import RefusedAtReveal
from combatlog.trust.commands import (
    Acknowledge, CommitChain, CommitOrders, MarkDecision, ReleaseChain, RevealLink, RevealOrders,
)
from combatlog.trust.crypto import (
    CHAIN_LENGTH, MAX_CHAIN_LENGTH, chain_link, check_orders_value, commitment, is_hex64, new_nonce,
)
from combatlog.trust.track import (
    _STEP, RULE_ACK, RULE_CHAIN, RULE_JOINT, RULE_SEAL, StepInfo, TrustChecker, TrustViolation,
)

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


def joint_key(store: EventStore, core: CoreTrack, label: str = "") -> tuple[int, bytes]:
    """The newest joint seed: (seq of the reveal that completed its step, seed). ``label``: the die to draw,
    whose first part names the seed step its refusal asks for ("surprise/party": step ``surprise``)."""
    checker = scanned(store, core)
    step = checker.seed_step
    if step is None:
        open_step = checker.step_open()
        hint = (f"step {open_step.name} is waiting for "
                + (f"commits from {', '.join(open_step.missing_commits())}" if open_step.missing_commits()
                   else f"reveals from {', '.join(open_step.missing_reveals())}")) if open_step else \
            _fresh_seed_hint(checker, core, label)
        raise IllegalCommand(f"no joint dice seed yet ({hint})", rule=RULE_JOINT)
    decisions = checker.decisions.get(step.name)
    if decisions and checker.mode == "strict":
        d = decisions[0]
        open_step = checker.step_open()
        how = (f"seed step {open_step.name} is open and waits for "
               + (f"commits from {', '.join(open_step.missing_commits())}" if open_step.missing_commits()
                  and not open_step.chained else f"contributions from {', '.join(open_step.missing_reveals())}")
               ) if open_step is not None else _fresh_seed_hint(checker, core, label)
        raise IllegalCommand(
            f"the seed of step {step.name} was known when {d.player} decided ({d.what}, seq {d.seq}); strict mode "
            f"needs a fresh commit-reveal before the next joint die (a fresh seed step): {how}", rule=RULE_JOINT)
    return step.completed_at, step.seed


def fresh_step(base: str, taken: Any) -> str:
    """``base``, or ``base#2``... when this combat has used it (a step is sealed once)."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}#{n}"
    return name


def _fresh_seed_hint(checker: TrustChecker, core: CoreTrack, label: str) -> str:
    """What every player runs for the first seed of a die labelled ``label``: the seed step is named after the
    dice it seeds (the label's first part: ``surprise``, ``r3``), else after the round, as ``status --mine``
    names it (trust/offers.py ``offered_moves``); a seed step takes chain links where every player has a chain."""
    stream = core.name or "STREAM"
    first, slash, _rest = label.partition("/")
    base = first if slash and first else f"r{max([1, *core.round_last])}"
    name = fresh_step(base, checker.steps)
    if will_chain(checker, tuple(checker.players)):
        return f"every player runs: combatlog seal link {stream} --step {name} (one message)"
    return (f"every player runs: combatlog seal commit {stream} --step {name}, then: combatlog seal reveal "
            f"{stream} --step {name}")


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
        other = checker.step_open()
        if other is not None and (not checker.players or set(checker.players) <= set(required)):
            # (the log refuses it on append, track.py: refused here, before anything is sealed, and the legal
            # moves do not offer it)
            raise IllegalCommand(f"step {cmd.step} opens while step {other.name} (opened at seq {other.opened_at}) "
                                 "is not complete; one seed step at a time, so nobody can choose between seeds",
                                 rule=RULE_SEAL)
    if actor not in required:
        raise IllegalCommand(f"{actor} is not among the players of step {cmd.step} ({', '.join(required)})",
                             rule=RULE_SEAL)
    refused = foreseen(folded, cmd.step, actor, dict(cmd.orders))
    if refused is not None and not cmd.anyway:
        refused.message += "; nothing is sealed (to seal it regardless, as a deliberate choice: --anyway)"
        raise refused
    if cmd.nonce and not is_hex64(cmd.nonce):
        raise InvalidCommand("a nonce is 64 lowercase hex digits")
    nonce = cmd.nonce or new_nonce()  # a merge re-seals a commit with the nonce it had (exchange/merge.py)
    if (info.chained if info is not None else will_chain(checker, required)):
        # A chained seed step: the nonce is the actor's next link, fixed long ago by his chain (a merge's
        # re-seal draws the same link again: the superseded commit is not in the log it folds).
        nonce = next_link(store, checker, actor)[1]
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
        raise InvalidCommand(f"--at {upto}: this combat has events 1-{head}")
    already = checker.acknowledged().get(actor, 0)
    if already >= upto:
        raise InvalidCommand(f"{actor} has already signed or acknowledged everything up to #{already}")
    return [Acknowledged(player=actor, upto=upto, hash=checker.hashes[upto])]


def decide_decision(store: EventStore, folded: Folded, cmd: MarkDecision, dice: DicePort, actor: str) -> list[Event]:
    if not cmd.what.strip():
        raise InvalidCommand("say what was decided")
    checker = scanned(store, folded.core)
    player = cmd.player or actor
    if checker.seed_step is None and checker.foreknown_by(player) is None:
        raise InvalidCommand("no joint dice seed is known yet, so no decision can depend on it")
    if checker.players and player not in checker.players:
        raise InvalidCommand(f"--player {player!r} is not a player of this combat ({', '.join(checker.players)})")
    return [DecisionMarked(player=player, what=cmd.what)]


# -- nonce chains ------------------------------------------------------------------------------


def will_chain(checker: TrustChecker, required: tuple[str, ...]) -> bool:
    """Would a step requiring ``required`` open as a chained seed step now?"""
    return (bool(checker.players) and set(checker.players) <= set(required)
            and all(p in checker.chains for p in checker.players))


def chain_secret(store: EventStore, checker: TrustChecker, actor: str) -> str:
    chain = checker.chains.get(actor)
    if chain is None:
        raise IllegalCommand(f"{actor} has committed no nonce chain in this combat (combatlog seal chain STREAM)",
                             rule=RULE_CHAIN)
    secret = store.get_secret(f"chain:{chain.head}")
    if secret is None:
        raise IllegalCommand(f"the nonce chain {actor} committed at seq {chain.committed_at} is not in this log's "
                             "secrets (it was committed from another database)", rule=RULE_CHAIN)
    return secret.decode()


def next_link(store: EventStore, checker: TrustChecker, actor: str) -> tuple[int, str]:
    chain = checker.chains[actor] if actor in checker.chains else None
    secret = chain_secret(store, checker, actor)
    assert chain is not None
    if chain.secret:
        raise IllegalCommand(f"{actor} released his nonce chain at seq {chain.released_at}: his links contribute "
                             "by themselves", rule=RULE_CHAIN)
    if chain.index >= chain.length:
        raise IllegalCommand(f"the nonce chain of {actor} is used up ({chain.length} links)", rule=RULE_CHAIN)
    return chain.index + 1, chain_link(secret, chain.length, chain.index + 1)


def chain_due(checker: TrustChecker, actor: str) -> bool:
    """Should ``actor`` commit a nonce chain now (joint dice, pinned, none yet, no seed step open)?"""
    genesis = checker.genesis
    return (genesis is not None and genesis.dice == "joint" and actor in checker.players
            and actor not in checker.chains and checker.step_open() is None
            and genesis.options.get("nonce_chains", "on") != "off")


def decide_chain(store: EventStore, folded: Folded, cmd: CommitChain, dice: DicePort, actor: str) -> list[Event]:
    checker = scanned(store, folded.core)
    genesis = folded.core.genesis
    if genesis is None or genesis.dice != "joint" or not checker.players:
        raise IllegalCommand("nonce chains are for combats with pinned players and joint dice", rule=RULE_CHAIN)
    if actor not in checker.players:
        raise IllegalCommand(f"{actor} is not a pinned player of this combat", rule=RULE_CHAIN)
    if actor in checker.chains:
        raise IllegalCommand(f"{actor} already committed a nonce chain (seq {checker.chains[actor].committed_at}); "
                             "one per combat", rule=RULE_CHAIN)
    open_step = checker.step_open()
    if open_step is not None:
        raise IllegalCommand(f"seed step {open_step.name} is open: a chain is committed between seed steps",
                             rule=RULE_CHAIN)
    others = [p for p in checker.players if p != actor]
    if others and all(p in checker.chains and checker.chains[p].secret for p in others):
        raise IllegalCommand(f"every other player has released his nonce chain ({', '.join(others)}): a chain "
                             "committed now could be ground against their public links, so the combat goes on "
                             "with seal commit and reveal", rule=RULE_CHAIN)
    length = cmd.length or CHAIN_LENGTH
    if not 1 <= length <= MAX_CHAIN_LENGTH:
        raise InvalidCommand(f"--length {length}: 1-{MAX_CHAIN_LENGTH}")
    secret = new_nonce()
    head = chain_link(secret, length, 0)
    store.put_secret(f"chain:{head}", secret.encode())
    return [ChainCommitted(player=actor, head=head, length=length)]


def link_problem(checker: TrustChecker, actor: str, step: str) -> str:
    """Why ``actor`` cannot contribute a link to ``step`` now ('' when he can)."""
    chain = checker.chains.get(actor)
    if chain is None:
        return f"{actor} has committed no nonce chain"
    if chain.secret:
        return f"{actor} released his nonce chain: his links contribute by themselves"
    info = checker.steps.get(step)
    if info is None:
        missing = [p for p in checker.players if p not in checker.chains]
        if missing:
            return f"{', '.join(missing)} committed no nonce chain, so step {step} needs seal commit and reveal"
        other = checker.step_open()
        if other is not None:
            return f"seed step {other.name} is open (one seed step at a time)"
        return ""
    if not info.chained:
        return f"step {step} is not seeded by links (seal commit and reveal)"
    if info.completed_at:
        return f"step {step} is complete"
    if actor not in info.required:
        return f"{actor} is not among the players of step {step}"
    if actor in info.reveals or actor in info.commits:
        return f"{actor} already contributed to step {step}"
    return ""


def decide_link(store: EventStore, folded: Folded, cmd: RevealLink, dice: DicePort, actor: str) -> list[Event]:
    if not _STEP.match(cmd.step):
        raise InvalidCommand(f"step {cmd.step!r}: 1-200 letters, digits and _.:/#@+- (e.g. r3/assign)")
    checker = scanned(store, folded.core)
    problem = link_problem(checker, actor, cmd.step)
    if problem:
        raise IllegalCommand(problem, rule=RULE_CHAIN)
    index, link = next_link(store, checker, actor)
    return [LinkRevealed(step=cmd.step, player=actor, index=index, link=link)]


def decide_release(store: EventStore, folded: Folded, cmd: ReleaseChain, dice: DicePort, actor: str) -> list[Event]:
    checker = scanned(store, folded.core)
    secret = chain_secret(store, checker, actor)
    chain = checker.chains[actor]
    if chain.secret:
        raise IllegalCommand(f"{actor} already released his chain (seq {chain.released_at})", rule=RULE_CHAIN)
    problem = checker.release_problem(actor)
    if problem:
        raise IllegalCommand(problem, rule=RULE_CHAIN)
    return [ChainReleased(player=actor, secret=secret)]


def foreknown(store: EventStore, folded: Folded, player: str) -> StepInfo | None:
    """The open chained seed step whose seed ``player`` could compute now (``TrustChecker.foreknown_by``)."""
    return scanned(store, folded.core).foreknown_by(player)


DECIDERS: dict[type, Any] = {
    CommitOrders: decide_commit,
    RevealOrders: decide_reveal,
    Acknowledge: decide_ack,
    MarkDecision: decide_decision,
    CommitChain: decide_chain,
    RevealLink: decide_link,
    ReleaseChain: decide_release,
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
            "chained": info.chained,
            "waiting_commits": [] if info.chained else info.missing_commits(),
            "waiting_reveals": info.missing_reveals() if info.chained or not info.missing_commits() else [],
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
        "chains": {p: {"committed_at": c.committed_at, "length": c.length, "used": c.index,
                       "released_at": c.released_at or None} for p, c in checker.chains.items()},
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
