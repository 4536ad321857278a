"""Finding a combat by what a person types: its name, its id, or an id prefix.

Kept apart from the write path so that read commands do not import it.
"""

from __future__ import annotations

from combatlog.errors import AmbiguousCommand, NotFound
from combatlog.store.base import EventStore, StreamMeta


def resolve_stream(store: EventStore, ref: str) -> StreamMeta:
    """A stream by id, by name, or by a unique id prefix of at least 4 characters."""
    meta = store.get_stream(ref)
    if meta is not None:
        return meta
    streams = store.list_streams()
    named = [m for m in streams if m.name == ref]
    if len(named) == 1:
        return named[0]
    if len(ref) >= 4:
        prefixed = [m for m in streams if m.id.startswith(ref)]
        if len(prefixed) == 1:
            return prefixed[0]
        if len(prefixed) > 1:
            raise AmbiguousCommand(f"{ref!r} matches {len(prefixed)} streams: {', '.join(m.id for m in prefixed)}")
    raise NotFound(f"no combat {ref!r} in this log (see: combatlog list)")
