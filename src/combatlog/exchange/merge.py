# Over 500 lines on purpose: one merge (its order, the placement of the other branch in the rule's order, and the re-run of what cannot be placed) reads one overlay and one placer throughout.
"""Deterministic merge: two players who answer the same email end with the same log, and nothing is lost.

When a bundle and this log both continue the same event ``#n`` with different events,
neither is wrong: two players decided on the same head. ``import`` then merges:

1. **The same order everywhere.** The branch whose first event's actor comes first in
   the pinned players' order, rotated by the place (when both branches start at ``#n``,
   the player at index ``n mod players`` in the genesis goes first), is kept; every machine computes the same choice from
   the two events alone, whatever order the mail arrives in. Nobody can grind for
   priority: it depends on who acted and where, not on a hash anyone can vary.
2. **Decisions placed, in an order nobody chooses.** The other branch's decisions (with the kept
   branch's own last run of placed ones) are placed after the kept branch, unchanged and still
   signed, in the order ``trust/rewind.placement_key`` fixes from the signed events alone, each only
   in the round it was made in (docs/trust.md, "Crossings"). What cannot be placed is re-run by its
   owner's machine on top of the kept branch, drawing the dice its first run drew (never
   re-rolled): each command, kept where it was run (``commands/kept.py``), goes again through ``decide`` and every check of the write
   path, with the same command id, and is signed anew. A decision the rules now refuse
   is reported with the rule that refused it; the merge goes on with the rest. A sealed
   commit is re-sealed with its own nonce, so its commitment does not change and its
   secret still opens it: sealed-order secrets follow the decision.
3. **Evidence kept.** The events of the losing branch are kept in the store's
   ``superseded`` table (``combatlog superseded STREAM``), never replayed.
4. **Equivocation still caught.** Two different events signed by one player at the same
   place are refused before any merge (``trust/evidence.py``). A re-applied decision lands
   at another place (after the kept branch), so an honest rebase is never flagged; and a
   player whose re-sealed commit differs from the one they signed first is refused
   (``check_resealed``): a rebase may move a sealed decision, never change it.

5. **No rewinding.** A branch whose author signed an event of the other branch after the parting
   (an ``ack`` included) and that would go first is his rewind of history he signed: refused as
   equivocation with a proof (``trust/rewind.py``, ``trust/evidence.py``). So no merge supersedes
   events below the oldest head every pinned player has signed or acknowledged (``_no_rewind``).

6. **A sequencer, where the table has one.** Without one, a player who saw a decision could
   drop it and answer on the same head, claiming the two were concurrent (the merge cannot
   tell; the rotation bounds how often it pays, and the dropped decision is re-applied, not
   lost). With ``--option sequencer=NAME`` (a pinned player, usually the referee), a branch
   the sequencer has signed on (any event of theirs after the parting, an ``ack`` included)
   goes first: what the sequencer saw first stands, on every path (a pull from a server included: the
   server's first-come order yields to it).

Decisions of players whose keys are not on this machine are left to their owners: the
merge reports them as awaited, and their re-applied events arrive by mail like any other.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import msgspec

from combatlog.commands.kept import recall
from combatlog.errors import CombatlogError, IllegalCommand, VerificationFailed
from combatlog.events.base import tag_of
from combatlog.events.core import CombatStarted, DiceRolled, OrdersCommitted
from combatlog.events.envelope import Envelope, decode_envelope, encode_envelope
from combatlog.exchange.verify import ChainVerifier, segments_of
from combatlog.projections.fold import Folded, lineage, state_at
from combatlog.store.base import AppendResult, EventStore, ImportBatch, NewRow, StreamMeta, SupersededRow
from combatlog.store.memory import MemoryStore
from combatlog.trust.after_merge import keep_reason, mark_told, refusal
from combatlog.trust.rewind import RULE_REWIND, decides, rank, rewinder, settled_by_sequencer, signed_by
from combatlog.ports import Wiring

Signer = Callable[[Envelope], Envelope]
# actor -> a signer when this machine may act for them (their key is here), else None
SignerFor = Callable[[str], "Signer | None"]
RULE_MERGE = "trust: concurrent decisions merge in the players' order"
RULE_ITS_ROUND = "trust: a decision stands only in the round it was made in"


class Decision(msgspec.Struct, kw_only=True):
    """One decision (a command's events) of the branch that was not kept, and what became of it."""

    actor: str
    command_id: str
    was: str  # "#5-#6" in the losing branch
    types: list[str]
    outcome: str  # placed | reapplied | refused | already | awaited | not_kept
    now: str = ""  # "#7-#8" where it was re-applied or already is
    rule: str = ""
    message: str = ""


class MergeReport(msgspec.Struct, kw_only=True):
    fork_seq: int
    kept: str  # "theirs" (the bundle's branch) or "ours"
    kept_actor: str
    other_actor: str
    superseded: int  # events moved to or kept in ``superseded`` by this merge
    decisions: list[Decision]
    head_seq: int = 0  # this log's head after the merge
    head_hash: str = ""
    why: str = ""  # why the kept branch goes first

    def lines(self) -> list[str]:
        """For people: what was kept, and what became of every decision of the other branch."""
        which = "the bundle's" if self.kept == "theirs" else "this log's"
        out = [f"merged at #{self.fork_seq}: {self.kept_actor} and {self.other_actor} both continued #{self.fork_seq}; "
               f"{which} branch ({self.kept_actor}) goes first ({self.why}); "
               f"{self.superseded} superseded events kept as evidence; head now #{self.head_seq}"]
        for d in self.decisions:
            what = f"{d.actor}'s {', '.join(d.types)} (was {d.was})"
            if d.outcome == "placed":
                out.append(f"  placed {what} as {d.now}, unchanged, with {d.actor}'s signature")
            elif d.outcome == "reapplied":
                out.append(f"  re-applied {what} as {d.now} (it could not be placed unchanged: {d.message})")
            elif d.outcome == "already":
                out.append(f"  {what}: already in this log as {d.now}")
            elif d.outcome == "refused":
                out.append(f"  refused {what}: {d.message} ({d.rule})")
            elif d.outcome == "awaited":
                out.append(f"  {what} could not be placed unchanged ({d.message}): it goes back to {d.actor}, "
                           "whose machine decides it again on import")
            else:
                out.append(f"  {what}: not re-applied ({d.message})")
        return out


def now_utc() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def merge(store: EventStore, meta: StreamMeta, fork_seq: int, theirs: Sequence[NewRow], *,
          signer_for: SignerFor | None, wiring: Wiring, where: str, prefer_theirs: bool = False,
          proof: Path | None = None) -> MergeReport:
    """Merge the bundle's branch ``theirs`` (its events after ``fork_seq``, verified) into ``meta``.

    ``prefer_theirs``: the bundle comes from a combat server, which orders appends first come, first
    served, so its branch is kept whatever the players' order says; but not over a branch the pinned
    sequencer signed and the server's does not (refused, nothing changed). A rewind (point 5) is
    refused with its proof written beside ``proof``."""
    for child in store.list_streams():
        if child.parent == meta.id and child.fork_seq > fork_seq:
            raise IllegalCommand(
                f"{where}: {meta.name} and the bundle both continue #{fork_seq}, and the fork {child.name} here "
                f"rests on #{child.fork_seq} of this log's branch; a merge would pull it from under the fork",
                rule=RULE_MERGE)
    local_head = store.head(meta.id).seq
    ours_rows = store.read_stream(meta.id, fork_seq + 1)
    ours = [decode_envelope(r.body) for r in ours_rows]
    their_envs = [decode_envelope(r.body) for r in theirs]
    genesis = state_at(store, meta, fork_seq).core.genesis
    sequencer = genesis.options.get("sequencer", "") if genesis is not None else ""
    if prefer_theirs and settled_by_sequencer(genesis, ours, their_envs):
        mine = next(e for e in ours if e.actor == sequencer)
        raise IllegalCommand(
            f"{where}: the server holds #{fork_seq + 1}-#{their_envs[-1].seq} ({their_envs[0].actor} first), and "
            f"this log holds another branch from #{fork_seq + 1}, which the sequencer {sequencer} signed (#{mine.seq}, "
            f"{mine.type}); the server's has nothing of {sequencer}'s. What the sequencer signed stands on every "
            "path, so nothing is pulled and this log is unchanged; the server only appends, so the table must "
            f"settle which copy {meta.name} continues on", rule=RULE_REWIND)
    keep_theirs = (prefer_theirs and not settled_by_sequencer(genesis, ours, their_envs)) \
        or rank(genesis, fork_seq, their_envs) < rank(genesis, fork_seq, ours)
    kept, lost = (their_envs, ours) if keep_theirs else (ours, their_envs)
    _no_rewind(store, meta, fork_seq, genesis, kept, lost, theirs_rows=list(theirs), ours_rows=ours_rows,
               keep_theirs=keep_theirs, proof=proof)
    _no_hidden_equivocation(store, meta, [*kept, *lost], wiring, proof)
    signed_on = [signed_by(b, sequencer) for b in (kept, lost)] if sequencer else [False, False]
    why = (f"the sequencer {sequencer} signed on it" if signed_on == [True, False] and decides(lost) == decides(kept)
           else "the server ordered it first" if prefer_theirs
           else f"{lost[0].actor}'s branch decides nothing (acknowledgements, chain links, placed decisions)"
           if not decides(lost) and decides(kept)
           else f"the players' order at #{fork_seq + 1}")
    check_resealed(kept, list(lost) + _superseded_envs(store, meta))

    kept_rows = list(theirs) if keep_theirs else [_row(r) for r in ours_rows]
    # The kept branch's own run of placed decisions at its end is not settled: the other branch's decisions join
    # it, and all of them land in the placement rule's order (``trust/rewind.placement_key``), whatever order the
    # mail came in and whoever merged first. Placed decisions followed by a signed event stay where they are.
    # A server's branch is settled whole: the server only appends, so re-sorting its tail would be refused there and
    # pulled back again, for ever. What of ours cannot follow it in the rule's order is re-run by its owner instead
    # (a signed event, which ends the run of placed ones), drawing the faces it first drew.
    native = len(kept) if keep_theirs and prefer_theirs else \
        max((i + 1 for i, e in enumerate(kept) if not e.is_placed), default=0)
    overlay = _overlay(store, meta, fork_seq, kept_rows[:native])
    kept_head = fork_seq + native
    in_kept = {(e.actor, e.command_id): e.seq for e in kept[:native]}
    kept_ends: dict[tuple[str, str], int] = {}
    for e in kept[:native]:
        kept_ends[(e.actor, e.command_id)] = e.seq
    decisions: list[Decision] = []
    # 1. placed: each decision of the other branch (and of the kept branch's last run of placed ones), unchanged
    #    and still signed by its author, after the kept branch, in the rule's order, where every machine's
    #    verifier accepts it (the same events at the new place)
    placer = _Placer(store, meta, fork_seq, [r.body for r in overlay.read_stream(meta.id, fork_seq + 1)], wiring,
                     where)
    unplaced: list[tuple[list[Envelope], Decision]] = []
    seen: set[tuple[str, str]] = set()
    candidates: list[tuple[list[Envelope], Decision]] = []
    settled = _batches(kept[native:])  # the kept branch's last run: reported only if it moves
    here = {(b[0].actor, b[0].command_id): _span(b[0].seq, b[-1].seq) for b in settled}
    also_lost: dict[tuple[str, str], str] = {}  # a decision of that run the other branch holds too: where it was
    for batch in [*settled, *_batches(lost)]:
        first = batch[0]
        key = (first.actor, first.command_id)
        if key in seen:
            if key in here:
                also_lost.setdefault(key, _span(batch[0].seq, batch[-1].seq))
            continue
        seen.add(key)
        d = Decision(actor=first.actor, command_id=first.command_id, was=_span(batch[0].seq, batch[-1].seq),
                     types=[e.type for e in batch], outcome="not_kept")
        decisions.append(d)
        if key in in_kept:
            d.outcome, d.now = "already", _span(in_kept[key], kept_ends[key])
            continue
        candidates.append((batch, d))
    for chunk, fork in _chunks(candidates, placer):
        failed = ""
        for batch, d in chunk:
            if fork is None:
                d.message = ("it was made on an event this log does not hold where it stands (a placed decision "
                             "as another machine placed it)")
                unplaced.append((batch, d))
                continue
            if failed:
                d.message = f"it was made on a decision that could not be placed ({failed})"
                unplaced.append((batch, d))
                continue
            rows = placer.place(batch)
            if rows is None:
                d.message = failed = placer.problem
                unplaced.append((batch, d))
                continue
            overlay.import_batches([ImportBatch(stream_id=meta.id, expected_version=rows[0].seq - 1, rows=rows)])
            d.outcome, d.now, d.message = "placed", _span(rows[0].seq, rows[-1].seq), ""
    # 2. what could not be placed goes back to its author: re-decided here when his key is here, else awaited;
    #    unless the rules refuse it on the log as it now stands (the kept branch made it illegal): then nobody
    #    can make it again, and it is refused here as on its author's machine
    now: Folded | None = None  # the overlay's head state, folded when first needed and again after a re-apply
    reasons: list[tuple[Decision, str, bool]] = []  # refused here: why, and whether its author is told by this import
    made_in = _rounds_made(store, meta, fork_seq, lost) if unplaced else {}
    for batch, d in unplaced:
        first = batch[0]
        signer = signer_for(first.actor) if signer_for is not None else None
        pinned = {p.name: p.fingerprint for p in genesis.players} if genesis is not None else {}
        # an order given in one round is not re-run in another (as it is not placed there: verify's round rule)
        if first.command is not msgspec.UNSET and (first.actor, first.command_id) in made_in:
            if now is None:
                now = state_at(overlay, meta)
            was, is_now = made_in[(first.actor, first.command_id)], now.ruleset.current_round(now.state)
            if was != is_now:
                d.outcome, d.rule = "refused", RULE_ITS_ROUND
                d.message = (f"it was made in round {was}, and the combat is in round {is_now} now: an order given "
                             "for one round is not carried into another")
                reasons.append((d, f"{d.message} ({d.rule})", signer is not None))
                continue
        if signer is None or getattr(signer, "fingerprint", None) != pinned.get(first.actor):
            if d.message.startswith("not tried"):  # past the placement bound: back to its author untried
                d.outcome = "awaited"
                continue
            if now is None:
                now = state_at(overlay, meta)
            refused = refusal(now, first)
            if refused is not None:
                d.outcome, d.rule = "refused", getattr(refused, "rule", "") or refused.code
                d.message = refused.message.removesuffix(f" ({d.rule})")
                reasons.append((d, refused.message, False))
                continue
            d.outcome = "awaited"
            continue
        recalled = recall(store, meta.id, first.command_id)
        if recalled is None:
            d.message = "this machine keeps no record of the command (re-enter it by hand if it still stands)"
            continue
        command, how = recalled
        if how.actor != first.actor:
            d.message = f"the command kept here under that id was {how.actor}'s"
            continue
        command = _same_seal(store, command, batch)
        from combatlog.commands.handler import execute

        try:
            # the dice it drew the first time, in order: a crossing never re-rolls a die (the same faces, or refused)
            first_roll = [e.payload() for e in batch if e.type == _DICE_TAG]
            outcome = execute(overlay, meta.id, command, actor=first.actor, command_id=first.command_id,
                              scheme=how.scheme, manual_faces=how.manual_faces or None, signer=signer, wiring=wiring,
                              replay=first_roll)  # type: ignore[arg-type]
        except CombatlogError as exc:
            d.outcome, d.rule = "refused", getattr(exc, "rule", "") or exc.code
            d.message = str(exc).removesuffix(f" ({d.rule})")  # an IllegalCommand's text ends with its rule
            reasons.append((d, str(exc), True))  # its author is at this machine: the import's report tells him
            continue
        d.outcome, d.now = "reapplied", _span(outcome.first_seq, outcome.last_seq)
        now = None  # the overlay moved on
    reported = []
    for d in decisions:  # the kept run's decisions: said only when they move, or when the other branch held them
        key = (d.actor, d.command_id)
        if key in here and d.outcome == "placed" and d.now == here[key]:
            if key not in also_lost:
                continue
            d.outcome = "already"
        if key in also_lost:
            d.was = also_lost[key]
        reported.append(d)
    decisions = reported
    final = kept_rows[:native] + [_row(r) for r in overlay.read_stream(meta.id, kept_head + 1)]
    at = now_utc()
    # this log's events after the fork that stay as they are; from the first that changes, the tail is replaced
    # (what it held kept in ``superseded``); the rest is appended
    same = 0
    for mine, row in zip(ours_rows, final):
        if mine.hash != row.hash:  # type: ignore[attr-defined]
            break
        same += 1
    count = 0
    if same < len(ours_rows):
        moved = store.replace_tail(meta.id, fork_seq=fork_seq + same, expected_version=local_head,
                                   rows=final[same:], superseded_at=at)
        count += len(moved)
    elif final[same:]:
        store.import_batches([ImportBatch(stream_id=meta.id, expected_version=local_head, rows=final[same:])])
    in_log = {r.hash for r in final}
    by = {r.seq: r.hash for r in final}
    count += store.keep_superseded([
        SupersededRow(stream=meta.id, seq=r.seq, hash=r.hash, body=r.body, by=by.get(r.seq, ""), superseded_at=at)
        for r in theirs if r.hash not in in_log])
    for d, reason, author_here in reasons:  # the reason at the merge, kept: later heads do not re-decide it
        keep_reason(store, meta.id, d.command_id, reason)
        if author_here:
            mark_told(store, meta.id, d.actor, d.command_id)
    head = store.head(meta.id)
    return MergeReport(fork_seq=fork_seq, kept="theirs" if keep_theirs else "ours", kept_actor=kept[0].actor,
                       other_actor=lost[0].actor, superseded=count, decisions=decisions, head_seq=head.seq,
                       head_hash=head.hash, why=why)


def _no_rewind(store: EventStore, meta: StreamMeta, fork_seq: int, genesis: CombatStarted | None,
               kept: Sequence[Envelope], lost: Sequence[Envelope], *, theirs_rows: Sequence[NewRow],
               ours_rows: Sequence[object], keep_theirs: bool, proof: Path | None) -> None:
    """Refuse, before anything changes, a merge that would rewind signed history (module point 5). The
    merge order itself lives in ``trust/rewind.py``: verify of a rewind proof needs it too."""
    from combatlog.trust.evidence import rewind_error

    signed = rewinder(genesis, kept, lost)
    if signed is not None:
        bodies = ([r.body for r in theirs_rows], [r.body for r in ours_rows])  # type: ignore[attr-defined]
        winner, loser = bodies if keep_theirs else bodies[::-1]
        raise rewind_error(store, meta, fork_seq, winner, loser, signed.seq, proof, loser_is_ours=keep_theirs)
    # The depth bound follows: when every pinned player has signed the losing branch past the parting
    # (the oldest head all acknowledged is above it), the winner's author is one of them, and the
    # sequencer, having signed the loser too, settles nothing; so the merge is a rewind, refused above.


def _no_hidden_equivocation(store: EventStore, meta: StreamMeta, envs: Sequence[Envelope], wiring: Wiring,
                            proof: Path | None) -> None:
    """Two different events one player signed at one place are equivocation (module point 4), also when one
    of them travels as a placed decision, whose place is its original's: each original is compared with the
    other events signed at its place in either branch, and with this log's own event there, before anything
    is placed. (Two signed events at one place can only meet where the branches part: import compares those.)"""
    if proof is None:
        return
    head = store.head(meta.id).seq
    signed: dict[tuple[str, int, str], Envelope] = {}
    for env in envs:
        original = env.original()
        key = (original.actor, original.seq, original.prev)
        other = signed.setdefault(key, original)
        if other is original and env.is_placed and original.seq <= head:
            rows = store.read_stream(meta.id, original.seq, original.seq)
            here = decode_envelope(rows[0].body) if rows else None
            if here is not None and not here.is_placed and (here.actor, here.prev) == (original.actor, original.prev):
                other = here
        if other.hash != original.hash:
            for check in wiring.divergence_checks:
                check(store, meta, original.seq, encode_envelope(other), encode_envelope(original), proof)


def keep_lost_branch(store: EventStore, meta: StreamMeta, rows: Iterable[NewRow]) -> int:
    """A bundle that continues a branch this log already superseded: kept as evidence, nothing applied."""
    at = now_utc()
    return store.keep_superseded([SupersededRow(stream=meta.id, seq=r.seq, hash=r.hash, body=r.body, by="",
                                                superseded_at=at) for r in rows])


def check_resealed(kept: Sequence[Envelope], evidence: Sequence[Envelope]) -> None:
    """A rebase may move a sealed commit, never change it: the same player's commit under the same command id
    must keep its commitment (a different one would be orders re-chosen after seeing the other branch)."""
    sealed = {}
    for env in evidence:
        if env.type == _COMMIT_TAG:
            sealed[(env.actor, env.command_id)] = env
    if not sealed:
        return
    for env in kept:
        if env.type != _COMMIT_TAG:
            continue
        before = sealed.get((env.actor, env.command_id))
        if before is None or before.hash == env.hash:
            continue
        old, new = before.payload(), env.payload()
        assert isinstance(old, OrdersCommitted) and isinstance(new, OrdersCommitted)
        if (old.step, old.commitment) != (new.step, new.commitment):
            raise VerificationFailed(
                f"#{env.seq}: {env.actor} re-sealed step {new.step} with commitment {new.commitment[:12]}... under "
                f"command {env.command_id}, which sealed {old.step} as {old.commitment[:12]}... at #{before.seq} "
                "(superseded): a merge moves a sealed decision, it never changes it", where=f"#{env.seq}")


def check_against_superseded(store: EventStore, meta: StreamMeta, incoming: Sequence[bytes]) -> None:
    """Run ``check_resealed`` on incoming events against the evidence this log keeps (cheap when there is none)."""
    evidence = _superseded_envs(store, meta)
    if evidence:
        check_resealed([decode_envelope(line) for line in incoming], evidence)


# -- helpers ---------------------------------------------------------------------------------

_COMMIT_TAG = tag_of(OrdersCommitted)
_DICE_TAG = tag_of(DiceRolled)


def _superseded_envs(store: EventStore, meta: StreamMeta) -> list[Envelope]:
    return [decode_envelope(r.body) for r in store.superseded(meta.id)]


def _same_seal(store: EventStore, command: object, batch: Sequence[Envelope]) -> object:
    """A sealed commit is re-sealed with the nonce it had: the same commitment, opened by the same secret."""
    from combatlog.trust.commands import CommitOrders

    if not isinstance(command, CommitOrders):
        return command
    for env in batch:
        if env.type == _COMMIT_TAG:
            event = env.payload()
            assert isinstance(event, OrdersCommitted)
            kept = store.get_secret(f"orders:{event.commitment}")
            if kept is not None:
                nonce = msgspec.json.decode(kept).get("nonce", "")
                return msgspec.structs.replace(command, nonce=nonce)
    return command


def _batches(envs: Sequence[Envelope]) -> list[list[Envelope]]:
    """Runs of events appended by one command (same actor and command id), in order."""
    out: list[list[Envelope]] = []
    for env in envs:
        if out and (out[-1][0].actor, out[-1][0].command_id) == (env.actor, env.command_id):
            out[-1].append(env)
        else:
            out.append([env])
    return out


def _chunks(candidates: Sequence[tuple[list[Envelope], Decision]],
            placer: _Placer) -> list[tuple[list[tuple[list[Envelope], Decision]], int | None]]:
    """The decisions to place, as chunks (a decision and those its author made on top of it), each with the
    last event of the kept log its branch held (None: none this log holds), in the placement rule's order."""
    from combatlog.trust.rewind import placement_key

    chunks: list[tuple[list[tuple[list[Envelope], Decision]], list[Envelope], int | None]] = []
    ends: dict[str, int] = {}  # the last original of a chunk -> its index
    for batch, d in candidates:
        originals = [e.original() for e in batch]
        at = ends.pop(originals[0].prev, None)
        if at is not None:
            chunks[at][0].append((batch, d))
            chunks[at][1].extend(originals)
        else:
            at = len(chunks)
            chunks.append(([(batch, d)], list(originals), placer.fork_of(originals[0])))
        ends[originals[-1].hash] = at
    genesis = placer.genesis
    return [(members, fork) for members, originals, fork in
            sorted(chunks, key=lambda c: (c[2] is None, placement_key(genesis, c[2] or 0, c[1])))]


def _rounds_made(store: EventStore, meta: StreamMeta, fork_seq: int,
                 lost: Sequence[Envelope]) -> dict[tuple[str, str], int]:
    """The round each decision of the branch not kept was made in: its branch folded from where it parted."""
    from combatlog.events.envelope import Recorded

    folded = state_at(store, meta, fork_seq)
    made: dict[tuple[str, str], int] = {}
    for batch in _batches(lost):
        if folded.state is None:
            break
        made[(batch[0].actor, batch[0].command_id)] = folded.ruleset.current_round(folded.state)
        try:
            for env in batch:
                folded.apply(Recorded(env, env.payload()))
        except Exception:  # verified before the merge; a branch these rules cannot fold decides no round after it
            break
    return made


def _span(first: int, last: int) -> str:
    return f"#{first}" if first == last else f"#{first}-#{last}"


def _row(stored: object) -> NewRow:
    env = decode_envelope(stored.body)  # type: ignore[attr-defined]
    return NewRow(env.seq, env.type, env.hash, stored.body, env.command_id)  # type: ignore[attr-defined]


# A decision that cannot be placed costs a fresh verifier over the kept branch; a hostile branch of many
# small decisions that all fail would otherwise cost that many passes. Past this, the rest go back to their
# authors untried (their own machines decide them again).
MAX_PLACEMENT_FAILURES = 8


class _Placer:
    """A verifier at the end of the kept branch (and of the decisions placed after it so far): a decision of
    the other branch is placed when the verifier accepts it, unchanged, at the next place. It is what every
    machine that receives the log will run, so a placement nobody could verify is never made."""

    def __init__(self, store: EventStore, meta: StreamMeta, fork_seq: int, kept: list[bytes], wiring: Wiring,
                 where: str) -> None:
        self.store, self.meta, self.fork_seq, self.wiring, self.where = store, meta, fork_seq, wiring, where
        self.accepted = list(kept)
        self.problem = ""
        self.failures = 0
        self.verifier = self._fresh()

    def _fresh(self) -> ChainVerifier:
        from combatlog.projections.fold import history

        store, meta, fork_seq = self.store, self.meta, self.fork_seq
        verifier = ChainVerifier(segments_of(store, meta), base=state_at(store, meta, fork_seq),
                                 prior=lambda: history(store, meta, 1, fork_seq), wiring=self.wiring)
        for body in self.accepted:
            verifier.feed(body, self.where)
        verifier.redecider.close()
        return verifier

    def place(self, batch: Sequence[Envelope]) -> list[NewRow] | None:
        """The rows of ``batch`` placed next, or None (``problem`` says why) when they cannot stand there."""
        if self.failures >= MAX_PLACEMENT_FAILURES:  # each failure re-verifies the kept branch: bounded
            self.problem = (f"not tried: {MAX_PLACEMENT_FAILURES} decisions of this branch could not be placed "
                            "before it")
            return None
        seq, prev = self.verifier.expected_seq, self.verifier.prev
        placed: list[Envelope] = []
        for env in batch:
            placed.append(env.placed_at(seq=seq, prev=prev))
            seq, prev = seq + 1, placed[-1].hash
        bodies = [encode_envelope(e) for e in placed]
        try:
            for env, body in zip(placed, bodies):
                self.verifier.feed(body, f"#{env.seq}")
            self.verifier.redecider.close()
            self._in_order()
        except VerificationFailed as exc:
            self.problem = exc.message
            self.failures += 1
            self.verifier = self._fresh()
            return None
        self.accepted += bodies
        return [NewRow(e.seq, e.type, e.hash, b, e.command_id) for e, b in zip(placed, bodies)]

    def _in_order(self) -> None:
        """The run of placed decisions ending here is in the placement rule's order (what ``verify`` checks at the
        end of what it reads), so nothing is placed that the next machine, or a server, would refuse."""
        from combatlog.trust.hooks import checker_of
        from combatlog.trust.track import TrustViolation

        try:
            checker_of(self.verifier).finish()
        except TrustViolation as exc:
            self.verifier.fail("end", exc.message)

    @property
    def genesis(self) -> CombatStarted | None:
        return self.verifier.folded.core.genesis

    def fork_of(self, original: Envelope) -> int | None:
        """The last event of the kept log that the branch of ``original`` (the first of a chunk, as its author
        signed it) held, as ``verify`` computes it (``TrustChecker.forks``); None when it holds none."""
        from combatlog.trust.hooks import checker_of

        checker = checker_of(self.verifier)
        if original.prev in checker.forks:
            return int(checker.forks[original.prev])
        return original.seq - 1 if checker.hashes.get(original.seq - 1) == original.prev else None


class _Overlay(MemoryStore):
    """The log as it will be after the merge, in memory, to re-run decisions on; secrets stay the real store's."""

    def __init__(self, real: EventStore) -> None:
        super().__init__()
        self._real = real

    def put_secret(self, name: str, value: bytes) -> None:
        self._real.put_secret(name, value)

    def get_secret(self, name: str) -> bytes | None:
        return self._real.get_secret(name)

    def append(self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str,
               secrets: Mapping[str, bytes] | None = None) -> AppendResult:
        result = super().append(stream_id, rows, expected_version=expected_version, command_id=command_id)
        for name, value in (secrets or {}).items():  # the re-run command stays kept on this machine
            self._real.put_secret(name, value)
        return result


def _overlay(store: EventStore, meta: StreamMeta, fork_seq: int, kept_rows: list[NewRow]) -> _Overlay:
    overlay = _Overlay(store)
    for seg, low, high in lineage(store, meta):
        top = fork_seq if seg.id == meta.id else high
        rows = [_row(r) for r in store.read_stream(seg.id, low, top)]
        if seg.id == meta.id:
            rows += kept_rows
        overlay.import_batches([ImportBatch(stream_id=seg.id, expected_version=0, create=seg, rows=rows)])
    return overlay
