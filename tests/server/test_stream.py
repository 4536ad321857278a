"""The event stream: server-sent events of new events, each its canonical envelope, for a bounded time."""

from __future__ import annotations

import time
from pathlib import Path

from tests.server.live import LiveServer, OpenStream, signed
from tests.server.players import combat_id, table


def _events(text: str) -> list[dict[str, str]]:
    out = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if fields:
            out.append(fields)
    return out


def test_the_stream_sends_each_new_event_then_ends(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    bob("pull", "duel")
    # from the start: what is there already comes at once
    target = f"/v1/combats/{cid}/stream?since=0&timeout=1"
    started = time.monotonic()
    reply = server.request("GET", target, None, signed(bob.home, "bob", "GET", target))
    assert reply.status == 200 and reply.headers["content-type"].startswith("text/event-stream")
    assert 0.9 < time.monotonic() - started < 60  # it waited out its second, and then it ended
    events = _events(reply.body.decode())
    assert [e.get("id") for e in events] == ["1", None] and events[-1] == {"event": "end", "data": '{"head_seq": 1}'}
    # live: bob listens from #1 (read as it arrives: the test waits for what the server sends, not for a
    # guessed time); alice appends and pushes; the event arrives as its canonical envelope
    target = f"/v1/combats/{cid}/stream?since=1&timeout=120"
    listening = OpenStream(server.port, target, signed(bob.home, "bob", "GET", target))
    try:
        assert listening.status == 200
        listening.read_message(":")  # the opening comment: the stream is open before alice appends
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("push", "duel")
        events = _events(listening.read_message("id: 2\n"))
    finally:
        listening.close()
    assert [e.get("id") for e in events] == ["2"], events
    alice("export", "duel", "--since", "1", "-o", str(tmp_path / "two.jsonl"))
    line = (tmp_path / "two.jsonl").read_text().splitlines()[1]
    assert events[0]["event"] == "event" and events[0]["data"] == line
    # the stream is read like any other: not without the token or a player's signature
    refused = server.request("GET", f"/v1/combats/{cid}/stream?timeout=1")
    assert refused.status == 401 and refused.json()["error"] == "unauthenticated"


def test_event_streams_are_bounded_in_number(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    live = start_server("--open", "--max-streams", "1")
    alice, _ = table(tmp_path, live.url, ("alice", "bob"))
    cid = combat_id(alice)
    target = f"/v1/combats/{cid}/stream?timeout=60"
    holder = OpenStream(live.port, target, signed(alice.home, "alice", "GET", target))
    try:
        assert holder.status == 200
        holder.read_message(":")  # the first stream is open (waited for, not guessed): the second is refused
        busy = live.request("GET", target, None, signed(alice.home, "alice", "GET", target))
        assert busy.status == 503 and busy.json()["error"] == "busy" and busy.headers["retry-after"]
    finally:
        holder.close()
    # the first has ended (its client left): there is room again, as soon as the server has noticed
    short = f"/v1/combats/{cid}/stream?timeout=1"
    deadline = time.monotonic() + 90  # past the first one's own end at the latest
    while (status := live.request("GET", short, None, signed(alice.home, "alice", "GET", short)).status) == 503:
        assert time.monotonic() < deadline, "the slot of a closed stream was never given back"
        time.sleep(0.1)
    assert status == 200
