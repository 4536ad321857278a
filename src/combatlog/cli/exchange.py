"""``export``, ``import``, ``verify``: combats as files that travel (what export and import do: cli/bundles.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from combatlog.cli.bundles import (  # noqa: F401  (_to_stdout, _write_whole, since_for_player: cli/mail.py's)
    _stdin, _to_stdout, _write_whole, run_export, run_import, run_verify, since_for_player,
)
from combatlog.cli.common import app_state, echo, json_option, print_json, stream_argument


ACCEPT_HELP = ("Accept, to read, a log whose genesis claims an engine from before commands were recorded (its "
               "decisions are not re-decided; nothing can be added to it).")

def export(
    ctx: typer.Context,
    stream: str = stream_argument(),
    output: str = typer.Option(..., "-o", "--output", metavar="FILE",
                               help="The file to write (JSON Lines); - for standard output."),
    since: Optional[int] = typer.Option(None, "--since", help="Only events after this seq (an incremental bundle)."),
    for_player: Optional[str] = typer.Option(None, "--for", metavar="PLAYER",
                                   help="Exactly what PLAYER lacks: the events after the last one they signed or "
                                        "acknowledged."),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl (the authority) or text (for email and forums)."),
    as_json: bool = json_option(),
) -> None:
    """Write a combat to a file that other players verify and import.

    Example: combatlog export duel --for bob -o duel-3.jsonl
    """
    from combatlog.cli.common import refuse_blank

    refuse_blank(for_player, "--for", "the player the bundle is for")
    run_export(app_state(ctx), stream, output, since, for_player or "", fmt, as_json)


def import_(
    ctx: typer.Context,
    files: Optional[list[str]] = typer.Argument(
        None, metavar="[FILE]...", show_default=False,
        help="Export files, saved emails (.eml), pasted messages or forum posts holding armoured bundles; "
             "- reads standard input. Any order: a bundle that arrives before its predecessor is held."),
    inbox: Optional[Path] = typer.Option(None, "--inbox", metavar="DIR",
                                         help="Also every file in this folder (by name; not its sub-folders)."),
    name: Optional[str] = typer.Option(None, "--name", help="Local name for the combat, if its own name is taken here."),
    allow_rules_mismatch: bool = typer.Option(False, "--allow-rules-mismatch",
                                              help="Accept a log made under a different rules digest."),
    trust_new_key: bool = typer.Option(False, "--trust-new-key",
                                       help="Accept a combat that pins, for a name in your key home, another key "
                                            "(check it with that player out of band first)."),
    accept_unrecorded: bool = typer.Option(False, "--accept-unrecorded", help=ACCEPT_HELP),
    as_json: bool = json_option(),
) -> None:
    """Verify bundles, then append each whole or not at all (only what is new here); hold early ones.

    A bundle that rests on events this log does not have yet is held, and applied when they arrive
    (`status` lists what is held). Bundles are found in export files and in messages, quoted or not.

    A combat that pins, for a player whose key you keep, a different key is refused (impersonation)
    unless --trust-new-key; one that pins a key for you (--as) that you do not hold is warned about.

    Example: combatlog import duel-3.jsonl mail.eml --inbox ~/combat-mail
    """
    from combatlog.cli.common import refuse_blank

    refuse_blank(name, "--name", "the local name for the combat")
    from combatlog.exchange.verify import accepting_unrecorded

    with accepting_unrecorded(accept_unrecorded):
        run_import(app_state(ctx), files, inbox, name or "", allow_rules_mismatch, trust_new_key, as_json)


def verify(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="An export file (- reads it from standard input), or a combat in this log."),
    allow_rules_mismatch: bool = typer.Option(False, "--allow-rules-mismatch",
                                              help="Report a different rules digest instead of failing."),
    accept_unrecorded: bool = typer.Option(False, "--accept-unrecorded", help=ACCEPT_HELP),
    as_json: bool = json_option(),
) -> None:
    """Check a file or a stored combat: every hash, the chain, the dice; exit non-zero on the first problem.

    Example: combatlog verify duel.jsonl
    """
    from combatlog.exchange.verify import accepting_unrecorded

    with accepting_unrecorded(accept_unrecorded):
        run_verify(app_state(ctx), target, allow_rules_mismatch, as_json)


def superseded(
    ctx: typer.Context,
    stream: str = stream_argument(),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Also write the superseded events, as stored, to this JSON Lines file."),
    as_json: bool = json_option(),
) -> None:
    """Events that lost a merge (two players answered the same email): kept here as evidence, never replayed.

    Each is listed with the event that took its place; the merge placed the decisions that still stand
    (see `import`), and a player can show this list when a decision of theirs was dropped or changed.

    Example: combatlog superseded cave
    """
    from combatlog.events.envelope import decode_envelope
    from combatlog.projections.streams import resolve_stream
    from combatlog.text import printable

    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    rows = store.superseded(meta.id)
    listed = []
    for row in rows:
        env = decode_envelope(row.body)
        listed.append({"seq": row.seq, "actor": env.actor, "type": env.type, "command_id": env.command_id,
                       "hash": row.hash, "replaced_by": row.by, "superseded_at": row.superseded_at})
    if output is not None:
        _write_whole(output, lambda path: _write_rows(path, [r.body for r in rows]))
    if as_json:
        print_json({"stream": meta.id, "name": meta.name, "superseded": listed})
        return
    if not listed:
        echo(f"{meta.name}: no superseded events")
        return
    echo(f"{meta.name}: {len(listed)} superseded events (kept as evidence, never replayed)")
    for item in listed:
        by = f"replaced by {item['replaced_by'][:12]}..." if item["replaced_by"] else "from a superseded branch"
        echo(f"  #{item['seq']} {printable(item['actor'])} {item['type']} ({item['hash'][:12]}..., "
             f"{by}, {item['superseded_at']})")


def _write_rows(path: Path, bodies: list[bytes]) -> int:
    with open(path, "wb") as out:
        for body in bodies:
            out.write(body + b"\n")
    return len(bodies)
