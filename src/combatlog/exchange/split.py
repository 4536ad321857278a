"""Verify a long stored combat on two cores: the checks of each line that need no fold in a second process.

A verify's checks are of two kinds. Those of a line alone and its place in the chain (``ChainVerifier.check_line``:
canonical bytes, control characters, the hash, seq, prev, time) need nothing of the rules; the rest (the payload's
meaning, signatures, re-deciding each command, the fold) need the fold of every line before. The first kind is a
quarter of a verify's work. Here a forked process makes those checks of every line while this one makes the rest,
decoding each line without proving it (``feed_line_checked``): one line at a time, as ``feed`` would, each on its
own core.

It only ever answers success. Success needs both: the other process found nothing wrong with any line, and this
one found nothing wrong with anything else; together those are every check ``feed`` makes, on the same bytes. If
either finds a problem (or the split cannot run), ``verify_split`` answers None and the caller verifies again the
ordinary way, one process, which finds and names the first problem exactly as it always has (which of several
problems comes first depends on the order of all the checks, which one process keeps). A log that fails is thus
read twice; one that passes, once, in about three quarters of the time on a machine with a core to spare.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

from combatlog.exchange.verify import ChainVerifier, VerifyReport

SPLIT_FROM = 1000  # events; below, the second process's start costs more than it saves


def worth_splitting(events: int) -> bool:
    """Whether a verify of ``events`` events is split: long enough, a second core to use, and ``fork`` here.
    ``COMBATLOG_VERIFY_SPLIT_FROM`` sets the length from which it is (the tests split short logs)."""
    try:
        split_from = int(os.environ.get("COMBATLOG_VERIFY_SPLIT_FROM", "") or SPLIT_FROM)
    except ValueError:
        split_from = SPLIT_FROM
    if events < split_from or not hasattr(os, "fork"):
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
    if pid == 0:  # the second process: the line checks, in order, then one word; it never returns
        try:
            os.close(read_end)
            for where, body in lines:
                env, _ = lines_checker.check_line(body, where)
                lines_checker.expected_seq, lines_checker.prev = env.seq + 1, env.hash
            os.write(write_end, b"ok")
        finally:
            os._exit(0)
    os.close(write_end)
    report = None
    try:
        verifier = new_verifier()
        for where, body in lines:
            verifier.feed_line_checked(body, where)
            if progress is not None and verifier.count % 1000 == 0:
                progress(verifier.count, total)
        report = verifier.finish(name)
    except Exception:  # a problem (or something the ordinary way will name): that way decides
        pass
    finally:  # (an interrupt too: the second process is stopped and reaped before it goes on)
        if report is None:
            os.kill(pid, signal.SIGKILL)
        verdict = b""
        try:
            while chunk := os.read(read_end, 16):
                verdict += chunk
        finally:
            os.close(read_end)
            os.waitpid(pid, 0)
    return report if verdict == b"ok" else None
