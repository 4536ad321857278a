"""The JSON API (docs/server.md). Each route: rate limit by address, read the body within its limit,
parse the signature headers, then do all store work (authorisation included) in one call on the
store's thread, so that a check and the append it guards cannot interleave with another request.

Every refusal is an ``ApiError`` (a JSON body ``{"error", "message", ...}``) and changes nothing.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from combatlog.errors import CombatlogError, Unavailable
from combatlog.remote.protocol import H_TOKEN
from combatlog.server import auth
from combatlog.server.errors import ApiError, from_combatlog
from combatlog.server.feed import Notifier
from combatlog.server.limits import MAX_BODY, RateLimiter, read_body
from combatlog.store.server_registry import Access, Pinned, token_digest
from combatlog.server.worker import Worker

NDJSON = "application/x-ndjson"
MAX_SINCE = 2**53
_ONCE = {name.lower(): name for name in (*auth.p.SIGNED_HEADERS, H_TOKEN)}  # refused when given twice
MAX_KNOWN = 10_000  # combats whose access rules and metadata a process keeps (the oldest dropped first)


@dataclass
class Config:
    db: str
    state: str
    allow_keys: frozenset[bytes] | None  # raw public keys that may create; None: anyone (--open)
    max_body: int = MAX_BODY
    rate: float = 10.0  # requests per second per address and per key, after the burst
    burst: int = 60
    stream_seconds: float = 60.0  # the longest an event stream stays open
    max_streams: int = 100
    max_streams_per_address: int = 8  # one reader cannot hold every slot
    max_streams_per_combat: int = 50  # nor can the readers of one combat
    forwarded_allow_ips: str = ""  # proxies whose X-Forwarded-For is believed (uvicorn's option); "": none
    poll_seconds: float | None = None  # event streams re-read heads this often; None: 0.5 s, 5 s beside LISTEN
    proof_dir: Path = field(default_factory=lambda: Path("."))  # where a refused equivocation's proof would go


@dataclass
class Call:
    """One request as the store's thread sees it."""

    method: str
    target: str
    body: bytes
    signed: auth.SignedRequest | None
    token: str
    address: str


class Api:
    def __init__(self, config: Config, worker: Worker, notifier: Notifier) -> None:
        self.config, self.worker, self.notifier = config, worker, notifier
        self.by_address = RateLimiter(config.rate, config.burst)
        self.by_key = RateLimiter(config.rate, config.burst)
        # open event streams: number -> (when they end at the latest, client address, combat)
        self.streams: dict[int, tuple[float, str, str]] = {}
        self.stream_count = 0
        # each combat's verifier where its last append ended (used on the worker thread only): the next append
        # verifies its new events from there, without folding the combat again (exchange.bundle.import_bundle)
        self.verified: dict[str, Any] = {}
        # each combat's access rules and stream metadata once both were found (worker thread only): neither
        # changes once a combat is hosted (no route edits them), so a request does not read them again
        self.known: dict[str, tuple[Access, Any]] = {}

    # -- the request, before any store work ----------------------------------------------------

    async def _call(self, request: Request) -> Call:
        address = request.client.host if request.client else "unknown"
        self.by_address.check(f"address:{address}")
        headers: dict[str, str] = {}  # each header's first value, by its (lower-case) name: one pass over them
        for raw_name, raw_value in request.scope["headers"]:
            name = raw_name.decode("latin-1").lower()
            if name in headers and name in _ONCE:
                raise ApiError(400, "bad_request", f"the header {_ONCE[name]} is given twice")
            headers.setdefault(name, raw_value.decode("latin-1"))
        body = await read_body(request.stream(), headers.get("content-length"), self.config.max_body)
        raw_path = request.scope.get("raw_path") or request.url.path.encode("ascii", "replace")
        query = request.scope.get("query_string") or b""
        target = raw_path.decode("latin-1") + ("?" + query.decode("latin-1") if query else "")
        signed = auth.signed_request(headers, request.method, target, body)
        token = headers.get(H_TOKEN.lower()) or (request.query_params.get("token") if query else None) or ""
        return Call(request.method, target, body, signed, token, address)

    async def _run(self, fn: Any, *args: Any) -> Any:
        try:
            return await self.worker.run(fn, *args)
        except CombatlogError as exc:
            raise from_combatlog(exc) from None

    # -- on the store's thread: authentication and authorisation -----------------------------------

    def _authenticate(self, signed: auth.SignedRequest, public_b64: str, *, record: bool = True) -> None:
        """The signature by ``public_b64`` (a pinned key), the time window, the nonce, the key's rate.

        ``record=False`` (an append, see ``_append``): a nonce seen already is refused here, but a new one is left
        for the caller to record."""
        from combatlog.trust.keys import strict_b64

        raw = strict_b64(public_b64, 32)
        if raw is None:
            raise ApiError(403, "wrong_key", f"no usable key is pinned for {signed.signer}")
        auth.check_fresh(signed)
        auth.check_signature(signed, raw)
        if record:
            self._use_nonce(signed)
        elif self.worker.registry.seen(signed.key, signed.nonce):
            raise _nonce_refused("replayed", signed)
        try:
            self.by_key.check(f"key:{signed.key}")
        except ApiError:
            if not record:  # refused for the key's rate: its nonce is spent all the same
                self._use_nonce(signed)
            raise

    def _use_nonce(self, signed: auth.SignedRequest) -> None:
        """The request's nonce recorded alone, in a commit of its own; refused if it cannot be."""
        why = self.worker.registry.use_nonce(signed.key, signed.nonce, signed.expires, int(time.time()))
        if why:
            raise _nonce_refused(why, signed)

    def _access(self, combat_id: str) -> Access:
        return self._hosted(combat_id)[0]

    def _hosted(self, combat_id: str) -> tuple[Access, Any]:
        """The combat's access rules and its stream's metadata; 404 unless it has both (a combat in the store
        without access rules was left by a failed create: it is not hosted)."""
        found = self.known.get(combat_id)
        if found is not None:
            return found
        access = self.worker.registry.get(combat_id)
        meta = self.worker.store.get_stream(combat_id) if access is not None else None
        if access is None or meta is None:
            raise ApiError(404, "unknown_combat", f"no combat {combat_id} on this server")
        self.known[combat_id] = (access, meta)
        while len(self.known) > MAX_KNOWN:
            self.known.pop(next(iter(self.known)))
        return access, meta

    def _may_read(self, access: Access, call: Call) -> None:
        granted = access.public
        signed = call.signed
        if signed is not None:
            pinned = access.pinned(signed.signer)
            if pinned is not None:
                self._authenticate(signed, pinned.public_key)
                granted = True
            elif not granted and not call.token:
                raise ApiError(403, "not_a_player", f"{signed.signer} is not a player of this combat; reading it "
                               "needs its invite token")
        if not granted and call.token:
            if not access.token_matches(call.token):
                raise ApiError(403, "wrong_token", "the invite token is not this combat's")
            granted = True
        if not granted:
            raise ApiError(401, "unauthenticated", "reading this combat needs its invite token (?token= or the "
                           f"{H_TOKEN} header) or a request signed by one of its players")

    def _may_write(self, access: Access, call: Call, *, record: bool = True) -> auth.SignedRequest:
        signed = auth.require(call.signed, "an append")
        pinned = access.pinned(signed.signer)
        if pinned is None:
            raise ApiError(403, "not_a_player", f"{signed.signer} is not a player pinned in this combat: only its "
                           f"players ({', '.join(p.name for p in access.players)}) may append")
        self._authenticate(signed, pinned.public_key, record=record)
        return signed

    # -- on the store's thread: the operations ---------------------------------------------------------

    def _summary(self, access: Access, meta: Any = None, head: Any = None) -> dict[str, Any]:
        """``meta``, ``head``: the combat's, when the caller has them already (read from the store if not)."""
        store = self.worker.store
        meta = store.get_stream(access.id) if meta is None else meta
        head = store.head(access.id) if head is None else head
        return {"id": access.id, "name": meta.name, "ruleset": meta.ruleset, "head_seq": head.seq,
                "head_hash": head.hash, "public": access.public, "creator": access.creator,
                "players": [{"name": p.name, "fingerprint": p.fingerprint} for p in access.players]}

    def _list(self, call: Call) -> list[dict[str, Any]]:
        everything = self.worker.registry.all()
        mine: set[str] = set()
        signed = call.signed
        if signed is not None:
            pinning = [a for a in everything if (pin := a.pinned(signed.signer)) is not None and pin.fingerprint == signed.key]
            if pinning:
                self._authenticate(signed, pinning[0].pinned(signed.signer).public_key)  # type: ignore[union-attr]
                mine = {a.id for a in pinning}
        token_ok = {a.id for a in everything if call.token and a.token_matches(call.token)}
        return [self._summary(a) for a in everything if a.public or a.id in mine or a.id in token_ok]

    def _info(self, combat_id: str, call: Call) -> dict[str, Any]:
        access, meta = self._hosted(combat_id)
        self._may_read(access, call)
        return self._summary(access, meta)

    def _events(self, combat_id: str, since: int, call: Call) -> tuple[bytes, int]:
        from combatlog.exchange.bundle import export_lines

        access, meta = self._hosted(combat_id)
        self._may_read(access, call)
        store = self.worker.store
        head = store.head(combat_id).seq
        if since > head:
            raise ApiError(400, "bad_since", f"since={since}: this combat has events 1-{head}", head_seq=head)
        return b"".join(line + b"\n" for line in export_lines(store, meta, since)), head

    def _create(self, call: Call, public: bool) -> dict[str, Any]:
        from combatlog.exchange.bundle import read_bytes
        from combatlog.wiring import import_bundle
        from combatlog.events.core import CombatStarted
        from combatlog.events.envelope import decode_recorded

        signed = auth.require(call.signed, "creating a combat")
        header, lines = read_bytes(call.body, "the request body")
        if header.since != 0:
            raise ApiError(400, "not_a_whole_export", f"the bundle starts after seq {header.since}; a combat is "
                           "created from a whole export (append to an existing one with POST /v1/combats/ID/events)")
        if len(header.segments) != 1:
            raise ApiError(400, "fork", "the bundle is a fork with its parent's prefix; this server hosts root "
                           "combats only (create the parent, a fork is not hosted yet)")
        if not lines:
            raise ApiError(400, "bad_bundle", "the bundle holds no events")
        try:
            genesis = decode_recorded(lines[0])
        except Exception as exc:  # any decoding error of untrusted bytes: the bundle is refused
            raise ApiError(400, "bad_bundle", f"the first event does not decode: {exc}") from None
        if genesis.env.seq != 1 or not isinstance(genesis.event, CombatStarted):
            raise ApiError(400, "bad_bundle", "the bundle does not start with the combat's genesis")
        if not genesis.event.players:
            raise ApiError(422, "no_players", "the combat pins no players: a hosted combat needs pinned players "
                           "(combatlog new NAME --player ...), since every write to it is signed")
        creator = next((pl for pl in genesis.event.players if pl.name == genesis.env.actor), None)
        if creator is None or signed.signer != creator.name:
            raise ApiError(403, "not_the_creator", f"only the creator who signed the genesis "
                           f"({genesis.env.actor}) may put this combat on the server, not {signed.signer}")
        self._authenticate(signed, creator.public_key)
        from combatlog.trust.keys import strict_b64

        if self.config.allow_keys is not None and strict_b64(creator.public_key, 32) not in self.config.allow_keys:
            raise ApiError(403, "not_allowed", f"{creator.name}'s key {creator.fingerprint} may not create combats "
                           "on this server (ask its operator to add it to --allow-keys)")
        store, registry = self.worker.store, self.worker.registry
        combat_id = header.stream
        if store.get_stream(combat_id) is not None:
            raise ApiError(409, "exists", f"combat {combat_id} is on this server already; push appends to it")
        if registry.get(combat_id) is not None:  # left by a create whose import failed midway: not a combat
            registry.remove(combat_id)
        taken = next((m for m in store.list_streams() if m.name == header.name), None)
        if taken is not None:
            raise ApiError(409, "name_taken", f"another combat on this server is named {header.name}; rename yours "
                           "(a fork under a new name) before hosting it")
        token = secrets.token_urlsafe(24)
        access = Access(id=combat_id, creator=creator.name, creator_key=creator.fingerprint,
                        token_sha256=token_digest(token), public=public,
                        players=tuple(Pinned(pl.name, pl.fingerprint, pl.public_key) for pl in genesis.event.players))
        registry.add(access)  # first: a combat in the store is never without its access rules
        try:
            report = import_bundle(store, header, lines, "the request body", proof=self.config.proof_dir / "create",
                                   merge_branches=False)
        except BaseException:
            registry.remove(combat_id)
            raise
        return {**self._summary(access), "token": token, "appended": sum(report.appended.values())}

    def _append(self, combat_id: str, call: Call) -> dict[str, Any]:
        """An append's nonce is recorded in the transaction that appends its events where the registry shares the
        store's database: one durable commit instead of two (the nonce's, then the events'). Whatever else the
        request comes to (refused, a retry that appends nothing, an error after the nonce was checked), its nonce
        is recorded alone before it is answered: no request is answered without its nonce recorded, and the
        same request again is refused as replayed (tests/server/test_nonce_with_events.py)."""
        from combatlog.store.server_registry import NonceRefused

        access, meta = self._hosted(combat_id)
        together = self.worker.nonce_with_events
        signed = self._may_write(access, call, record=not together)
        if not together:
            return self._append_checked(combat_id, call, access, meta, None)
        registry, ran = self.worker.registry, []

        def nonce(handle: Any) -> None:  # in the events' transaction (EventStore.import_batches)
            registry.record_nonce(handle, signed.key, signed.nonce, signed.expires, int(time.time()))
            ran.append(True)

        try:
            result = self._append_checked(combat_id, call, access, meta, nonce)
        except NonceRefused as refused:  # replayed (or the key at its cap) since the check: nothing was appended
            raise _nonce_refused(refused.why, signed) from None
        except BaseException:
            self._nonce_after_failure(signed, bool(ran))
            raise
        if not ran:  # answered without appending (a retry of an append already made): the nonce alone
            self._use_nonce(signed)
        return result

    def _nonce_after_failure(self, signed: auth.SignedRequest, ran: bool) -> None:
        """The nonce of an append that failed, recorded alone. Found recorded once the events' transaction had
        taken it (``ran``): that transaction committed and what came after it failed, or it rolled back and a
        replay took the nonce meanwhile; either way the nonce is recorded, and the failure is the answer."""
        why = self.worker.registry.use_nonce(signed.key, signed.nonce, signed.expires, int(time.time()))
        if why and not (ran and why == "replayed"):
            raise _nonce_refused(why, signed)

    def _append_checked(self, combat_id: str, call: Call, access: Access, meta: Any,
                        nonce: Callable[[Any], None] | None) -> dict[str, Any]:
        from combatlog.errors import ConcurrencyConflict, Diverged
        from combatlog.exchange.bundle import read_bytes
        from combatlog.wiring import import_bundle

        header, lines = read_bytes(call.body, "the request body")
        if header.stream != combat_id or len(header.segments) != 1:
            raise ApiError(400, "wrong_combat", f"the bundle is for combat {header.stream} ({header.name}), "
                           f"not {combat_id}")
        store = self.worker.store
        head = store.head(combat_id)
        if head.seq != header.since:
            if header.head_seq <= head.seq:
                held = store.read_stream(combat_id, header.head_seq, header.head_seq) if header.head_seq else []
                if held and held[0].hash == header.head_hash:
                    return self._appended(access, meta, head, 0)  # a retry of an append already made: nothing to do
            raise ApiError(409, "conflict", f"the server's head is #{head.seq}, the bundle continues "
                           f"#{header.since}: pull, then push what is still yours", head_seq=head.seq,
                           head_hash=head.hash)
        try:
            report = import_bundle(store, header, lines, "the request body", proof=self.config.proof_dir / combat_id,
                                   merge_branches=False, kept=self.verified, then=nonce)  # the sequencer
        except (ConcurrencyConflict, Diverged) as exc:
            now = store.head(combat_id)
            raise ApiError(409, "conflict", str(exc), head_seq=now.seq, head_hash=now.hash) from None
        head = store.head(combat_id)
        _snapshot_past(store, meta, head.seq, header.since)
        return self._appended(access, meta, head, sum(report.appended.values()))

    def _appended(self, access: Access, meta: Any, head: Any, count: int) -> dict[str, Any]:
        return {**self._summary(access, meta, head), "appended": count}

    # -- the routes -----------------------------------------------------------------------------------

    async def health(self, request: Request) -> Response:
        from combatlog import __version__

        return JSONResponse({"ok": True, "service": "combatlog", "version": __version__})

    async def list_combats(self, request: Request) -> Response:
        call = await self._call(request)
        return JSONResponse(await self._run(self._list, call))

    async def create(self, request: Request) -> Response:
        call = await self._call(request)
        public = _flag(request.query_params.get("public", "0"), "public")
        result = await self._run(self._create, call, public)
        self.notifier.changed(result["id"])
        return JSONResponse(result, status_code=201)

    async def info(self, request: Request) -> Response:
        call = await self._call(request)
        return JSONResponse(await self._run(self._info, _combat_id(request), call))

    async def events(self, request: Request) -> Response:
        call = await self._call(request)
        since = _whole(request.query_params.get("since", "0"), "since")
        data, head = await self._run(self._events, _combat_id(request), since, call)
        return Response(data, media_type=NDJSON, headers={"X-Combatlog-Head-Seq": str(head)})

    async def append(self, request: Request) -> Response:
        call = await self._call(request)
        combat_id = _combat_id(request)
        result = await self._run(self._append, combat_id, call)
        if result["appended"]:
            self.notifier.changed(combat_id)
        return JSONResponse(result)

    async def stream(self, request: Request) -> Response:
        call = await self._call(request)
        combat_id = _combat_id(request)
        info = await self._run(self._info, combat_id, call)
        since = _whole(request.query_params.get("since", str(info["head_seq"])), "since")
        if since > info["head_seq"]:
            raise ApiError(400, "bad_since", f"since={since}: this combat has events 1-{info['head_seq']}")
        seconds = min(self.config.stream_seconds, float(_whole(request.query_params.get("timeout", "0"), "timeout")
                                                        or self.config.stream_seconds))
        # Open streams are counted from here (requests arriving together cannot all pass) until their
        # generator ends, or at the latest until their deadline: a stream whose client vanished before
        # it started is never counted for longer than its time.
        now = time.monotonic()
        self.streams = {n: s for n, s in self.streams.items() if s[0] > now}
        self._stream_room(call.address, combat_id)
        self.stream_count += 1
        self.streams[self.stream_count] = (now + seconds + 1, call.address, combat_id)
        return StreamingResponse(self._sse(self.stream_count, combat_id, since, now + seconds),
                                 media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    def _stream_room(self, address: str, combat_id: str) -> None:
        """Refuse a stream past the caps: on the server, per client address, per combat (503 busy)."""
        mine = sum(1 for _, a, _c in self.streams.values() if a == address)
        theirs = sum(1 for _, _a, c in self.streams.values() if c == combat_id)
        if mine >= self.config.max_streams_per_address:
            why = (f"this address ({address}) has {mine} event streams open (at most "
                   f"{self.config.max_streams_per_address} per address): close one first")
        elif theirs >= self.config.max_streams_per_combat:
            why = (f"this combat has {theirs} event streams open (at most {self.config.max_streams_per_combat} "
                   "per combat); try again later")
        elif len(self.streams) >= self.config.max_streams:
            why = "too many event streams are open; try again later"
        else:
            return
        raise ApiError(503, "busy", why, headers={"Retry-After": "5"})

    async def _sse(self, number: int, combat_id: str, since: int, deadline: float):  # type: ignore[no-untyped-def]
        """Each new event as its canonical envelope (one line: canonical JSON has no newline), then an
        ``end`` event when the connection's time is up (the client reconnects with ?since=)."""
        try:
            last = since
            yield f": events of {combat_id} after #{since}\n\n".encode()
            while True:
                rows = await self._news(combat_id, last, deadline)
                for row in rows or ():
                    yield b"id: %d\nevent: event\ndata: %s\n\n" % (row.seq, row.body)
                    last = row.seq
                if rows is None or time.monotonic() >= deadline:
                    yield b"event: end\ndata: %s\n\n" % json.dumps({"head_seq": last}).encode()
                    return
        finally:
            self.streams.pop(number, None)

    async def _news(self, combat_id: str, last: int, deadline: float) -> list[Any] | None:
        """The events after ``last`` once there are any (or none at the deadline); None when the database is
        out of reach: the stream then ends as at its deadline, and the client comes back with ``since=``."""
        try:
            head = await self.notifier.wait_past(combat_id, last, deadline)
            if head <= last:
                return []
            return await self.worker.run(self.worker.store.read_stream, combat_id, last + 1, head)  # type: ignore[no-any-return]
        except Unavailable:
            return None


def _nonce_refused(why: str, signed: auth.SignedRequest) -> ApiError:
    if why == "replayed":
        return ApiError(401, "replayed", "this request nonce was used already: a replayed request is refused "
                        "(sign each request with a fresh nonce)")
    return ApiError(429, "rate_limited", f"{signed.key} has made too many requests in the time window",
                    headers={"Retry-After": str(auth.WINDOW_S)})


def _snapshot_past(store: Any, meta: Any, head: int, before: int) -> None:
    """A snapshot each time an append (from ``before`` to ``head``) crosses a multiple of SNAPSHOT_EVERY, as
    ``execute`` keeps one (import does not): without it every verify and export on the server folds the combat
    from #1, so each request costs more as the combat grows (measured: docs/benchmarks.md). A cache only."""
    from combatlog.projections.fold import SNAPSHOT_EVERY, save_snapshot, state_at

    if head // SNAPSHOT_EVERY > before // SNAPSHOT_EVERY:
        save_snapshot(store, meta, state_at(store, meta))


def _combat_id(request: Request) -> str:
    from combatlog.names import is_stream_id

    value = request.path_params["combat"]
    if not is_stream_id(value):
        raise ApiError(404, "unknown_combat", "not a combat id")
    return value  # type: ignore[no-any-return]


def _whole(text: str, name: str) -> int:
    """A query parameter holding a whole number from 0 to MAX_SINCE (``since`` refused as ``bad_since``, as
    server.md says; ASCII digits only: str.isdigit also takes '²', which int() does not read)."""
    code = "bad_since" if name == "since" else "bad_request"
    if not (text.isascii() and text.isdigit()):
        raise ApiError(400, code, f"{name}={text[:40]!r} is not a whole number from 0")
    if len(text) > 16 or int(text) > MAX_SINCE:
        raise ApiError(400, code, f"{name}={text[:40]} is too large (at most {MAX_SINCE})")
    return int(text)


def _flag(text: str, name: str) -> bool:
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no", ""):
        return False
    raise ApiError(400, "bad_request", f"{name}={text[:40]!r}: use 1 or 0")
