"""Verify a long stored combat on two cores: the checks that need no fold in a second process.

A verify's checks are of two kinds. Those of a line alone and its place in the chain (``ChainVerifier.check_line``:
canonical bytes, control characters, the hash, seq, prev, time) and the wiring's checks (the trust layer's:
signatures, sealed orders, joint dice recomputed from their seeds), which read the events and nothing of the rules;
and the rest (the payload's meaning, re-deciding each command, the fold), which need the fold of every line before.
Here a forked process makes the first kind for every line while this one makes the rest, decoding each line
without proving it (``feed_line_checked``), one line at a time as ``feed`` would, each on its own core. The
second process hands over what its checks add to the report (``ChecksDone``: signatures, joint dice, notes,
acknowledgements).

Where this machine keeps a snapshot of the combat's state at the end of a command some way into the log (the write
path saves one every 500 events, an import one each 500 it brings), the fold is split too (``snapshot_cut``): the
second process verifies the head, every check of every event up to the cut, and checks that the state its fold
reaches there is the snapshot's, then makes the fold-free checks of the rest; this one verifies the tail from the
snapshot's state, with the dice the head drew (``take_head_dice``). The head's findings (``HeadDone``: its dice
read, its genesis's notes, what waits for a reveal at the cut) are joined to the tail's when it finishes. The
snapshot is a local cache, never evidence: a wrong one only makes the head's compare fail, and the log is
verified the ordinary way.

It only ever answers success. Success needs both: the other process found nothing wrong with any line, and this
one found nothing wrong with anything else; together those are every check ``feed`` makes, on the same bytes (with
a cut: the head's every check, the state at the cut proven the head's, the tail's checks from it, and the dice
read on both sides of the cut read once). If
either finds a problem (or the split cannot run), ``verify_split`` answers None and the caller verifies again the
ordinary way, one process, which finds and names the first problem exactly as it always has (which of several
problems comes first depends on the order of all the checks, which one process keeps). A log that fails is thus
read twice; one that passes, once: in about three quarters of the time on a machine with a core to spare, about
half where the fold is split too (less where it is signed: the signatures are the other process's).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import NamedTuple

import msgspec

from combatlog.errors import VerificationFailed
from combatlog.events.envelope import Recorded
from combatlog.exchange.verify import ChainVerifier, ChecksDone, HeadDone, VerifyReport
from combatlog.projections.fold import Folded, encode_snapshot
from combatlog.store.base import EventStore, StreamMeta

SPLIT_FROM = 1000  # events; below, the second process's start costs more than it saves
# events; above, the lines a split holds in memory at once (the one-process verify reads them as it goes) would
# be too many: a million events are about half a gigabyte
SPLIT_UP_TO = 200_000
# the share of a log's events up to the cut that splits its fold, where a snapshot is: the second process also
# makes the fold-free checks of every line (about a quarter of a fold's cost, unsigned), so its head is shorter
HEAD_SHARE = 0.3
# where the events are signed: this process checks the signatures of the tail (``signatures_split``), a sixth of a
# millisecond each, so the head is longer
SIGNED_HEAD_SHARE = 0.42
MIN_HEAD_SHARE = 0.15  # a snapshot earlier than this share saves too little to pay for the head's compare
# without a cut: the share of the events whose signatures the second process checks, all of their other checks
# and the fold being this one's
SIGNATURES_SHARE = 0.55


def worth_splitting(events: int) -> bool:
    """Whether a verify of ``events`` events is split: long enough but not too long to hold in memory, a second
    core to use, and ``fork`` here. ``COMBATLOG_VERIFY_SPLIT_FROM`` sets the length from which it is (the tests
    split short logs)."""
    try:
        split_from = int(os.environ.get("COMBATLOG_VERIFY_SPLIT_FROM", "") or SPLIT_FROM)
    except ValueError:
        split_from = SPLIT_FROM
    if not split_from <= events <= SPLIT_UP_TO or not hasattr(os, "fork"):
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) >= 2


class Cut(NamedTuple):
    """Where a log's tail is verified from: the state after event ``seq`` (the end of a command), as this
    machine's snapshot of it holds it (``blob``), decoded (``base``)."""

    seq: int
    blob: bytes
    base: Folded


class Done(msgspec.Struct, frozen=True):
    """What the second process hands back when all its checks passed."""

    checks: ChecksDone
    head: HeadDone | None = None


def snapshot_cut(store: EventStore, meta: StreamMeta, lines: list[tuple[str, bytes]]) -> Cut | None:
    """The cut for a split verify of ``meta`` (``lines``, its history) that also splits the fold: this
    machine's latest snapshot at or before ``HEAD_SHARE`` of the log, where one command ends and the next
    begins; None where there is none (a fork, a log imported whole, a snapshot too early to pay), or where
    the log was made under other rules than this build's (then only the fold-free checks are split)."""
    from combatlog.events.core import CombatStarted
    from combatlog.events.envelope import decode_envelope, decode_recorded
    from combatlog.projections.fold import lineage, load_snapshot_at

    if len(lineage(store, meta)) != 1 or len(lines) < 2:
        return None
    share = HEAD_SHARE
    try:
        first = decode_recorded(lines[0][1]).event
    except Exception:  # a line the ordinary way will name
        return None
    if type(first) is CombatStarted and first.players:
        share = SIGNED_HEAD_SHARE
    found = load_snapshot_at(store, meta, int(len(lines) * share))  # (None too for one that does not decode)
    if found is None:
        return None
    seq, blob, base = found
    genesis = base.core.genesis
    if seq < len(lines) * MIN_HEAD_SHARE or seq >= len(lines) or genesis is None \
            or (genesis.rules_digest != base.ruleset.rules_digest()
                and genesis.rules_digest not in base.ruleset.earlier_digests) \
            or (genesis.rules_digest in base.ruleset.earlier_digests
                and genesis.ruleset_version in base.ruleset.kept_revisions):
        return None  # (a log of a kept revision is folded twice, as played and by today's rules: not split)
    try:  # the events on either side of the cut are of two commands (else the first is cut: no cut there)
        if decode_envelope(lines[seq - 1][1]).command_id == decode_envelope(lines[seq][1]).command_id:
            return None
    except msgspec.DecodeError:
        return None  # (the ordinary way names it)
    return Cut(seq, blob, base)


class SecondProcess:
    """The second process of a split, forked at once: the head's verify up to ``cut`` if any, then ``check_line``
    and the wiring's checks of every (other) line. ``done()`` waits for what they found (None: a problem);
    ``close()`` stops it if it still runs, and reaps it. The process never returns into the caller's code."""

    def __init__(self, checker: ChainVerifier, lines: list[tuple[str, bytes]], cut: Cut | None) -> None:
        # the signatures after the cut (or, without one, after SIGNATURES_SHARE of the events): the other side's
        self.signatures_split = cut.seq if cut is not None else max(1, int(len(lines) * SIGNATURES_SHARE))
        checker.signatures_split = self.signatures_split
        self.cut = cut
        self._read, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # its checks, in order, then what they found
            try:
                os.close(self._read)
                head = _verify_head(checker, lines, cut) if cut is not None else None
                _check_lines(checker, lines[cut.seq:] if cut is not None else lines)
                checks = ChecksDone.of(checker)
                if head is not None:  # (its notes are the head's, the rest the checks')
                    checks = msgspec.structs.replace(checks, notes=checks.notes[len(head.notes):])
                done = msgspec.json.encode(Done(checks, head))
                while done:
                    done = done[os.write(write_end, done):]
            finally:
                os._exit(0)
        os.close(write_end)
        self._open = True

    def take_over(self, verifier: ChainVerifier) -> None:
        """``verifier`` makes every check but those this process makes (their outcome comes with ``done``)."""
        verifier.checks_here = False
        verifier.signatures_split = self.signatures_split

    def done(self) -> Done | None:
        """What its checks found: they all passed (and it verified the head, where there is a cut), or None."""
        data = b""
        while chunk := os.read(self._read, 65536):
            data += chunk
        done = msgspec.json.decode(data, type=Done) if data else None
        return done if done is not None and (done.head is None) == (self.cut is None) else None

    def close(self, *, finished: bool) -> None:
        """Reap it; stopped first unless it ``finished`` (an interrupt, or a problem found on this side)."""
        if not self._open:
            return
        self._open = False
        if not finished:
            os.kill(self.pid, signal.SIGKILL)
        os.close(self._read)
        os.waitpid(self.pid, 0)


def verify_split(new_verifier: Callable[[], ChainVerifier], lines: list[tuple[str, bytes]], name: str,
                 progress: Callable[[int, int], None] | None = None, total: int = 0, *,
                 cut: Cut | None = None, from_cut: Callable[[Folded], ChainVerifier] | None = None,
                 mine: ChainVerifier | None = None) -> VerifyReport | None:
    """The report of verifying ``lines`` ((where, bytes) in order) split over two processes, or None when
    either found a problem: then verify them the ordinary way to say which (see the module's docstring).
    ``new_verifier`` makes a verifier from the same start each time (none built on a shared base: a verifier
    folds its base in place). ``cut`` (with ``from_cut``, which makes a verifier from a state): the fold is
    split too, the second process verifying the head up to it and this one the tail after it. ``mine`` (no
    cut): the new verifier this process folds with (an import keeps its fold); spent whatever the answer.
    ``progress(done, total)`` every thousand lines."""
    try:
        second = SecondProcess(new_verifier(), lines, cut)
    except OSError:  # no process to be had (a limit reached): the ordinary way
        return None
    report = None
    try:
        if cut is not None and from_cut is not None:
            verifier = from_cut(cut.base)
            verifier.take_head_dice(body for _where, body in lines[:cut.seq])
            todo = lines[cut.seq:]
        else:
            verifier, todo = mine or new_verifier(), lines
        second.take_over(verifier)
        ahead = len(lines) - len(todo)  # (the head's events, counted by the other process)
        for where, body in todo:
            verifier.feed_line_checked(body, where)
            if progress is not None and verifier.count % 1000 == 0:
                progress(ahead + verifier.count, total)
        done = second.done()  # (None: the other process found a problem)
        if done is not None:
            verifier.checked_elsewhere, verifier.head_done = done.checks, done.head
            report = verifier.finish(name)
    except Exception:  # a problem (or something the ordinary way will name): that way decides
        pass
    finally:  # (an interrupt too: the second process is stopped and reaped before it goes on)
        second.close(finished=report is not None)
    return report


def _verify_head(verifier: ChainVerifier, lines: list[tuple[str, bytes]], cut: Cut) -> HeadDone:
    """The second process's verify of the head, every check of every event up to the cut, ending where the state
    it folds is the snapshot's (the tail's start). Raises at the first problem."""
    for where, body in lines[:cut.seq]:
        verifier.feed(body, where)
    verifier.redecider.close()  # the command ending at the cut (the next event begins another: ``snapshot_cut``)
    if encode_snapshot(verifier.folded) != cut.blob:
        raise VerificationFailed("the state at the cut is not this machine's snapshot of it", where=lines[cut.seq - 1][0])
    return HeadDone.of(verifier)


def _check_lines(verifier: ChainVerifier, lines: list[tuple[str, bytes]]) -> None:
    """The second process's checks of every line (after the head it verified, if any): ``check_line``, then the
    wiring's event checks on the event it holds, then the wiring's finish checks. Raises at the first problem."""
    checks = verifier.wiring.event_checks
    for where, body in lines:
        env, line = verifier.check_line(body, where)
        verifier.expected_seq, verifier.prev = env.seq + 1, env.hash
        if checks:
            rec = Recorded(env, env.payload() if line is None else line.event)
            for check in checks:
                check(verifier, rec, where)
    for hook in verifier.wiring.finish_checks:
        hook(verifier)
