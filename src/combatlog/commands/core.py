"""Commands every ruleset's combat accepts (imperative names)."""

from __future__ import annotations

import msgspec


class CoreCommand(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class RollDice(CoreCommand, frozen=True, kw_only=True):
    label: str
    notation: str
    purpose: str = ""
    by: str = ""


class AddNote(CoreCommand, frozen=True, kw_only=True):
    text: str
    about: tuple[str, ...] = ()


class CommitSeed(CoreCommand, frozen=True, kw_only=True):
    """A referee commits to a fresh secret seed; dice of scheme ``referee`` derive from it."""


class RevealSeed(CoreCommand, frozen=True, kw_only=True):
    """The referee reveals the open seed, so anyone can recompute its dice."""
