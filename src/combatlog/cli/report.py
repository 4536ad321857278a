"""``combatlog report``: one self-contained HTML file about a combat (loaded lazily by cli/root.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from combatlog.cli.common import app_state, echo, json_option, print_json, stream_argument


def command(
    ctx: typer.Context,
    stream: str = stream_argument(),
    round_no: Optional[int] = typer.Option(None, "--round", help="Only this round (the header, dice of the round "
                                                                 "and forks are always there)."),
    output: Path = typer.Option(..., "-o", "--output", help="The HTML file to write ('-': standard output)."),
    sheets: str = typer.Option("auto", "--sheets", metavar="WHICH",
                               help="Which rounds get a sheet picture: auto (where the picture changed, at most "
                                    "20 in a long combat, and the last round), all, none, or rounds like 1,4-6."),
    show_all: bool = typer.Option(False, "--all", help="List the trust plumbing (nonce chains and links, "
                                                         "acknowledgements, referee seeds) among the events, "
                                                         "not one line per round."),
    as_json: bool = json_option(),
) -> None:
    """Write one self-contained HTML file (no network, no script, inline CSS and SVG): ruleset, players
    and key fingerprints, dice scheme, head hash and the verifier's result, then round by round the sheet
    picture and every step with its rule and dice, signatures, acknowledgements, the dice ledger with each
    die's verification state, and the forks. The trust plumbing that decides nothing (nonce chains and
    links, acknowledgements, referee seeds) is one line per round, as in log and explain (--all lists it).
    --as PLAYER writes only what PLAYER may see. A long combat
    stays small enough to mail: a sheet is drawn where something changed (--sheets for others, --round N
    for one round in full). Progress is shown on a terminal.

    Example: combatlog report giant-goblins -o giant-goblins.html
    """
    from combatlog.cli.views import viewer_of
    from combatlog.pictures.output import check_target, write_whole
    from combatlog.pictures.report import report_html
    from combatlog.projections.streams import resolve_stream

    check_target(output)
    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    from combatlog.cli.progress import progress

    with progress("report", as_json=as_json) as bar:
        text = report_html(store, meta, viewer_of(st), round_no, sheets=sheets, on_progress=bar.callback,
                           show_all=show_all)
    write_whole(output, text)
    if str(output) == "-":
        return
    if as_json:
        print_json({"stream": meta.name, "ruleset": meta.ruleset, "round": round_no, "file": str(output),
                    "bytes": len(text.encode())})
        return
    echo(f"wrote {output} ({meta.name}" + (f", round {round_no}" if round_no is not None else "") + ")")
