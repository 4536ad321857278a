"""Verify a long stored combat on two cores: the checks that need no fold in a second process.

A verify's checks are of two kinds. Those of a line alone and its place in the chain (``ChainVerifier.check_line``:
canonical bytes, control characters, the hash, seq, prev, time) and the wiring's checks (the trust layer's:
signatures, sealed orders, joint dice recomputed from their seeds), which read the events and nothing of the rules;
and the rest (the payload's meaning, re-deciding each command, the fold), which need the fold of every line before.
Here a forked process makes the first kind for every line while this one makes the rest, decoding each line
without proving it (``feed_line_checked``), one line at a time as ``feed`` would, each on its own core. The
second process hands over what its checks add to the report (``ChecksDone``: signatures, joint dice, notes,
acknowledgements).

It only ever answers success. Success needs both: the other process found nothing wrong with any line, and this
one found nothing wrong with anything else; together those are every check ``feed`` makes, on the same bytes. If
either finds a problem (or the split cannot run), ``verify_split`` answers None and the caller verifies again the
ordinary way, one process, which finds and names the first problem exactly as it always has (which of several
problems comes first depends on the order of all the checks, which one process keeps). A log that fails is thus
read twice; one that passes, once, in about three quarters of the time on a machine with a core to spare (less
where it is signed: the signatures are the other process's).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import msgspec

from combatlog.events.envelope import Recorded
from combatlog.exchange.verify import ChainVerifier, ChecksDone, VerifyReport

SPLIT_FROM = 1000  # events; below, the second process's start costs more than it saves
# events; above, the lines a split holds in memory at once (the one-process verify reads them as it goes) would
# be too many: a million events are about half a gigabyte
SPLIT_UP_TO = 200_000


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


def verify_split(new_verifier: Callable[[], ChainVerifier], lines: list[tuple[str, bytes]], name: str,
                 progress: Callable[[int, int], None] | None = None, total: int = 0) -> VerifyReport | None:
    """The report of verifying ``lines`` ((where, bytes) in order) split over two processes, or None when
    either found a problem: then verify them the ordinary way to say which (see the module's docstring).
    ``new_verifier`` makes a verifier from the same start each time (none built on a shared base: a verifier
    folds its base in place). ``progress(done, total)`` every thousand lines."""
    lines_checker = new_verifier()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the second process: its checks, in order, then what they found; it never returns
        try:
            os.close(read_end)
            _check_lines(lines_checker, lines)
            done = msgspec.json.encode(ChecksDone.of(lines_checker))
            while done:
                done = done[os.write(write_end, done):]
        finally:
            os._exit(0)
    os.close(write_end)
    report = None
    try:
        verifier = new_verifier()
        verifier.checks_here = False
        for where, body in lines:
            verifier.feed_line_checked(body, where)
            if progress is not None and verifier.count % 1000 == 0:
                progress(verifier.count, total)
        verifier.checked_elsewhere = _outcome(read_end)  # (None: the other process found a problem)
        if verifier.checked_elsewhere is not None:
            report = verifier.finish(name)
    except Exception:  # a problem (or something the ordinary way will name): that way decides
        pass
    finally:  # (an interrupt too: the second process is stopped and reaped before it goes on)
        if report is None:
            os.kill(pid, signal.SIGKILL)
        os.close(read_end)
        os.waitpid(pid, 0)
    return report


def _check_lines(verifier: ChainVerifier, lines: list[tuple[str, bytes]]) -> None:
    """The second process's checks of every line: ``check_line``, then the wiring's event checks on the event it
    holds, then the wiring's finish checks. Raises at the first problem."""
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


def _outcome(read_end: int) -> ChecksDone | None:
    """What the second process's checks found (it writes it when all passed, and nothing when one failed)."""
    data = b""
    while chunk := os.read(read_end, 65536):
        data += chunk
    return msgspec.json.decode(data, type=ChecksDone) if data else None
