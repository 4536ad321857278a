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
- acknowledgements: a player countersigns an earlier event by its seq and hash.
"""

from __future__ import annotations

import re

import msgspec

from combatlog.dice.derive import derive_faces
from combatlog.events.base import Event
from combatlog.events.core import (
    Acknowledged, CombatStarted, DecisionMarked, DiceRolled, OrdersCommitted, OrdersRevealed, Player,
)
from combatlog.events.envelope import Envelope
from combatlog.trust.crypto import check_orders_value, commitment, is_hex64, joint_seed

RULE_SIG = "trust: signatures"
RULE_SEAL = "trust: sealed orders"
RULE_JOINT = "trust: joint dice"
RULE_ACK = "trust: acknowledgement"
MODES = ("strict", "friendly")
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
    commits: dict[str, tuple[int, str]] = {}  # player -> (seq, commitment)
    reveals: dict[str, tuple[int, str]] = {}  # player -> (seq, nonce)
    completed_at: int = 0
    seed: bytes = b""

    def missing_commits(self) -> list[str]:
        return [p for p in self.required if p not in self.commits]

    def missing_reveals(self) -> list[str]:
        return [p for p in self.required if p not in self.reveals]


class Decision(msgspec.Struct, frozen=True):
    seq: int
    player: str
    what: str


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
        self.hashes: dict[int, str] = {}  # seq -> hash (kept when players are pinned, for acknowledgements)
        self.last_signed: dict[str, int] = {}
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
        if check_sigs:
            self._signatures(env)
        if self.pinned:
            self.hashes[seq] = env.hash
            self.last_signed[env.actor] = max(self.last_signed.get(env.actor, 0), seq)
        match event:
            case OrdersCommitted():
                self._commit(env, event)
            case OrdersRevealed():
                self._reveal(env, event)
            case Acknowledged():
                self._ack(env, event)
            case DecisionMarked():
                if self.pinned and event.player not in self.players:
                    raise TrustViolation(f"seq {seq}: a decision point by {event.player!r}, who is not a pinned player",
                                         RULE_JOINT)
                if self.seed_step is not None:
                    self.decisions.setdefault(self.seed_step.name, []).append(Decision(seq, event.player, event.what))
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
        sequencer = genesis.options.get("sequencer")
        if sequencer is not None and sequencer not in self.players:
            raise TrustViolation(f"the genesis option sequencer={sequencer!r} names no pinned player", RULE_SIG)

    def _signatures(self, env: Envelope) -> None:
        from combatlog.trust.keys import strict_b64, verify_signature
        from combatlog.trust.players import signed_message

        seq = env.seq
        if not self.pinned:
            if env.sigs:
                raise TrustViolation(f"seq {seq} carries signatures, but this combat pins no players to check "
                                     "them against", RULE_SIG)
            return
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
            if raw is None or not verify_signature(self.public[sig.signer], raw, signed_message(env.hash)):
                raise TrustViolation(f"seq {seq}: the signature of {sig.signer} is not valid for this event "
                                     "(forged, or the event or signature was altered)", RULE_SIG)
            self.signatures += 1
        if env.actor not in seen:
            raise TrustViolation(f"seq {seq} ({env.type}) by {env.actor} is not signed by {env.actor} "
                                 "(every event of a combat with pinned players is signed by its actor)", RULE_SIG)

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
            seeds = self._seeds(ev.required)
            other = self.step_open() if seeds else None
            if other is not None:
                raise TrustViolation(
                    f"seq {seq}: step {ev.step} opens while step {other.name} (opened at seq {other.opened_at}) "
                    "is not complete; one seed step at a time, so nobody can choose between seeds", RULE_SEAL)
            info = self.steps[ev.step] = StepInfo(name=ev.step, required=ev.required, opened_at=seq, seeds=seeds)
        elif info.required != ev.required:
            raise TrustViolation(f"seq {seq}: this commit to {ev.step} requires {', '.join(ev.required)}, its "
                                 f"first commit {', '.join(info.required)}", RULE_SEAL)
        if ev.player not in info.required:
            raise TrustViolation(f"seq {seq}: {ev.player} is not among the players of step {ev.step} "
                                 f"({', '.join(info.required)})", RULE_SEAL)
        if ev.player in info.commits:
            raise TrustViolation(f"seq {seq}: {ev.player} already committed to step {ev.step} at seq "
                                 f"{info.commits[ev.player][0]} (a commitment cannot be changed)", RULE_SEAL)
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
        try:
            check_orders_value(ev.orders)
        except Exception as exc:
            raise TrustViolation(f"seq {seq}: {exc}", RULE_SEAL) from None
        commit_seq, expected = info.commits[ev.player]
        if commitment(ev.orders, ev.nonce) != expected:
            raise TrustViolation(f"seq {seq}: the orders {ev.player} reveals for step {ev.step} do not match "
                                 f"the commitment at seq {commit_seq} (changed after committing)", RULE_SEAL)
        info.reveals[ev.player] = (seq, ev.nonce)
        if not info.missing_reveals():
            info.completed_at = seq
            if info.seeds:
                nonces = {p: n for p, (_s, n) in info.reveals.items()}
                info.seed = joint_seed(self.genesis_hash, info.name, nonces)
                self.seed_step = info

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
            if missing:
                out.append(f"sealed step {info.name}: waiting for commits from {', '.join(missing)}")
            else:
                out.append(f"sealed step {info.name}: waiting for reveals from {', '.join(info.missing_reveals())}")
        if self.seed_step is not None and self.decisions.get(self.seed_step.name):
            d = self.decisions[self.seed_step.name][-1]
            out.append(f"decision point at #{d.seq} ({d.player}) on the seed of step {self.seed_step.name}: "
                       + ("the next joint die needs a fresh commit-reveal" if self.mode == "strict"
                          else "friendly mode, later joint dice are flagged"))
        out += self.flagged
        return out
