"""A real server for the tests: ``python -m combatlog serve`` in a subprocess on a free loopback port,
and plain HTTP against it (http.client, so that the tests send exactly the bytes they mean)."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import REPO


def free_port() -> int:
    """A port free a moment ago (another process may take it before it is used): servers the tests
    start take ``--port 0`` or a socket bound here instead."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


# Servers under test are never the thing being rate-limited unless a test says so: a whole table of
# players on one loopback address must not meet a 429 because the machine happened to be fast.
NO_LIMITS = ("--rate", "100000", "--burst", "100000")
LISTENING = re.compile(rb"on http://127\.0\.0\.1:(\d+)/v1/")


class LiveServer:
    """``combatlog serve`` on 127.0.0.1, on a port the OS picks (``--port 0``, read back from the line the
    server prints) unless ``port`` is given: parallel test workers never race for a port."""

    def __init__(self, root: Path, *args: str, db: str | None = None, port: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.root = root
        self.db = db or str(root / "server.db")
        env = {**os.environ, "COMBATLOG_HOME": str(root / "server-home"), **(env or {})}
        env.pop("COMBATLOG_DB", None)
        limits = () if {"--rate", "--burst"} & set(args) else NO_LIMITS
        self.log_path = log_path = Path(tempfile.mkstemp(prefix="server-", suffix=".log", dir=root)[1])
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "combatlog", "serve", "--db", self.db, "--port",
                                      str(port or 0), *limits, *args], cwd=root, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        self.port = 0
        while True:  # wait for the announced port, then for the health check
            if not self.port:
                found = LISTENING.search(log_path.read_bytes())
                self.port = int(found.group(1)) if found else 0
                self.url = f"http://127.0.0.1:{self.port}"
            try:
                if self.port and self.request("GET", "/v1/health").status == 200:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start: {log_path.read_text()}")
            time.sleep(0.05)

    def request(self, method: str, target: str, body: bytes | None = None, headers: dict[str, str] | None = None,
                timeout: float = 30) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, target, body=body, headers=headers or {})
            resp = conn.getresponse()
            return Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
        finally:
            conn.close()

    def head(self, combat_id: str, token: str = "") -> tuple[int, str]:
        """The server's head as the store says it (read from its database, not through the API)."""
        import sqlite3

        conn = sqlite3.connect(self.db)
        try:
            row = conn.execute("SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1",
                               (combat_id,)).fetchone()
        finally:
            conn.close()
        return (row[0], row[1]) if row else (0, "")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class OpenStream:
    """An event stream read as it arrives, so that a test waits on what the server sent (the opening
    comment, an event) rather than on a guess of how long that takes."""

    def __init__(self, port: int, target: str, headers: dict[str, str] | None = None, timeout: float = 120) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.request("GET", target, headers=headers or {})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.text = ""

    def read_message(self, start: str) -> str:
        """Everything received so far, once it holds a whole message (up to its blank line) beginning
        with ``start``; the connection's timeout bounds the wait."""
        while not any(m.startswith(start) for m in self.text.split("\n\n")[:-1]):
            line = self.resp.readline()
            if not line:
                raise AssertionError(f"the stream ended without a message {start!r}: {self.text!r}")
            self.text += line.decode()
        return self.text

    def close(self) -> None:
        self.conn.close()


def signed(home: Path, name: str, method: str, target: str, body: bytes = b"", *, at: int | None = None,
           nonce: str | None = None, as_name: str | None = None) -> dict[str, str]:
    """Signature headers made with ``name``'s secret key from the key home ``home`` (``as_name``: the
    signer the headers claim, for forgeries)."""
    import secrets

    from combatlog.remote import protocol as p
    from combatlog.trust.keys import KeySigner
    from tests.trust.pbem import key_home

    with key_home(home):
        key = KeySigner(name)
    claimed = as_name or name
    stamp, nonce = str(int(time.time()) if at is None else at), nonce or secrets.token_hex(32)
    message = p.request_message(method, target, stamp, nonce, claimed, key.fingerprint, body)
    return {p.H_SIGNER: claimed, p.H_KEY: key.fingerprint, p.H_TIME: stamp, p.H_NONCE: nonce,
            p.H_SIGNATURE: key.sign(message)}


__all__ = ["REPO", "LiveServer", "OpenStream", "Reply", "free_port", "signed"]
