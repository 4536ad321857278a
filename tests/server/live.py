"""A real server for the tests: ``python -m combatlog serve`` in a subprocess on a free loopback port,
and plain HTTP against it (http.client, so that the tests send exactly the bytes they mean)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import REPO


def free_port() -> int:
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


class LiveServer:
    def __init__(self, root: Path, *args: str, db: str | None = None, port: int | None = None) -> None:
        self.root = root
        self.db = db or str(root / "server.db")
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "COMBATLOG_HOME": str(root / "server-home")}
        env.pop("COMBATLOG_DB", None)
        self.log = open(root / f"server-{self.port}.log", "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "combatlog", "serve", "--db", self.db, "--port",
                                      str(self.port), *args], cwd=root, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.request("GET", "/v1/health").status == 200:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start: {(root / f'server-{self.port}.log').read_text()}")
            time.sleep(0.1)

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


__all__ = ["REPO", "LiveServer", "Reply", "free_port", "signed"]
