"""A recording proxy in front of a live server: it forwards every request unchanged (the request
signature covers the path and query, not the host) and records what the server answered, so a test can
count the requests the server saw instead of timing anything. A hook runs before each request is
forwarded: a test uses it to empty a rate-limit bucket of the real server just before the request it
means to see refused, and may add headers (X-Forwarded-For, for a server started with
--forwarded-allow-ips) to what is forwarded. A hook runs on each answer's headers before the client gets
them: a test that has already seen the server's Retry-After may shorten it there, so that a client that
obeys it does not sit out the whole wait again."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.server.live import LiveServer

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "proxy-connection"}

Hook = Callable[[str, str], dict[str, str]]  # (method, target) -> headers to add to the forwarded request
AnswerHook = Callable[[int, dict[str, str]], dict[str, str]]  # (status, headers) -> the headers the client gets


@dataclass(frozen=True)
class Seen:
    method: str
    target: str
    status: int
    error: str  # the JSON error code the server answered, "" for none
    body: bytes = b""  # the request's body, as forwarded


class RecordingProxy:
    def __init__(self, upstream: LiveServer) -> None:
        self.upstream = upstream
        self.seen: list[Seen] = []
        self.before: Hook = lambda method, target: {}
        self.after: AnswerHook = lambda status, headers: headers
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                headers.update(proxy.before(self.command, self.path))
                reply = proxy.upstream.request(self.command, self.path, body, headers)
                error = ""
                if reply.headers.get("content-type", "").startswith("application/json"):
                    try:
                        error = str(reply.json().get("error", "")) if isinstance(reply.json(), dict) else ""
                    except ValueError:
                        pass
                with proxy._lock:
                    proxy.seen.append(Seen(self.command, self.path, reply.status, error, body or b""))
                self.send_response(reply.status)
                for name, value in proxy.after(reply.status, dict(reply.headers)).items():
                    if name not in HOP_BY_HOP:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answers(self, method: str, path: str) -> list[tuple[int, str]]:
        """(status, error code) of each request seen for ``method`` and ``path`` (the query ignored)."""
        with self._lock:
            return [(s.status, s.error) for s in self.seen if s.method == method and s.target.split("?")[0] == path]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def empty_bucket(server: LiveServer, target: str, headers: Callable[[], dict[str, str]], limit: int = 1000,
                 margin: int = 0) -> None:
    """Send ``GET target`` with ``headers()`` (fresh each time: a signed request needs a new nonce) until
    the server answers 429: the bucket those requests draw from is then empty. With ``margin``, until the
    429 also says the next token is at least ``margin`` seconds away (the part of a token refilled since
    the last one was taken counts against it): when it is nearer, wait for that token and empty the bucket
    again, so that a request sent next is refused however slowly it gets there within the margin."""
    import time

    for _ in range(limit):
        reply = server.request("GET", target, headers=headers())
        if reply.status != 429:
            continue
        wait = int(reply.headers.get("retry-after", "0"))
        if wait >= margin:
            return
        time.sleep(wait)  # the server's own word for when its next token is there; then take it
    raise AssertionError(f"{target} was never rate limited in {limit} requests")


__all__ = ["RecordingProxy", "Seen", "empty_bucket"]
