"""``--db https://HOST``: work against a combat server directly, through a local replica.

The server is never trusted, so "directly" still means a log on this machine: a SQLite replica kept
in the key home (``replicas/NAME.db``, one per server). Opening it syncs every combat this player
may read there (pull: verify everything, import; push: what is still ours). Every command then
runs on the replica as on any log, and what it appended is pushed when the command ends. A push
the server refuses with 409 merges (the server's branch kept, our decisions re-applied after it:
docs/trust.md, "Concurrent moves") and pushes again. When the server cannot be reached, the work
stays in the replica and the next command (or ``sync``) pushes it: offline play is queued, not lost.

Secrets (sealed-order nonces, chain secrets, referee seeds, kept commands) stay in the replica's
secrets table, on this machine.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from combatlog.store.base import AppendResult, ImportBatch, NewRow, StreamMeta, SupersededRow
from combatlog.store.sqlite import SQLiteStore


def is_server_url(url: str | None) -> bool:
    return bool(url) and url.startswith(("http://", "https://"))  # type: ignore[union-attr]


class ReplicaStore(SQLiteStore):
    """A SQLite log that remembers which combats it changed, and pushes them when closed."""

    def __init__(self, path: Path, client: Any) -> None:
        super().__init__(path)
        self.client = client
        self.changed: set[str] = set()

    def create_stream(self, meta: StreamMeta, rows: list[NewRow], *, command_id: str) -> AppendResult:
        result = super().create_stream(meta, rows, command_id=command_id)
        self.changed.add(meta.id)
        return result

    def append(self, stream_id: str, rows: list[NewRow], *, expected_version: int, command_id: str,
               secrets: Mapping[str, bytes] | None = None) -> AppendResult:
        result = super().append(stream_id, rows, expected_version=expected_version, command_id=command_id,
                                secrets=secrets)
        self.changed.add(stream_id)
        return result

    def import_batches(self, batches: list[ImportBatch], *, then: Callable[[Any], None] | None = None) -> None:
        super().import_batches(batches, then=then)
        self.changed.update(b.stream_id for b in batches if b.rows)

    def replace_tail(self, stream_id: str, *, fork_seq: int, expected_version: int, rows: list[NewRow],
                     superseded_at: str) -> list[SupersededRow]:
        moved = super().replace_tail(stream_id, fork_seq=fork_seq, expected_version=expected_version, rows=rows,
                                     superseded_at=superseded_at)
        self.changed.add(stream_id)
        return moved

    def close(self) -> None:
        try:
            if self.changed:
                push_changed(self, self.client, sorted(self.changed))
        finally:
            self.changed.clear()
            super().close()


def push_changed(store: ReplicaStore, client: Any, stream_ids: list[str]) -> None:
    """Push what this command changed; a server out of reach leaves it queued in the replica."""
    from combatlog.errors import CombatlogError
    from combatlog.remote.client import push

    for stream_id in stream_ids:
        if store.get_stream(stream_id) is None:
            continue
        try:
            outcome = push(store, client, stream_id)
        except CombatlogError as exc:
            _say(f"not pushed to {client.remote.url}: {exc} (kept here: the next command or "
                 f"`combatlog --db {client.remote.url} sync` pushes it)")
            continue
        _report(client)
        if outcome.action not in ("up_to_date",):
            _say(outcome.text(client.remote.name))


def open_replica(url: str, actor: str | None) -> ReplicaStore:
    """The replica of the server at ``url`` (a remote of that URL is added when none exists), synced."""
    from combatlog.errors import CombatlogError
    from combatlog.remote import config
    from combatlog.remote.client import Client, sync
    from combatlog.trust.keys import key_home

    url = config.check_url(url)
    remote = next((r for r in config.load().values() if r.url == url), None)
    if remote is None:
        remote = config.add(_name_for(url), url)
    folder = key_home() / "replicas"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    client = Client(remote, actor)
    store = ReplicaStore(folder / f"{remote.name}.db", client)
    try:
        # every combat this player may read there (pulled, verified); then the combats made here while the
        # server was out of reach (created there now)
        on_server = [str(c["id"]) for c in client.combats()]
        made_here = [m.id for m in store.list_streams() if m.id not in on_server and m.parent is None]
        outcomes = sync(store, client, on_server + made_here) if on_server or made_here else []
    except CombatlogError as exc:
        _say(f"working offline: {url} cannot be reached or refused ({exc}); this replica's events are pushed "
             "at the next command that reaches it")
        return store
    _report(client)
    for outcome in outcomes:
        if outcome.action not in ("up_to_date",):
            _say(outcome.text(remote.name))
    store.changed.clear()  # what sync imported is the server's already
    return store


def _report(client: Any) -> None:
    for warning in client.warnings:
        _say(f"warning: {warning}")
    for merge in client.merges:
        for line in merge.lines():
            _say(line)
    client.warnings.clear()
    client.merges.clear()


def _name_for(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{parts.hostname}-{parts.port or parts.scheme}").strip("-")
    return name[:64] or "server"


def _say(text: str) -> None:
    """Sync reports go to standard error: standard output is the command's own (JSON included)."""
    from combatlog.text import printable

    sys.stderr.write(printable(text) + "\n")
