"""``serve``: run the combat log server (docs/server.md). Starlette and uvicorn load only here."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from combatlog.cli.common import app_state, note
from combatlog.errors import InvalidCommand


def command(
    ctx: typer.Context,
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on (loopback by default: put a "
                                                         "TLS reverse proxy in front to serve others)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="The TCP port."),
    allow_keys: Optional[Path] = typer.Option(None, "--allow-keys", metavar="FILE",
                                              help="Public keys (as `keys export` writes them, one a line) whose "
                                                   "owners may create combats here."),
    open_: bool = typer.Option(False, "--open", help="Anyone with a key may create combats (every write is "
                                                     "still signed and verified)."),
    state: Optional[str] = typer.Option(None, "--state", metavar="FILE",
                                        help="The server's own tables (invite tokens, seen nonces): a SQLite "
                                             "file or a postgresql:// URL. Default: the log's own database (for "
                                             "PostgreSQL, shared by every server process on it)."),
    max_body: int = typer.Option(8 << 20, "--max-body", min=1024, help="The largest request body, in bytes."),
    rate: float = typer.Option(10.0, "--rate", min=0.01, help="Requests per second per address and per key, "
                                                              "after the burst."),
    burst: int = typer.Option(60, "--burst", min=1, help="Requests a client may make at once."),
    stream_seconds: float = typer.Option(60.0, "--stream-seconds", min=0.1,
                                         help="The longest an event stream stays open (clients reconnect)."),
    max_streams: int = typer.Option(100, "--max-streams", min=1, help="Event streams open at once."),
    max_streams_per_address: int = typer.Option(8, "--max-streams-per-address", min=1,
                                                help="Event streams one client address may hold open at once."),
    max_streams_per_combat: int = typer.Option(50, "--max-streams-per-combat", min=1,
                                               help="Event streams open at once on one combat."),
    forwarded_allow_ips: str = typer.Option("", "--forwarded-allow-ips", metavar="IPS",
                                            help="Proxies (comma-separated addresses or networks, * for any) "
                                                 "whose X-Forwarded-For names the client. Default: none, "
                                                 "the connection's own address is the client's."),
    poll_seconds: Optional[float] = typer.Option(None, "--poll-seconds", min=0.05,
                                                 help="How often an event stream re-reads its combat's head. "
                                                      "Default: 0.5 s; 5 s on PostgreSQL, where LISTEN/NOTIFY "
                                                      "wakes the streams at once."),
) -> None:
    """Serve combats over HTTP: players push and pull signed bundles; the server verifies every one.

    Creating a combat needs --allow-keys FILE (those keys may create) or --open (any key may).

    Example: combatlog serve --db server.db --allow-keys players.keys --port 8000
    """
    from combatlog.server.app import default_state, load_allow_keys, serve
    from combatlog.server.routes import Config
    from combatlog.store import default_url

    if (allow_keys is None) == (not open_):
        raise InvalidCommand("give --allow-keys FILE (who may create combats) or --open (anyone may), one of them")
    db = app_state(ctx).db or default_url()
    keys = load_allow_keys(allow_keys) if allow_keys is not None else None
    config = Config(db=db, state=state or default_state(db), allow_keys=keys, max_body=max_body, rate=rate,
                    burst=burst, stream_seconds=stream_seconds, max_streams=max_streams,
                    max_streams_per_address=max_streams_per_address, max_streams_per_combat=max_streams_per_combat,
                    forwarded_allow_ips=forwarded_allow_ips.strip(), poll_seconds=poll_seconds)
    who = "any key may create combats" if keys is None else f"{len(keys)} keys may create combats"
    note(f"combatlog serve: {db} on http://{host}:{port}/v1/ ({who}); Ctrl-C stops it")
    serve(config, host, port)
