"""``combatlog ack``: countersign a combat up to a point."""

from __future__ import annotations

from typing import Optional

import typer

from combatlog.cli.common import json_option, run_command, stream_argument


def command(
    ctx: typer.Context,
    stream: str = stream_argument(),
    upto: Optional[int] = typer.Option(None, "--upto", help="The last seq you acknowledge (default: the head)."),
    as_json: bool = json_option(),
) -> None:
    """Acknowledge (countersign) the log up to a seq: a signed event naming that event's hash.

    Example: combatlog ack duel --as bob
    """
    from combatlog.trust.commands import Acknowledge

    run_command(ctx, stream, Acknowledge(upto=upto or 0), as_json=as_json)
