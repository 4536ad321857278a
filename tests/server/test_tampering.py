"""A server that cheats: a tiny Starlette app in the test serves altered, dropped, reordered, foreign
or impersonating bundles. The client's pull refuses each with an error naming what is wrong, and its
log stays as it was: the server is never trusted."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.trust.pbem import Seat, rechain, seat_keys

Serve = Callable[[Request, int], bytes]  # (request, since) -> the bundle to serve


class Cheat:
    """Serves one combat's bundles through ``serve``; the head it announces is the bundle's."""

    def __init__(self) -> None:
        self.serve: Serve = lambda request, since: b""
        self.combat: dict[str, object] = {}
        app = Starlette(routes=[Route("/v1/combats", self.list_), Route("/v1/combats/{combat}", self.info),
                                Route("/v1/combats/{combat}/events", self.events)])
        sock = socket.create_server(("127.0.0.1", 0))  # the OS picks the port: parallel workers never collide
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the cheating server did not start"
            time.sleep(0.05)

    async def list_(self, request: Request) -> Response:
        return JSONResponse([self.combat])

    async def info(self, request: Request) -> Response:
        if self.combat.get("redirect"):
            return Response(status_code=302, headers={"Location": str(self.combat["redirect"])})
        return JSONResponse(self.combat)

    async def events(self, request: Request) -> Response:
        return Response(self.serve(request, int(request.query_params.get("since", "0"))),
                        media_type="application/x-ndjson")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def cheat() -> Iterator[Cheat]:
    c = Cheat()
    yield c
    c.stop()


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def _joined(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


@pytest.fixture(scope="module")
def table_laid() -> Path:
    """alice's combat with three more events, bob holding #1, and the bundles: played by the real CLI
    once per test run, not once per module and worker (tests/played.py ``built_once``), and copied into each
    test (every test still gets its own logs and key homes)."""
    from tests.played import built_once, shared_factory

    def build(root: Path) -> None:
        alice, bob = Seat("alice", root), Seat("bob", root)
        seat_keys(root, [alice, bob], everyone_imports=True)
        alice("new", "duel", "--ruleset", "freeform", "--player", "alice", "--player", "bob")
        alice("export", "duel", "-o", str(root / "genesis.jsonl"))
        bob("import", str(root / "genesis.jsonl"))
        for who, hp in (("Aldo", "12"), ("Ban", "7"), ("Cid", "9")):
            alice("freeform", "join", "duel", who, "--side", "red", "--hp", hp)
        alice("export", "duel", "--since", "1", "-o", str(root / "since1.jsonl"))
        alice("export", "duel", "-o", str(root / "whole.jsonl"))

    return built_once(shared_factory(), "server-tampering-table", build)


@pytest.fixture
def players(tmp_path: Path, cheat: Cheat, table_laid: Path):  # type: ignore[no-untyped-def]
    """alice's combat with three more events; bob holds #1 and pulls from the cheating server."""
    shutil.copytree(table_laid, tmp_path, dirs_exist_ok=True)
    alice, bob = Seat("alice", tmp_path), Seat("bob", tmp_path)
    bob("remote", "add", "evil", cheat.url)
    real = json.loads(_lines(tmp_path / "since1.jsonl")[0])
    cheat.combat = {"id": real["stream"], "name": "duel", "head_seq": real["head_seq"], "head_hash": real["head_hash"]}
    return alice, bob


def _refused(bob: Seat, *needles: str) -> str:
    before = bob.verify("duel")
    pulled = bob("pull", "duel", ok=False)
    assert pulled.code != 0, pulled.out
    for needle in needles:
        assert needle in pulled.err, pulled.err
    assert bob.verify("duel") == before  # nothing was imported
    return pulled.err


def test_an_honest_answer_is_imported(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    _, bob = players
    cheat.serve = lambda request, since: (tmp_path / "since1.jsonl").read_bytes()
    assert "pulled 3 events" in bob("pull", "duel").out


def test_an_altered_event_is_refused(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    _, bob = players
    lines = _lines(tmp_path / "since1.jsonl")
    lines[2] = lines[2].replace(b'"hp":7', b'"hp":70')
    cheat.serve = lambda request, since: _joined(lines)
    _refused(bob, "evil: duel after #1:3", "hash")


def test_an_altered_event_rechained_is_refused_by_its_signature(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    _, bob = players
    lines = rechain(_lines(tmp_path / "whole.jsonl"), 3, lambda data: data.update(hp=70))
    import msgspec

    from combatlog.events.canonical import canonical
    from combatlog.exchange.bundle import Header, _header_check

    header = msgspec.json.decode(lines[0], type=Header)  # cut to an incremental bundle after #1
    base = json.loads(lines[1])["hash"]
    header = msgspec.structs.replace(header, since=1, base_hash=base, count=header.count - 1)
    header = msgspec.structs.replace(header, check=_header_check(header))
    cheat.serve = lambda request, since: _joined([canonical(header), *lines[2:]])
    _refused(bob, "signature")


def test_a_dropped_event_is_refused(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    _, bob = players
    lines = _lines(tmp_path / "since1.jsonl")
    cheat.serve = lambda request, since: _joined(lines[:2] + lines[3:])
    _refused(bob, "announces 3 events", "holds 2")


def test_reordered_events_are_refused(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    _, bob = players
    lines = _lines(tmp_path / "since1.jsonl")
    cheat.serve = lambda request, since: _joined([lines[0], lines[2], lines[1], lines[3]])
    _refused(bob, "evil: duel after #1:2")


def test_another_combat_or_another_range_is_refused(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    alice, bob = players
    alice("new", "other", "--ruleset", "freeform", "--player", "alice", "--player", "bob")
    alice("export", "other", "-o", str(tmp_path / "other.jsonl"))
    cheat.serve = lambda request, since: (tmp_path / "other.jsonl").read_bytes()
    _refused(bob, "the server sent combat", "(other) when")
    cheat.serve = lambda request, since: (tmp_path / "whole.jsonl").read_bytes()
    _refused(bob, "the server sent the events after #0 when those after #1 were asked for")


def test_a_new_combat_pinning_another_key_for_a_known_player_is_refused(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    """The server (or whoever made it) offers bob a combat whose genesis pins a key of its own under
    alice's name: bob's key home knows alice's real key, so the pull refuses it (impersonation)."""
    _, bob = players
    mallory = Seat("mallory", tmp_path)
    mallory("keys", "new", "alice")  # a key named alice, that is not alice's
    mallory("keys", "import", str(tmp_path / "bob.pub"))
    mallory("new", "ambush", "--ruleset", "freeform", "--player", "alice", "--player", "bob", "--as", "alice")
    mallory("export", "ambush", "-o", str(tmp_path / "ambush.jsonl"), "--as", "alice")
    header = json.loads(_lines(tmp_path / "ambush.jsonl")[0])
    cheat.combat = {"id": header["stream"], "name": "ambush", "head_seq": header["head_seq"],
                    "head_hash": header["head_hash"]}
    cheat.serve = lambda request, since: (tmp_path / "ambush.jsonl").read_bytes()
    pulled = bob("pull", "ambush", ok=False)
    assert pulled.code == 4 and "alice" in pulled.err and "pins" in pulled.err, pulled.err
    assert [r["name"] for r in bob("list", "--json").json()] == ["duel"]  # type: ignore[union-attr,index]


def test_a_redirect_is_not_followed(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    """A signed request (or a token) is never carried to wherever a server points."""
    _, bob = players
    cheat.combat = {**cheat.combat, "redirect": "http://127.0.0.1:9/steal"}
    _refused(bob, "evil refused reading combat", "HTTP 302")


def test_push_behind_a_cheating_server_exits_non_zero_and_changes_nothing(tmp_path: Path, cheat: Cheat, players) -> None:  # type: ignore[no-untyped-def]
    """push when the server is ahead pulls first (docs/server.md); what it pulls is verified as pull does,
    so an altered event stops the push with the reason, not a quiet exit 0 (issue #20)."""
    _, bob = players
    lines = _lines(tmp_path / "since1.jsonl")
    lines[2] = lines[2].replace(b'"hp":7', b'"hp":70')
    cheat.serve = lambda request, since: _joined(lines)
    before = bob.verify("duel")
    pushed = bob("push", "duel", ok=False)
    assert pushed.code != 0 and "hash" in pushed.err, pushed.err
    assert bob.verify("duel") == before
