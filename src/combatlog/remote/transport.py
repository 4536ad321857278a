"""The HTTP side of talking to a combat server: signed requests, retries when the server is busy, answers
read within bounds (``Client``, ``Response``, ``RemoteError``).

Nothing here reads or writes a log; the replica operations built on it (push, pull, sync, create) are
``combatlog.remote.client``. Requests are signed with the acting player's key when this machine holds it
(``combatlog.remote.protocol``); invite tokens come from the remote's configuration. urllib only (no
redirect followed), for start-up time.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from combatlog.errors import CombatlogError, ExitStatus, InvalidCommand, Unavailable, VerificationFailed
from combatlog.remote import protocol as p
from combatlog.remote.config import Remote

TIMEOUT_S = 60.0
MAX_RESPONSE = 1 << 30  # as a combat file (exchange.bundle.MAX_FILE_BYTES)
BUSY = (429, 503)  # answers that mean "not now": rate limited, or no room for an event stream
BUSY_TRIES = 4  # a request answered busy is sent at most this many times in all
MAX_WAIT_S = 30  # the longest this client waits before trying again


class RemoteError(CombatlogError):
    """The server refused a request (its status and its JSON error, shown as untrusted text)."""

    code = "remote"
    exit_status = ExitStatus.FAILURE

    def __init__(self, message: str, *, status: int = 0, body: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.body = status, body or {}


class RemoteConflict(CombatlogError):
    """Our events and the server's differ after the last seq both hold: the server kept the others'."""

    code = "diverged"
    exit_status = ExitStatus.DIVERGED


@dataclass
class Response:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        from combatlog.events.canonical import depth_problem

        if depth_problem(self.body):  # the server is not trusted: no parser recurses into its answer
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class Client:
    def __init__(self, remote: Remote, actor: str | None, timeout: float = TIMEOUT_S) -> None:
        self.remote, self.timeout = remote, timeout
        self.base_path = urlsplit(remote.url).path.rstrip("/")
        self.signer: Any = None
        self.actor = actor or ""
        self.warnings: list[str] = []  # for people: keys pinned for us that we do not hold, and the like
        self.merges: list[Any] = []  # MergeReports: the server's branch kept, our decisions re-applied after it
        if actor:
            from combatlog.trust.keys import has_secret

            if has_secret(actor):
                from combatlog.trust.keys import KeySigner

                self.signer = KeySigner(actor)

    # -- HTTP -------------------------------------------------------------------------------------------

    def request(self, method: str, path: str, *, query: dict[str, str] | None = None, body: bytes = b"",
                token: str = "") -> Response:
        """One API request; a busy answer (429, 503) is sent again after the server's Retry-After, signed
        afresh each time (a nonce is never reused), a bounded number of times (``busy_wait``). Retrying
        is safe: the server answers 429/503 before doing any work for the request."""
        target = self.base_path + path + ("?" + urlencode(query) if query else "")
        for attempt in range(1, BUSY_TRIES + 1):
            resp = self._send(method, target, body, token)
            if resp.status not in BUSY:
                return resp
            self.pause(self.busy_wait(resp, attempt, f"{method} {path}"))
        raise AssertionError("unreachable: busy_wait raises on the last try")

    def _send(self, method: str, target: str, body: bytes, token: str) -> Response:
        import http.client
        import urllib.error
        import urllib.request

        headers = {"Accept": "application/json", "User-Agent": "combatlog"}
        if body:
            headers["Content-Type"] = "application/x-ndjson"
        if token:
            headers[p.H_TOKEN] = token
        if self.signer is not None:
            headers.update(self.sign_headers(method, target, body))
        req = urllib.request.Request(self.origin + target, data=body if method == "POST" else None, method=method,
                                     headers=headers)
        try:
            with _opener().open(req, timeout=self.timeout) as resp:
                return Response(resp.status, _read(resp), dict(resp.headers))
        except urllib.error.HTTPError as exc:
            return Response(exc.code, _read(exc), dict(exc.headers or {}))
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise Unavailable(f"cannot reach remote {self.remote.name} at {self.remote.url}: {reason}") from None
        except (_CutOff, http.client.HTTPException) as exc:  # (a chunked answer cut off: IncompleteRead)
            raise Unavailable(f"remote {self.remote.name} at {self.remote.url} stopped in the middle of its answer "
                              f"({exc}): try again") from None

    @property
    def origin(self) -> str:
        """The remote's scheme and host (its URL without the path): a target is appended to it."""
        return self.remote.url[: len(self.remote.url) - len(urlsplit(self.remote.url).path)]

    def busy_wait(self, resp: Response, attempt: int, what: str) -> float:
        """The seconds to wait before try ``attempt + 1`` of a request the server answered busy (429 or
        503): its Retry-After, else a doubling back-off. Raises when the tries are spent, or when the
        server asks for a longer wait than this client makes (it would fail again sooner than that)."""
        asked = retry_after(resp.headers)
        answer = self._answer(resp)
        if asked is not None and asked > MAX_WAIT_S:
            raise RemoteError(f"{self.remote.name} is busy and asks to retry {what} in {asked} s, longer than this "
                              f"client waits ({MAX_WAIT_S} s): {answer}; try again later", status=resp.status,
                              body=_body(resp))
        if attempt >= BUSY_TRIES:
            raise RemoteError(f"{self.remote.name} was still busy after {BUSY_TRIES} tries of {what}: {answer}; "
                              "try again later", status=resp.status, body=_body(resp))
        wait = float(asked) if asked is not None else min(float(MAX_WAIT_S), 2.0 ** (attempt - 1))
        self.note(f"{self.remote.name} is busy ({answer}): {what} again in {wait:g} s (try {attempt + 1} of "
                  f"{BUSY_TRIES})")
        return wait

    def pause(self, seconds: float) -> None:
        time.sleep(seconds)

    def note(self, text: str) -> None:
        """Progress for people, on standard error (standard output is the command's, JSON included)."""
        import sys

        from combatlog.text import printable

        sys.stderr.write(printable(text) + "\n")

    def sign_headers(self, method: str, target: str, body: bytes, *, at: int | None = None) -> dict[str, str]:
        stamp, nonce = str(int(time.time()) if at is None else at), secrets.token_hex(32)
        message = p.request_message(method, target, stamp, nonce, self.signer.name, self.signer.fingerprint, body)
        return {p.H_SIGNER: self.signer.name, p.H_KEY: self.signer.fingerprint, p.H_TIME: stamp, p.H_NONCE: nonce,
                p.H_SIGNATURE: self.signer.sign(message)}

    def plays(self, info: dict[str, Any] | None) -> bool:
        """Whether this client signs as one of the players the server's summary lists."""
        players = (info or {}).get("players")
        return self.signer is not None and isinstance(players, list) and any(
            isinstance(p, dict) and p.get("name") == self.signer.name and p.get("fingerprint") == self.signer.fingerprint
            for p in players)

    def require_signer(self, what: str) -> None:
        """Writes are signed: say so here rather than let the server answer 401."""
        if self.signer is None:
            from combatlog.trust.keys import key_home

            raise InvalidCommand(f"{what} is signed with your key: no secret key for {self.actor or 'you'!r} in "
                                 f"{key_home()} (run with --as PLAYER, a player of the combat whose key is here)")

    def _answer(self, resp: Response) -> str:
        """The server's answer for people: status, error code and message (untrusted text, made printable)."""
        from combatlog.text import printable

        body = _body(resp)
        code = printable(str(body.get("error") or ""))[:64]
        message = printable(str(body.get("message") or resp.body[:200].decode("utf-8", "replace")))[:500]
        return f"HTTP {resp.status}" + (f" {code}" if code else "") + (f": {message}" if message else "")

    def _refused(self, resp: Response, what: str, after: str = "") -> RemoteError:
        from combatlog.text import printable

        body = _body(resp)
        message = printable(str(body.get("message") or resp.body[:200].decode("utf-8", "replace")))[:500]
        return RemoteError(f"{self.remote.name} refused {what} (HTTP {resp.status}): {message}{after}",
                           status=resp.status, body=body)

    # -- the API ------------------------------------------------------------------------------------------

    def info(self, combat_id: str) -> dict[str, Any] | None:
        resp = self.request("GET", f"/v1/combats/{combat_id}", token=self.remote.token_for(combat_id))
        if resp.status == 404:
            return None
        if resp.status != 200 or not isinstance(resp.json(), dict):
            raise self._refused(resp, f"reading combat {combat_id}")
        info = resp.json()
        head, digest = info.get("head_seq"), info.get("head_hash")
        if not isinstance(head, int) or isinstance(head, bool) or head < 0 or not isinstance(digest, str):
            raise VerificationFailed(f"{self.remote.name} answered about {combat_id} without a head")
        return info  # type: ignore[no-any-return]

    def combats(self) -> list[dict[str, Any]]:
        resp = self.request("GET", "/v1/combats", token=self.remote.token)
        body = resp.json()
        if resp.status != 200 or not isinstance(body, list):
            raise self._refused(resp, "the list of combats")
        return [c for c in body if isinstance(c, dict) and isinstance(c.get("id"), str)]

    def events(self, combat_id: str, since: int) -> bytes:
        resp = self.request("GET", f"/v1/combats/{combat_id}/events", query={"since": str(since)},
                            token=self.remote.token_for(combat_id))
        if resp.status != 200:
            raise self._refused(resp, f"the events of {combat_id} after #{since}")
        return resp.body

    def append(self, combat_id: str, bundle: bytes) -> Response:
        return self.request("POST", f"/v1/combats/{combat_id}/events", body=bundle)

    def create(self, bundle: bytes, public: bool) -> Response:
        return self.request("POST", "/v1/combats", query={"public": "1"} if public else None, body=bundle)


def _body(resp: Response) -> dict[str, Any]:
    body = resp.json()
    return body if isinstance(body, dict) else {}


def retry_after(headers: dict[str, str]) -> int | None:
    """The Retry-After header in whole seconds (the form this server sends); None when absent or another
    form (an HTTP date): the caller then backs off on its own."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 9 else None


def _opener() -> Any:
    """urllib without redirects: a server that answers 3xx is refused, not followed (a redirect could
    send a signed request or a token elsewhere, or to another scheme)."""
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
            return None  # urllib then raises HTTPError with the 3xx status

    return urllib.request.build_opener(NoRedirect)


class _CutOff(Exception):
    """The answer ended before the length its headers announced (the server stopped, or the link broke)."""


def _read(resp: Any) -> bytes:
    data: bytes = resp.read(MAX_RESPONSE + 1)
    if len(data) > MAX_RESPONSE:
        raise VerificationFailed(f"the server's answer is more than {MAX_RESPONSE} bytes")
    # A read of at most n bytes returns what came before the connection closed, without an error: a server
    # killed while answering would hand its half answer on as if whole (a truncated export, refused as not one).
    announced = (resp.headers.get("Content-Length") or "").strip() if resp.headers is not None else ""
    if announced.isascii() and announced.isdigit() and int(announced) != len(data):
        raise _CutOff(f"{len(data)} of the {int(announced)} bytes announced")
    return data
