"""Stores: memory, SQLite (default) and PostgreSQL, chosen by URL."""

from __future__ import annotations

import os
import re

from combatlog.store.base import AppendResult, EventStore, Head, HeldBundle, ImportBatch, NewRow, StoredRow, StreamMeta

DEFAULT_DB = "combatlog.db"


def default_url() -> str:
    return os.environ.get("COMBATLOG_DB") or DEFAULT_DB


_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def open_store(url: str | None = None) -> EventStore:
    """``memory:`` | ``postgresql://...`` | a SQLite file path (the default)."""
    url = url or default_url()
    if url in ("memory:", ":memory:"):
        from combatlog.store.memory import MemoryStore

        return MemoryStore()
    if url.startswith(("http://", "https://")):
        from combatlog.errors import InvalidCommand

        raise InvalidCommand(f"{url}: a combat server is not a store here; the CLI's --db opens its local replica "
                             "(combatlog.remote.replica.open_replica)")
    if url.startswith(("postgresql://", "postgres://")):
        from combatlog.store.postgres import PostgresStore

        return PostgresStore(url)
    scheme = _URL_SCHEME.match(url)
    if scheme:
        from combatlog.errors import InvalidCommand

        # "ftp://x/y" would otherwise be a SQLite path ("ftp:/x/y") created in a folder named "ftp:"
        raise InvalidCommand(f"{url}: unknown kind of log {scheme.group(0)!r}; a log is a SQLite file path, a "
                             "postgresql:// URL or a combat server's http(s):// URL")
    from combatlog.store.sqlite import SQLiteStore

    return SQLiteStore(url)


__all__ = ["AppendResult", "HeldBundle", "ImportBatch", "EventStore", "Head", "NewRow", "StoredRow", "StreamMeta", "open_store", "default_url"]
