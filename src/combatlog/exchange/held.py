"""What ``status`` says about held bundles: which events wait, for which missing ones.

Kept apart from the importer (``inbox.py``) so that ``status`` imports only this.
"""

from __future__ import annotations

import msgspec

from combatlog.errors import CombatlogError
from combatlog.store.base import EventStore, StreamMeta


def held_for(store: EventStore, meta: StreamMeta) -> list[dict[str, object]]:
    """The bundles held for ``meta`` (continuing it, or waiting on it), for ``status``: what waits for what."""
    out = []
    for held in store.held_bundles(meta.id):
        first = held.since + 1
        events = f"#{first}" if first == held.head_seq else f"#{first}-#{held.head_seq}"
        name, fork_seq = _fork_of(held.body, held.stream)
        if held.stream != held.waits_on and store.get_stream(held.stream) is None and held.since > fork_seq:
            waiting = f"the events of the fork {name} up to #{held.since}"
        else:
            try:
                have = store.head(held.waits_on).seq
            except CombatlogError:
                have = 0
            if have >= held.since:  # its base is here as another event: dropped at the next import
                waiting = (f"nothing: this log holds another #{held.since} (superseded; the next import of "
                           f"{name} drops it)")
            else:
                waiting = f"#{have + 1}-#{held.since}" if have + 1 < held.since else f"#{held.since}"
        out.append({"events": events, "since": held.since, "head_seq": held.head_seq, "waiting_for": waiting,
                    "source": held.source, "received_at": held.received_at})
    return out


class _Seg(msgspec.Struct):
    id: str
    fork_seq: int = 0


class _Head(msgspec.Struct):
    name: str = "?"
    segments: list[_Seg] = []


def _fork_of(body: bytes, stream: str) -> tuple[str, int]:
    """The bundle's combat name and where ``stream`` forks (0 for a combat's own genesis)."""
    try:
        head = msgspec.json.decode(body.split(b"\n", 1)[0], type=_Head)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return "?", 0
    return head.name, next((seg.fork_seq for seg in head.segments if seg.id == stream), 0)
