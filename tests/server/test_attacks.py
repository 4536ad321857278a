"""Hostile clients: every refusal of the auth scheme performed as an attack on a live server.

Each attack is answered 401 or 403 with a JSON error, and changes nothing on the server.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table
from tests.trust.pbem import Seat


def _hosted_built(folder: Path) -> None:
    """What ``hosted`` starts from, made by the real CLI against a real server (stopped once done)."""
    live = LiveServer(folder, "--open")
    try:
        alice, bob = table(folder, live.url, ("alice", "bob"))
        bob("pull", "duel")
        bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
        bob("export", "duel", "--since", "1", "-o", str(folder / "bob.jsonl"))
        Seat("mallory", folder)("keys", "new", "mallory")
        (folder / "cid").write_text(combat_id(alice))
    finally:
        live.stop()


@pytest.fixture
def hosted_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own for each test, on its own copy of the server database ``_hosted_built`` left (with the
    seats' logs and key homes): built once per test run (tests/played.py ``built_once``) instead of eight CLI
    calls per test, and every test still attacks a server no other test touched."""
    import json
    import shutil

    from tests.played import built_once, shared_factory

    made = built_once(shared_factory(), "server-attacks-hosted", _hosted_built)
    shutil.copytree(made, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("server-*.log"))
    live = LiveServer(tmp_path, "--open")
    for name in ("alice", "bob"):  # the seats' remote is this server now, not the stopped one
        remotes = tmp_path / name / "keys" / "remotes.json"
        config = json.loads(remotes.read_text())
        config["remotes"]["origin"]["url"] = live.url
        remotes.write_text(json.dumps(config))
    yield live
    live.stop()


@pytest.fixture
def hosted(tmp_path: Path, hosted_server: LiveServer):  # type: ignore[no-untyped-def]
    """alice and bob at ``hosted_server`` (alice created duel there), bob holds one new event to push,
    and mallory, who has a key of her own but is pinned nowhere."""
    alice, bob, mallory = (Seat(name, tmp_path) for name in ("alice", "bob", "mallory"))
    cid = (tmp_path / "cid").read_text()
    return alice, bob, mallory, cid, f"/v1/combats/{cid}/events", (tmp_path / "bob.jsonl").read_bytes()


def _refused(server: LiveServer, cid: str, method: str, target: str, body: bytes | None, headers: dict[str, str],
             status: int, error: str) -> str:
    before = server.head(cid)
    reply = server.request(method, target, body, headers)
    assert reply.status == status, reply.body
    assert reply.json()["error"] == error, reply.json()
    assert server.head(cid) == before  # nothing changed
    return str(reply.json()["message"])


def test_unsigned_append_is_refused(hosted_server: LiveServer, hosted) -> None:  # type: ignore[no-untyped-def]
    _, _, _, cid, target, body = hosted
    message = _refused(hosted_server, cid, "POST", target, body, {}, 401, "unauthenticated")
    assert "must be signed" in message


def test_a_signature_with_another_key_is_refused(hosted_server: LiveServer, hosted) -> None:  # type: ignore[no-untyped-def]
    _, bob, mallory, cid, target, body = hosted
    # mallory signs with her key, claiming to be bob: under her own fingerprint...
    forged = signed(mallory.home, "mallory", "POST", target, body, as_name="bob")
    _refused(hosted_server, cid, "POST", target, body, forged, 403, "wrong_key")
    # ...and under bob's fingerprint, so only the signature itself can tell
    bobs = signed(bob.home, "bob", "POST", target, body)
    forged["X-Combatlog-Key"] = bobs["X-Combatlog-Key"]
    _refused(hosted_server, cid, "POST", target, body, forged, 401, "bad_signature")


def test_a_body_altered_after_signing_is_refused(hosted_server: LiveServer, hosted) -> None:  # type: ignore[no-untyped-def]
    _, bob, _, cid, target, body = hosted
    headers = signed(bob.home, "bob", "POST", target, body)
    altered = body.replace(b'"hp":10', b'"hp":99')
    assert altered != body
    _refused(hosted_server, cid, "POST", target, altered, headers, 401, "bad_signature")
    # the signature covers the path too: the same request sent to another path is refused
    other = target.replace("/events", "/events?x=1")
    _refused(hosted_server, cid, "POST", other, body, headers, 401, "bad_signature")


def test_a_replayed_request_is_refused(hosted_server: LiveServer, hosted) -> None:  # type: ignore[no-untyped-def]
    _, bob, _, cid, target, body = hosted
    headers = signed(bob.home, "bob", "POST", target, body)
    assert hosted_server.request("POST", target, body, headers).status == 200
    message = _refused(hosted_server, cid, "POST", target, body, headers, 401, "replayed")
    assert "nonce was used already" in message
    # a replayed read is refused too (the nonce is spent whatever the request was)
    info = f"/v1/combats/{cid}"
    read = signed(bob.home, "bob", "GET", info)
    assert hosted_server.request("GET", info, None, read).status == 200
    _refused(hosted_server, cid, "GET", info, None, read, 401, "replayed")


def test_an_expired_or_future_timestamp_is_refused(hosted_server: LiveServer, hosted) -> None:  # type: ignore[no-untyped-def]
    _, bob, _, cid, target, body = hosted
    old = signed(bob.home, "bob", "POST", target, body, at=int(time.time()) - 3600)
    assert "behind the server's clock" in _refused(hosted_server, cid, "POST", target, body, old, 401, "expired")
    future = signed(bob.home, "bob", "POST", target, body, at=int(time.time()) + 3600)
    assert "ahead of" in _refused(hosted_server, cid, "POST", target, body, future, 401, "expired")


def test_a_key_not_pinned_in_the_combat_cannot_append(hosted_server: LiveServer, hosted) -> None:  # type: ignore[no-untyped-def]
    _, _, mallory, cid, target, body = hosted
    headers = signed(mallory.home, "mallory", "POST", target, body)
    message = _refused(hosted_server, cid, "POST", target, body, headers, 403, "not_a_player")
    assert "alice, bob" in message


def test_a_pinned_player_cannot_append_events_that_do_not_verify(hosted_server: LiveServer, hosted, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The request signer is checked, and still every event by its own actor's signature."""
    alice, bob, _, cid, target, body = hosted
    # alice relays bob's events: allowed (they are signed by bob)
    # but an event of bob's altered by alice does not verify, whoever signs the request
    lines = body.split(b"\n")
    import json

    event = json.loads(lines[1])
    event["recorded_at"] = "2020-01-01T00:00:00Z"
    lines[1] = json.dumps(event, separators=(",", ":"), sort_keys=True).encode()
    forged = b"\n".join(lines)
    headers = signed(alice.home, "alice", "POST", target, forged)
    _refused(hosted_server, cid, "POST", target, forged, headers, 422, "verify_failed")
    relayed = signed(alice.home, "alice", "POST", target, body)
    assert hosted_server.request("POST", target, body, relayed).status == 200


def test_create_is_refused_to_keys_not_allowed_and_to_others_than_the_creator(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    alice, bob = table(tmp_path, "http://127.0.0.1:1", ("alice", "bob"), create=False)
    allow = tmp_path / "allowed.keys"
    allow.write_text("# who may create combats here\n" + (tmp_path / "alice.pub").read_text())
    live = start_server("--allow-keys", str(allow))
    bob("new", "bobs", "--ruleset", "freeform", "--player", "alice", "--player", "bob")
    for seat, stream in ((alice, "duel"), (bob, "bobs")):
        seat("export", stream, "-o", str(tmp_path / f"{stream}.jsonl"))
    bobs = (tmp_path / "bobs.jsonl").read_bytes()
    duel = (tmp_path / "duel.jsonl").read_bytes()
    refused = live.request("POST", "/v1/combats", bobs, signed(bob.home, "bob", "POST", "/v1/combats", bobs))
    assert refused.status == 403 and refused.json()["error"] == "not_allowed"
    # bob posts alice's combat (which alice may create): only its creator may
    refused = live.request("POST", "/v1/combats", duel, signed(bob.home, "bob", "POST", "/v1/combats", duel))
    assert refused.status == 403 and refused.json()["error"] == "not_the_creator"
    unsigned = live.request("POST", "/v1/combats", duel)
    assert unsigned.status == 401 and unsigned.json()["error"] == "unauthenticated"
    assert live.request("GET", "/v1/combats", None, signed(bob.home, "bob", "GET", "/v1/combats")).json() == []
    created = live.request("POST", "/v1/combats", duel, signed(alice.home, "alice", "POST", "/v1/combats", duel))
    assert created.status == 201 and len(created.json()["token"]) >= 32
    again = live.request("POST", "/v1/combats", duel, signed(alice.home, "alice", "POST", "/v1/combats", duel))
    assert again.status == 409 and again.json()["error"] == "exists"


def test_reading_needs_the_token_a_player_signature_or_a_public_combat(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    token = alice("remote", "create", "duel", ok=False)  # it is there already: refused, nothing changed
    assert token.code != 0 and "is on this server already" in token.err
    remotes = (alice.home / "remotes.json").read_text()
    import json

    secret = json.loads(remotes)["remotes"]["origin"]["tokens"][cid]
    target = f"/v1/combats/{cid}/events?since=0"
    anonymous = server.request("GET", target)
    assert anonymous.status == 401 and "invite token" in anonymous.json()["message"]
    wrong = server.request("GET", target, None, {"X-Combatlog-Token": secret[:-1] + ("A" if secret[-1] != "A" else "B")})
    assert wrong.status == 403 and wrong.json()["error"] == "wrong_token"
    assert server.request("GET", target, None, {"X-Combatlog-Token": secret}).status == 200
    assert server.request("GET", f"{target}&token={secret}").status == 200
    # a stranger's signature does not open it; the token does, for anyone
    mallory = Seat("mallory", tmp_path)
    mallory("keys", "new", "mallory")
    refused = server.request("GET", target, None, signed(mallory.home, "mallory", "GET", target))
    assert refused.status == 403 and refused.json()["error"] == "not_a_player"
    # a spectator with the token reads through the CLI, verified, without being a player
    mallory("remote", "add", "origin", server.url, "--token", secret)
    mallory("keys", "import", str(tmp_path / "alice.pub"))
    mallory("keys", "import", str(tmp_path / "bob.pub"))
    assert "pulled 1 events" in mallory("pull", cid).out
    bob("pull", "duel")
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    bob("push", "duel")
    synced = mallory("sync")  # a spectator's sync pulls, and does not try to push
    assert synced.out.strip().splitlines() == ["duel: pulled 1 events from origin, verified (head #2, "
                                               f"{server.head(cid)[1][:16]}...)"]
    # the list shows a private combat to its players and to its token only
    assert server.request("GET", "/v1/combats").json() == []
    assert [c["id"] for c in server.request("GET", f"/v1/combats?token={secret}").json()] == [cid]
    # a public combat is read by anyone
    carol = Seat("carol", tmp_path)
    carol("keys", "new", "carol")
    carol("remote", "add", "origin", server.url)
    carol("new", "open-duel", "--ruleset", "freeform", "--player", "carol")
    assert "created" in carol("remote", "create", "open-duel", "--public").out
    listed = server.request("GET", "/v1/combats").json()
    assert [c["name"] for c in listed] == ["open-duel"] and listed[0]["public"] is True
    assert server.request("GET", f"/v1/combats/{listed[0]['id']}/events?since=0").status == 200
