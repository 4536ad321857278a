"""``combatlog follow``: print a combat's events as they reach the server, each pulled and verified here
(docs/server.md; loaded lazily by cli/root.py)."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from combatlog.cli.common import app_state, note, stream_argument
from combatlog.cli.remote import remote_option


def command(
    ctx: typer.Context,
    stream: str = stream_argument("The combat: its name or id (here, or on the server)."),
    remote: Optional[str] = remote_option(),
    timeout: Optional[float] = typer.Option(None, "--timeout", metavar="S", min=0,
                                            help="Stop after S seconds (default: follow until interrupted)."),
) -> None:
    """Follow a combat on a server: on each event the server streams, pull (verify everything, import
    into this log) and print the new events as `explain` prints them (each with the steps it derived:
    hits, harm, kills, with their rules; trust plumbing in one line). Reconnects when the server ends the
    stream; stops after --timeout seconds, or on Ctrl-C.

    Example: combatlog follow duel --remote origin --timeout 600
    """
    from combatlog.cli.views import explain_new, viewer_of
    from combatlog.projections.streams import resolve_stream
    from combatlog.remote.client import Client
    from combatlog.remote.config import choose
    from combatlog.remote.follow import follow

    st = app_state(ctx)
    store = st.store()
    client = Client(choose(remote), st.actor)

    def show(after: int, head: int) -> None:
        for merge in client.merges:  # the server's branch kept; what became of this player's decisions
            for line in merge.lines():
                note(line)
        client.merges.clear()
        explain_new(store, resolve_stream(store, stream), after + 1, head, viewer_of(st))
        sys.stdout.flush()

    import signal

    from combatlog.remote.follow import Stop

    stop = Stop()
    previous = signal.signal(signal.SIGINT, stop)
    try:
        outcome = follow(store, client, stream, timeout, show, note, stop)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGINT, previous)
    for warning in client.warnings:
        note(f"warning: {warning}")
    note(f"{outcome.combat}: followed on {client.remote.name} until #{store.head(resolve_stream(store, stream).id).seq}")
