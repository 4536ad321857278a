"""Issue #19 item 5, the server's part: bounds a hostile reader meets before the server does any work.

Each attack is performed against ``combatlog serve`` on 127.0.0.1 (a subprocess, ``tests/server/live.py``);
other client addresses are other loopback addresses (127.0.0.2, ...: all of 127/8 is loopback on Linux),
so that "another reader" really is another address as the server sees it.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.server.live import LiveServer
from tests.server.players import combat_id, table


@contextmanager
def open_stream(live: LiveServer, target: str, source: str = "127.0.0.1") -> Iterator[tuple[int, bytes]]:
    """An event stream held open (status and headers read, the body not) from the address ``source``;
    yields (status, the body of a refusal)."""
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", target)
        resp = conn.getresponse()
        yield resp.status, (resp.read() if resp.status != 200 else b"")
    finally:
        conn.close()


def get(live: LiveServer, target: str, headers: dict[str, str] | None = None) -> int:
    return live.request("GET", target, None, headers).status


def test_one_anonymous_reader_cannot_hold_every_event_stream_of_a_public_combat(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """The attack: one reader opens event streams on a public combat until the server is full (100 by
    default), and every other reader gets 503. Now one address holds at most --max-streams-per-address
    (8 by default) and one combat at most --max-streams-per-combat; the others still get theirs."""
    live = start_server("--open", "--max-streams-per-combat", "10")
    alice, _ = table(tmp_path, live.url, ("alice", "bob"), create=False)
    alice("remote", "create", "duel", "--public")
    target = f"/v1/combats/{combat_id(alice)}/stream?timeout=30"
    with ExitStack() as held:
        statuses = [held.enter_context(open_stream(live, target))[0] for _ in range(8)]
        assert statuses == [200] * 8
        status, body = held.enter_context(open_stream(live, target))  # the ninth, from the same address
        assert status == 503 and b"(at most 8 per address)" in body, body
        # another reader, another address: served
        others = [held.enter_context(open_stream(live, target, f"127.0.0.{n}"))[0] for n in (2, 3)]
        assert others == [200, 200]
        # the combat is now at its cap of 10: an eleventh reader, from yet another address, waits
        status, body = held.enter_context(open_stream(live, target, "127.0.0.4"))
        assert status == 503 and b"this combat has 10 event streams open (at most 10 per combat)" in body, body
    # the streams are closed: there is room again (the server forgets a stream when its generator ends)
    import time

    deadline = time.monotonic() + 20
    while True:  # wait on the condition (the server notices the closed connections), not on a fixed sleep
        with open_stream(live, f"/v1/combats/{combat_id(alice)}/stream?timeout=1") as (status, _):
            if status == 200 or time.monotonic() > deadline:
                break
        time.sleep(0.2)
    assert status == 200


def test_x_forwarded_for_is_not_believed_unless_the_proxy_is_named(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """The attack: a client varies X-Forwarded-For on every request, and the per-address rate limit sees a
    new address each time (uvicorn believed any client on 127.0.0.1). Now the header is ignored unless
    --forwarded-allow-ips names the proxy it comes from."""
    live = start_server("--open", "--burst", "3", "--rate", "0.01")
    spoofed = [get(live, "/v1/combats", {"X-Forwarded-For": f"198.51.100.{n}"}) for n in range(1, 6)]
    assert spoofed[:3] == [200, 200, 200] and spoofed[3:] == [429, 429], spoofed
    refusal = live.request("GET", "/v1/combats", None, {"X-Forwarded-For": "198.51.100.9"})
    assert refusal.json()["message"].startswith("too many requests from address 127.0.0.1"), refusal.json()


def test_x_forwarded_for_from_a_named_proxy_names_the_client(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """Behind a proxy named with --forwarded-allow-ips the header is the client's address: two players
    behind the same proxy have a bucket each (and one of them is still limited)."""
    live = start_server("--open", "--burst", "3", "--rate", "0.01", "--forwarded-allow-ips", "127.0.0.1")
    first = [get(live, "/v1/combats", {"X-Forwarded-For": "198.51.100.1"}) for _ in range(4)]
    second = [get(live, "/v1/combats", {"X-Forwarded-For": "198.51.100.2"}) for _ in range(3)]
    assert first == [200, 200, 200, 429] and second == [200, 200, 200], (first, second)
    # a client that is not the named proxy (127.0.0.2) cannot name itself: its own address counts
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30, source_address=("127.0.0.2", 0))
    statuses = []
    for n in range(4):
        conn.request("GET", "/v1/combats", headers={"X-Forwarded-For": f"203.0.113.{n}"})
        resp = conn.getresponse()
        resp.read()
        statuses.append(resp.status)
    conn.close()
    assert statuses == [200, 200, 200, 429], statuses
