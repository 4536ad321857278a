"""Wires the trust layer into the core: the joint key source, the trust commands,
the pre-append checks, the verifier's checks and the import's equivocation evidence.

Each core module calls its ``install_*`` at its bottom (``commands/handler.py``,
``exchange/verify.py``, ``exchange/bundle.py``), so the checks are always on
wherever events are written, verified or imported. This module imports none of
them, which keeps the import graph free of cycles.
"""

from __future__ import annotations

from types import ModuleType
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


def verify_event(verifier: ChainVerifier, rec: Recorded, where: str) -> None:
    checker = _checker(verifier)
    try:
        checker.feed(rec.env, rec.event)
    except TrustViolation as exc:
        verifier.fail(where, exc.message)
    verifier.signatures = checker.signatures
    if type(rec.event) is DiceRolled and rec.event.scheme == "joint":
        verifier.tally.verified += 1


def _joint_checked_by_trust(verifier: ChainVerifier, die: DiceRolled, seq: int, where: str) -> None:
    """Joint dice are recomputed by ``verify_event`` (which runs right after)."""


def verify_finish(verifier: ChainVerifier) -> None:
    checker = verifier.extra.get("trust")
    if checker is None:
        return
    verifier.notes.extend(checker.notes())
    verifier.acknowledged = checker.acknowledged()


def install_handler(module: ModuleType) -> None:
    from combatlog.trust import sealed

    module.KEY_SOURCES["joint"] = sealed.joint_key
    module.CORE_DECIDERS.update(sealed.DECIDERS)
    if sealed.pre_append not in module.PRE_APPEND:
        module.PRE_APPEND.append(sealed.pre_append)


def install_verify(module: ModuleType) -> None:
    if verify_event not in module.EXTRA_CHECKS:
        module.EXTRA_CHECKS.append(verify_event)
    module.SCHEME_CHECKS["joint"] = _joint_checked_by_trust
    if verify_finish not in module.FINISH_CHECKS:
        module.FINISH_CHECKS.append(verify_finish)


def install_bundle(module: ModuleType) -> None:
    from combatlog.trust import evidence

    if evidence.check_equivocation not in module.DIVERGENCE_CHECKS:
        module.DIVERGENCE_CHECKS.append(evidence.check_equivocation)
