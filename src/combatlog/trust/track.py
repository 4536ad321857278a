# Over 500 lines on purpose: TrustChecker is one fold over the envelopes (signatures, sealed orders, joint dice, chains, placed decisions) whose checks read each other's state.
"""The trust checks, as one fold over envelopes shared by ``verify`` and the write path.

``TrustChecker.feed(env, event)`` checks one event against everything before
it and raises ``TrustViolation`` naming the rule:

- signatures: in a combat with pinned players every event is signed by its
  actor, a pinned player, with the key pinned in the genesis; every signature
  present must be valid; a combat without pinned players carries none;
- sealed orders: a commit names its step and who must commit; a player commits
  once per step; a reveal comes only after every required commit of its step,
  once, and must hash to its commit; only one seed step is open at a time;
- joint dice: a die of scheme ``joint`` names the newest completed seed step
  (the reveal that completed it) and its faces are recomputed from that seed;
  after a decision point on that seed, strict mode refuses the die and
  friendly mode flags it;
- nonce chains (docs/trust.md, "Nonce chains"): a player commits once to the head of a
  hash chain; in a *chained* seed step (opened when every pinned player had a chain)
  each contribution is the player's next link, revealed on its own or as the nonce of
  sealed orders, checked link by link, never reused; a released chain contributes
  by itself to every later step;
- acknowledgements: a player countersigns an earlier event by its seq and hash;
- placed decisions (docs/trust.md, "Crossings"): an event a merge placed carries its author's
  signature over the event as he made it (``Envelope.placed``); the place where he made it is
  in this chain (or is where an earlier placed decision was made), he has signed nothing here
  since, its command id is new here, and the event is then checked at its new place like any other.
"""

from __future__ import annotations

import re

import msgspec

from combatlog.dice.derive import derive_faces
from combatlog.events.base import Event, TypeSwitch
from combatlog.events.core import (
    Acknowledged, ChainCommitted, ChainReleased, CombatStarted, DecisionMarked, DiceRolled, LinkRevealed,
    OrdersCommitted, OrdersRevealed, Player,
)
from combatlog.events.envelope import Envelope
from combatlog.trust.crypto import (
    MAX_CHAIN_LENGTH, chain_link, chain_step, chain_walk, check_orders_value, commitment, is_hex64, joint_seed,
)

RULE_SIG = "trust: signatures"
RULE_SEAL = "trust: sealed orders"
RULE_JOINT = "trust: joint dice"
RULE_ACK = "trust: acknowledgement"
RULE_CHAIN = "trust: nonce chains"
RULE_PLACED = "trust: placed decisions"
MODES = ("strict", "friendly")
# the event types ``TrustChecker.feed``'s ``match`` checks (found once per event class: events.base)
_CHECKED = TypeSwitch(OrdersCommitted, OrdersRevealed, Acknowledged, ChainCommitted, LinkRevealed, ChainReleased,
                      DecisionMarked, DiceRolled)
_STEP = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#@+-]{0,199}$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class TrustViolation(Exception):
    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.message, self.rule = message, rule


class StepInfo(msgspec.Struct, kw_only=True):
    name: str
    required: tuple[str, ...]
    opened_at: int
    seeds: bool  # True when every pinned player must commit: its reveals make a joint dice seed
    chained: bool = False  # a seed step opened when every pinned player had a nonce chain: contributions are links
    commits: dict[str, tuple[int, str]] = {}  # player -> (seq, commitment)
    reveals: dict[str, tuple[int, str]] = {}  # player -> (seq, nonce or link)
    completed_at: int = 0
    seed: bytes = b""

    def missing_commits(self) -> list[str]:
        """Who has neither committed nor contributed a link (in a classic step: not committed)."""
        return [p for p in self.required if p not in self.commits and p not in self.reveals]

    def missing_reveals(self) -> list[str]:
        return [p for p in self.required if p not in self.reveals]


class Chain(msgspec.Struct, kw_only=True):
    head: str
    length: int
    committed_at: int
    index: int = 0  # the last link used (0: none yet)
    link: str = ""  # the last link used (the head before any)
    secret: str = ""  # published by a release
    released_at: int = 0


class Decision(msgspec.Struct, frozen=True):
    seq: int
    player: str
    what: str


class _Chunk(msgspec.Struct, kw_only=True):
    """Placed decisions read in a row, each made on the one before as its author signed it."""

    fork: int  # the last event of this log their branch held
    first_seq: int  # where the chunk begins in this log
    originals: list[Envelope]
    last: str  # the hash of the last original
    key: tuple[int, int, int, int, str] | None = None


class TrustChecker:
    def __init__(self) -> None:
        self.genesis: CombatStarted | None = None
        self.genesis_hash = ""
        self.players: dict[str, Player] = {}
        self.public: dict[str, bytes] = {}
        self.mode = "strict"
        self.steps: dict[str, StepInfo] = {}
        self.seed_step: StepInfo | None = None  # the newest completed seed step
        self.decisions: dict[str, list[Decision]] = {}  # seed step -> decision points after it completed
        self.chains: dict[str, Chain] = {}  # player -> his nonce chain
        self.hashes: dict[int, str] = {}  # seq -> hash (kept when players are pinned, for acknowledgements)
        self.last_signed: dict[str, int] = {}  # player -> the last seq he signed here (placed events excluded)
        self.originals: dict[str, int] = {}  # hash of a placed event's original -> its original seq
        self.places: dict[tuple[str, int, str], str] = {}  # (author, seq, prev) of a placed original -> its hash
        self.command_ids: set[str] = set()  # every command id of the chain (a placed batch's must be new)
        self.forks: dict[str, int] = {}  # hash of a placed event's original -> the last event here its branch held
        # the run of placed events being read (docs/trust.md, "Crossings": where a placed decision lands): its
        # open chunk (a decision and those made on top of it, as their authors signed them) and the key of the
        # chunk before it in the run (None at a run's start)
        self._chunk: _Chunk | None = None
        self._run_before: _Chunk | None = None
        self._batch = ("", "", "")  # (actor, command id, original hash) of the previous event
        self.acked: dict[str, int] = {}
        self.flagged: list[str] = []
        self.signatures = 0
        self.joint_dice = 0
        self.unverifiable = 0  # local and manual dice
        self.head_seq = 0
        self.partial = False  # built from a genesis alone: sealed orders and joint dice cannot be checked

    @classmethod
    def from_genesis(cls, genesis: CombatStarted) -> TrustChecker:
        """A checker that knows only the genesis (enough for signatures)."""
        checker = cls()
        checker._pin(genesis)
        checker.partial = True
        return checker

    @property
    def pinned(self) -> bool:
        return bool(self.players)

    # -- the fold ---------------------------------------------------------------------
    def feed(self, env: Envelope, event: Event, *, check_sigs: bool = True) -> None:
        seq = env.seq
        if type(event) is CombatStarted:
            self._pin(event)
            self.genesis_hash = env.hash
        if env.placed is not msgspec.UNSET:
            self._placed(env, check_sigs)
        else:
            if self._chunk is not None:  # a signed event ends a run of placed ones
                self._close_chunk()
                self._run_before = None
            if check_sigs:
                self._signatures(env)
        if self.players:  # (= self.pinned, without a property call on every event of a verify)
            self.hashes[seq] = env.hash
            if env.placed is msgspec.UNSET:
                self.last_signed[env.actor] = max(self.last_signed.get(env.actor, 0), seq)
                self._batch = (env.actor, env.command_id, "")
            self.command_ids.add(env.command_id)
        if _CHECKED(event) is None:  # one test for the many events no case below concerns
            self.head_seq = seq
            return
        match event:
            case OrdersCommitted():
                self._commit(env, event)
            case OrdersRevealed():
                self._reveal(env, event)
            case Acknowledged():
                self._ack(env, event)
            case ChainCommitted():
                self._chain(env, event)
            case LinkRevealed():
                self._link(env, event)
            case ChainReleased():
                self._release(env, event)
            case DecisionMarked():
                if self.pinned and event.player not in self.players:
                    raise TrustViolation(f"seq {seq}: a decision point by {event.player!r}, who is not a pinned player",
                                         RULE_JOINT)
                if self.seed_step is not None:
                    self.decisions.setdefault(self.seed_step.name, []).append(Decision(seq, event.player, event.what))
                foreknown = self.foreknown_by(event.player)
                if foreknown is not None:  # he knew the open step's seed already: every other link is public
                    self.decisions.setdefault(foreknown.name, []).append(Decision(seq, event.player, event.what))
            case DiceRolled(scheme="joint"):
                self._joint_die(env, event)
            case DiceRolled(scheme="local" | "manual"):
                self.unverifiable += 1
            case _:
                pass
        self.head_seq = seq

    def _pin(self, genesis: CombatStarted) -> None:
        from combatlog.trust.keys import fingerprint, strict_b64

        self.genesis = genesis
        mode = genesis.options.get("joint_dice", "strict")
        if mode not in MODES:
            raise TrustViolation(f"the genesis option joint_dice={mode!r} is not strict or friendly", RULE_JOINT)
        self.mode = mode
        for p in genesis.players:
            if not _NAME.match(p.name) or p.name in self.players:
                raise TrustViolation(f"the genesis pins an invalid or repeated player name {p.name!r}", RULE_SIG)
            raw = strict_b64(p.public_key, 32)
            if raw is None:
                raise TrustViolation(f"the genesis pins no valid Ed25519 public key for {p.name}", RULE_SIG)
            if fingerprint(raw) != p.fingerprint:
                raise TrustViolation(f"the fingerprint pinned for {p.name} ({p.fingerprint}) is not its key's "
                                     f"({fingerprint(raw)})", RULE_SIG)
            self.players[p.name] = p
            self.public[p.name] = raw
        for role in ("sequencer", "referee"):
            named = genesis.options.get(role)
            if named is not None and self.players and named not in self.players:
                raise TrustViolation(f"the genesis option {role}={named!r} names no pinned player", RULE_SIG)

    def _signatures(self, env: Envelope) -> None:
        seq = env.seq
        if not self.players:  # not pinned
            if env.sigs:
                raise TrustViolation(f"seq {seq} carries signatures, but this combat pins no players to check "
                                     "them against", RULE_SIG)
            return
        # imported here, after the unpinned case (an import statement on every event of a long verify costs)
        from combatlog.trust.keys import strict_b64
        from combatlog.trust.players import not_valid, signature_holds

        if env.actor not in self.players:
            raise TrustViolation(f"seq {seq} was appended by {env.actor!r}, who is not a pinned player "
                                 f"(pinned: {', '.join(self.players)})", RULE_SIG)
        # One signature per event, by its actor. Signatures sit outside the hash, so an extra
        # one could be added or stripped by whoever relays the file: it would prove nothing
        # anyone can rely on. Agreement is a signed core.acknowledged event instead (hashed).
        if len(env.sigs) > 1 or (env.sigs and env.sigs[0].signer != env.actor):
            others = ", ".join(sig.signer for sig in env.sigs if sig.signer != env.actor)
            raise TrustViolation(f"seq {seq} ({env.type}) by {env.actor} carries a signature by {others or 'a repeat signer'}: "
                                 "an event is signed by its actor alone; to countersign, a player appends "
                                 "core.acknowledged (combatlog ack)", RULE_SIG)
        seen: set[str] = set()
        for sig in env.sigs:
            player = self.players.get(sig.signer)
            if player is None:
                raise TrustViolation(f"seq {seq} carries a signature by {sig.signer!r}, who is not a pinned "
                                     "player", RULE_SIG)
            if sig.signer in seen:
                raise TrustViolation(f"seq {seq} carries two signatures by {sig.signer}", RULE_SIG)
            seen.add(sig.signer)
            if sig.key != player.fingerprint:
                raise TrustViolation(f"seq {seq}: the signature of {sig.signer} names key {sig.key}, but the key "
                                     f"pinned for {sig.signer} is {player.fingerprint}", RULE_SIG)
            raw = strict_b64(sig.sig, 64)
            if raw is None or not signature_holds(self.public[sig.signer], raw, env.hash):
                raise TrustViolation(not_valid(seq, sig.signer), RULE_SIG)
            self.signatures += 1
        if env.actor not in seen:
            raise TrustViolation(f"seq {seq} ({env.type}) by {env.actor} is not signed by {env.actor} "
                                 "(every event of a combat with pinned players is signed by its actor)", RULE_SIG)

    def _placed(self, env: Envelope, check_sigs: bool) -> None:
        """A decision a merge placed here: its author signed it at its original place, which this chain
        holds (or an earlier placed decision was made at), he has signed nothing since, and it is new here.
        What is *decided* at the new place is checked as for any event, after this."""
        seq, placed = env.seq, env.placed
        assert placed is not msgspec.UNSET
        if not self.pinned:
            raise TrustViolation(f"seq {seq}: a placed decision in a combat without pinned players (only signed "
                                 "decisions are placed)", RULE_PLACED)
        if env.sigs:
            raise TrustViolation(f"seq {seq}: a placed decision carries signatures of its own (its author's is in "
                                 "'placed'; nobody signs a placement)", RULE_PLACED)
        original = env.original()
        if check_sigs:
            self._signatures(original)
        previous_actor, previous_command, previous_original = self._batch
        continues = previous_original and (previous_actor, previous_command) == (env.actor, env.command_id)
        if continues:  # inside a placed batch: the originals chain as they did where they were made
            if placed.prev != previous_original:
                raise TrustViolation(f"seq {seq}: this placed event does not follow the one before it as it did "
                                     "where it was made", RULE_PLACED)
        else:
            here = self.hashes.get(placed.seq - 1)
            if placed.seq < 2 or (here != placed.prev and self.originals.get(placed.prev) != placed.seq - 1):
                raise TrustViolation(f"seq {seq}: {env.actor}'s {env.type} was made on an event (#{placed.seq - 1}, "
                                     f"{placed.prev[:12]}...) that is not in this log: only a decision made on "
                                     "this log's history is placed", RULE_PLACED)
            if env.command_id in self.command_ids:
                raise TrustViolation(f"seq {seq}: {env.actor}'s command {env.command_id} is already in this log: a "
                                     "decision is placed once", RULE_PLACED)
        if placed.seq >= seq:
            raise TrustViolation(f"seq {seq}: placed from #{placed.seq}, which is not before its place", RULE_PLACED)
        signed = self.last_signed.get(env.actor, 0)
        if signed >= placed.seq:
            raise TrustViolation(f"seq {seq}: {env.actor} made this decision at #{placed.seq} and has signed #{signed} "
                                 "here since, on a log without it: it was dropped or replaced by its author, and is "
                                 "not placed", RULE_PLACED)
        place = (env.actor, placed.seq, placed.prev)
        if self.places.setdefault(place, original.hash) != original.hash:
            raise TrustViolation(f"seq {seq}: {env.actor} signed two different decisions at #{placed.seq} (after "
                                 f"{placed.prev[:12]}...), both placed here: equivocation", RULE_PLACED)
        self.originals[original.hash] = placed.seq
        fork = self.forks[placed.prev] if placed.prev in self.forks else placed.seq - 1
        self.forks[original.hash] = fork
        self._batch = (env.actor, env.command_id, original.hash)
        chunk = self._chunk
        if chunk is not None and chunk.last == placed.prev:  # made on the decision placed just before: one chunk
            chunk.originals.append(original)
            chunk.last = original.hash
            return
        if chunk is not None:
            self._close_chunk()
        self._chunk = _Chunk(fork=fork, first_seq=seq, originals=[original], last=original.hash)

    def _close_chunk(self) -> None:
        """The open chunk of placed decisions is complete: it must land after the one before it in its run
        (``trust/rewind.placement_key``: a pure function of the signed events, so no placer chooses)."""
        chunk, self._chunk = self._chunk, None
        assert chunk is not None
        self._in_order(chunk)
        self._run_before = chunk

    def _in_order(self, chunk: _Chunk) -> None:
        from combatlog.trust.rewind import placement_key

        before = self._run_before
        if before is None:
            return
        if chunk.key is None:
            chunk.key = placement_key(self.genesis, chunk.fork, chunk.originals)
        if before.key is None:
            before.key = placement_key(self.genesis, before.fork, before.originals)
        if chunk.key > before.key:
            return
        first, other = chunk.originals[0], before.originals[0]
        raise TrustViolation(
            f"seq {chunk.first_seq}: {first.actor}'s {first.type} (decided at #{first.seq}, on #{chunk.fork}) is "
            f"placed after {other.actor}'s {other.type} (#{before.first_seq}, decided at #{other.seq}, on "
            f"#{before.fork}), where the placement rule puts it before: decisions placed after a crossed branch go "
            "in one order fixed by the events (those made further along the branch first, then the merge order at "
            "their place), not by the placer or the mail", RULE_PLACED)

    def finish(self) -> None:
        """At the end of the events read so far: an open chunk of placed decisions must be in its run's order
        too (checked without closing it: more of it may follow, in the next bundle)."""
        if self._chunk is not None:
            self._in_order(self._chunk)
            self._chunk.key = None  # it may grow

    # -- sealed orders -------------------------------------------------------------------
    def step_open(self) -> StepInfo | None:
        """The seed step that has commits but is not complete, if any."""
        for info in self.steps.values():
            if info.seeds and not info.completed_at:
                return info
        return None

    def _seeds(self, required: tuple[str, ...]) -> bool:
        return (not self.pinned) or set(self.players) <= set(required)

    def _commit(self, env: Envelope, ev: OrdersCommitted) -> None:
        seq = env.seq
        self._need_history(seq)
        if not _STEP.match(ev.step):
            raise TrustViolation(f"seq {seq}: step name {ev.step!r} is not a label (letters, digits, _.:/#@+-)",
                                 RULE_SEAL)
        if ev.player != env.actor:
            raise TrustViolation(f"seq {seq}: {env.actor} commits orders in the name of {ev.player}", RULE_SEAL)
        if not is_hex64(ev.commitment):
            raise TrustViolation(f"seq {seq}: the commitment is not 64 hex digits", RULE_SEAL)
        if not ev.required or len(set(ev.required)) != len(ev.required) or not all(
                _NAME.match(p) for p in ev.required):
            raise TrustViolation(f"seq {seq}: step {ev.step} names no valid list of players who must commit",
                                 RULE_SEAL)
        if self.pinned and not set(ev.required) <= set(self.players):
            unknown = sorted(set(ev.required) - set(self.players))
            raise TrustViolation(f"seq {seq}: step {ev.step} requires commits from unpinned players "
                                 f"{', '.join(unknown)}", RULE_SEAL)
        info = self.steps.get(ev.step)
        if info is None:
            info = self._open(ev.step, ev.required, seq, self._seeds(ev.required))
        elif info.required != ev.required:
            raise TrustViolation(f"seq {seq}: this commit to {ev.step} requires {', '.join(ev.required)}, its "
                                 f"first commit {', '.join(info.required)}", RULE_SEAL)
        if ev.player not in info.required:
            raise TrustViolation(f"seq {seq}: {ev.player} is not among the players of step {ev.step} "
                                 f"({', '.join(info.required)})", RULE_SEAL)
        if ev.player in info.commits:
            raise TrustViolation(f"seq {seq}: {ev.player} already committed to step {ev.step} at seq "
                                 f"{info.commits[ev.player][0]} (a commitment cannot be changed)", RULE_SEAL)
        if ev.player in info.reveals:
            raise TrustViolation(f"seq {seq}: {ev.player} already contributed to step {ev.step} at seq "
                                 f"{info.reveals[ev.player][0]}", RULE_SEAL)
        if info.completed_at:
            raise TrustViolation(f"seq {seq}: step {ev.step} is already complete", RULE_SEAL)
        info.commits[ev.player] = (seq, ev.commitment)

    def _reveal(self, env: Envelope, ev: OrdersRevealed) -> None:
        seq = env.seq
        self._need_history(seq)
        info = self.steps.get(ev.step)
        if info is None:
            raise TrustViolation(f"seq {seq}: {ev.player} reveals orders for step {ev.step!r}, which nobody "
                                 "committed to", RULE_SEAL)
        if ev.player != env.actor:
            raise TrustViolation(f"seq {seq}: {env.actor} reveals orders in the name of {ev.player}", RULE_SEAL)
        if ev.player not in info.commits:
            raise TrustViolation(f"seq {seq}: {ev.player} reveals orders for step {ev.step} without having "
                                 "committed to it", RULE_SEAL)
        missing = info.missing_commits()
        if missing:
            raise TrustViolation(f"seq {seq}: {ev.player} reveals step {ev.step} before every required commit "
                                 f"is in the log (missing: {', '.join(missing)})", RULE_SEAL)
        if ev.player in info.reveals:
            raise TrustViolation(f"seq {seq}: {ev.player} already revealed step {ev.step} at seq "
                                 f"{info.reveals[ev.player][0]}", RULE_SEAL)
        if not is_hex64(ev.nonce):
            raise TrustViolation(f"seq {seq}: the nonce is not 64 lowercase hex digits", RULE_SEAL)
        if info.chained:  # the nonce is the player's next link (fixed by his chain, so it cannot be chosen)
            self._next_link(seq, ev.player, self.chains[ev.player].index + 1, ev.nonce, ev.step)
        try:
            check_orders_value(ev.orders)
        except Exception as exc:
            raise TrustViolation(f"seq {seq}: {exc}", RULE_SEAL) from None
        commit_seq, expected = info.commits[ev.player]
        if commitment(ev.orders, ev.nonce) != expected:
            raise TrustViolation(f"seq {seq}: the orders {ev.player} reveals for step {ev.step} do not match "
                                 f"the commitment at seq {commit_seq} (changed after committing)", RULE_SEAL)
        info.reveals[ev.player] = (seq, ev.nonce)
        self._complete(info, seq)

    def _complete(self, info: StepInfo, seq: int) -> None:
        if info.completed_at or info.missing_reveals():
            return
        info.completed_at = seq
        if info.seeds:
            nonces = {p: n for p, (_s, n) in info.reveals.items()}
            info.seed = joint_seed(self.genesis_hash, info.name, nonces)
            self.seed_step = info

    def _open(self, name: str, required: tuple[str, ...], seq: int, seeds: bool) -> StepInfo:
        other = self.step_open() if seeds else None
        if other is not None:
            raise TrustViolation(
                f"seq {seq}: step {name} opens while step {other.name} (opened at seq {other.opened_at}) "
                "is not complete; one seed step at a time, so nobody can choose between seeds", RULE_SEAL)
        chained = seeds and self.pinned and all(p in self.chains for p in self.players)
        info = self.steps[name] = StepInfo(name=name, required=required, opened_at=seq, seeds=seeds, chained=chained)
        if chained:
            self._auto(info, seq)
        return info

    # -- nonce chains ------------------------------------------------------------------------
    def _chain(self, env: Envelope, ev: ChainCommitted) -> None:
        seq = env.seq
        self._need_history(seq)
        if not self.pinned or self.genesis is None or self.genesis.dice != "joint":
            raise TrustViolation(f"seq {seq}: a nonce chain needs pinned players and joint dice", RULE_CHAIN)
        if ev.player != env.actor:
            raise TrustViolation(f"seq {seq}: {env.actor} commits a nonce chain in the name of {ev.player}",
                                 RULE_CHAIN)
        if ev.player in self.chains:
            raise TrustViolation(f"seq {seq}: {ev.player} already committed a nonce chain at seq "
                                 f"{self.chains[ev.player].committed_at} (one chain per player and combat)",
                                 RULE_CHAIN)
        if not is_hex64(ev.head) or not 1 <= ev.length <= MAX_CHAIN_LENGTH:
            raise TrustViolation(f"seq {seq}: a chain head is 64 hex digits and its length 1-{MAX_CHAIN_LENGTH}",
                                 RULE_CHAIN)
        others = [p for p in self.players if p != ev.player]
        if others and all(p in self.chains and self.chains[p].secret for p in others):
            raise TrustViolation(f"seq {seq}: {ev.player} commits a nonce chain after every other player released "
                                 f"his ({', '.join(others)}): every later seed would be a function of a secret "
                                 f"{ev.player} chooses now, so he could try secrets offline until the dice suit him "
                                 "(a late chain is refused once the others' links are all public)", RULE_CHAIN)
        other = self.step_open()
        if other is not None:
            raise TrustViolation(f"seq {seq}: {ev.player} commits a nonce chain while seed step {other.name} is "
                                 "open; chains are committed between seed steps, so no step changes its kind "
                                 "half-way", RULE_CHAIN)
        self.chains[ev.player] = Chain(head=ev.head, length=ev.length, committed_at=seq, link=ev.head)

    def _next_link(self, seq: int, player: str, index: int, link: str, step: str) -> None:
        chain = self.chains[player]
        if index != chain.index + 1:
            raise TrustViolation(f"seq {seq}: {player} reveals link {index} for step {step}, but his next link is "
                                 f"{chain.index + 1} (links are used in order, once)", RULE_CHAIN)
        if index > chain.length:
            raise TrustViolation(f"seq {seq}: the chain of {player} has only {chain.length} links", RULE_CHAIN)
        if not is_hex64(link) or chain_step(link) != chain.link:
            raise TrustViolation(f"seq {seq}: the contribution of {player} to step {step} is not link {index} of "
                                 f"his chain (it does not hash to link {index - 1}, committed at seq "
                                 f"{chain.committed_at})", RULE_CHAIN)
        chain.index, chain.link = index, link

    def _auto(self, info: StepInfo, seq: int) -> None:
        """Released chains contribute their next link to a chained step by themselves."""
        for p in info.required:
            chain = self.chains.get(p)
            if chain is None or not chain.secret or p in info.reveals or p in info.commits:
                continue
            if chain.index >= chain.length:
                raise TrustViolation(f"seq {seq}: the released chain of {p} has no link left for step {info.name}",
                                     RULE_CHAIN)
            link = chain_link(chain.secret, chain.length, chain.index + 1)
            chain.index, chain.link = chain.index + 1, link
            info.reveals[p] = (seq, link)

    def _link(self, env: Envelope, ev: LinkRevealed) -> None:
        seq = env.seq
        self._need_history(seq)
        if ev.player != env.actor:
            raise TrustViolation(f"seq {seq}: {env.actor} reveals a link in the name of {ev.player}", RULE_CHAIN)
        if not _STEP.match(ev.step):
            raise TrustViolation(f"seq {seq}: step name {ev.step!r} is not a label (letters, digits, _.:/#@+-)",
                                 RULE_CHAIN)
        chain = self.chains.get(ev.player)
        if chain is None:
            raise TrustViolation(f"seq {seq}: {ev.player} reveals a link but committed no nonce chain", RULE_CHAIN)
        if chain.secret:
            raise TrustViolation(f"seq {seq}: {ev.player} released his chain at seq {chain.released_at}: his links "
                                 "contribute by themselves", RULE_CHAIN)
        info = self.steps.get(ev.step)
        if info is None:
            missing = [p for p in self.players if p not in self.chains]
            if missing:
                raise TrustViolation(f"seq {seq}: step {ev.step} cannot be seeded by links: {', '.join(missing)} "
                                     "committed no nonce chain (seal commit and reveal instead)", RULE_CHAIN)
            info = self._open(ev.step, tuple(self.players), seq, True)
        if not info.chained:
            raise TrustViolation(f"seq {seq}: step {ev.step} was opened before every player had a nonce chain (or "
                                 "does not seed the dice): contribute with seal commit and reveal", RULE_CHAIN)
        if info.completed_at:
            raise TrustViolation(f"seq {seq}: step {ev.step} is already complete", RULE_CHAIN)
        if ev.player not in info.required:
            raise TrustViolation(f"seq {seq}: {ev.player} is not among the players of step {ev.step}", RULE_CHAIN)
        if ev.player in info.commits or ev.player in info.reveals:
            raise TrustViolation(f"seq {seq}: {ev.player} already contributed to step {ev.step}", RULE_CHAIN)
        self._next_link(seq, ev.player, ev.index, ev.link, ev.step)
        info.reveals[ev.player] = (seq, ev.link)
        self._complete(info, seq)

    def _release(self, env: Envelope, ev: ChainReleased) -> None:
        seq = env.seq
        self._need_history(seq)
        if ev.player != env.actor:
            raise TrustViolation(f"seq {seq}: {env.actor} releases a chain in the name of {ev.player}", RULE_CHAIN)
        chain = self.chains.get(ev.player)
        if chain is None or chain.secret:
            raise TrustViolation(f"seq {seq}: {ev.player} has no unreleased nonce chain", RULE_CHAIN)
        if not is_hex64(ev.secret) or chain_walk(ev.secret, chain.length) != chain.head:
            raise TrustViolation(f"seq {seq}: the secret {ev.player} releases does not hash to the head of his chain "
                                 f"(seq {chain.committed_at})", RULE_CHAIN)
        problem = self.release_problem(ev.player)
        if problem:
            raise TrustViolation(f"seq {seq}: {problem}", RULE_CHAIN)
        for info in self.steps.values():
            if not info.completed_at and ev.player in info.commits and ev.player not in info.reveals:
                raise TrustViolation(f"seq {seq}: {ev.player} releases his chain before revealing what he sealed for "
                                     f"step {info.name} (the release would publish its nonce)", RULE_CHAIN)
        chain.secret, chain.released_at = ev.secret, seq
        info = self.step_open()
        if info is not None and info.chained:
            self._auto(info, seq)
            self._complete(info, seq)

    def release_problem(self, player: str) -> str:
        """Why ``player`` may not release his chain now ('' when he may): someone else must still hold an
        unreleased chain. A player with no chain is no secret holder: he may commit one later, and with
        every other link public he could grind its secret offline (docs/trust.md, "Releasing a chain")."""
        holders = [p for p in self.players if p != player and p in self.chains and not self.chains[p].secret]
        if holders:
            return ""
        none = [p for p in self.players if p != player and p not in self.chains]
        why = (f"{', '.join(none)} holds no nonce chain yet, and could commit one after the release with a "
               "secret tried offline until the dice suit him" if none else
               "releasing would make every seed public in advance")
        return f"{player} is the last player whose links are secret; {why}"

    def foreknown_by(self, player: str) -> StepInfo | None:
        """The open chained step whose seed ``player`` can already compute (every other contribution is
        public, and his own is fixed by his chain), if any."""
        info = self.step_open()
        if info is None or not info.chained or player not in info.required or player in info.reveals:
            return None
        return info if all(p in info.reveals for p in info.required if p != player) else None

    def _need_history(self, seq: int) -> None:
        if self.partial:
            raise TrustViolation(f"seq {seq}: sealed orders and joint dice can only be checked with the whole "
                                 "history before them", RULE_SEAL)

    # -- joint dice ------------------------------------------------------------------------
    def _joint_die(self, env: Envelope, ev: DiceRolled) -> None:
        seq = env.seq
        self._need_history(seq)
        step = self.seed_step
        if step is None:
            raise TrustViolation(f"seq {seq}: joint die {ev.label!r} drawn before any seed step was revealed "
                                 "(no joint seed yet)", RULE_JOINT)
        if ev.seed_ref != step.completed_at:
            raise TrustViolation(f"seq {seq}: joint die {ev.label!r} names the seed of seq {ev.seed_ref}, but the "
                                 f"newest joint seed is step {step.name} (completed at seq {step.completed_at})",
                                 RULE_JOINT)
        recomputed = derive_faces(step.seed, ev.label, ev.count, ev.sides)
        if recomputed != ev.faces:
            raise TrustViolation(f"seq {seq}: joint die {ev.label!r} shows {list(ev.faces)}, the seed of step "
                                 f"{step.name} gives {list(recomputed)}", RULE_JOINT)
        decisions = self.decisions.get(step.name)
        if decisions:
            d = decisions[0]
            text = (f"joint die {ev.label!r} (seq {seq}) was drawn from step {step.name} after the decision point "
                    f"at seq {d.seq} ({d.player}: {d.what})")
            if self.mode == "strict":
                raise TrustViolation(f"seq {seq}: {text}; strict mode needs a fresh commit-reveal first "
                                     "(combatlog seal commit STREAM --step NEW-STEP)", RULE_JOINT)
            self.flagged.append(text + " [friendly mode: allowed, with foreknowledge]")
        self.joint_dice += 1

    # -- acknowledgements -------------------------------------------------------------------
    def _ack(self, env: Envelope, ev: Acknowledged) -> None:
        seq = env.seq
        if not self.pinned:
            raise TrustViolation(f"seq {seq}: acknowledgements need pinned players", RULE_ACK)
        if ev.player != env.actor:
            raise TrustViolation(f"seq {seq}: {env.actor} acknowledges in the name of {ev.player}", RULE_ACK)
        if not 1 <= ev.upto < seq:
            raise TrustViolation(f"seq {seq}: acknowledges seq {ev.upto}, which is not an earlier event", RULE_ACK)
        known = self.hashes.get(ev.upto)
        if known is None and self.partial:
            raise TrustViolation(f"seq {seq}: cannot check an acknowledgement without the history", RULE_ACK)
        if known != ev.hash:
            raise TrustViolation(f"seq {seq}: {ev.player} acknowledges seq {ev.upto} as {ev.hash[:12]}..., but "
                                 f"that event's hash is {(known or '?')[:12]}...", RULE_ACK)
        self.acked[ev.player] = max(self.acked.get(ev.player, 0), ev.upto)

    # -- the summary ------------------------------------------------------------------------------
    def acknowledged(self) -> dict[str, int]:
        """Per pinned player, the last seq they signed or acknowledged (an append acknowledges all below it)."""
        return {p: max(self.last_signed.get(p, 0), self.acked.get(p, 0)) for p in self.players}

    def notes(self) -> list[str]:
        out: list[str] = []
        if self.pinned and self.unverifiable:
            out.append(f"{self.unverifiable} local or manual dice in a combat played at a distance: their "
                       "roller could have rolled them again privately (the joint scheme prevents it)")
        if self.pinned:
            acks = self.acknowledged()
            out.append("acknowledged: " + ", ".join(f"{p} up to #{n}" if n else f"{p} nothing yet"
                                                     for p, n in acks.items()))
            for p, n in acks.items():
                if n < self.head_seq:
                    span = f"#{n + 1}" + (f"-#{self.head_seq}" if n + 1 < self.head_seq else "")
                    out.append(f"not yet acknowledged by {p}: {span}")
        for info in self.steps.values():
            if info.completed_at:
                continue
            missing = info.missing_commits()
            if info.chained:
                out.append(f"seed step {info.name}: waiting for links or reveals from {', '.join(info.missing_reveals())}")
            elif missing:
                out.append(f"sealed step {info.name}: waiting for commits from {', '.join(missing)}")
            else:
                out.append(f"sealed step {info.name}: waiting for reveals from {', '.join(info.missing_reveals())}")
        if self.seed_step is not None and self.decisions.get(self.seed_step.name):
            d = self.decisions[self.seed_step.name][-1]
            out.append(f"decision point at #{d.seq} ({d.player}) on the seed of step {self.seed_step.name}: "
                       + ("the next joint die needs a fresh commit-reveal" if self.mode == "strict"
                          else "friendly mode, later joint dice are flagged"))
        released = [p for p, c in self.chains.items() if c.secret]
        if released:
            out.append(f"released nonce chains: {', '.join(released)} (their links contribute by themselves)")
            secret = [p for p in self.players if not (p in self.chains and self.chains[p].secret)]
            if len(secret) == 1:
                out.append(f"only {secret[0]}'s links are still secret: {secret[0]} can compute every later seed in "
                           "advance")
        out += self.flagged
        return out
