"""Building the server: the Starlette app over one store thread, and running it under uvicorn."""

from __future__ import annotations

import logging
import socket
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from combatlog.server.errors import ApiError
from combatlog.server.feed import ListenNotifier, PollingNotifier
from combatlog.server.home import Home
from combatlog.server.page import Page
from combatlog.server.routes import Api, Config
from combatlog.server.worker import Worker, is_postgres

log = logging.getLogger("combatlog.server")


def default_state(db: str) -> str:
    """Where the registry is: the event store's own database, a SQLite file or PostgreSQL (there it
    is shared by every server process on the database; docs/server.md)."""
    if db in ("memory:", ":memory:"):
        return ":memory:"
    return db


def build_app(config: Config) -> Starlette:
    worker = Worker(config.db, config.state)

    async def head(stream: str) -> int:
        return (await worker.run(worker.store.head, stream)).seq

    notifier: PollingNotifier
    if is_postgres(config.db):  # appends by any process on the database wake the event streams at once
        notifier = ListenNotifier(config.db, head, config.poll_seconds or 5.0)
    else:
        notifier = PollingNotifier(head, config.poll_seconds or 0.5)
    api = Api(config, worker, notifier)

    @asynccontextmanager
    async def lifespan(app: Starlette):  # type: ignore[no-untyped-def]
        if isinstance(notifier, ListenNotifier):
            await notifier.start()
        yield
        if isinstance(notifier, ListenNotifier):
            await notifier.stop()
        worker.close()

    routes = [
        Route("/", Home(api).view, methods=["GET"]),  # what this server is, its public combats (server/home.py)
        Route("/v1/health", api.health, methods=["GET"]),
        Route("/v1/combats", api.list_combats, methods=["GET"]),
        Route("/v1/combats", api.create, methods=["POST"]),
        Route("/v1/combats/{combat}", api.info, methods=["GET"]),
        Route("/v1/combats/{combat}/events", api.events, methods=["GET"]),
        Route("/v1/combats/{combat}/events", api.append, methods=["POST"]),
        Route("/v1/combats/{combat}/stream", api.stream, methods=["GET"]),
        Route("/c/{combat}", Page(api).view, methods=["GET"]),  # the live page (server/page.py)
    ]
    handlers: dict[Any, Any] = {ApiError: _api_error, HTTPException: _http_error, Exception: _internal_error}
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
    # No redirect from a path ending in "/" to the route without it: Starlette builds that redirect from the
    # request's Host header, as http:// behind a TLS proxy, carrying the query (a page's token) along.
    app.router.redirect_slashes = False
    app.state.api = api
    return app


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    message = {404: f"no such path: {request.url.path[:200]}",
               405: f"{request.method} is not allowed on {request.url.path[:200]}"}.get(exc.status_code, str(exc.detail))
    return JSONResponse({"error": code, "message": message}, status_code=exc.status_code, headers=exc.headers)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse({"error": "internal", "message": "an internal error; nothing was changed by it"},
                        status_code=500)


def load_allow_keys(path: Path) -> frozenset[bytes]:
    """Public keys from a file of key lines as ``combatlog keys export`` writes them (one a line;
    blank lines and # comments ignored)."""
    from combatlog.errors import InvalidCommand, NotFound
    from combatlog.trust.keys import parse_key_line

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NotFound(f"--allow-keys {path}: {exc.strerror}") from None
    keys = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.strip().startswith("#"):
            try:
                keys.add(parse_key_line(line)[1])
            except InvalidCommand as exc:
                raise InvalidCommand(f"--allow-keys {path}:{number}: {exc.message}") from None
    return frozenset(keys)


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the server starts so that ``port`` 0 (the OS picks a free
    port) can be announced: no window in which another process could take a port chosen ahead."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family)


def settings(config: Config) -> Any:
    """uvicorn's settings for the app built from ``config``."""
    import uvicorn

    from combatlog.server.wire import http_protocol

    # X-Forwarded-For is believed only from the proxies named (uvicorn's own default would trust any
    # client on 127.0.0.1, and so the per-address limits would trust whatever such a client claims)
    trusted = config.forwarded_allow_ips
    # loop "auto": uvloop's event loop when uvloop is installed (a dependency, not on Windows), else asyncio's
    return uvicorn.Config(build_app(config), log_level="warning", access_log=False, server_header=False,
                          timeout_graceful_shutdown=2, proxy_headers=bool(trusted),
                          forwarded_allow_ips=trusted or None, http=http_protocol(), loop="auto")


def serve(config: Config, sock: socket.socket) -> None:
    import uvicorn

    uvicorn.Server(settings(config)).run(sockets=[sock])
