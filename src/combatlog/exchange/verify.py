"""Verification of a chain of envelopes, from a file or from a store.

``ChainVerifier`` takes envelope bytes one at a time and stops at the first
problem, naming the line or seq: non-canonical bytes (so any altered byte is
caught even where JSON would not care), a wrong hash, a broken chain, a seq out
of order, an event of another stream, an unknown or malformed payload, a die
whose faces do not fit its notation, a label drawn twice, a referee die that
does not match its revealed seed, or a state that breaks the ruleset's
invariants. The ``Wiring`` it is given (``combatlog.wiring``) adds the trust
layer's checks: signatures, sealed orders, joint dice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import msgspec

from combatlog.dice.derive import derive_faces, seed_commitment
from combatlog.dice.notation import parse_dice
from combatlog.dice.port import LABEL_PATTERN, SCHEMES
from combatlog.errors import CombatlogError, InvalidCommand, VerificationFailed
from combatlog.events.canonical import MAX_DEPTH, MAX_LINE_BYTES, is_canonical, line_size_problem  # noqa: F401
from combatlog.events.core import CombatStarted, DiceRolled, Forked, SeedCommitted, SeedRevealed
from combatlog.events.envelope import GENESIS_PREV, Envelope, Recorded, decode_envelope, decode_recorded, future_problem, hash_of, latest_allowed, parse_recorded_at
from combatlog.commands.record import UNRECORDED_RULE, must_record, records_commands, unrecorded_problem
from combatlog.exchange.redecide import Redecider
from combatlog.exchange.typed_line import NOT_DECODED, TypedLine, typed_line
from combatlog.projections.fold import Folded, empty, encode_snapshot, lineage
from combatlog.rulesets import load_ruleset
from combatlog.rulesets.base import DiceUse, derived_value
from combatlog.text import CONTROL_BYTES, control_problem, may_hold_control
from combatlog.ports import Wiring
from combatlog.store.base import EventStore, StreamMeta


class Segment(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Which stream holds which seqs of a history (a fork's parent prefix, then the fork)."""

    id: str
    name: str
    ruleset: str
    created_at: str = ""
    parent: str | None = None
    fork_seq: int = 0
    to_seq: int | None = None  # last seq of this segment (None for the last one)


def segments_of(store: EventStore, meta: StreamMeta) -> list[Segment]:
    """The header's segments, named as their first events name them (a local ``import --name``
    renames a combat on this machine only: the file says what the log says)."""
    out = []
    for seg, low, high in lineage(store, meta):
        rows = store.read_stream(seg.id, low, low)
        first = decode_recorded(rows[0].body).event if rows else None
        name = first.name if isinstance(first, (CombatStarted, Forked)) else seg.name
        out.append(Segment(id=seg.id, name=name, ruleset=seg.ruleset, created_at=seg.created_at, parent=seg.parent,
                           fork_seq=seg.fork_seq, to_seq=high))
    return out


class DiceTally(msgspec.Struct, kw_only=True):
    verified: int = 0  # recomputed from a revealed seed
    pending: int = 0  # derived from a seed not yet revealed
    manual: int = 0  # entered by a player: trusted, not checkable
    local: int = 0  # OS randomness: honest but unverifiable
    unbound: int = 0  # joint dice that no rule reads (a free roll: its label was the roller's choice)


class VerifyReport(msgspec.Struct, kw_only=True):
    ok: bool
    stream: str
    name: str
    ruleset: str
    events: int
    first_seq: int
    head_seq: int
    head_hash: str
    dice: DiceTally
    pending_dice: list[str]  # labels awaiting a seed reveal
    signatures: int = 0
    rules_digest_matches: bool = True
    # the earlier revision of the rules the log was begun under, which this build reads and re-decides under
    # its own rules ("" for a log of this build's revision, or one not re-decided: rules_digest_matches false)
    rules_revision: str = ""
    notes: list[str] = []
    acknowledged: dict[str, int] = {}  # pinned player -> last seq they signed or acknowledged




class ChecksDone(msgspec.Struct, frozen=True):
    """What the wiring's event and finish checks add to a report (exchange/split.py hands it between the two
    processes of a split verify): signatures checked, joint dice recomputed, their notes, acknowledgements."""

    signatures: int
    verified: int
    notes: list[str]
    acknowledged: dict[str, int]

    @classmethod
    def of(cls, verifier: ChainVerifier) -> ChecksDone:
        """What the checks of ``verifier``, a new one that has made nothing else, added."""
        return cls(signatures=verifier.signatures, verified=verifier.tally.verified, notes=verifier.notes,
                   acknowledged=verifier.acknowledged)


class HeadDone(msgspec.Struct, frozen=True):
    """What verifying a log's head (its events up to a cut, from the genesis, with every check) found that the
    verify of its tail (from the state at the cut, ``exchange/split.py``) needs to finish the report: the events
    and the dice the head holds, the dice its rules read, the notes of its genesis, the labels still waiting
    for a seed's reveal at the cut."""

    count: int
    first_seq: int
    manual: int
    local: int
    used: dict[str, int]
    awaiting: list[str]
    notes: list[str]
    rules_ok: bool
    rules_revision: str

    @classmethod
    def of(cls, verifier: ChainVerifier) -> HeadDone:
        return cls(count=verifier.count, first_seq=verifier.first_seq, manual=verifier.tally.manual,
                   local=verifier.tally.local, used=dict(verifier.used), awaiting=verifier.awaiting_labels(),
                   notes=list(verifier.notes), rules_ok=verifier.rules_ok, rules_revision=verifier.rules_revision)


# ``verify --accept-unrecorded`` / ``import --accept-unrecorded``: a log whose genesis claims an engine from before
# command records is verified (a note says what was not re-decided) instead of refused. Set for the verifiers
# made inside ``accepting_unrecorded()`` (a split verify's other process inherits it when it forks).
ACCEPT_UNRECORDED: ContextVar[bool] = ContextVar("accept_unrecorded", default=False)
ACCEPT_FLAG = "--accept-unrecorded"


@contextmanager
def accepting_unrecorded(accept: bool = True) -> Iterator[None]:
    token = ACCEPT_UNRECORDED.set(accept)
    try:
        yield
    finally:
        ACCEPT_UNRECORDED.reset(token)


class ChainVerifier:
    def __init__(self, segments: list[Segment], *, base: Folded | None = None,
                 strict_rules: bool = True, prior: Callable[[], Iterable[Recorded]] | None = None,
                 wiring: Wiring) -> None:
        self.wiring = wiring
        self.segments = segments
        self.ruleset = load_ruleset(segments[-1].ruleset)
        self.folded = base if base is not None else empty(self.ruleset)
        self.expected_seq = self.folded.core.head_seq + 1
        self.prev = self.folded.core.head_hash or GENESIS_PREV
        self._last_time_text = self.folded.core.head_time
        self._last_time = parse_recorded_at(self._last_time_text) if self._last_time_text else None
        self._not_after = latest_allowed()  # this machine's clock plus the allowed skew
        self.first_seq = self.expected_seq
        self.count = 0
        self.strict_rules = strict_rules
        self.accept_unrecorded = ACCEPT_UNRECORDED.get()
        self.tally = DiceTally()
        self.signatures = 0
        self.notes: list[str] = []
        self.rules_ok = True
        self.rules_revision = ""  # an earlier revision of the rules the log was begun under (Ruleset.earlier_digests)
        # With a base: the events before it, for checks that keep their own state (trust).
        self.prior = prior
        self.extra: dict[str, Any] = {}  # state kept by the wiring's event checks between events
        self.acknowledged: dict[str, int] = {}
        # commit seq -> [(seq, label, count, sides, faces)] waiting for the reveal
        self._awaiting: dict[int, list[tuple[int, str, int, int, tuple[int, ...]]]] = {}
        # label -> (seq, die): every die drawn, for the rules' dice uses; label -> seq of the event using it
        self.dice: dict[str, tuple[int, DiceRolled, str]] = {}  # label -> (seq, die, command id)
        self.used: dict[str, int] = {}
        self._prior_loaded = prior is None
        self._command_id = ""
        # every recorded command, re-decided; it runs (or puts off, inside a batch) the dice-use checks
        self.redecider = Redecider(self.folded, self.fail, self._check_dice_uses)
        # the wiring's event and finish checks (the trust layer's: signatures, sealed orders, joint dice) made
        # here, or by the other process of a split verify, which hands over what they add to the report
        self.checks_here = True
        self.checked_elsewhere: ChecksDone | None = None
        # a verifier of a log's tail (from the state at a cut): what the head's verify found, and what this one
        # assumed of the head (the labels waiting for a reveal at the cut), compared when it finishes
        self.head_done: HeadDone | None = None
        # a split verify: the signatures of events after this seq have their cryptography checked by the fold's
        # process (``Wiring.signature_math``), of those up to it by the lines' process, with the other checks
        self.signatures_split = 0
        self.assumed_awaiting: list[str] = []
        # an import's verifier: the state where a command ends past each multiple of ``snapshot_every`` events,
        # (seq, snapshot bytes), which the import keeps once it lands (a later split verify cuts at one)
        self.snapshot_every = 0
        self.snapshots: list[tuple[int, bytes]] = []

    @classmethod
    def continuing(cls, before: ChainVerifier, segments: list[Segment],
                   prior: Callable[[], Iterable[Recorded]] | None) -> ChainVerifier:
        """A verifier for the events after those ``before`` verified (the server, append after append): it
        starts from ``before``'s state at its head and keeps what ``before`` learnt of the history that an
        incremental verifier would otherwise read again from the log (the trust layer's fold, the dice drawn
        and used), so the log is not re-read. ``before`` is consumed (its state moves on with this one).
        ``prior``: the history up to the new base, for what ``before`` had not loaded yet."""
        verifier = cls(segments, base=before.folded, strict_rules=before.strict_rules, prior=prior,
                       wiring=before.wiring)
        verifier.extra = before.extra
        verifier.dice, verifier.used, verifier._prior_loaded = before.dice, before.used, before._prior_loaded
        return verifier

    def fail(self, where: str, message: str) -> None:
        # a die a batch's event misuses is named first, as if each event had been checked on arrival
        self.redecider.run_deferred()
        raise VerificationFailed(message, where=where)

    def _segment_for(self, seq: int) -> Segment:
        if len(self.segments) == 1:  # most histories, which no fork cut: every event is its one segment's
            return self.segments[0]
        for seg in self.segments:
            if seg.to_seq is None or seq <= seg.to_seq:
                return seg
        return self.segments[-1]

    def feed(self, body: bytes, where: str) -> Recorded:
        env, line = self.check_line(body, where)
        return self._take(env, line, where)

    def feed_line_checked(self, body: bytes, where: str) -> Recorded:
        """``feed`` for a line whose own checks (``check_line``) another process is making of the same bytes, in
        step (``exchange/split.py``): the line is decoded, not proven, and everything else is checked as ``feed``
        checks it. Only a verifier whose every line that other process passes may report success."""
        try:
            env = decode_envelope(body)
        except msgspec.DecodeError as exc:
            self.fail(where, f"not a valid event envelope: {exc}")
            raise  # unreachable; keeps type checkers calm
        return self._take(env, None, where)

    def check_line(self, body: bytes, where: str) -> tuple[Envelope, TypedLine | None]:
        """The checks of one line that need nothing of the rules' fold: its bytes (size, canonical JSON, no
        control characters), its hash, its place in the chain (seq, prev) and its time. The envelope, and what
        proving the line decoded (None when ``is_canonical`` had to judge it)."""
        if type(body) is not bytes:  # a row of a log file edited to hold text (SQLite keeps what it is given)
            self.fail(where, "not an event line: the stored event is text, not the bytes the log writes (the log "
                             "file was edited)")
        too_large = line_size_problem(body)
        if too_large:
            self.fail(where, too_large)
        line = typed_line(body, self.folded.ruleset)  # most lines: proven canonical by the decodes needed anyway
        if line is None:
            if not is_canonical(body):
                self.fail(where, "not the canonical JSON of an event (the line was altered or is not an event; "
                                 f"values nest at most {MAX_DEPTH} levels, numbers are whole within +-2**53)")
            try:
                env = decode_envelope(body)
            except msgspec.DecodeError as exc:
                self.fail(where, f"not a valid event envelope: {exc}")
                raise  # unreachable; keeps type checkers calm
        else:
            env = line.env
        if may_hold_control(body) and CONTROL_BYTES.search(body):
            problem = control_problem(msgspec.json.decode(body))
            if problem:
                self.fail(where, f"seq {env.seq}: {problem} (it could rewrite what a terminal shows)")
        if (env.computed_hash() if line is None else hash_of(line.hashed)) != env.hash:
            self.fail(where, f"seq {env.seq}: hash does not match the content (event altered)")
        if env.seq != self.expected_seq:
            self.fail(where, f"seq {env.seq} where {self.expected_seq} was expected (events missing, added or reordered)")
        if env.prev != self.prev:
            self.fail(where, f"seq {env.seq} does not chain to the previous event (prev {env.prev[:12]}..., expected {self.prev[:12]}...)")
        # (a batch's events share their time: the same text parses to the same time)
        when = self._last_time if env.recorded_at == self._last_time_text else parse_recorded_at(env.recorded_at)
        if when is None:
            self.fail(where, f"seq {env.seq}: recorded_at {env.recorded_at!r} is not an RFC 3339 UTC time "
                             "(YYYY-MM-DDTHH:MM:SS[.ffffff]Z)")
        if when > self._not_after:  # type: ignore[operator]
            self.fail(where, f"seq {env.seq}: " + future_problem(when, env.recorded_at, self._not_after))  # type: ignore[arg-type]
        if env.placed is not msgspec.UNSET:
            pass  # a placed decision keeps the time its author made it, before the branch it was placed after
        elif self._last_time is not None and when < self._last_time:  # type: ignore[operator]
            self.fail(where, f"seq {env.seq}: recorded at {env.recorded_at}, before the event it follows "
                             f"({self._last_time_text}): times never go backwards along the chain")
        else:
            self._last_time, self._last_time_text = when, env.recorded_at
        return env, line

    def _take(self, env: Envelope, line: TypedLine | None, where: str) -> Recorded:
        """The checks of a line whose own checks passed (or are made elsewhere): its stream, its payload, its
        meaning, the trust layer's checks, the re-decision of its command; then it is folded."""
        self._command_id = env.command_id
        seg = self._segment_for(env.seq)
        if env.stream != seg.id:
            self.fail(where, f"seq {env.seq} belongs to stream {env.stream}, expected {seg.id}")
        try:
            rec = Recorded(env, env.payload() if line is None else line.event)
        except (CombatlogError, msgspec.ValidationError, msgspec.DecodeError) as exc:
            self.fail(where, f"seq {env.seq}: payload of {env.type} is invalid: {exc}")
            raise
        self._semantics(rec, seg, where)
        if self.checks_here:
            for check in self.wiring.event_checks:  # signatures, sealed orders, joint dice
                check(self, rec, where)
        elif self.signatures_split and env.seq > self.signatures_split and self.wiring.signature_math is not None:
            self.wiring.signature_math(self, rec, where)
        if self.snapshot_every and env.command_id != self.redecider.last_command_id:
            self._snapshot_before()
        self.redecider.feed(rec, where, NOT_DECODED if line is None else line.command)  # batches, and the dice each event of the rules reads
        try:
            self.folded.apply(rec)
        except Exception as exc:  # a crafted event the ruleset cannot fold
            self.fail(where, f"seq {env.seq}: the {self.ruleset.info.name} rules cannot apply {env.type}: {exc}")
        self.expected_seq += 1
        self.prev = env.hash
        self.count += 1
        return rec

    def _snapshot_before(self) -> None:
        """At the start of a command: the state after the one before, if it passed another multiple of
        ``snapshot_every`` since the last kept (or the base)."""
        core = self.folded.core
        done = core.head_seq
        last = self.snapshots[-1][0] if self.snapshots else self.first_seq - 1
        if self.folded.state is not None and done // self.snapshot_every > last // self.snapshot_every:
            self.snapshots.append((done, encode_snapshot(self.folded)))

    def _redecide_setup(self, ev: CombatStarted, where: str) -> None:
        """The set-up is the creator's decision: ``new`` records what the ruleset's ``validate_setup`` makes of
        the file it is given, so every machine runs it again on the recorded set-up (as verify re-decides each
        command) and refuses one the rules refuse or would have recorded otherwise: a modified client cannot
        start a fight with a character the rules do not allow. Logs of engines that recorded no commands are
        not re-decided (``finish`` says so)."""
        from combatlog.events.canonical import canonical

        if not must_record(ev):
            return
        recorded = canonical(ev.setup)
        try:
            again = self.ruleset.validate_setup(msgspec.json.decode(recorded))
        except Exception as exc:  # a refusal, or a crafted set-up the check cannot even read: refused alike
            self.fail(where, f"the genesis's set-up is one the {self.ruleset.info.name} rules refuse: {exc}")
        if canonical(again) != recorded:
            self.fail(where, f"the genesis's set-up is not what the {self.ruleset.info.name} rules record for it "
                             "(`new` would have recorded it otherwise: it was not made by the rules)")

    def _semantics(self, rec: Recorded, seg: Segment, where: str) -> None:
        ev, seq = rec.event, rec.env.seq
        if seq == 1 and type(ev) is not CombatStarted:
            self.fail(where, "seq 1 is not a core.combat_started genesis")
        if type(ev) is CombatStarted:
            if seq != 1:
                self.fail(where, f"a genesis at seq {seq}")
            if seg.parent is not None:
                self.fail(where, f"the genesis opens segment {seg.name}, which the header says is a fork")
            if not records_commands(ev.engine_version) and not self.accept_unrecorded:
                # the engine a genesis names is its creator's word: it never turns a check off unasked
                self.fail(where, f"{unrecorded_problem(ev)} ({UNRECORDED_RULE}); {ACCEPT_FLAG} verifies or imports "
                                 "it knowingly, to read (nothing can be added to it)"
                                 + ("; with pinned players every decision must still be recorded" if ev.players
                                    else ""))
            if ev.ruleset != self.ruleset.info.name:
                self.fail(where, f"genesis names ruleset {ev.ruleset}, the header {self.ruleset.info.name}")
            if ev.name != seg.name:
                self.fail(where, f"the genesis names the combat {ev.name!r}, the header {seg.name!r}")
            earlier = self.ruleset.earlier_digests.get(ev.rules_digest)
            if earlier is not None:  # a revision this build reads: its commands re-decided under this build's rules
                self.rules_revision = earlier
                self.notes.append(f"the log was begun under an earlier revision of the {ev.ruleset} rules ({earlier}); "
                                  "this build reads it and re-decides every command under its own rules (fixes since: "
                                  "docs/CHANGELOG.md)")
                self._redecide_setup(ev, where)
            elif ev.rules_digest != self.ruleset.rules_digest():
                self.rules_ok = False
                message = (f"the log was made under {ev.ruleset} {ev.ruleset_version} with rules digest "
                           f"{ev.rules_digest[:12]}..., this machine has {self.ruleset.info.version} with "
                           f"{self.ruleset.rules_digest()[:12]}...")
                if self.strict_rules:
                    self.fail(where, message + " (use --allow-rules-mismatch to check it anyway)")
                self.notes.append(message)
                self.redecider.skipped = True
                self.notes.append("commands not re-decided: this machine's rules are not the ones the log was made "
                                  "under, so the legality of its decisions is unchecked")
            else:
                self._redecide_setup(ev, where)
        elif type(ev) is Forked:
            if seg.parent is None or seq != seg.fork_seq + 1:
                self.fail(where, f"seq {seq}: a fork event where no fork begins")
            if ev.parent != seg.parent or ev.at_seq != seg.fork_seq or ev.parent_hash != rec.env.prev:
                self.fail(where, f"seq {seq}: the fork does not name its parent's event at seq {seg.fork_seq}")
            if ev.name != seg.name:
                self.fail(where, f"seq {seq}: the fork names itself {ev.name!r}, the header {seg.name!r}")
        elif seg.parent is not None and seq == seg.fork_seq + 1:
            self.fail(where, f"seq {seq}: a fork must begin with core.forked")
        elif type(ev) is DiceRolled:
            self._dice(ev, seq, where)
        elif type(ev) is SeedCommitted:
            pass
        elif type(ev) is SeedRevealed:
            self._reveal(ev, seq, where)

    def _dice(self, ev: DiceRolled, seq: int, where: str) -> None:
        core = self.folded.core
        if ev.label in core.labels:
            self.fail(where, f"seq {seq}: dice label {ev.label!r} was already drawn at seq {core.labels[ev.label]}")
        if not LABEL_PATTERN.match(ev.label):
            self.fail(where, f"seq {seq}: {ev.label!r} is not a valid dice label")
        # Every field of a die must be the one its notation and the scheme's limits allow:
        # a die re-sealed as 1d6 with sides=988 must not verify as "1d6 -> [988]".
        try:
            dice = parse_dice(ev.notation)
        except InvalidCommand as exc:
            self.fail(where, f"seq {seq}: die {ev.label!r}: {exc.message}")
            return
        if str(dice) != ev.notation or (dice.count, dice.sides, dice.modifier) != (ev.count, ev.sides, ev.modifier):
            self.fail(where, f"seq {seq}: die {ev.label!r} says {ev.notation} but records {ev.count} dice of "
                             f"{ev.sides} sides {ev.modifier:+d}")
        if len(ev.faces) != ev.count or any(not 1 <= f <= ev.sides for f in ev.faces):
            self.fail(where, f"seq {seq}: faces {list(ev.faces)} do not fit {ev.notation}")
        if ev.total != sum(ev.faces) + ev.modifier:
            self.fail(where, f"seq {seq}: total {ev.total} is not the faces plus {ev.modifier}")
        if ev.scheme not in SCHEMES:
            self.fail(where, f"seq {seq}: unknown dice scheme {ev.scheme!r}")
        if ev.scheme in ("manual", "local") and ev.seed_ref:
            self.fail(where, f"seq {seq}: a {ev.scheme} die names a seed (seq {ev.seed_ref})")
        self.dice[ev.label] = (seq, ev, self._command_id)
        if ev.scheme == "manual":
            self.tally.manual += 1
        elif ev.scheme == "local":
            self.tally.local += 1
        elif ev.scheme in self.wiring.scheme_checks:
            self.wiring.scheme_checks[ev.scheme](self, ev, seq, where)
        elif ev.scheme in ("referee", "joint"):
            info = core.seeds.get(ev.seed_ref)
            if info is None or info.scheme != ev.scheme:
                self.fail(where, f"seq {seq}: die {ev.label!r} names no {ev.scheme} commitment at seq {ev.seed_ref}")
                return
            if info.revealed:
                self.fail(where, f"seq {seq}: die {ev.label!r} was drawn after its seed was revealed")
            self._awaiting.setdefault(ev.seed_ref, []).append((seq, ev.label, ev.count, ev.sides, ev.faces))
        else:
            self.fail(where, f"seq {seq}: unknown dice scheme {ev.scheme!r}")

    # -- the rules' dice: every number that came from a die is bound to it ------------

    def _load_prior(self) -> None:
        """Dice drawn and used before an incremental bundle (from the local log, folded again)."""
        if self._prior_loaded:
            return
        self._prior_loaded = True
        assert self.prior is not None
        folded = empty(self.ruleset)
        for rec in self.prior():
            if type(rec.event) is DiceRolled:
                self.dice[rec.event.label] = (rec.seq, rec.event, rec.env.command_id)
            elif folded.state is not None and not rec.env.type.startswith("core."):
                for use in self.ruleset.dice_uses(folded.state, rec.event):
                    if not use.reuse:
                        self.used.setdefault(use.label, rec.seq)
            folded.apply(rec)

    def _check_dice_uses(self, rec: Recorded, state: Any, where: str) -> None:
        """Every die the rules read for ``rec`` on ``state`` (the state before it): drawn before it, under
        the rules' label and notation, with the value the event copies, read once."""
        try:
            uses = self.ruleset.dice_uses(state, rec.event)
        except Exception as exc:  # a crafted event the ruleset cannot even read
            self.fail(where, f"seq {rec.seq}: the {self.ruleset.info.name} rules cannot read {rec.env.type}: {exc}")
            return
        if uses:
            self._load_prior()
        for use in uses:
            self._check_use(use, rec, where)

    def _check_use(self, use: DiceUse, rec: Recorded, where: str) -> None:
        seq, what = rec.seq, f"seq {rec.seq}: {rec.env.type} {use.field}"
        if not use.label:
            if use.copied:
                self.fail(where, f"{what} says {use.copied}, but no die was drawn for it (it must be 0)")
            return
        found = self.dice.get(use.label)
        if found is None or found[0] > seq:  # (checked at a batch's end, a die of the batch after it)
            self.fail(where, f"{what} reads die {use.label!r}, which was not drawn before it")
            return
        dseq, die, drawn_by = found
        if use.expected_label and use.label != use.expected_label and die.scheme == "joint":
            self.fail(where, f"{what} reads joint die {use.label!r}, but the rules draw {use.expected_label!r} here "
                             "(a label chosen by the roller: its faces could be tried in advance)")
        if use.notation and die.notation != str(parse_dice(use.notation)):
            self.fail(where, f"{what}: the rules roll {use.notation} here, die {use.label!r} is {die.notation}")
        if use.copied is not None and use.copied != derived_value(use.derive, die.total):
            self.fail(where, f"{what} says {use.copied}, but die {use.label!r} (seq {dseq}) rolled {die.total}")
        if not use.reuse:
            earlier = self.used.get(use.label)
            if earlier is not None and earlier != seq:
                self.fail(where, f"{what} reads die {use.label!r}, already used by seq {earlier}")
            self.used[use.label] = seq
        if die.scheme == "joint" and not use.reuse and drawn_by != rec.env.command_id:
            self.fail(where, f"{what} reads joint die {use.label!r} drawn at seq {dseq} by another command: a rule's "
                             "die is drawn with the step it resolves (drawn earlier, its faces were known before "
                             "the choices made in between)")

    def _reveal(self, ev: SeedRevealed, seq: int, where: str) -> None:
        info = self.folded.core.seeds.get(ev.commit_seq)
        if info is None or info.revealed:
            self.fail(where, f"seq {seq}: reveals no open commitment (seq {ev.commit_seq})")
            return
        try:
            seed = bytes.fromhex(ev.seed)
        except ValueError:
            self.fail(where, f"seq {seq}: the revealed seed is not hex")
            return
        if seed_commitment(seed) != info.commitment:
            self.fail(where, f"seq {seq}: the revealed seed does not match its commitment at seq {ev.commit_seq}")
        self.check_dice_against(ev.commit_seq, seed, where)

    def check_dice_against(self, commit_seq: int, key: bytes, where: str) -> None:
        for dseq, label, count, sides, faces in self._awaiting.pop(commit_seq, []):
            if derive_faces(key, label, count, sides) != faces:
                self.fail(where, f"die {label!r} at seq {dseq} does not match the revealed seed "
                                 f"(recorded {list(faces)}, recomputed {list(derive_faces(key, label, count, sides))})")
            self.tally.verified += 1

    def awaiting_labels(self) -> list[str]:
        return sorted(label for items in self._awaiting.values() for _, label, *_ in items)

    def take_head_dice(self, lines: Iterable[bytes]) -> None:
        """Before verifying a log's tail from the state at a cut: the dice the head (``lines``, its events up to
        the cut) drew, which the tail's rules may read, and those still waiting for their seed's reveal. Read,
        not checked: the head's verify checks the same bytes, and the tail's success counts only with its."""
        seeds = self.folded.core.seeds
        for body in lines:
            if b'"core.dice_rolled"' not in body:
                continue
            rec = decode_recorded(body)
            die = rec.event
            if type(die) is not DiceRolled:
                continue
            self.dice[die.label] = (rec.seq, die, rec.env.command_id)
            info = seeds.get(die.seed_ref)
            if die.scheme in ("referee", "joint") and die.scheme not in self.wiring.scheme_checks \
                    and info is not None and not info.revealed:
                self._awaiting.setdefault(die.seed_ref, []).append((rec.seq, die.label, die.count, die.sides,
                                                                    die.faces))
        self.assumed_awaiting = self.awaiting_labels()

    def _join_head(self, where: str) -> None:
        """A tail's verifier: the head's findings joined to its own, as one verify of the whole log has them."""
        head = self.head_done
        assert head is not None
        if head.awaiting != self.assumed_awaiting:
            self.fail(where, "the dice waiting for a reveal at the cut are not those the tail assumed")
        for label, seq in head.used.items():
            if label in self.used:
                self.fail(where, f"seq {self.used[label]} reads die {label!r}, already used by seq {seq}")
        self.used = {**head.used, **self.used}
        self.notes[:0] = head.notes
        self.rules_ok, self.rules_revision = head.rules_ok, head.rules_revision
        self.first_seq, self.count = head.first_seq, head.count + self.count
        self.tally.manual += head.manual
        self.tally.local += head.local

    def finish(self, where: str = "end") -> VerifyReport:
        self.redecider.close()
        if self.head_done is not None:
            self._join_head(where)
        genesis = self.folded.core.genesis
        if genesis is not None and not self.redecider.required():
            self.notes.append(f"accepted with {ACCEPT_FLAG}: a log begun by engine {genesis.engine_version}, before "
                              "commands were recorded: the legality of its set-up and decisions was not re-decided "
                              "(only its dice, signatures and chain); nothing can be added to it")
        elif genesis is not None and not records_commands(genesis.engine_version):
            self.notes.append(f"accepted with {ACCEPT_FLAG}: the genesis claims engine {genesis.engine_version}, from "
                              "before commands were recorded; with pinned players every decision was re-decided all "
                              "the same; nothing can be added to it")
        if self.checks_here:
            for hook in self.wiring.finish_checks:
                hook(self)
        else:  # made by the other process of a split verify: what they found, where they would have added it
            done = self.checked_elsewhere
            assert done is not None, "a verifier whose checks are made elsewhere is finished with their outcome"
            self.signatures += done.signatures
            self.tally.verified += done.verified
            self.notes.extend(done.notes)
            self.acknowledged = dict(done.acknowledged)
        problems = self.ruleset.check(self.folded.state) if self.folded.state is not None else []
        if problems:
            self.fail(where, "the final state breaks the rules' invariants: " + "; ".join(problems))
        pending = [label for items in self._awaiting.values() for _, label, *_ in items]
        self.tally.pending = len(pending)
        unbound = [label for label, (_s, die, _c) in self.dice.items()
                   if die.scheme == "joint" and label not in self.used]
        self.tally.unbound = len(unbound)
        if unbound:
            shown = ", ".join(unbound[:5]) + (" ..." if len(unbound) > 5 else "")
            self.notes.append(f"{len(unbound)} joint dice are read by no rule (free rolls, or waiting for the step "
                              f"that uses them); their labels were the roller's choice: {shown}")
        core = self.folded.core
        last = self.segments[-1]
        return VerifyReport(
            ok=True, stream=last.id, name=core.name or last.name, ruleset=self.ruleset.info.name,
            events=self.count, first_seq=self.first_seq, head_seq=core.head_seq, head_hash=core.head_hash,
            dice=self.tally, pending_dice=pending, signatures=self.signatures,
            rules_digest_matches=self.rules_ok, rules_revision=self.rules_revision, notes=self.notes,
            acknowledged=self.acknowledged,
        )


def report_text(report: VerifyReport) -> str:
    d = report.dice
    lines = [
        f"ok: {report.name} ({report.ruleset}), events {report.first_seq}-{report.head_seq}, "
        f"head {report.head_hash[:16]}...",
        f"dice: {d.verified} verified against revealed seeds, {d.pending} awaiting a reveal, "
        f"{d.manual} entered by hand, {d.local} local (unverifiable)",
    ]
    if report.signatures:
        lines.append(f"signatures: {report.signatures} checked")
    if report.pending_dice:
        shown = ", ".join(report.pending_dice[:5]) + (" ..." if len(report.pending_dice) > 5 else "")
        lines.append(f"pending dice: {shown}")
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join(lines)
