"""``copy``: move combats between logs of any backends (SQLite <-> PostgreSQL), then verify them."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from combatlog.cli.common import echo, json_option, print_json
from combatlog.cli.progress import progress
from combatlog.errors import InvalidCommand, NotFound, VerificationFailed

if TYPE_CHECKING:
    from combatlog.store.base import EventStore, StreamMeta


def _is_url(ref: str) -> bool:
    return ref.startswith(("postgresql://", "postgres://")) or ref in ("memory:", ":memory:")


def _shown(ref: str) -> str:
    from combatlog.store.postgres import redact  # no psycopg import: only the helper

    return redact(ref)


def _open_source(ref: str) -> EventStore:
    from combatlog.store import open_store

    if not _is_url(ref) and not Path(ref).is_file():
        raise NotFound(f"--from {ref}: no such log file")  # SQLite would create an empty one
    return open_store(ref)


def _digest(store: EventStore, meta: StreamMeta, high: int) -> str:
    """SHA-256 over a stream's own stored bytes up to ``high``: equal digests, equal bytes."""
    h = hashlib.sha256()
    low = meta.fork_seq + 1 if meta.parent else 1
    for lo in range(low, high + 1, 1000):
        for row in store.read_stream(meta.id, lo, min(high, lo + 999)):
            h.update(row.seq.to_bytes(8, "big") + len(row.body).to_bytes(8, "big") + row.body)
    return h.hexdigest()


def command(
    source: str = typer.Option(..., "--from", help="The log to copy from: a SQLite file or a postgresql:// URL."),
    target: str = typer.Option(..., "--to", help="The log to copy into (created if it is a new SQLite file)."),
    stream: list[str] = typer.Option([], "--stream", help="Copy only this combat (name or id) and the combats it "
                                                          "forks from (repeatable; default: every combat)."),
    with_seeds: bool = typer.Option(False, "--with-seeds", help="Also copy the referee seeds committed in the copied "
                                                                "combats (secret keys: only to a log you trust)."),
    as_json: bool = json_option(),
) -> None:
    """Copy combats between logs (SQLite to PostgreSQL and back) with their ids and bytes, then verify the copy.

    Forks are copied after the combats they fork from. A combat the target
    already has is extended with what it lacks; one that differs there is
    refused (nothing is written). Run it again to resume an interrupted copy.
    The copy is verified in the target; a log made under other rules versions
    is copied as it is, with a note.

    Example: combatlog copy --from campaign.db --to postgresql://gm@localhost/combatlog
    """
    from combatlog.wiring import verify_stream
    from combatlog.store import open_store
    from combatlog.store.transfer import apply_copy, copy_seeds, plan_copy, select_streams

    if source == target:
        raise InvalidCommand("--from and --to name the same log")
    src = _open_source(source)
    try:
        streams = select_streams(src, stream)
        dst = open_store(target)
        try:
            plans = plan_copy(src, dst, streams)
            with progress("copying", as_json=as_json) as bar:
                copied = apply_copy(src, dst, plans, progress=bar.callback)
            seeds = copy_seeds(src, dst, streams) if with_seeds else 0
            results = []
            for plan in plans:
                there = dst.get_stream(plan.meta.id)
                assert there is not None
                # Integrity is checked strictly; a different rules digest is a note, not a failure:
                # the copy carries the log as it was made.
                report = verify_stream(dst, there, strict_rules=False)
                if plan.action != "ahead":
                    src_head = src.head(plan.meta.id)
                    if (report.head_seq, report.head_hash) != (src_head.seq, src_head.hash):
                        raise VerificationFailed(f"the copy of {plan.meta.name} ends at {report.head_seq}, the "
                                                 f"source at {src_head.seq}", where=_shown(target))
                    if _digest(src, plan.meta, src_head.seq) != _digest(dst, there, src_head.seq):
                        raise VerificationFailed(f"the copy of {plan.meta.name} holds different bytes",
                                                 where=_shown(target))
                results.append({"id": plan.meta.id, "name": plan.target_name, "action": plan.action,
                                "copied": plan.count, "head_seq": report.head_seq, "head_hash": report.head_hash,
                                "verified": report.ok, "notes": report.notes})
        finally:
            dst.close()
    finally:
        src.close()
    if as_json:
        print_json({"from": _shown(source), "to": _shown(target), "events_copied": copied, "seeds_copied": seeds,
                    "streams": results})
        return
    verbs = {"create": "created", "append": "extended", "up_to_date": "up to date", "ahead": "target is ahead"}
    for r in results:
        what = f"+{r['copied']} events" if r["copied"] else ""
        echo(f"{r['name']:<24} {verbs[r['action']]:<16} {what:<12} verified: head {r['head_seq']} "
             f"{r['head_hash'][:16]}...")
        for n in r["notes"]:
            echo(f"    note: {n}")
    seeds_text = f", {seeds} referee seeds" if with_seeds else ""
    echo(f"copied {copied} events in {len(results)} combats{seeds_text} from {_shown(source)} to {_shown(target)}")
