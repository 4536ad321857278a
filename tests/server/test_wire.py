"""The HTTP parser under the server (server/wire.py): httptools when installed, h11 without it, and with
either a request whose head (request line and headers) never ends is refused, not kept in memory."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest

from combatlog.server.wire import MAX_HEAD, http_protocol
from tests.server.live import LiveServer
from tests.server.test_bad_requests import _answer


RESET = b"<reset>"


def _until_closed(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (the socket's timeout bounds a server
    that does not). A server that closes with bytes of ours still unread makes the kernel reset the
    connection, which may drop its answer with it: what was read, then ``RESET``."""
    data = b""
    try:
        while part := s.recv(65536):
            data += part
    except ConnectionResetError:
        return data + RESET
    return data


def _refused(answer: bytes, live: LiveServer) -> bool:
    """The head was refused at once: a 400, or the connection closed under it (the 400 lost to the reset); and
    the server still serves."""
    return (answer.startswith(b"HTTP/1.1 400") or answer.endswith(RESET)) and \
        live.request("GET", "/v1/health").status == 200


def _without_httptools(root: Path) -> dict[str, str]:
    """An environment in which ``import httptools`` fails, as where it is not installed."""
    hide = root / "hide"
    (hide / "httptools").mkdir(parents=True)
    (hide / "httptools" / "__init__.py").write_text("raise ImportError('httptools hidden by the test')\n")
    return {"PYTHONPATH": os.pathsep.join([str(hide), *sys.path])}


@pytest.fixture(params=["httptools", "h11"])
def live(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    pytest.importorskip("httptools") if request.param == "httptools" else None
    env = _without_httptools(tmp_path) if request.param == "h11" else None
    server = LiveServer(tmp_path, "--open", env=env)
    yield server
    server.stop()


def test_the_parser_is_httptools_when_installed_else_h11(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("httptools")
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    chosen = http_protocol()
    assert isinstance(chosen, type) and issubclass(chosen, HttpToolsProtocol)
    monkeypatch.setitem(sys.modules, "httptools", None)  # import httptools now raises ImportError
    assert http_protocol() == "h11"


def test_a_uvicorn_without_the_hooks_the_bound_needs_gets_h11_not_an_unbounded_httptools() -> None:
    # BoundedHead overrides and calls methods of uvicorn's private httptools protocol: a uvicorn that renamed one
    # would leave the head unbounded (or fail at the first long head), so such a protocol is not used
    pytest.importorskip("httptools")
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from combatlog.server.wire import HOOKS, bounded

    assert bounded(HttpToolsProtocol) is not None  # this uvicorn has them all
    for missing in HOOKS:
        shape = type("FutureProtocol", (), {hook: lambda self, *a: None for hook in HOOKS if hook != missing})
        assert bounded(shape) is None, missing


def test_the_server_runs_the_chosen_parser(tmp_path: Path) -> None:
    pytest.importorskip("httptools")
    from combatlog.server.app import settings
    from combatlog.server.routes import Config

    db = str(tmp_path / "s.db")
    config = settings(Config(db=db, state=db, allow_keys=None))
    config.load()
    assert config.http_protocol_class.__name__ == "BoundedHead"


def test_an_endless_head_is_refused_without_waiting_for_its_end(live: LiveServer) -> None:
    # four times the bound of one header that never ends, then nothing: the answer comes at once (a server
    # that kept reading would wait for the rest of the header; the timeout only bounds a broken run)
    with socket.create_connection(("127.0.0.1", live.port), timeout=60) as s:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * (4 * MAX_HEAD))
        answer = _until_closed(s)
    assert _refused(answer, live), answer[:200]


def test_many_headers_past_the_bound_are_refused(live: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", live.port), timeout=60) as s:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"b" * 60)
                                                                          for i in range(2 * MAX_HEAD // 64)))
        answer = _until_closed(s)
    assert _refused(answer, live), answer[:200]


def test_a_head_within_the_bound_is_served(live: LiveServer) -> None:
    reply = live.request("GET", "/v1/health", headers={"X-Padding": "p" * (MAX_HEAD - 2048)})
    assert reply.status == 200 and reply.json()["ok"] is True


def test_the_bound_is_per_request_on_a_kept_connection(live: LiveServer) -> None:
    # two requests whose heads together pass the bound, on one connection, each sent in pieces: both served;
    # then a third whose head never ends: refused
    padding = b"X-Padding: " + b"p" * (MAX_HEAD * 3 // 4) + b"\r\n"
    with socket.create_connection(("127.0.0.1", live.port), timeout=60) as s:
        for _ in range(2):
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            time.sleep(0.05)  # (the head arrives in more than one read)
            s.sendall(padding + b"\r\n")
            assert _answer(s).startswith(b"HTTP/1.1 200")
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * (4 * MAX_HEAD))
        answer = _until_closed(s)
    assert _refused(answer, live), answer[:200]


def test_the_server_runs_uvloop_when_installed(tmp_path: Path) -> None:
    # uvicorn's "auto" loop is uvloop's when uvloop imports: the server leaves the choice to it
    pytest.importorskip("uvloop")
    from combatlog.server.app import settings
    from combatlog.server.routes import Config

    db = str(tmp_path / "s.db")
    config = settings(Config(db=db, state=db, allow_keys=None))
    assert config.loop == "auto"
    if hasattr(config, "get_loop_factory"):  # uvicorn 0.36 and later
        factory = config.get_loop_factory()
        loop = factory()
        try:
            assert type(loop).__module__.startswith("uvloop")
        finally:
            loop.close()
