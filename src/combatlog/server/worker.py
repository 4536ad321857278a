"""The one thread that owns the event store and the registry.

SQLite connections belong to the thread that opened them, and the store's
expected-version appends are the sequencer: running every store call on one
thread makes "first come, first served" literal (requests are served in the
order their store work was queued) while the event loop stays free for other
requests and the event streams. A second process on the same PostgreSQL
database is still safe: the store's expected version refuses the later append,
and the registry (invite tokens, seen nonces) is then in that database too.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


class Worker:
    def __init__(self, db: str, state: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="combatlog-store")
        self.store: Any = None
        self.registry: Any = None
        self._pool.submit(self._open, db, state).result()

    def _open(self, db: str, state: str) -> None:
        from combatlog.store import open_store

        self.store = open_store(db)
        if is_postgres(state):  # shared by every server process on the database (store/pg_registry.py)
            from combatlog.store.pg_registry import PgRegistry

            self.registry = PgRegistry(state)
        else:
            from combatlog.store.server_registry import Registry

            self.registry = Registry(state)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        def shut() -> None:
            self.store.close()
            self.registry.close()

        self._pool.submit(shut).result()
        self._pool.shutdown(wait=True)
