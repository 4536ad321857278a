"""``combatlog sheet``: an SVG picture of the combat at one point (loaded lazily by cli/root.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from combatlog.cli.common import (
    app_state, at_option, echo, json_option, old_name, print_json, renamed, stream_argument,
)


def command(
    ctx: typer.Context,
    stream: str = stream_argument(),
    round_no: Optional[int] = typer.Option(None, "--round", help="The state at the end of this round."),
    seq: Optional[int] = at_option("The state after this seq."),
    output: Path = typer.Option(..., "-o", "--output", help="The SVG file to write ('-': standard output)."),
    as_json: bool = json_option(),
    old_seq: Optional[int] = old_name("--seq"),
) -> None:
    """Draw the state (now, after a seq, or at the end of a round) as an SVG picture: for Magic Realm
    each Melee Section with its boxes, circles, squares, counters and chits; for the other games the
    combatants, their hit points or wounds and the round. --as PLAYER draws only what PLAYER may see.

    Example: combatlog sheet giant-goblins --round 1 -o round1.svg
    """
    from combatlog.cli.views import viewer_of
    from combatlog.errors import InvalidCommand
    from combatlog.pictures import sheet_svg
    from combatlog.pictures.output import check_target, write_whole
    from combatlog.projections.fold import round_end, state_at
    from combatlog.projections.streams import resolve_stream

    seq = renamed(seq, old_seq, "--at", "--seq")
    if round_no is not None and seq is not None:
        raise InvalidCommand("give --round or --at, not both")
    if seq is not None and seq < 1:
        raise InvalidCommand(f"--at {seq}: seqs start at 1")
    check_target(output)
    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    if round_no is not None:
        folded = state_at(store, meta, round_end(state_at(store, meta), round_no))
    else:
        folded = state_at(store, meta, seq)
    svg = sheet_svg(store, meta, folded, viewer_of(st))
    write_whole(output, svg)
    if str(output) == "-":
        return
    info = {"stream": meta.name, "ruleset": meta.ruleset, "seq": folded.core.head_seq,
            "round": folded.ruleset.round_of(folded.state), "file": str(output), "bytes": len(svg.encode())}
    if as_json:
        print_json(info)
        return
    echo(f"wrote {output} ({meta.name}, round {info['round']}, after seq {info['seq']})")
