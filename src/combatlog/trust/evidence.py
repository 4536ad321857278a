"""Equivocation evidence: one author signed two different events at the same place.

When an import meets an event that differs from ours at the same (stream, seq),
it is a divergence. If both events are validly signed by the same pinned
author, it is more: that author showed two histories. The import is refused
with an ``Equivocation`` error naming both events, and both signed envelopes
(with the genesis that pins the author's key) are written next to the imported
file as ``<file>.equivocation-<seq>.jsonl`` so anyone can check the proof.
"""

from __future__ import annotations

from pathlib import Path

from combatlog.errors import CombatlogError, Diverged
from combatlog.events.envelope import decode_recorded
from combatlog.store.base import EventStore, StreamMeta
from combatlog.trust.track import TrustChecker, TrustViolation


class Equivocation(Diverged):
    code = "equivocation"

    def __init__(self, stream: str, seq: int, author: str, ours: str, theirs: str, message: str) -> None:
        CombatlogError.__init__(self, message)
        self.stream, self.seq, self.author, self.ours, self.theirs = stream, seq, author, ours, theirs


def check_equivocation(store: EventStore, meta: StreamMeta, seq: int, ours_body: bytes, theirs_body: bytes,
                       path: Path) -> None:
    from combatlog.trust.players import genesis_of

    genesis = genesis_of(store, meta)
    if genesis is None or not genesis.players:
        return
    try:
        ours, theirs = decode_recorded(ours_body), decode_recorded(theirs_body)
    except Exception:
        return
    if ours.env.actor != theirs.env.actor:
        return  # two players appended at the same place: a turn-order conflict, not equivocation
    checker = TrustChecker.from_genesis(genesis)
    try:
        checker._signatures(ours.env)
        checker._signatures(theirs.env)
    except TrustViolation:
        return
    author = ours.env.actor
    root = store.read_stream(_root_id(store, meta), 1, 1)[0].body
    out = path.with_name(f"{path.name}.equivocation-{seq}.jsonl")
    written = ""
    try:
        out.write_bytes(root + b"\n" + ours_body + b"\n" + theirs_body + b"\n")
        written = f"; both signed events are in {out}"
    except OSError:
        pass
    raise Equivocation(
        meta.name, seq, author, ours.env.hash, theirs.env.hash,
        f"equivocation by {author}: two different events signed by {author} at {meta.name} seq {seq}: "
        f"ours {ours.env.hash[:16]}... ({ours.env.type}, recorded {ours.env.recorded_at}), "
        f"theirs {theirs.env.hash[:16]}... ({theirs.env.type}, recorded {theirs.env.recorded_at})"
        f"{written}",
    )


def _root_id(store: EventStore, meta: StreamMeta) -> str:
    current = meta
    while current.parent:
        parent = store.get_stream(current.parent)
        if parent is None:
            break
        current = parent
    return current.id
