"""A server that stops in the middle of its answer (killed, or the link broken: tests/server/test_kill.py does
it to the real server under load) must not have its half answer taken for a whole one. urllib's read of at most
n bytes returns what came before the connection closed without an error, so the client compares it with the
length the answer announced: a cut answer is ``Unavailable`` (try again), never a truncated export read as a
forged or corrupt one."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from combatlog.errors import Unavailable
from combatlog.remote.client import Client
from combatlog.remote.config import Remote


def _one_answer_server(answer: bytes) -> Iterator[str]:
    """A server on 127.0.0.1 that reads one request, writes ``answer`` and closes the connection."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    thread.join(timeout=30)
    listener.close()


@pytest.fixture
def cut_server() -> Iterator[str]:
    yield from _one_answer_server(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: 5000\r\n"
                                  b"Connection: close\r\n\r\n" + b'{"combatlog_export": 1' + b"\n")


@pytest.fixture
def whole_server() -> Iterator[str]:
    body = b'{"error": "not_found", "message": "no combat"}'
    yield from _one_answer_server(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: "
                                  + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)


def test_an_answer_cut_before_its_announced_length_is_unavailable_not_an_export(cut_server: str) -> None:
    client = Client(Remote(name="origin", url=cut_server), None, timeout=30)
    with pytest.raises(Unavailable) as info:
        client.events("c0ffee", 14)
    assert "stopped in the middle of its answer" in str(info.value) and "of the 5000 bytes announced" in str(info.value)


def test_a_whole_answer_is_read_as_before(whole_server: str) -> None:
    """The check does not refuse an answer that is whole (an error answer here, read and reported)."""
    client = Client(Remote(name="origin", url=whole_server), None, timeout=30)
    resp = client.request("GET", "/v1/combats/c0ffee/events")
    assert resp.status == 404 and resp.body.startswith(b'{"error": "not_found"')


@pytest.fixture
def cut_chunked_server() -> Iterator[str]:
    yield from _one_answer_server(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked"
                                  b"\r\nConnection: close\r\n\r\n" + b"1000\r\n" + b'{"combatlog_export": 1')


def test_a_chunked_answer_cut_off_is_unavailable_too(cut_chunked_server: str) -> None:
    client = Client(Remote(name="origin", url=cut_chunked_server), None, timeout=30)
    with pytest.raises(Unavailable, match="stopped in the middle of its answer"):
        client.events("c0ffee", 14)
