"""Busy answers (429 rate_limited, 503 busy) are retried by the client after the server's Retry-After,
signed afresh, a bounded number of times; then a clear error (docs/server.md, "The CLI as a replica";
issue #20: a 429 used to fail `sync`, and once the three-player test in test_play.py).

No timing luck: a recording proxy sits between the players and a real server with a tiny rate limit.
Just before forwarding the request a test means to see refused, it empties the rate-limit bucket that
request draws from (by sending the server requests until it answers 429), so the refusal is certain;
the test then counts what the server answered to each try, never how long anything took."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table
from tests.server.proxy import RecordingProxy, empty_bucket

# A token every 10 s: a refused request may go again after about 10 s. The bucket is emptied just before the
# request that must be refused is forwarded; with a token a second, a loaded machine once took longer than
# that between the two, and the request went through (a clean-clone run). Ten seconds is the margin.
RATE = ("--rate", "0.1", "--burst", "10")


@pytest.fixture
def limited(start_server) -> Iterator[tuple[LiveServer, RecordingProxy]]:  # type: ignore[no-untyped-def]
    # X-Forwarded-For from the proxy is believed, so a test can give a request an address of its own
    server = start_server("--open", *RATE, "--forwarded-allow-ips", "127.0.0.1")
    proxy = RecordingProxy(server)
    yield server, proxy
    proxy.stop()


def _fresh_addresses() -> Iterator[str]:
    return (f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}" for n in itertools.count(1))


def test_a_rate_limited_pull_and_push_are_retried_and_succeed(tmp_path: Path, limited) -> None:  # type: ignore[no-untyped-def]
    server, proxy = limited
    alice, bob = table(tmp_path, proxy.url, ("alice", "bob"))
    cid = combat_id(alice)
    events = f"/v1/combats/{cid}/events"
    bob("pull", "duel")
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    alice("push", "duel")

    # the address's bucket (checked first, before any work): emptied just before bob's pull reads events
    seen = len(proxy.answers("GET", events))

    def crowd_address(method: str, target: str) -> dict[str, str]:
        if method == "GET" and target.startswith(events) and len(proxy.answers("GET", events)) == seen:
            empty_bucket(server, "/v1/combats", dict)
        return {}

    proxy.before = crowd_address
    pulled = bob("pull", "duel")
    assert proxy.answers("GET", events)[seen:] == [(429, "rate_limited"), (200, "")]
    assert "pulled 1 events" in pulled.out and bob.head("duel") == 2
    assert "origin is busy (HTTP 429 rate_limited: too many requests from address" in pulled.err, pulled.err
    # the wait is the server's Retry-After: 10 s less what refilled between the emptying and the request
    assert "GET /v1/combats/" in pulled.err and re.search(r"again in ([1-9]|10) s \(try 2 of 4\)", pulled.err), pulled.err

    # bob's key's bucket (checked after the signature and its nonce): the retry must be signed afresh,
    # or the server would refuse it as replayed (401). Every request here comes from an address of its
    # own, so only the key's bucket can refuse bob's push.
    addresses = _fresh_addresses()
    bob_address = next(addresses)
    info = f"/v1/combats/{cid}"

    sent = len(proxy.answers("POST", events))

    def crowd_key(method: str, target: str) -> dict[str, str]:
        if method == "POST" and target == events and len(proxy.answers("POST", events)) == sent:
            empty_bucket(server, info, lambda: {**signed(bob.home, "bob", "GET", info),
                                                "X-Forwarded-For": next(addresses)})
        return {"X-Forwarded-For": bob_address}

    proxy.before = crowd_key
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    pushed = bob("push", "duel")
    assert proxy.answers("POST", events)[sent:] == [(429, "rate_limited"), (200, "")]
    assert "pushed 1 events" in pushed.out and server.head(cid)[0] == 3
    assert "too many requests from key ed25519:" in pushed.err, pushed.err
    assert bob.verify("duel")["head_hash"] == server.head(cid)[1]


def test_a_request_still_busy_after_every_try_fails_clearly_and_changes_nothing(tmp_path: Path, limited) -> None:  # type: ignore[no-untyped-def]
    server, proxy = limited
    alice, bob = table(tmp_path, proxy.url, ("alice", "bob"))
    cid = combat_id(alice)
    events = f"/v1/combats/{cid}/events"
    bob("pull", "duel")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")

    def crowd_every_try(method: str, target: str) -> dict[str, str]:
        # The client comes back after 1 s (below), so the refilled part of a token grows from try to try:
        # each emptying leaves the next token at least 5 s away, the margin each refusal rests on.
        if method == "POST" and target == events:
            empty_bucket(server, "/v1/combats", dict, margin=5)
        return {}

    asked: list[str] = []

    def one_second(status: int, headers: dict[str, str]) -> dict[str, str]:
        """The server's Retry-After (10 s at this rate) kept, and 1 s given to the client: every try is
        refused anyway (its bucket is emptied just before it), so bob need not sit out 30 s to show that
        he stops. test_a_rate_limited_pull_and_push... waits out the server's real Retry-After."""
        if status == 429:
            asked.append(headers["retry-after"])
            return {**headers, "retry-after": "1"}
        return headers

    proxy.before, proxy.after = crowd_every_try, one_second
    refused = bob("push", "duel", ok=False)
    assert refused.code != 0
    assert proxy.answers("POST", events) == [(429, "rate_limited")] * 4  # BUSY_TRIES, then it stops
    # the server's waits (1 / --rate at most; less as the second between tries refills a tenth of a token):
    # each longer than the one the client was given, so every try was early and had to be refused
    assert len(asked) == 4 and all(1 < int(a) <= 10 for a in asked), asked
    assert refused.err.count("again in 1 s") == 3, refused.err  # the client obeyed what it was told
    assert "origin was still busy after 4 tries of POST /v1/combats/" in refused.err, refused.err
    assert "rate_limited: too many requests" in refused.err and "try again later" in refused.err
    assert server.head(cid)[0] == 1 and bob.head("duel") == 2  # nothing appended; bob's join kept here
    # the same push from an address whose bucket nobody emptied (as the server sees it: --forwarded-allow-ips)
    proxy.before, proxy.after = (lambda method, target: {"X-Forwarded-For": "10.0.0.1"}), (lambda status, headers: headers)
    assert "pushed 1 events" in bob("push", "duel").out and server.head(cid)[0] == 2


def test_a_wait_longer_than_the_client_makes_fails_at_once(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """--rate 0.02: a refused request may go again after 50 s, more than the client's 30 s cap: it says
    so at once rather than wait for a refusal it can foresee."""
    server = start_server("--open", "--rate", "0.02", "--burst", "1")
    proxy = RecordingProxy(server)
    try:
        (alice,) = table(tmp_path, proxy.url, ("alice",), create=False)
        refused = alice("push", "duel", ok=False)  # GET (the one token), then the create: 429
        assert refused.code != 0
        assert proxy.answers("POST", "/v1/combats") == [(429, "rate_limited")]  # not tried again
        assert "origin is busy and asks to retry POST /v1/combats in" in refused.err, refused.err
        assert "longer than this client waits (30 s)" in refused.err
        assert server.request("GET", "/v1/health").json()["ok"] and server.head(combat_id(alice)) == (0, "")
    finally:
        proxy.stop()


def test_a_busy_event_stream_is_opened_again_after_retry_after(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """503 busy (one event stream per address here) is retried by `follow` too. The test holds the one
    slot; once the server has refused the follower (seen by the proxy: a condition, not a delay), it
    closes its stream, which frees the slot on the server's disconnect event; the follower's retry, 5 s
    later (the server's Retry-After), gets the stream."""
    import http.client
    import subprocess

    from tests.conftest import CLI, REPO

    server = start_server("--open", "--max-streams-per-address", "1")
    proxy = RecordingProxy(server)
    held = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        alice, bob = table(tmp_path, proxy.url, ("alice", "bob"))
        cid = combat_id(alice)
        stream = f"/v1/combats/{cid}/stream"
        target = f"{stream}?timeout=60"
        held.request("GET", target, headers=signed(alice.home, "alice", "GET", target))
        opened = held.getresponse()
        assert opened.status == 200 and opened.readline().startswith(b": events of")  # the slot is taken
        proc = subprocess.Popen([*CLI, "follow", "duel", "--timeout", "2", "--as", "bob"], cwd=REPO,
                                env=bob.cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            while (503, "busy") not in proxy.answers("GET", stream):
                assert proc.poll() is None and time.monotonic() < deadline, "the follower was never refused"
                time.sleep(0.05)
            opened.close()
            held.close()  # the server frees the slot when it sees the disconnect
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0, err
        assert proxy.answers("GET", stream) == [(503, "busy"), (200, "")]
        assert "origin is busy (HTTP 503 busy: this address" in err and "again in 5 s (try 2 of 4)" in err, err
        assert bob.head("duel") == 1  # it pulled the combat and followed it
    finally:
        held.close()
        proxy.stop()
