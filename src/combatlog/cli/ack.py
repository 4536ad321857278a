"""``combatlog ack``: countersign a combat up to a point."""

from __future__ import annotations

from typing import Optional

import typer

from combatlog.cli.common import at_option, json_option, old_name, renamed, run_command, stream_argument


def command(
    ctx: typer.Context,
    stream: str = stream_argument(),
    upto: Optional[int] = at_option("The last seq you acknowledge (default: the head)."),
    as_json: bool = json_option(),
    old_upto: Optional[int] = old_name("--upto"),
) -> None:
    """Acknowledge (countersign) the log up to a seq: a signed event naming that event's hash.

    Example: combatlog ack duel --as bob
    """
    from combatlog.trust.commands import Acknowledge

    upto = renamed(upto, old_upto, "--at", "--upto")
    run_command(ctx, stream, Acknowledge(upto=upto or 0), as_json=as_json)
    _chain_on_joining(ctx, stream, as_json)


def _chain_on_joining(ctx: typer.Context, stream: str, as_json: bool) -> None:
    """Joining a Magic Realm combat with joint dice (the first ack) commits the player's nonce chain, so every
    seed step can be seeded by links from the first round on (docs/trust.md, "Nonce chains")."""
    from combatlog.cli.common import read_state
    from combatlog.cli.ride import ensure_chain

    _meta, folded = read_state(ctx, stream)
    if folded.ruleset.info.name == "magic_realm":
        ensure_chain(ctx, stream, as_json)
