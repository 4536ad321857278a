"""The trust layer's core commands (local input; the deciders are in ``trust/sealed.py``).

Pure data: rulesets' CLI modules may build them and pass them to ``run_command``.
"""

from __future__ import annotations

from typing import Any

from combatlog.commands.core import CoreCommand


class CommitOrders(CoreCommand, frozen=True, kw_only=True):
    """Seal ``orders`` for ``step``. ``required``: who must commit before anyone reveals
    (default: the step's earlier commits, else the ruleset's ``sealed_required``, else
    every pinned player)."""

    step: str
    orders: dict[str, Any] = {}
    required: tuple[str, ...] = ()
    # Seal even when the ruleset foresees that the reveal would cancel or void these orders
    # (``RefusedAtReveal``): a deliberate choice. Local input only: nothing of it enters the log.
    anyway: bool = False
    # The nonce to seal with (64 hex digits); empty draws a fresh one. Only a merge sets it, re-sealing
    # a commit that lost to another branch with the nonce it had, so the commitment stays the same.
    nonce: str = ""


class RevealOrders(CoreCommand, frozen=True, kw_only=True):
    """Reveal the orders this log sealed for the actor at ``step`` (empty: the only step awaiting it)."""

    step: str = ""


class Acknowledge(CoreCommand, frozen=True, kw_only=True):
    """Countersign the log up to ``upto`` (0: the head)."""

    upto: int = 0


class MarkDecision(CoreCommand, frozen=True, kw_only=True):
    """Record a decision point: ``player`` (default the actor) chose after the joint seed was known."""

    what: str
    player: str = ""


class CommitChain(CoreCommand, frozen=True, kw_only=True):
    """Commit to the head of a fresh nonce chain (joint dice; docs/trust.md, "Nonce chains")."""

    length: int = 0  # 0: the default (crypto.CHAIN_LENGTH)


class RevealLink(CoreCommand, frozen=True, kw_only=True):
    """Contribute the actor's next chain link to the seed step ``step``."""

    step: str


class ReleaseChain(CoreCommand, frozen=True, kw_only=True):
    """Publish the secret of the actor's chain: his links then contribute without him."""
