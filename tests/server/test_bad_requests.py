"""Bad requests get a 4xx with a JSON error, never a 500, and change nothing: malformed bodies and
bundles, oversized bodies (refused before they are read), unknown combats, wrong methods, garbage
headers, a bundle of another combat; a bounded fuzz over paths, headers and bodies; the rate limit."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table
from tests.server.proxy import RecordingProxy
from tests.trust.pbem import Seat


def _json_error(reply, status: int | tuple[int, ...]) -> dict:  # type: ignore[no-untyped-def,type-arg]
    statuses = status if isinstance(status, tuple) else (status,)
    assert reply.status in statuses, (reply.status, reply.body)
    body = reply.json()
    assert isinstance(body, dict) and body["error"] and body["message"]
    return body  # type: ignore[no-any-return]


def test_malformed_bodies_and_bundles(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    target = f"/v1/combats/{cid}/events"
    before = server.head(cid)
    for body in (b"", b"{", b"not json\n", b'{"format":"combatlog-export"}\n', b"\x00\xff" * 100,
                 b'[1,2,3]\n', b'{"a":1}\n{"b":2}\n'):
        for path in (target, "/v1/combats"):
            reply = server.request("POST", path, body, signed(alice.home, "alice", "POST", path, body))
            _json_error(reply, (400, 422))
    # a whole export where an incremental one is expected, and a truncated one
    alice("export", "duel", "-o", str(tmp_path / "whole.jsonl"))
    whole = (tmp_path / "whole.jsonl").read_bytes()
    reply = server.request("POST", target, whole[:-5], signed(alice.home, "alice", "POST", target, whole[:-5]))
    _json_error(reply, (400, 422))
    assert server.head(cid) == before


def test_a_bundle_of_another_combat_is_refused(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    alice("new", "other", "--ruleset", "freeform", "--player", "alice", "--player", "bob")
    alice("push", "other")
    alice("freeform", "join", "other", "Aldo", "--side", "red")
    alice("export", "other", "--since", "1", "-o", str(tmp_path / "other.jsonl"))
    body = (tmp_path / "other.jsonl").read_bytes()
    target = f"/v1/combats/{cid}/events"
    before = (server.head(cid), server.head(combat_id(alice, "other")))
    error = _json_error(server.request("POST", target, body, signed(alice.home, "alice", "POST", target, body)), 400)
    assert error["error"] == "wrong_combat" and "other" in error["message"]
    assert (server.head(cid), server.head(combat_id(alice, "other"))) == before


def test_unknown_combats_paths_and_methods(server: LiveServer) -> None:
    assert _json_error(server.request("GET", "/v1/combats/abcdef0123456789"), 404)["error"] == "unknown_combat"
    assert _json_error(server.request("GET", "/v1/combats/abcdef0123456789/events?since=0"), 404)
    assert _json_error(server.request("GET", "/v1/combats/..%2F..%2Fetc"), 404)
    assert _json_error(server.request("GET", "/nowhere"), 404)["error"] == "not_found"
    assert _json_error(server.request("DELETE", "/v1/combats"), 405)["error"] == "method_not_allowed"
    assert _json_error(server.request("PUT", "/v1/combats/abc/events", b"x"), 405)
    for since, says in (("-1", "is not a whole number from 0"), ("%C2%B2", "is not a whole number from 0"),
                        ("99999999999999999999", "is too large")):  # '²' was an internal error (int() of it)
        error = _json_error(server.request("GET", f"/v1/combats/abcdef0123456789/events?since={since}"), 400)
        assert error["error"] == "bad_since" and says in error["message"], error


def test_a_path_ending_in_a_slash_is_not_redirected_to_an_address_built_from_the_host_header(
        server: LiveServer) -> None:
    """The attack (an exploratory test): GET /c/ID/?token=SECRET with a forged Host was answered 307 to
    http://FORGED/c/ID?token=SECRET, the token carried to plain http (behind a TLS proxy) or to any host, and
    none of the page's security headers; every API path did the same."""
    headers = {"Host": "combat.example.org", "X-Forwarded-Proto": "https"}
    for path in ("/c/abcdef0123456789/?token=SECRET", "/v1/health/", "/v1/combats/", "/v1/combats/abc/events/"):
        for method in ("GET", "POST"):
            reply = server.request(method, path, b"" if method == "POST" else None, headers)
            assert reply.status in (404, 405) and "location" not in reply.headers, (path, reply.status, reply.headers)
            assert "SECRET" not in reply.body.decode(errors="replace")


def test_garbage_signature_headers(tmp_path: Path, server: LiveServer) -> None:
    alice, _ = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    target = f"/v1/combats/{cid}"
    good = signed(alice.home, "alice", "GET", target)
    cases = [
        {"X-Combatlog-Signer": "alice"},  # some headers, not all
        {**good, "X-Combatlog-Signature": "!!!"},
        {**good, "X-Combatlog-Signature": "QUJD"},  # base64, not 64 bytes
        {**good, "X-Combatlog-Time": "yesterday"},
        {**good, "X-Combatlog-Nonce": "00"},
        {**good, "X-Combatlog-Key": "rsa:1234"},
        {**good, "X-Combatlog-Signer": "al ice"},
        {**good, "X-Combatlog-Time": "9" * 40},
    ]
    for headers in cases:
        _json_error(server.request("GET", target, None, headers), (400, 401, 403))
    # a request HTTP itself cannot parse is answered by the HTTP layer (uvicorn), before the app: 400
    broken = server.request("GET", target, None, {"Content-Length": "12x"})
    assert broken.status == 400


def _answer(s: socket.socket) -> bytes:
    """A whole HTTP answer from a raw socket (headers, then Content-Length bytes)."""
    data = b""
    while b"\r\n\r\n" not in data:
        part = s.recv(65536)
        if not part:
            return data
        data += part
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        part = s.recv(65536)
        if not part:
            break
        body += part
    return head + b"\r\n\r\n" + body


def test_an_oversized_body_is_refused_before_it_is_read(server: LiveServer) -> None:
    # announce 64 MiB, send a few bytes: the answer comes without the rest, which is never sent (a
    # server that waited for it would never answer; the socket's timeout only bounds a broken run)
    with socket.create_connection(("127.0.0.1", server.port), timeout=120) as s:
        s.sendall(b"POST /v1/combats HTTP/1.1\r\nHost: x\r\nContent-Length: 67108864\r\n\r\n" + b"x" * 1000)
        answer = _answer(s)
    assert answer.startswith(b"HTTP/1.1 413") and b'"error":"too_large"' in answer


def test_a_chunked_body_over_the_limit_is_refused_while_reading(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    live = start_server("--open", "--max-body", "65536")
    chunk = b"x" * 16384
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as s:
        s.sendall(b"POST /v1/combats HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        try:
            for _ in range(8):
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            s.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server may close before the last chunk
        answer = _answer(s)
    assert answer.startswith(b"HTTP/1.1 413") and b'"error":"too_large"' in answer, answer[:300]


def test_the_rate_limit_answers_429_with_retry_after(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    live = start_server("--open", "--rate", "0.01", "--burst", "5")  # a token back per 100 s: none during the test
    statuses = [live.request("GET", "/v1/combats").status for _ in range(8)]
    assert statuses[:5] == [200] * 5 and statuses[5:] == [429] * 3
    limited = live.request("GET", "/v1/combats")
    assert limited.status == 429 and int(limited.headers["retry-after"]) >= 1
    assert limited.json()["error"] == "rate_limited"


_TEXT = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7e), max_size=40)
_PATHS = st.one_of(
    st.sampled_from(["/v1/combats", "/v1/combats/abcdef0123456789", "/v1/combats/abcdef0123456789/events",
                     "/v1/combats/abcdef0123456789/stream?timeout=1", "/v1/health", "/v1/combats?public=2"]),
    st.builds(lambda a, b: f"/v1/combats/{a}/{b}", st.from_regex(r"[A-Za-z0-9_%.-]{0,20}", fullmatch=True),
              st.from_regex(r"[A-Za-z0-9_%.=?&-]{0,20}", fullmatch=True)),
    st.builds(lambda q: f"/v1/combats/abcdef0123456789/events?{q}", st.from_regex(r"[a-z=&0-9%-]{0,30}", fullmatch=True)),
)
_HEADERS = st.dictionaries(st.sampled_from(["X-Combatlog-Signer", "X-Combatlog-Key", "X-Combatlog-Time",
                                            "X-Combatlog-Nonce", "X-Combatlog-Signature", "X-Combatlog-Token",
                                            "Content-Type"]), _TEXT, max_size=6)
_BODIES = st.one_of(st.binary(max_size=300), st.sampled_from([b"{}\n", b'{"format":"combatlog-export","version":1}\n']))


@pytest.mark.slow
def test_fuzz_never_a_500(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    live = start_server("--open", "--rate", "1000", "--burst", "1000")
    deadline = time.monotonic() + 60

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]), path=_PATHS, headers=_HEADERS,
           body=_BODIES)
    def probe(method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        if time.monotonic() > deadline:
            return
        reply = live.request(method, path, body if method != "GET" else None, headers)
        assert reply.status < 500, (method, path, headers, reply.body)
        if reply.status >= 400:
            assert reply.json()["error"]

    probe()
    assert live.request("GET", "/v1/health").status == 200
    assert b"Traceback" not in live.log_path.read_bytes()


@pytest.mark.slow
def test_fuzz_signed_mutated_bundles_are_refused_and_change_nothing(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """A pinned player's valid request signature over a damaged bundle: the server's own verification
    refuses it (4xx), whatever the damage, and the log stays as it was."""
    live = start_server("--open", "--rate", "1000", "--burst", "1000")
    alice, bob = table(tmp_path, live.url, ("alice", "bob"))
    cid = combat_id(alice)
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    alice("freeform", "join", "duel", "Ban", "--side", "blue", "--hp", "7")
    alice("export", "duel", "--since", "1", "-o", str(tmp_path / "inc.jsonl"))
    original = (tmp_path / "inc.jsonl").read_bytes()
    target = f"/v1/combats/{cid}/events"
    before = live.head(cid)
    deadline = time.monotonic() + 60

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(data=st.data())
    def probe(data: st.DataObject) -> None:
        if time.monotonic() > deadline:
            return
        body = bytearray(original)
        kind = data.draw(st.sampled_from(["flip", "cut", "drop", "swap", "insert"]))
        lines = original.split(b"\n")[:-1]
        if kind == "flip":
            i = data.draw(st.integers(0, len(body) - 1))
            body[i] ^= data.draw(st.integers(1, 255))
        elif kind == "cut":
            body = body[: data.draw(st.integers(0, len(body) - 1))]
        elif kind == "drop":
            del lines[data.draw(st.integers(0, len(lines) - 1))]
            body = bytearray(b"\n".join(lines) + b"\n")
        elif kind == "swap":
            lines[1], lines[2] = lines[2], lines[1]
            body = bytearray(b"\n".join(lines) + b"\n")
        else:
            at = data.draw(st.integers(0, len(body)))
            body[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        sent = bytes(body)
        reply = live.request("POST", target, sent, signed(alice.home, "alice", "POST", target, sent))
        if sent == original:
            return
        assert 400 <= reply.status < 500, (kind, reply.status, reply.body)
        assert reply.json()["error"]
        assert live.head(cid) == before

    probe()
    assert b"Traceback" not in live.log_path.read_bytes()


def _backlog(seat: Seat, folder: Path, lines: list[str]) -> None:
    """Moves made offline, in one process (``combatlog run``): they stay in ``seat``'s log until a push."""
    script = folder / f"{seat.name}-backlog.cmds"
    script.write_text("".join(line + "\n" for line in lines))
    seat("run", "-q", str(script))


def _parts(proxy: RecordingProxy, target: str) -> list[list[dict]]:  # type: ignore[type-arg]
    """The events of each append the server took (200), in order, as the proxy forwarded them."""
    return [[json.loads(line) for line in seen.body.splitlines()[1:]] for seen in proxy.seen
            if seen.method == "POST" and seen.target == target and seen.status == 200]


def _ends_where_a_command_ends(parts: list[list[dict]]) -> None:  # type: ignore[type-arg]
    for part, after in zip(parts, parts[1:]):
        assert part and after and part[-1]["command_id"] != after[0]["command_id"], (part[-1], after[0])


def _swings(count: int, padding: int) -> list[str]:
    """Aldo joins, a round, then ``count`` swings each rolled with its die (a command of two events), each
    swing's words ``padding`` bytes longer: a backlog of a known size."""
    return ["freeform join duel Aldo --side red --hp 12", "freeform round duel",
            *(f"freeform act duel Aldo 'swing {i} {'x' * padding}' --roll 1d20" for i in range(count))]


def _behind_a_recording_proxy(tmp_path: Path, server: Any) -> tuple[RecordingProxy, Seat, Seat, str, str]:
    """alice's and bob's table on ``server``, reached through a proxy that keeps every request: (the proxy,
    alice, bob, the combat's id, its append target). The caller stops the proxy."""
    proxy = RecordingProxy(server)
    try:
        alice, bob = table(tmp_path, proxy.url, ("alice", "bob"), dice="local")
    except BaseException:
        proxy.stop()
        raise
    cid = combat_id(alice)
    return proxy, alice, bob, cid, f"/v1/combats/{cid}/events"


def test_a_backlog_larger_than_the_servers_body_limit_is_pushed_in_parts(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """Found by an exploratory test: a backlog bigger than --max-body could never be pushed (the client relayed
    the 413). Push now sends it in parts, each a prefix ending where a command ends (an action with its roll is
    one command of two events: the server re-decides it from both), each its own signed request."""
    server = start_server("--open", "--max-body", "20000")
    proxy, alice, bob, cid, target = _behind_a_recording_proxy(tmp_path, server)
    try:
        moves = _swings(0, 0)
        for i in range(16):
            moves += [f"freeform act duel Aldo 'swing {i} {'x' * 1800}' --roll 1d20", f"note duel 'note {i} {'y' * 900}'"]
        _backlog(alice, tmp_path, moves)
        local = alice.verify("duel")
        sent = alice("export", "duel", "--since", "1", "-o", "-").out.encode()
        assert len(sent) > 5 * 20000
        pushed = alice("push", "duel")
        parts = _parts(proxy, target)
        assert len(parts) >= 6, [len(p) for p in parts]
        assert f"pushed {local['head_seq'] - 1} events to origin in {len(parts)} parts" in pushed.out, pushed.out
        assert "sending duel in smaller parts" in pushed.err
        # every part the server took was within its limit, and the 413s before them changed nothing
        assert [s.status for s in proxy.seen if s.method == "POST" and s.target == target].count(413) >= 3
        assert all(len(s.body) <= 20000 for s in proxy.seen if s.target == target and s.status == 200)
        # the parts are the backlog, in order, none cut inside a command
        assert [e["seq"] for part in parts for e in part] == list(range(2, local["head_seq"] + 1))
        _ends_where_a_command_ends(parts)
        assert any(len({e["command_id"] for e in part}) < len(part) for part in parts)  # commands of two events
        assert server.head(cid) == (local["head_seq"], local["head_hash"])
        # the server's log verifies: its own store, and a copy pulled from it (verified in full on import)
        server_log = alice("--db", server.db, "verify", cid, "--json").json()
        assert server_log["ok"] and server_log["head_hash"] == local["head_hash"]
        bob("pull", "duel")
        assert bob.verify("duel")["head_hash"] == local["head_hash"]
        again = alice("push", "duel", "--json").json()
        assert again[0]["action"] == "up_to_date" and again[0]["parts"] == 0
    finally:
        proxy.stop()


def test_a_combat_larger_than_the_servers_body_limit_is_created_with_its_beginning_then_pushed(
        tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """A combat played offline from the start: its first push creates it on the server, and the whole log is
    more than one request takes; it is created with a prefix, and the rest follows in parts."""
    server = start_server("--open", "--max-body", "20000")
    alice, bob = table(tmp_path, server.url, ("alice", "bob"), dice="local", create=False)
    _backlog(alice, tmp_path, _swings(12, 1800))
    local = alice.verify("duel")
    created = alice("push", "duel", "--json").json()[0]  # type: ignore[index]
    assert created["action"] == "created" and created["events"] == local["head_seq"], created
    assert created["parts"] >= 3 and created["too_large"] >= 1 and created["token"], created
    assert server.head(combat_id(alice)) == (local["head_seq"], local["head_hash"])
    bob("pull", "duel")
    assert bob.verify("duel")["head_hash"] == local["head_hash"]


def test_a_command_larger_than_the_servers_body_limit_stops_the_push_after_what_landed(
        tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """One command's events alone are more than the server takes: a command is never split, so the push stops
    there, naming it (its seqs); the parts before it landed and stay (each a whole prefix of the log)."""
    server = start_server("--open", "--max-body", "4096")
    alice, _bob = table(tmp_path, server.url, ("alice", "bob"), dice="local")
    cid = combat_id(alice)
    _backlog(alice, tmp_path, _swings(8, 300))
    before_big = alice.head("duel")
    _backlog(alice, tmp_path, [f"freeform act duel Aldo 'a long one {'z' * 1900}' --roll 1d20", "note duel after"])
    log = {e["seq"]: e for e in alice("log", "duel", "--json").json()}  # type: ignore[union-attr]
    big = [seq for seq in log if seq > before_big]
    assert len(big) == 3 and log[big[0]]["command_id"] == log[big[1]]["command_id"]  # the die and the action
    refused = alice("push", "duel", ok=False)
    assert refused.code != 0, refused.out
    assert f"duel: the command at #{big[0]}-#{big[1]} (alice's freeform.Act, 2 events" in refused.err, refused.err
    assert "is larger than origin takes in one request (HTTP 413 too_large" in refused.err, refused.err
    assert f"before it, {before_big - 1} events were pushed in " in refused.err, refused.err
    assert f"parts, up to #{before_big}, and stay on origin" in refused.err, refused.err
    assert "--max-body" in refused.err and "export / import" in refused.err
    # what landed is the log up to the command before the large one, as here
    assert server.head(cid) == (before_big, log[before_big]["hash"])
    assert alice.head("duel") == big[-1]  # nothing local changed
    assert alice("--db", server.db, "verify", cid, "--json").json()["ok"]
    # a second try says the same, with nothing before it to send
    again = alice("push", "duel", ok=False)
    assert "before it, nothing was pushed" in again.err and f"#{big[0]}-#{big[1]}" in again.err, again.err
    assert server.head(cid) == (before_big, log[before_big]["hash"])


def test_another_players_append_between_two_parts_is_merged_and_the_push_goes_on(
        tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """A 409 in the middle of a push in parts: bob's move lands on the server after alice's first part; her next
    part is refused (409), she pulls it (verified), her moves are placed after it (merge), and the rest goes on
    in parts."""
    server = start_server("--open", "--max-body", "20000")
    proxy, alice, bob, cid, target = _behind_a_recording_proxy(tmp_path, server)
    try:
        bob("pull", "duel")
        _backlog(alice, tmp_path, _swings(12, 1800))
        backlog = alice.head("duel") - 1
        crossed: list[tuple[int, int]] = []

        def bob_moves_between_two_parts(method: str, path: str) -> dict[str, str]:
            landed = [s for s in proxy.seen if s.method == "POST" and s.target == target and s.status == 200]
            if method == "POST" and path == target and landed and not crossed:
                crossed.append(server.head(cid))
                bob("pull", "duel")
                bob("note", "duel", "bob was here")
                bob("push", "duel")
            return {}

        proxy.before = bob_moves_between_two_parts
        pushed = alice("push", "duel", "--json")
        outcome = pushed.json()[0]  # type: ignore[index]
        assert crossed, "bob never moved between two parts"
        answers = [s.status for s in proxy.seen if s.method == "POST" and s.target == target]
        assert 409 in answers and answers[-1] == 200, answers
        assert outcome["action"] == "pushed" and outcome["pulled"] == 1 and outcome["events"] == backlog, outcome
        parts = _parts(proxy, target)
        bobs = [p for p in parts if p[0]["actor"] == "bob"]
        assert len(bobs) == 1 and outcome["parts"] == len(parts) - 1 >= 3, (outcome, [len(p) for p in parts])
        _ends_where_a_command_ends(parts)
        local = alice.verify("duel")
        assert server.head(cid) == (local["head_seq"], local["head_hash"]) and local["head_seq"] == backlog + 2
        bobs_here = [e for e in alice("log", "duel", "--json").json() if e["actor"] == "bob"]  # type: ignore[union-attr]
        assert [(e["seq"], e["type"]) for e in bobs_here] == [(crossed[0][0] + 1, "core.noted")]  # alice's after it
        assert alice("--db", server.db, "verify", cid, "--json").json()["ok"]
    finally:
        proxy.stop()


def _raw_get(port: int, target: str, pairs: list[tuple[str, str]]) -> bytes:
    """A GET with exactly these header lines (names repeated as given), and its answer."""
    head = "".join(f"{name}: {value}\r\n" for name, value in pairs)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode())
        return _answer(s)


def test_a_signature_header_or_the_token_given_twice_is_refused(tmp_path: Path, server: LiveServer) -> None:
    # two values of one signature header (or of the invite token header) could be read one way by a proxy and
    # another by the server: refused naming the header, even with the same value twice in another letter case
    alice, _bob = table(tmp_path, server.url, ("alice", "bob"))
    target = f"/v1/combats/{combat_id(alice)}"
    names = [*signed(alice.home, "alice", "GET", target), "X-Combatlog-Token"]
    for twice in names:
        headers = signed(alice.home, "alice", "GET", target)  # a fresh nonce each time
        value = headers.get(twice, "not-a-token")
        pairs = [*headers.items(), *([(twice.lower(), value)] if twice not in headers else []),
                 (twice.upper(), value)]
        answer = _raw_get(server.port, target, pairs)
        assert answer.startswith(b"HTTP/1.1 400"), (twice, answer[:300])
        assert f"the header {twice} is given twice".encode() in answer, (twice, answer[:300])
    # each once: served
    answer = _raw_get(server.port, target, list(signed(alice.home, "alice", "GET", target).items()))
    assert answer.startswith(b"HTTP/1.1 200"), answer[:300]
