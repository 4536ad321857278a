"""Commands kept on the machine that ran them, so a merge can re-run them (``exchange/merge.py``).

When two players answer the same email, one branch wins a deterministic merge and the
other player's decisions must be re-applied on top of it: re-decided by the rules (a
lure may no longer be legal, a die may now come from another seed) and re-signed. The
log holds events, not commands, so the machine that ran a command keeps it in its
local secrets (never exported) under its stream and command id. Only combats with
pinned players keep them: that is where a branch can lose to another machine's.

A kept command is local input read back by this machine only; it is still decoded
strictly, and only into a command class of this package.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import msgspec

from combatlog.store.base import EventStore


class KeptCommand(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    kind: str  # "module:Class" of the command
    body: bytes  # its JSON
    actor: str
    scheme: str | None = None
    manual_faces: dict[str, tuple[int, ...]] = {}


def kept_name(stream_id: str, command_id: str) -> str:
    """The secret's name a command is kept under."""
    return f"command:{stream_id}:{command_id}"


def kept_command(command: Any, *, actor: str, scheme: str | None,
                 manual_faces: Mapping[str, tuple[int, ...]] | None) -> bytes:
    """The bytes a command is kept as (the handler writes them with the append, in one transaction)."""
    kind = f"{type(command).__module__}:{type(command).__qualname__}"
    return msgspec.json.encode(KeptCommand(kind=kind, body=msgspec.json.encode(command), actor=actor, scheme=scheme,
                                           manual_faces={k: tuple(v) for k, v in (manual_faces or {}).items()}))


def recall(store: EventStore, stream_id: str, command_id: str) -> tuple[Any, KeptCommand] | None:
    """The command kept for ``command_id`` and how it ran, or None when this machine did not run it."""
    raw = store.get_secret(kept_name(stream_id, command_id))
    if raw is None:
        return None
    try:
        kept = msgspec.json.decode(raw, type=KeptCommand)
        module_name, _, cls_name = kept.kind.partition(":")
        if not module_name.startswith("combatlog.") or "." in cls_name:
            return None
        cls = getattr(importlib.import_module(module_name), cls_name, None)
        if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)):
            return None
        return msgspec.json.decode(kept.body, type=cls), kept
    except (msgspec.DecodeError, msgspec.ValidationError, ImportError, ValueError):
        return None  # an altered secrets table: treated as not kept
