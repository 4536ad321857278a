"""What the event stream (``GET /v1/combats/{id}/stream``) waits on: a notifier.

``Notifier.wait_past(stream, seq, deadline)`` returns the stream's head as soon as it is past
``seq``, or at the deadline. ``PollingNotifier`` reads the head from the store every
``interval`` seconds and is also woken at once by ``changed(stream)``, which the append route
calls after each append in this process. Appends made by another process on the same database
are seen at the next poll.

``ListenNotifier``, used when the store is PostgreSQL, is the same with a PostgreSQL listener
(``store/pg_listen.py``: LISTEN on its own connection, on a thread) that wakes a stream's
waiters as soon as any process on the database commits an append to it. Its polling stays as a
safety net, at a long interval: after the listening connection is (re)opened every waiter is
woken, so notifications missed while it was down cost at most one head read each.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol


class Notifier(Protocol):
    async def wait_past(self, stream: str, seq: int, deadline: float) -> int: ...

    def changed(self, stream: str) -> None: ...


class PollingNotifier:
    def __init__(self, head: Callable[[str], Awaitable[int]], interval: float = 0.5) -> None:
        self.head, self.interval = head, interval
        self._events: dict[str, asyncio.Event] = {}

    def changed(self, stream: str) -> None:
        event = self._events.get(stream)
        if event is not None:
            event.set()

    async def wait_past(self, stream: str, seq: int, deadline: float) -> int:
        while True:
            event = self._events.setdefault(stream, asyncio.Event())
            head = await self.head(stream)
            left = deadline - time.monotonic()
            if head > seq or left <= 0:
                return head
            try:
                await asyncio.wait_for(event.wait(), timeout=min(self.interval, left))
            except asyncio.TimeoutError:
                pass
            if event.is_set():  # woken: the next waiters get a fresh event
                self._events.pop(stream, None)


class ListenNotifier(PollingNotifier):
    """Woken by PostgreSQL notifications of appends made by any process on the database."""

    def __init__(self, url: str, head: Callable[[str], Awaitable[int]], interval: float = 5.0) -> None:
        super().__init__(head, interval)
        self.url = url
        self.listener: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        from combatlog.store.pg_listen import EventListener

        self._loop = asyncio.get_running_loop()
        self.listener = EventListener(self.url, self._heard, self._reconnected).start()
        await asyncio.to_thread(self.listener.connected.wait, 10.0)  # serve once LISTEN is in force, if it can be

    def _heard(self, stream: str, seq: int) -> None:  # on the listener's thread
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.changed, stream)

    def _reconnected(self) -> None:  # on the listener's thread: wake everyone, they re-read their heads
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self.changed_all)

    def changed_all(self) -> None:
        for event in list(self._events.values()):
            event.set()

    async def stop(self) -> None:
        if self.listener is not None:
            await asyncio.to_thread(self.listener.stop)
