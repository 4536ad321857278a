"""The one thread that owns the event store and the registry.

SQLite connections belong to the thread that opened them, and the store's
expected-version appends are the sequencer: running every store call on one
thread makes "first come, first served" literal (requests are served in the
order their store work was queued) while the event loop stays free for other
requests and the event streams. A second process on the same PostgreSQL
database is still safe: the store's expected version refuses the later append,
and the registry (invite tokens, seen nonces) is then in that database too.

The thread takes its calls from a queue and hands each result straight to the
waiting request's asyncio future (``call_soon_threadsafe``): every request makes
this trip, and an executor's (a ``concurrent.futures.Future`` per call, chained
to an asyncio one) was about a tenth of the event loop's samples per append in a
profile (docs/benchmarks.md, "The server's CPU per append").
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_STOP = object()  # queued by close(): the thread ends after the calls queued before it


def is_postgres(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


class Worker:
    def __init__(self, db: str, state: str) -> None:
        self.store: Any = None
        self.registry: Any = None
        # the registry's tables are in the event store's own database (the default: --state is --db), so a
        # request's nonce is recorded in the transaction that appends its events (Api._append)
        self.nonce_with_events = False
        self._calls: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="combatlog-store", daemon=True)
        self._thread.start()
        try:
            self.call(self._open, db, state)
        except BaseException:
            self._calls.put(_STOP)
            raise

    def _open(self, db: str, state: str) -> None:
        from combatlog.store import open_store

        self.store = open_store(db)
        if is_postgres(state):  # shared by every server process on the database (store/pg_registry.py)
            from combatlog.store.pg_registry import PgRegistry

            self.registry = PgRegistry(state)
        else:
            from combatlog.store.server_registry import Registry

            self.registry = Registry(state)
        self.nonce_with_events = state == db and db not in ("memory:", ":memory:")

    def _serve(self) -> None:
        """The store's thread: each queued call in turn, its outcome handed to whoever waits for it."""
        while True:
            item = self._calls.get()
            if item is _STOP:
                return
            fn, args, kwargs, deliver = item
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # handed to the caller, who raises it: the thread goes on
                deliver(None, exc)
            else:
                deliver(result, None)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the store's thread, after the calls queued before it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def deliver(result: Any, exc: BaseException | None) -> None:  # on the store's thread
            try:
                loop.call_soon_threadsafe(_settle, future, result, exc)
            except RuntimeError:  # the loop was closed meanwhile (shutting down): nobody waits any more
                pass

        self._calls.put((fn, args, kwargs, deliver))
        return await future

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the store's thread, waited for here (outside the event loop)."""
        done = threading.Event()
        outcome: list[Any] = []

        def deliver(result: Any, exc: BaseException | None) -> None:
            outcome[:] = [result, exc]
            done.set()

        self._calls.put((fn, args, kwargs, deliver))
        done.wait()
        if outcome[1] is not None:
            raise outcome[1]
        return outcome[0]  # type: ignore[no-any-return]

    def close(self) -> None:
        def shut() -> None:
            self.store.close()
            self.registry.close()

        try:
            self.call(shut)
        finally:
            self._calls.put(_STOP)
            self._thread.join()


def _settle(future: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    """On the event loop: the call's outcome to its future, unless its waiter went away (cancelled)."""
    if future.cancelled():
        return
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(result)
