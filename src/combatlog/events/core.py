"""Core events: the ones every ruleset's stream may hold.

Tags here are part of the stable log format (see tests/golden_tags.txt).
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events.base import Event, register


class Player(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    public_key: str = ""  # base64 raw Ed25519 public key, empty when keys are not used
    fingerprint: str = ""


# Genesis options the trust layer reads (docs/trust.md), not a ruleset's: a ruleset that checks its own
# options leaves these out. joint_dice: strict | friendly; sequencer: the pinned player whose
# machine orders concurrent moves (exchange/merge.py).
# referee: the player whose rulings the rules accept (commands/authority.py).
TRUST_OPTIONS = ("joint_dice", "sequencer", "referee")


class CombatStarted(Event, frozen=True, kw_only=True, tag="core.combat_started"):
    """Genesis of a root stream: pins the ruleset, its digest and the players."""

    name: str
    ruleset: str
    ruleset_version: str
    rules_digest: str
    engine_version: str
    setup: dict[str, Any] = {}
    players: tuple[Player, ...] = ()
    dice: str = "local"  # the default dice scheme of this combat
    options: dict[str, str] = {}


class Forked(Event, frozen=True, kw_only=True, tag="core.forked"):
    """First event of a fork; its envelope chains to the parent's hash at ``at_seq``."""

    name: str
    parent: str
    parent_name: str
    at_seq: int
    parent_hash: str
    reason: str = ""


class DiceRolled(Event, frozen=True, kw_only=True, tag="core.dice_rolled"):
    """A roll, addressed by its semantic label, with what is needed to recompute it."""

    label: str
    notation: str
    count: int
    sides: int
    modifier: int = 0
    faces: tuple[int, ...]
    total: int
    scheme: str  # manual | local | referee | joint
    seed_ref: int = 0  # seq of the commitment the die derives from (referee, joint)
    by: str = ""  # who rolled or entered the faces
    purpose: str = ""


class SeedCommitted(Event, frozen=True, kw_only=True, tag="core.seed_committed"):
    """The hash of a referee seed, appended before any die derived from it."""

    commitment: str  # SHA-256 hex of the seed bytes
    by: str = ""


class SeedRevealed(Event, frozen=True, kw_only=True, tag="core.seed_revealed"):
    commit_seq: int
    seed: str  # hex


class Noted(Event, frozen=True, kw_only=True, tag="core.noted"):
    """A free comment on the combat (a ruling, a dispute, a table agreement)."""

    text: str
    about: tuple[str, ...] = ()


CORE_EVENTS: tuple[type[Event], ...] = (
    CombatStarted, Forked, DiceRolled, SeedCommitted, SeedRevealed, Noted,
)
register(*CORE_EVENTS)


# -- the trust layer's events (combatlog.trust; docs/trust.md) ----------------------
# Registered here so that every read path decodes them, but kept out of
# CORE_EVENTS so that adding them changed no ruleset's rules digest.


class OrdersCommitted(Event, frozen=True, kw_only=True, tag="core.orders_committed"):
    """A player seals orders for a step: only the commitment enters the log.

    commitment = SHA-256("combatlog-orders/v1\n" || JCS({"nonce": nonce, "orders": orders})).
    ``required`` is who must commit in this step before anyone may reveal; every
    commit of a step records the same list.
    """

    step: str
    player: str
    commitment: str
    required: tuple[str, ...]


class OrdersRevealed(Event, frozen=True, kw_only=True, tag="core.orders_revealed"):
    """The sealed orders and their nonce (64 hex digits), checked against the commit."""

    step: str
    player: str
    orders: dict[str, Any]
    nonce: str


class Acknowledged(Event, frozen=True, kw_only=True, tag="core.acknowledged"):
    """A player countersigns the log up to ``upto`` (the event whose hash is ``hash``)."""

    player: str
    upto: int
    hash: str


class DecisionMarked(Event, frozen=True, kw_only=True, tag="core.decision_marked"):
    """A choice made after the newest joint dice seed became known (a decision point).

    In strict mode no joint die may be drawn from that seed afterwards; in
    friendly mode such dice are allowed and flagged by ``verify``.
    """

    player: str
    what: str


class ChainCommitted(Event, frozen=True, kw_only=True, tag="core.chain_committed"):
    """A player commits to the head of a hash chain of nonces (docs/trust.md, "Nonce chains").

    ``head`` is L_0 = H^length(s) for a secret s kept on the player's machine; link i (1..length)
    is L_i = H^(length-i)(s), so H(L_i) = L_(i-1). Each link is one contribution to one seed step.
    """

    player: str
    head: str
    length: int


class LinkRevealed(Event, frozen=True, kw_only=True, tag="core.link_revealed"):
    """A player's next chain link, its contribution to a seed step (instead of a commit and a reveal)."""

    step: str
    player: str
    index: int
    link: str


class ChainReleased(Event, frozen=True, kw_only=True, tag="core.chain_released"):
    """A player with nothing left to decide publishes the secret of his chain: anyone can then compute his
    remaining links, which contribute to every later seed step without a message from him."""

    player: str
    secret: str


TRUST_EVENTS: tuple[type[Event], ...] = (OrdersCommitted, OrdersRevealed, Acknowledged, DecisionMarked,
                                         ChainCommitted, LinkRevealed, ChainReleased)
register(*TRUST_EVENTS)
