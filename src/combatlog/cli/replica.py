"""``push``, ``pull``, ``sync``: this log as a replica of a combat on a server (docs/server.md).

Each is loaded lazily as a single command (``combatlog.cli.catalog`` EXTRA_MODULES).
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from combatlog.cli.common import app_state, echo, json_option, print_json, stream_argument
from combatlog.cli.remote import remote_option


def _client(ctx: typer.Context, remote: str | None) -> tuple[Any, Any]:
    from combatlog.remote.client import Client
    from combatlog.remote.config import choose

    st = app_state(ctx)
    return st.store(), Client(choose(remote), st.actor)


def _show(outcomes: list[Any], remote: str, as_json: bool, warnings: list[str] = [],  # noqa: B006 (read only)
          merges: list[Any] = []) -> None:  # noqa: B006 (read only)
    from combatlog.cli.common import note

    for warning in warnings:
        note(f"warning: {warning}")
    if as_json:
        import dataclasses

        import msgspec

        print_json([{**dataclasses.asdict(o), "remote": remote, "token": bool(o.token),
                     "merges": [msgspec.to_builtins(m) for m in merges]} for o in outcomes])
        return
    for merge in merges:  # the server's branch kept; what became of our decisions
        for line in merge.lines():
            echo(line)
    for o in outcomes:
        echo(o.text(remote))


def push(
    ctx: typer.Context,
    stream: str = stream_argument(),
    remote: Optional[str] = remote_option(),
    as_json: bool = json_option(),
) -> None:
    """Send the server what it lacks of a combat (creating it there if it has none of it).

    When the server holds events this log lacks (another player's got there first: it takes appends
    first come, first served), push pulls them (verified), places your own decisions after them
    (merge: the server's branch kept) and pushes those; what cannot be merged is an error. A busy
    server (429, 503) is asked again after its Retry-After, a few times.

    What the server lacks may be more than it takes in one request (its --max-body; a long game
    played offline): push then sends it in parts, each ending where a command ends, and says how
    many it took ("parts" in --json). One command larger than the server takes stops the push
    there, naming its seqs; the parts before it stay on the server. sync pushes the same way.

    Example: combatlog push duel --remote origin
    """
    from combatlog.remote.client import push as push_remote

    store, client = _client(ctx, remote)
    _show([push_remote(store, client, stream)], client.remote.name, as_json, client.warnings, client.merges)


def pull(
    ctx: typer.Context,
    stream: str = stream_argument("The combat: its name or id (here, or on the server)."),
    remote: Optional[str] = remote_option(),
    as_json: bool = json_option(),
) -> None:
    """Fetch a combat's new events from the server, verify every one as import does, append them.

    Example: combatlog pull duel --remote origin
    """
    from combatlog.remote.client import pull as pull_remote

    store, client = _client(ctx, remote)
    _show([pull_remote(store, client, stream)], client.remote.name, as_json, client.warnings, client.merges)


def sync(
    ctx: typer.Context,
    streams: Optional[list[str]] = typer.Argument(None, metavar="[STREAM]...", show_default=False,
                                                  help="Combats to sync (default: those of this log the server has)."),
    remote: Optional[str] = remote_option(),
    as_json: bool = json_option(),
) -> None:
    """Pull, then push, each combat: afterwards this log and the server hold the same events.

    Example: combatlog sync duel
    """
    from combatlog.remote.client import sync as sync_remote

    store, client = _client(ctx, remote)
    _show(sync_remote(store, client, list(streams or [])), client.remote.name, as_json, client.warnings,
          client.merges)
