"""The keys a combat pins, checked against this machine's key home when it is imported.

A genesis pins each player's public key. ``verify`` proves every event was signed with the pinned
keys, but not that the pinned key *is* that player: someone who writes a genesis pinning a key of his
own under the name ``bob`` signs as "bob" from then on. The key home already holds the keys its owner
checked out of band (``keys import``), so ``import`` compares:

- a pinned key that differs from the key kept here under the same name is refused (impersonation),
  unless the user accepts it with ``--trust-new-key``;
- a pinned key for the importer's own name (``--as``) that this machine holds no secret key for is
  warned about: they could not sign in that combat, and someone else may be playing as them.

A combat already in this log with the same genesis was checked on its first import and is not
checked again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from combatlog.errors import CombatlogError, IllegalCommand
from combatlog.store.base import EventStore

RULE_PINNED = 'trust: a pinned key must be the one in your key home (docs/trust.md, "Keys and signatures")'
_LINE_LIMIT = 2 * 1024 * 1024  # a header or an event line is far smaller (events: at most 1 MiB)


def _genesis_in(path: Path | bytes) -> tuple[str, str, list[dict[str, Any]]] | None:
    """(stream id, hash, pinned players) of the genesis a combat file (or a bundle's bytes) opens with,
    or None (an incremental bundle, or a file ``import`` will refuse anyway: it says why)."""
    from combatlog.events.canonical import depth_problem

    try:
        if isinstance(path, bytes):
            lines = path.split(b"\n", 2)
            raw = [lines[0][:_LINE_LIMIT], lines[1][:_LINE_LIMIT] if len(lines) > 1 else b"null"]
        else:
            with open(path, "rb") as f:
                raw = [f.readline(_LINE_LIMIT), f.readline(_LINE_LIMIT)]
        if any(depth_problem(line) for line in raw):
            return None  # import refuses it, saying why; no decoder recurses into it here
        header, first = (msgspec.json.decode(line) for line in raw)
    except (OSError, ValueError):  # msgspec.DecodeError, or UnicodeDecodeError for bytes that are not UTF-8
        return None
    if not isinstance(header, dict) or header.get("since") or not isinstance(first, dict):
        return None
    data = first.get("data")
    if not isinstance(data, dict) or data.get("type") != "core.combat_started" or first.get("seq") != 1:
        return None
    pinned = data.get("players")
    players = [p for p in pinned if isinstance(p, dict)] if isinstance(pinned, list) else []
    return str(first.get("stream", "")), str(first.get("hash", "")), players


def check_pinned_keys(store: EventStore, path: Path | bytes, actor: str, *, trust_new_key: bool = False,
                      where: str = "") -> list[str]:
    """Refuse a file whose genesis pins, for a name known in the key home, another key (unless
    ``trust_new_key``); return warnings (a key pinned for ``actor`` whose secret key is not held here,
    keys accepted with ``trust_new_key``). ``where`` names a bundle given as bytes (its file, its mail block)
    in what is said of it; a path names itself."""
    from combatlog.trust.keys import fingerprint, has_secret, load_public, strict_b64

    found = _genesis_in(path)
    if found is None:
        return []
    stream, digest, players = found
    source = where or (str(path) if not isinstance(path, bytes) else "the bundle")  # never the bytes themselves
    if store.get_stream(stream) is not None:
        rows = store.read_stream(stream, 1, 1)
        if rows and rows[0].hash == digest:
            return []  # this combat's genesis was checked when it first came here
    mismatched: list[str] = []
    warnings: list[str] = []
    for p in players:
        name, raw = str(p.get("name", "")), strict_b64(str(p.get("public_key", "")), 32)
        if raw is None:
            continue  # import refuses a malformed genesis itself
        try:
            known = load_public(name)
        except CombatlogError:  # nobody of that name in the key home (or not a key name)
            known = None
        if known is not None and known != raw:
            mismatched.append(f"{name} (pinned {fingerprint(raw)}, your key home has {fingerprint(known)})")
        elif name == actor and not has_secret(actor):
            warnings.append(f"{source} pins a key for {actor} ({fingerprint(raw)}) but you hold no secret key for "
                            f"{actor} here: you cannot sign in this combat, and whoever holds that key plays as "
                            f"{actor}; make sure it is yours (keys list, --as)")
    if mismatched and not trust_new_key:
        raise IllegalCommand(
            f"{source} pins a key different from the one in your key home for {', '.join(mismatched)}: someone may be "
            "playing under that name; check the fingerprint with that player out of band, and import with "
            "--trust-new-key only if it really is theirs (nothing was imported)", rule=RULE_PINNED)
    if mismatched:
        warnings.append(f"accepted with --trust-new-key: {source} pins another key than your key home for "
                        f"{', '.join(mismatched)}")
    return warnings
