"""``combatlog moves NAME``: every legal move now, each as the command line that makes it."""

from __future__ import annotations

import shlex
from typing import Optional

import typer

from combatlog.cli.common import app_state, echo_view, json_option, print_json, read_state, stream_argument


def moves(
    ctx: typer.Context,
    stream: str = stream_argument(),
    limit: int = typer.Option(200, "--limit", min=0, help="At most this many moves; more are sampled at random."),
    seed: Optional[str] = typer.Option(None, "--seed", help="Seed of the sample (the same seed, the same sample)."),
    as_json: bool = json_option(),
) -> None:
    """Every legal move now: the command that makes it and what it means (with --as, that player's).

    Each line runs as written in this log; a move is listed exactly when the rules would take it. With
    more moves than --limit, a uniform random sample of them is listed (--seed fixes it). Without --as,
    every decider's moves: each pinned player's, the referee's, or anyone's where no player is pinned.
    --json: {"moves": [{"player", "argv", "text", "piece", "kind"}...], "complete", "finished", "total", "waiting"}.

    Example: combatlog moves duel --as alice
    """
    from combatlog.commands.legal import sample
    from combatlog.wiring import moves as legal

    st = app_state(ctx)
    meta, folded = read_state(ctx, stream)
    player = st.actor if _asked_as(ctx) else None
    ready, waiting = legal(st.store(), meta, folded, player=player)
    listed, complete = sample(ready, limit, seed)
    finished = folded.state is not None and folded.ruleset.finished(folded.state)
    if as_json:
        print_json({"moves": [m.as_json() for m in listed], "complete": complete, "finished": finished,
                    "total": len(ready), "waiting": [m.as_json() for m in waiting]})
        return
    if finished:
        echo_view(f"{meta.name}: the combat is over; no moves.")
        return
    if not ready:
        echo_view(f"{meta.name}: no move {'for ' + player if player else 'anyone can make'} now.")
    shown = "" if complete else f" (a random {len(listed)} of {len(ready)}: --limit, --seed)"
    by: dict[str, list[object]] = {}
    for m in listed:
        by.setdefault(m.player, []).append(m)
    for who, items in by.items():
        echo_view(f"{who or 'anyone'}{shown}:")
        for m in items:
            echo_view(f"  {m.text}")
            echo_view(f"    combatlog {shlex.join(m.argv)}")
    if waiting:
        echo_view(f"{len(waiting)} more once the joint dice's seed step is complete.")


def _asked_as(ctx: typer.Context) -> bool:
    """Whether --as (or COMBATLOG_ACTOR) named a player: without it every decider's moves are listed."""
    import os

    root = ctx.find_root()
    return bool(root.params.get("actor") or os.environ.get("COMBATLOG_ACTOR"))
