"""Limits: request body size and per-client rate (token buckets), with bounded memory."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

from combatlog.server.errors import ApiError

MAX_BODY = 8 << 20  # 8 MiB: a few thousand events; larger combats are created from the CLI in steps
MAX_BUCKETS = 10_000  # clients remembered at once; the least recently seen is forgotten first


class RateLimiter:
    """One token bucket per client key ("addr:..." or "key:..."): ``burst`` requests at once, then
    ``rate`` per second. Forgetting a bucket only ever gives that client a full bucket again."""

    def __init__(self, rate: float, burst: int, *, clock: Callable[[], float] = time.monotonic,
                 max_buckets: int = MAX_BUCKETS) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate, self.burst, self.clock, self.max_buckets = rate, burst, clock, max_buckets
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (tokens, at)

    def take(self, key: str) -> float:
        """0.0 when a request may go ahead (one token taken), else the seconds until one may."""
        now = self.clock()
        tokens, at = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self.rate
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_buckets:
            self._buckets.popitem(last=False)
        return wait

    def check(self, key: str) -> None:
        wait = self.take(key)
        if wait > 0:
            raise ApiError(429, "rate_limited", f"too many requests from {key.split(':', 1)[0]} {key.split(':', 1)[1]}; "
                           f"retry in {math.ceil(wait)} s", headers={"Retry-After": str(max(1, math.ceil(wait)))})


async def read_body(receive_chunks, content_length: str | None, limit: int) -> bytes:  # type: ignore[no-untyped-def]
    """The request body, refused with 413 as soon as it is known to exceed ``limit``: from its
    Content-Length before reading anything, else while reading (chunked), never buffering more."""
    if content_length is not None:
        if not (content_length.isascii() and content_length.isdigit()) or len(content_length) > 18:
            raise ApiError(400, "bad_request", "Content-Length is not a whole number")
        if int(content_length) > limit:
            raise ApiError(413, "too_large", f"the body is {content_length} bytes; at most {limit} are accepted")
    parts: list[bytes] = []
    size = 0
    async for chunk in receive_chunks:
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "too_large", f"the body is more than {limit} bytes; at most {limit} are accepted")
        parts.append(chunk)
    return b"".join(parts)
