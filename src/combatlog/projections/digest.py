"""The digest of the rules' state: what each batch records of the state it leaves (docs/rules.md, "The state digest").

From engine 0.3 on, the last envelope of every batch the write path seals carries ``state``: the SHA-256 of the
canonical JSON of the ruleset's state after the batch (``Ruleset.canonical_state``: the state itself, minus
what is only a cache or a view of the last event). The envelope's hash, and so its signatures, cover it. So a
log says, batch by batch, what the table saw when it played, and every machine and every later build checks
that it folds the same state from the same events: ``verify`` names the first batch where it does not
(``exchange/verify.py``), where a fix changed an outcome without raising the ruleset's version.

``differences`` turns two states into readable lines (a path, today's value, the value as played), for the
reading of a log of an earlier revision under both revisions.
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.events.canonical import canonical, sha256_hex

STATE_DOMAIN = b"combatlog-state/v1\n"


def state_bytes(ruleset: Any, state: Any) -> bytes:
    """The canonical JSON of ``state``'s projection (struct fields, dict keys and sets sorted)."""
    return canonical(ruleset.canonical_state(state))


def state_digest(ruleset: Any, state: Any) -> str:
    return sha256_hex(STATE_DOMAIN, state_bytes(ruleset, state))


def projection(ruleset: Any, state: Any) -> Any:
    """The projection the digest hashes, as plain JSON values (dicts, lists, strings, numbers)."""
    return msgspec.json.decode(state_bytes(ruleset, state))


def differences(played: Any, today: Any, limit: int = 4) -> list[str]:
    """Where two projections differ, as ``path: X today, Y as played`` lines (at most ``limit``, then a count)."""
    out: list[str] = []
    _walk(played, today, "", out)
    if len(out) > limit:
        return out[:limit] + [f"and {len(out) - limit} more"]
    return out


def _show(value: Any) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= 80 else text[:77] + "..."


def _label(played: Any, today: Any, index: int) -> str:
    """A list element as a path names it: by its ``id`` or ``name`` where both sides share one, else its index."""
    if isinstance(played, dict) and isinstance(today, dict):
        for key in ("id", "name"):
            value = played.get(key)
            if isinstance(value, str) and value and value == today.get(key):
                return value
    return str(index)


def _walk(played: Any, today: Any, path: str, out: list[str]) -> None:
    if played == today:
        return
    if isinstance(played, dict) and isinstance(today, dict):
        for key in sorted(set(played) | set(today)):
            where = f"{path}.{key}" if path else str(key)
            if key not in today:
                out.append(f"{where}: absent today, {_show(played[key])} as played")
            elif key not in played:
                out.append(f"{where}: {_show(today[key])} today, absent as played")
            else:
                _walk(played[key], today[key], where, out)
        return
    if isinstance(played, list) and isinstance(today, list) and len(played) == len(today):
        for i, (a, b) in enumerate(zip(played, today)):
            _walk(a, b, f"{path}[{_label(a, b, i)}]", out)
        return
    out.append(f"{path or 'the state'}: {_show(today)} today, {_show(played)} as played")
