"""The HTTP/1.1 parser under the server: httptools (llhttp, in C) when it is installed, else h11.

httptools parses a request in a fraction of h11's time, and every request pays it (docs/benchmarks.md,
"The server's CPU per append"). But uvicorn's httptools protocol keeps whatever request line and headers
a client sends: a client that never ends its headers grows the server's memory without bound, where
h11 refuses a head past 16 KiB (its ``max_incomplete_event_size``). ``BoundedHead`` puts that bound
back: a request whose head goes past ``MAX_HEAD`` bytes is answered 400 and its connection closed.
h11 stays the fallback (httptools is a compiled package; where it cannot be installed, the server runs
as before).
"""

from __future__ import annotations

from typing import Any

MAX_HEAD = 16 * 1024  # bytes of a request's line and headers: h11's own default bound, kept under httptools


def http_protocol() -> Any:
    """What uvicorn's ``http`` setting gets: the bounded httptools protocol, or "h11" without httptools."""
    try:
        import httptools  # noqa: F401
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return "h11"
    return bounded(HttpToolsProtocol) or "h11"


# what BoundedHead overrides or calls of uvicorn's protocol (not a public API: an upgrade may change it)
HOOKS = ("data_received", "on_headers_complete", "on_message_complete", "send_400_response")


def bounded(protocol: type) -> type | None:
    """``protocol`` (uvicorn's httptools protocol) with its request head bounded; None where it lacks a method
    the bound relies on, as another uvicorn may: the server then runs h11, which bounds the head itself,
    rather than httptools unbounded."""
    if not all(callable(getattr(protocol, hook, None)) for hook in HOOKS):
        return None

    class BoundedHead(protocol):  # type: ignore[misc, valid-type]
        """uvicorn's httptools protocol, refusing a request whose head (request line and headers) goes past
        MAX_HEAD bytes. The bytes counted are those received while a head is incomplete: one read that
        completes a request's body and begins the next request is not counted, so a head is cut off within
        MAX_HEAD and one read (asyncio's reads are at most 256 KiB)."""

        _head_open = True  # a request's head is being received (or awaited)
        _head_bytes = 0

        def data_received(self, data: bytes) -> None:
            if self._head_open:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._head_open and self._head_bytes > MAX_HEAD and not self.transport.is_closing():
                self.send_400_response(f"Request head too large: at most {MAX_HEAD} bytes of request line "
                                       "and headers are accepted.")

        def on_headers_complete(self) -> None:
            self._head_open, self._head_bytes = False, 0
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._head_open = True  # the next request on this connection (keep-alive)

    return BoundedHead
