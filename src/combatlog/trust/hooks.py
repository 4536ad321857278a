"""The trust layer's checks for the verifier (signatures, sealed orders, joint dice, notes).

``combatlog.wiring.standard`` puts them, with the trust layer's key source, core
commands, pre-append check and equivocation evidence, into the ``Wiring`` that
the write path, the verifier and the importer take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from combatlog.events.core import DiceRolled
from combatlog.events.envelope import Recorded
from combatlog.trust.track import TrustChecker, TrustViolation

if TYPE_CHECKING:
    from combatlog.exchange.verify import ChainVerifier


def _checker(verifier: ChainVerifier) -> TrustChecker:
    checker = verifier.extra.get("trust")
    if checker is None:
        checker = TrustChecker()
        if verifier.first_seq > 1:  # an incremental bundle on top of a local base
            if verifier.prior is not None:
                try:
                    for rec in verifier.prior():
                        checker.feed(rec.env, rec.event, check_sigs=False)
                except TrustViolation as exc:
                    verifier.fail("local log", f"the local history breaks a trust rule: {exc.message}")
            elif verifier.folded.core.genesis is not None:
                checker = TrustChecker.from_genesis(verifier.folded.core.genesis)
        verifier.extra["trust"] = checker
    return checker  # type: ignore[no-any-return]


def checker_of(verifier: ChainVerifier) -> TrustChecker:
    """The trust checker of ``verifier`` (built over the history before its base when it has none yet)."""
    return _checker(verifier)


def verify_event(verifier: ChainVerifier, rec: Recorded, where: str) -> None:
    checker = _checker(verifier)
    before = checker.signatures
    try:
        checker.feed(rec.env, rec.event)
    except TrustViolation as exc:
        verifier.fail(where, exc.message)
    verifier.signatures += checker.signatures - before  # this verifier's, the checker may be a continued one
    if type(rec.event) is DiceRolled and rec.event.scheme == "joint":
        verifier.tally.verified += 1


def joint_checked_by_trust(verifier: ChainVerifier, die: DiceRolled, seq: int, where: str) -> None:
    """Joint dice are recomputed by ``verify_event`` (which runs right after)."""


def verify_finish(verifier: ChainVerifier) -> None:
    checker = verifier.extra.get("trust")
    if checker is None:
        return
    try:
        checker.finish()  # the last run of placed decisions is in the placement rule's order too
    except TrustViolation as exc:
        verifier.fail("end", exc.message)
    verifier.notes.extend(checker.notes())
    verifier.acknowledged = checker.acknowledged()
