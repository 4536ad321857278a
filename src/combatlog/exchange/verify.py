# Over 500 lines on purpose: ChainVerifier is one pass over the envelopes (chain, dice, re-decided batches, state digests, placed decisions' rounds) whose checks share the fold it keeps.
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
    # the state digests the log records (projections/digest.py) compared with this build's fold, and the last seq
    # of the first batch where they differ (0: none differs)
    states_checked: int = 0
    state_differs_at: int = 0
    # a log of a kept earlier revision (Ruleset.kept_revisions), shown as played: the last seq of the first batch
    # where today's rules fold another state (0: none, or not such a log), and how it differs
    today_differs_at: int = 0
    today_difference: list[str] = []




# ``verify --accept-unrecorded`` / ``import --accept-unrecorded``: a log whose genesis claims an engine from before
# command records is verified (a note says what was not re-decided) instead of refused. Set for the verifiers
# made inside ``accepting_unrecorded()``.
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
        # an import's verifier: the state where a command ends past each multiple of ``snapshot_every`` events,
        # (seq, snapshot bytes), which the import keeps once it lands (``state_at`` and the views start there)
        self.snapshot_every = 0
        self.snapshots: list[tuple[int, bytes]] = []
        # the batch being read (its command id, first event, whether an event of it carried a state digest)
        self._batch_cid: str | None = None
        self._batch_first: Recorded | None = None
        self._batch_state = False
        self._state_inside = 0  # the seq of an event of the batch after one that carried a state digest
        self.states_checked = 0
        self.state_differs_at = 0
        # a log of a kept earlier revision: the same events folded under today's rules, batch by batch, until the
        # first batch where today's state differs from the one played (then ``today_difference`` says how)
        self.today: Folded | None = None
        self.today_differs_at = 0
        self.today_difference: list[str] = []
        self.today_dice = ""  # the first die today's rules roll otherwise
        # where players are pinned (a merge may place decisions): the round being decided after each event, at
        # each change, the events' hashes and where each placed decision's original stands, for the rule that a
        # decision is placed only in the round it was made in (``_placed_in_its_round``)
        self._rounds: list[tuple[int, int]] = []
        self._hash_at: dict[int, str] = {}
        self._placed_at: dict[str, int] = {}
        self._rounds_loaded = self.first_seq <= 1
        self._track_rounds = False
        genesis = self.folded.core.genesis
        if genesis is not None and genesis.players and self.folded.state is not None:
            self._track_rounds = True
            self._rounds.append((self.first_seq - 1, self.ruleset.current_round(self.folded.state)))
            self._hash_at[self.first_seq - 1] = self.prev
        self._today_before: Any = None  # today's state before the batch being read, and the batch's envelopes
        self._today_recs: list[Recorded] = []
        self._today_roles: Any = None

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
        if before._track_rounds:  # the rounds and placed originals ``before`` learnt (placed decisions' rounds)
            verifier._rounds, verifier._hash_at, verifier._placed_at = before._rounds, before._hash_at, before._placed_at
            verifier._rounds_loaded, verifier._track_rounds = before._rounds_loaded, True
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
        """The checks of a line whose own checks passed: its stream, its payload, its
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
        for check in self.wiring.event_checks:  # signatures, sealed orders, joint dice
            check(self, rec, where)
        if self.snapshot_every and env.command_id != self.redecider.last_command_id:
            self._snapshot_before()
        new_batch = env.command_id != self._batch_cid
        if not new_batch and self._batch_state and not self._state_inside:
            self._state_inside = env.seq  # (refused where the batch ends, unless re-deciding it names more)
        if env.placed is not msgspec.UNSET and self._track_rounds:
            self._placed_in_its_round(env, where)
        self.redecider.feed(rec, where, NOT_DECODED if line is None else line.command)  # batches, and the dice each event of the rules reads
        if new_batch:  # (after the batch before is re-decided: a refusal there names what is wrong first)
            self._end_batch(where, cut_by_fork=type(rec.event) is Forked)
            self._batch_cid, self._batch_first, self._batch_state, self._state_inside = env.command_id, rec, False, 0
            if self.today is not None:  # today's state before the batch, which today's rules re-decide at its end
                self._today_before, self._today_recs = self.today.state, []
        if self.today is not None:
            self._today_recs.append(rec)
        try:
            self.folded.apply(rec)
        except Exception as exc:  # a crafted event the ruleset cannot fold
            self.fail(where, f"seq {env.seq}: the {self.ruleset.info.name} rules cannot apply {env.type}: {exc}")
        if self.today is not None:
            self._today_apply(rec)
        if env.state is not msgspec.UNSET:
            self._batch_state = True
            if env.placed is msgspec.UNSET:  # (a placed decision's digest is of the state where its author made it)
                self._check_state(env)
        if self._track_rounds or (env.seq == 1 and rec.event.players):  # type: ignore[attr-defined]
            self._track_rounds = True
            self._note_round(env, self.folded)
        self.expected_seq += 1
        self.prev = env.hash
        self.count += 1
        return rec

    # -- the state digests, and today's reading of a kept revision's log (projections/digest.py) --------------

    def _records_state(self) -> bool:
        from combatlog.commands.record import records_state

        genesis = self.folded.core.genesis
        return genesis is not None and records_state(genesis.engine_version)

    def _batch_span(self, last_seq: int) -> str:
        """The batch being read, as a note names it: its seqs, its author and its command (or first event)."""
        first = self._batch_first
        if first is None:
            return f"seq {last_seq}"
        what = first.env.type
        if first.env.command is not msgspec.UNSET:
            try:
                what = str(msgspec.json.decode(first.env.command)["name"])
            except Exception:  # (re-deciding names a record it cannot read)
                pass
        span = f"seq {first.seq}" + (f"-{last_seq}" if last_seq != first.seq else "")
        return f"{span} ({first.env.actor}'s {what})"

    def _end_batch(self, where: str, *, cut_by_fork: bool = False) -> None:
        """The batch being read ends: in a log that records states, a ruleset command's batch carried one on its
        last event (unless a fork cut it, or a merge placed it); today's reading, if any, is compared with the
        state as played. (A batch of core events only carries one where the write path sealed it.)"""
        first = self._batch_first
        if first is None:
            return
        head = self.folded.core.head_seq
        if self._state_inside:
            self.fail(where, f"seq {self._state_inside}: an event after the state digest of its batch (the digest "
                             "belongs on the batch's last event only)")
        if not self._batch_state and not cut_by_fork and first.env.placed is msgspec.UNSET \
                and first.env.command is not msgspec.UNSET and self._records_state():
            self.fail(where, f"{self._batch_span(head)} records no state digest: a log begun by engine "
                             f"{self.folded.core.genesis.engine_version} records one on each batch's last event")  # type: ignore[union-attr]
        if self.today is not None and not cut_by_fork and first.env.command is not msgspec.UNSET \
                and first.env.placed is msgspec.UNSET:
            self._redecide_today(head)
        if self.today is not None:
            self._compare_today(head)

    def _check_state(self, env: Envelope) -> None:
        from combatlog.projections.digest import state_digest

        self.states_checked += 1
        mine = state_digest(self.ruleset, self.folded.state)
        if mine == env.state or self.state_differs_at:
            return
        self.state_differs_at = env.seq
        genesis = self.folded.core.genesis
        version = genesis.ruleset_version if genesis is not None else self.ruleset.info.version
        self.notes.append(
            f"{self._batch_span(env.seq)}: this build folds another state than the one the log records after it "
            f"(digest {mine[:12]}..., recorded {str(env.state)[:12]}...): a change to the {self.ruleset.info.name} "
            f"rules since changed an outcome without raising their version ({version}), or the digest is not the "
            "rules' own; what the views show is this build's reading (docs/rules.md, \"The state digest\")")

    def _start_today(self, genesis: CombatStarted, rec: Recorded) -> None:
        """A log of a kept earlier revision: fold it under today's rules too (its genesis naming this version)."""
        self.today = empty(self.ruleset)
        today = msgspec.structs.replace(genesis, ruleset_version=self.ruleset.info.version,
                                        rules_digest=self.ruleset.rules_digest())
        self._today_genesis = Recorded(rec.env, today)

    def _today_apply(self, rec: Recorded) -> None:
        assert self.today is not None
        if type(rec.event) is CombatStarted:
            rec = self._today_genesis
        elif not self.today_dice and self.today.state is not None and not rec.env.type.startswith("core."):
            self._today_dice(rec)
        try:
            self.today.apply(rec)
        except Exception as exc:  # today's rules cannot fold what the earlier ones decided
            self.today_differs_at = rec.seq
            self.today_difference = [f"today's rules cannot fold seq {rec.seq} ({rec.env.type}): {exc}"]
            self._today_note(self._batch_span(rec.seq))
            self.today = None

    def _today_dice(self, rec: Recorded) -> None:
        """The first die today's rules would roll otherwise than the log's rules did (the ARCHER die of Magic Realm
        version 1: 2d6, today 1d6): a difference of its own, said even where the outcome is the same."""
        try:
            uses = self.ruleset.dice_uses(self.today.state, rec.event)  # type: ignore[union-attr]
        except Exception:  # (today's fold says what it cannot read)
            return
        for use in uses:
            found = self.dice.get(use.label) if use.label else None
            if found is None or not use.notation:
                continue
            today = str(parse_dice(use.notation))
            if today != found[1].notation:
                genesis = self.folded.core.genesis
                self.today_dice = (f"{self._batch_span(rec.seq)}: today's {self.ruleset.info.name} rules (version "
                                   f"{self.ruleset.info.version}) roll {today} for die {use.label!r}, which the log "
                                   f"rolled as {found[1].notation} under version "
                                   f"{genesis.ruleset_version if genesis else '?'}'s rules, as it was played")
                self.notes.append(self.today_dice)
                return

    def _redecide_today(self, last_seq: int) -> None:
        """Today's rules decide the batch's command on today's state before it, with its dice: where they refuse it
        or decide otherwise than the kept revision's rules did (a check a fix added, another outcome), the note
        names the batch and why."""
        from combatlog.commands.authority import roles_of
        from combatlog.exchange.redecide import decide_again

        core = self.folded.core
        if self._today_before is None or not self._today_recs:
            return
        if self._today_roles is None:
            self._today_roles = roles_of(self.ruleset, core.genesis, core.creator)
        problem = decide_again(self.ruleset, self._today_before, self._today_recs, core=core, roles=self._today_roles)
        if problem:
            self.today_differs_at = last_seq
            self.today_difference = [problem]
            self._today_note(f"{self._batch_span(last_seq)}, round {self.ruleset.round_of(self.folded.state)}")
            self.today = None

    def _compare_today(self, last_seq: int) -> None:
        from combatlog.projections.digest import differences, projection, state_bytes

        assert self.today is not None
        played, today = self.folded.state, self.today.state
        if played is None or state_bytes(self.ruleset, played) == state_bytes(self.ruleset, today):
            return
        self.today_differs_at = last_seq
        self.today_difference = differences(projection(self.ruleset, played), projection(self.ruleset, today))
        self._today_note(f"{self._batch_span(last_seq)}, round {self.ruleset.round_of(played)}")
        self.today = None

    def _today_note(self, where: str) -> None:
        genesis = self.folded.core.genesis
        played = genesis.ruleset_version if genesis is not None else "?"
        self.notes.append(f"today's {self.ruleset.info.name} rules (version {self.ruleset.info.version}) read this log "
                          f"differently from {where} on: " + "; ".join(self.today_difference) +
                          f". The log is shown as played, under version {played}'s rules")

    def _note_round(self, env: Envelope, folded: Folded) -> None:
        if folded.state is None:
            return
        self._hash_at[env.seq] = env.hash
        if env.placed is not msgspec.UNSET:
            self._placed_at[env.original().hash] = env.seq
        now = self.ruleset.current_round(folded.state)
        if not self._rounds or self._rounds[-1][1] != now:
            self._rounds.append((env.seq, now))

    def _load_rounds(self) -> None:
        """The rounds, hashes and placed originals of the events before an incremental bundle (folded again)."""
        self._rounds_loaded = True
        if self.prior is None:
            return
        folded = empty(self.ruleset)
        rounds, self._rounds = self._rounds, []
        for rec in self.prior():
            folded.apply(rec)
            self._note_round(rec.env, folded)
        self._rounds += [r for r in rounds if not self._rounds or r[0] > self._rounds[-1][0]]

    def _parent_of(self, env: Envelope) -> int | None:
        """Where the event a placed decision was made on stands in this log: the event before its original
        place, or an earlier placed decision's original (None: not in this log, which the trust checks refuse)."""
        placed = env.placed
        assert placed is not msgspec.UNSET
        at = self._placed_at.get(placed.prev)
        if at is not None:
            return at
        if self._hash_at.get(placed.seq - 1) == placed.prev:
            return placed.seq - 1
        return None

    def _round_at(self, seq: int) -> int | None:
        from bisect import bisect_right

        i = bisect_right(self._rounds, (seq, float("inf"))) - 1
        return self._rounds[i][1] if i >= 0 else None

    def _placed_in_its_round(self, env: Envelope, where: str) -> None:
        """A decision (a ruleset command's batch) is placed only in the round it was made in (docs/trust.md,
        "Crossings"): a crossing never carries an order given for one situation into another, and a decision a
        merge could not place in its round stays out of every later one."""
        if env.command is msgspec.UNSET or self.folded.state is None:
            return
        parent = self._parent_of(env)
        if parent is None and not self._rounds_loaded:
            self._load_rounds()
            parent = self._parent_of(env)
        if parent is None:
            if self.prior is None and self.first_seq > 1:
                self.fail(where, f"seq {env.seq}: a placed decision whose round cannot be checked without the "
                                 "history before it")
            return  # made on an event not in this log: the trust checks refuse it
        made_in, now = self._round_at(parent), self.ruleset.current_round(self.folded.state)
        if made_in is not None and made_in != now:
            placed = env.placed
            assert placed is not msgspec.UNSET
            self.fail(where, f"seq {env.seq}: {env.actor}'s {env.type} was decided in round {made_in} (as #{placed.seq}) "
                             f"and is placed in round {now}: a decision is placed only in the round it was made in, "
                             "so an order given for one situation is never spent in another (trust: placed "
                             "decisions)")

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
            if earlier is not None and self.ruleset.revision_of(ev):  # read as played, under that revision's rules
                self.rules_revision = earlier
                self.notes.append(f"the log was begun under an earlier revision of the {ev.ruleset} rules ({earlier}); "
                                  "this build keeps that revision's rules: it folds and re-decides the log under them, "
                                  "as it was played, and under today's rules beside them (fixes since: "
                                  "docs/CHANGELOG.md)")
                self._redecide_setup(ev, where)
                self._start_today(ev, rec)
            elif earlier is not None:  # a revision this build reads: its commands re-decided under this build's rules
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

    def finish(self, where: str = "end") -> VerifyReport:
        self.redecider.close()
        self._end_batch(where)
        self._batch_cid, self._batch_first = None, None
        if self.rules_revision and self.folded.core.genesis is not None \
                and self.ruleset.revision_of(self.folded.core.genesis) \
                and not self.today_differs_at and self.today is not None:
            self.notes.append(f"under today's {self.ruleset.info.name} rules (version {self.ruleset.info.version}) "
                              "every command of this log is decided alike and every batch folds to the state it reached as played")
        genesis = self.folded.core.genesis
        if genesis is not None and not self.redecider.required():
            self.notes.append(f"accepted with {ACCEPT_FLAG}: a log begun by engine {genesis.engine_version}, before "
                              "commands were recorded: the legality of its set-up and decisions was not re-decided "
                              "(only its dice, signatures and chain); nothing can be added to it")
        elif genesis is not None and not records_commands(genesis.engine_version):
            self.notes.append(f"accepted with {ACCEPT_FLAG}: the genesis claims engine {genesis.engine_version}, from "
                              "before commands were recorded; with pinned players every decision was re-decided all "
                              "the same; nothing can be added to it")
        for hook in self.wiring.finish_checks:
            hook(self)
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
            acknowledged=self.acknowledged, states_checked=self.states_checked, state_differs_at=self.state_differs_at,
            today_differs_at=self.today_differs_at, today_difference=self.today_difference,
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
