"""What the event stream (``GET /v1/combats/{id}/stream``) waits on: a notifier.

``Notifier.wait_past(stream, seq, deadline)`` returns the stream's head as soon as it is past
``seq``, or at the deadline. ``PollingNotifier`` reads the head from the store every
``interval`` seconds and is also woken at once by ``changed(stream)``, which the append route
calls after each append in this process. Appends made by another process on the same database
are seen at the next poll; a PostgreSQL LISTEN/NOTIFY notifier can replace the polling one
without touching the routes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol


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
