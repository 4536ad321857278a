"""Following a combat on a server as it is played: ``combatlog follow`` (docs/server.md).

The server's event stream (``GET /v1/combats/{id}/stream``) only says *that* something arrived. On each
event the follower runs the normal ``pull``: the server's events after this log's head, verified in full
and imported as ``combatlog import`` does; a server that sends anything a player's ``verify`` would refuse
stops the follower with that error. When the server ends a stream (its ``--stream-seconds``), the follower
reconnects from the last seq it was told of. Standard library only, like the rest of the client.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

from combatlog.errors import Unavailable
from combatlog.events.canonical import depth_problem
from combatlog.remote import protocol as p
from combatlog.remote.client import find, pull
from combatlog.remote.transport import BUSY, BUSY_TRIES, Client, Response, _opener
from combatlog.store.base import EventStore

MAX_LINE = 1 << 22  # one event's canonical JSON is far smaller; a longer line is refused
RETRIES = 5  # connection failures in a row before giving up
RETRY_S = 2.0
NO_DEADLINE_S = 3600.0  # the socket's read timeout when following until interrupted


class Stop:
    """Ctrl-C, remembered. Python raises KeyboardInterrupt wherever the main thread is, and one raised
    inside a finaliser (a socket or response closed by the garbage collector) is printed and dropped, so
    a follower could go on following after Ctrl-C. The flag is checked at every line the stream gives and
    before every reconnection (a server ends each stream after its --stream-seconds), so a Ctrl-C that
    was dropped there still stops the follower."""

    def __init__(self) -> None:
        self.asked = False

    def check(self) -> None:
        if self.asked:
            raise KeyboardInterrupt

    def __call__(self, signum: int, frame: Any) -> None:
        self.asked = True
        raise KeyboardInterrupt


NEVER = Stop()  # for callers that install no handler


def sse(client: Client, combat_id: str, since: int, seconds: int, read_timeout: float,
        stop: Stop = NEVER) -> Iterator[tuple[str, str, str]]:
    """``(event, id, data)`` of one connection to the stream, until the server ends it."""
    import urllib.error
    import urllib.request

    query = {"since": str(since), "timeout": str(seconds)}
    target = client.base_path + f"/v1/combats/{combat_id}/stream?" + urlencode(query)
    for attempt in range(1, BUSY_TRIES + 1):
        headers = {"Accept": "text/event-stream", "User-Agent": "combatlog", "Cache-Control": "no-store"}
        token = client.remote.token_for(combat_id)
        if token:
            headers[p.H_TOKEN] = token
        if client.signer is not None:
            headers.update(client.sign_headers("GET", target, b""))  # signed afresh on every try
        req = urllib.request.Request(client.origin + target, method="GET", headers=headers)
        try:
            resp = _opener().open(req, timeout=read_timeout)
            break
        except urllib.error.HTTPError as exc:
            answer = Response(exc.code, exc.read(1 << 16), dict(exc.headers or {}))
            if exc.code not in BUSY:
                raise client._refused(answer, f"the event stream of {combat_id}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise Unavailable(f"cannot reach remote {client.remote.name} at {client.remote.url}: "
                              f"{getattr(exc, 'reason', exc)}") from None
        client.pause(client.busy_wait(answer, attempt, f"the event stream of {combat_id}"))  # busy: no room yet
    with resp:
        fields: dict[str, str] = {}
        while True:
            try:
                raw = resp.readline(MAX_LINE + 1)
            except OSError as exc:
                raise Unavailable(f"the event stream of {client.remote.name} broke off: {exc}") from None
            stop.check()
            if not raw:
                return  # the server closed the connection
            if len(raw) > MAX_LINE:
                raise Unavailable(f"{client.remote.name} sent an event stream line of more than {MAX_LINE} bytes")
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if not line:
                if fields:
                    yield fields.get("event", "message"), fields.get("id", ""), fields.get("data", "")
                fields = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value


def follow(store: EventStore, client: Client, ref: str, seconds: float | None,
           show: Callable[[int, int], None], note: Callable[[str], None], stop: Stop = NEVER) -> Any:
    """Pull ``ref`` now and after every event the server streams, calling ``show(after, head)`` when this
    log's head moved; for ``seconds`` (None: until interrupted). Returns the last pull's outcome."""
    deadline = None if seconds is None else time.monotonic() + seconds
    meta, combat_id = find(store, client, ref)
    outcome = pull(store, client, combat_id)
    shown = store.head(combat_id).seq
    info = client.info(combat_id)  # this log may hold events the server has not yet (not pushed)
    since = min(shown, int(info["head_seq"])) if info is not None else shown
    failures = 0
    while True:
        stop.check()
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return outcome
        ask = 0 if left is None else max(1, math.ceil(left))
        try:
            for kind, ident, data in sse(client, combat_id, since, ask, NO_DEADLINE_S if left is None else left + 15,
                                         stop):
                failures = 0
                if kind == "event" and ident.isascii() and ident.isdigit():
                    if int(ident) <= since:
                        continue  # pulled already, with an earlier event of the same burst
                    outcome = pull(store, client, combat_id)
                    since = max(since, int(ident))
                    head = store.head(combat_id).seq
                    if head > shown:
                        show(shown, head)
                        shown = head
                elif kind == "end":
                    try:
                        if depth_problem(data):
                            raise ValueError("nested too deep")
                        told = json.loads(data).get("head_seq")
                    except (ValueError, AttributeError):
                        told = None
                    if isinstance(told, int) and not isinstance(told, bool) and told >= since:
                        since = told
                    break
        except Unavailable as exc:
            failures += 1
            if failures >= RETRIES:
                raise
            note(f"warning: {exc}; reconnecting in {RETRY_S:g} s")
            time.sleep(RETRY_S if deadline is None else max(0.0, min(RETRY_S, deadline - time.monotonic())))
