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
