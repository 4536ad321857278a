"""``export``, ``import``, ``verify``: combats as files that travel."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Optional

import typer

from combatlog.cli.common import app_state, echo, json_option, log_exists, note, print_json, stream_argument
from combatlog.cli.progress import progress
from combatlog.errors import InvalidCommand, NotFound, VerificationFailed


def export(
    ctx: typer.Context,
    stream: str = stream_argument(),
    output: str = typer.Option(..., "-o", "--output", metavar="FILE",
                               help="The file to write (JSON Lines); - for standard output."),
    since: Optional[int] = typer.Option(None, "--since", help="Only events after this seq (an incremental bundle)."),
    for_player: str = typer.Option("", "--for", metavar="PLAYER",
                                   help="Exactly what PLAYER lacks: the events after the last one they signed or "
                                        "acknowledged."),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl (the authority) or text (for email and forums)."),
    as_json: bool = json_option(),
) -> None:
    """Write a combat to a file that other players verify and import.

    Example: combatlog export duel --for bob -o duel-3.jsonl
    """
    from combatlog.projections.streams import resolve_stream
    from combatlog.exchange.bundle import export_file, export_lines

    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    if for_player:
        if since is not None:
            raise InvalidCommand("give --since or --for, not both")
        since = since_for_player(store, meta, for_player)
    since = since or 0
    if fmt not in ("jsonl", "text"):
        raise InvalidCommand(f"--format {fmt!r}: choose jsonl or text")
    to_stdout = output == "-"
    if to_stdout and as_json:
        raise InvalidCommand("-o - writes the bundle to standard output; --json cannot share it")
    if fmt == "text":
        from combatlog.trust.text_export import export_text, render_text  # the trust layer's readable rendering

        if to_stdout:
            count = _to_stdout(lambda: _text_of(render_text, store, meta, since))
        else:
            count = _write_whole(Path(output), lambda path: export_text(store, meta, path, since=since))
    else:
        lines = store.head(meta.id).seq - since + 1  # the header, then each event
        with progress("exporting", as_json=as_json) as bar:
            if to_stdout:
                count = _to_stdout(lambda: _lines_of(bar.count(export_lines(store, meta, since), lines)))
            else:
                count = _write_whole(Path(output), lambda path: export_file(store, meta, path, since=since,
                                                                            progress=bar.callback))
    head = store.head(meta.id).seq
    if as_json:
        print_json({"stream": meta.name, "file": output, "events": count, "since": since, "format": fmt,
                    **({"for": for_player} if for_player else {})})
        return
    where = "standard output" if to_stdout else output
    text = f"exported {count} events of {meta.name} to {where}" + (f" (after seq {since})" if since else "")
    if for_player and since >= head:
        text += f"; {for_player} has everything already"
    if to_stdout:
        note(text)  # standard output holds the bundle
    else:
        echo(text)


def since_for_player(store: Any, meta: Any, player: str) -> int:
    """The last seq ``player`` holds of ``meta``: what they signed or acknowledged, and after a merge where
    their placed and superseded decisions were made (``trust/after_merge.py``)."""
    from combatlog.exchange.outbox import since_for
    from combatlog.trust.after_merge import held_by

    return since_for(store, meta, player, lambda m: held_by(store, m))


def _lines_of(lines: Iterable[bytes]) -> tuple[bytes, int]:
    data = [line + b"\n" for line in lines]
    return b"".join(data), len(data) - 1


def _text_of(render: Callable[..., tuple[str, int]], store: Any, meta: Any, since: int) -> tuple[bytes, int]:
    head_seq = store.head(meta.id).seq
    if since < 0 or since > head_seq:
        raise InvalidCommand(f"--since {since}: {meta.name} has events 1-{head_seq}")
    text, count = render(store, meta, since)
    return text.encode("utf-8"), count


def _to_stdout(make: Callable[[], tuple[bytes, int]]) -> int:
    """Everything is built before the first byte is written: a refused export writes nothing."""
    data, count = make()
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return count


def _write_whole(output: Path, write: Callable[[Path], int]) -> int:
    """Write ``output`` whole or not at all (combatlog.outfile.write_whole)."""
    from combatlog.outfile import write_whole

    return write_whole(output, write)


def import_(
    ctx: typer.Context,
    files: Optional[list[str]] = typer.Argument(
        None, metavar="[FILE]...", show_default=False,
        help="Export files, saved emails (.eml), pasted messages or forum posts holding armoured bundles; "
             "- reads standard input. Any order: a bundle that arrives before its predecessor is held."),
    inbox: Optional[Path] = typer.Option(None, "--inbox", metavar="DIR",
                                         help="Also every file in this folder (by name; not its sub-folders)."),
    name: str = typer.Option("", "--name", help="Local name for the combat, if its own name is taken here."),
    allow_rules_mismatch: bool = typer.Option(False, "--allow-rules-mismatch",
                                              help="Accept a log made under a different rules digest."),
    trust_new_key: bool = typer.Option(False, "--trust-new-key",
                                       help="Accept a combat that pins, for a name in your key home, another key "
                                            "(check it with that player out of band first)."),
    as_json: bool = json_option(),
) -> None:
    """Verify bundles, then append each whole or not at all (only what is new here); hold early ones.

    A bundle that rests on events this log does not have yet is held, and applied when they arrive
    (`status` lists what is held). Bundles are found in export files and in messages, quoted or not.

    A combat that pins, for a player whose key you keep, a different key is refused (impersonation)
    unless --trust-new-key; one that pins a key for you (--as) that you do not hold is warned about.

    Example: combatlog import duel-3.jsonl mail.eml --inbox ~/combat-mail
    """
    from combatlog.wiring import receive
    from combatlog.exchange.sources import STDIN, Budget, inbox_files, read_input
    from combatlog.trust.pins import check_pinned_keys

    inputs = list(files or [])
    if inputs.count(STDIN) > 1:
        raise InvalidCommand("- (standard input) can be read once")
    if inbox is not None:
        inputs += [str(p) for p in inbox_files(inbox)]
    if not inputs:
        raise InvalidCommand("nothing to import: give a file, - for standard input, or --inbox DIR"
                             if inbox is None else f"--inbox {inbox}: the folder is empty")
    budget = Budget()  # one for the whole import: what its bundles hold together is bounded
    incoming = [found for item in inputs for found in read_input(item, _stdin, budget)]
    st = app_state(ctx)
    store = st.store()
    key_warnings = [w for item in incoming if item.data is not None  # impersonation is refused here, whole
                    for w in check_pinned_keys(store, item.data, st.actor, trust_new_key=trust_new_key)]
    from combatlog.trust.players import signers_here

    with progress("verifying", as_json=as_json) as bar:
        outcomes = receive(store, incoming, name=name or None, strict_rules=not allow_rules_mismatch,
                           progress=bar.callback, signer_for=signers_here())
    refused = [o.error for o in outcomes if o.status == "refused"]
    for o in outcomes:  # every error names its bundle when there are several
        if o.error is not None and len(outcomes) > 1 and not o.error.where and o.where not in str(o.error):
            o.error.where = o.where
    for warning in key_warnings:
        note(f"warning: {warning}")
    if as_json:
        print_json({**_import_json(outcomes), "key_warnings": key_warnings})
    else:
        _import_text(outcomes)
    for error in refused[1:]:
        note(f"error[{error.code}]: {error}")
    if refused:  # the first refusal is reported last, with its exit status, as any error
        raise refused[0]  # type: ignore[misc]


def _stdin() -> Any:
    """Standard input as bytes (a test may have replaced it with a text stream)."""
    import io

    buffer = getattr(sys.stdin, "buffer", None)
    return buffer if buffer is not None else io.BytesIO(sys.stdin.read().encode("utf-8"))


def _import_text(outcomes: list[Any]) -> None:
    single = len(outcomes) == 1
    for o in outcomes:
        prefix = "" if single else f"{o.where}: "
        if o.status in ("applied", "up_to_date"):
            report = o.report
            if report.merge is not None:
                first, *rest = report.merge.lines()
                echo(f"{prefix}{report.name}: {first}")
                for line in rest:
                    echo(f"{prefix}{line}")
                echo(f"{prefix}verified the bundle: head seq {report.verify.head_seq}, "
                     f"{report.verify.head_hash[:16]}...; this log now ends at #{report.merge.head_seq}")
                continue
            if report.superseded:
                echo(f"{prefix}{report.name}: the bundle continues a branch superseded here: {report.superseded} "
                     "events kept as evidence (combatlog superseded " + report.name + ")")
            if report.up_to_date:
                echo(f"{prefix}{report.name}: already up to date (head seq {report.verify.head_seq})")
                continue
            for stream_name, count in report.appended.items():
                made = " (new here)" if stream_name in report.created else ""
                echo(f"{prefix}{stream_name}: appended {count} events{made}")
            echo(f"{prefix}verified: head seq {report.verify.head_seq}, {report.verify.head_hash[:16]}...")
        elif o.status in ("held", "still_held"):
            again = " (held already)" if o.status == "still_held" else ""
            echo(f"{prefix}{o.name} {o.seqs}: held{again} until {o.waiting} arrive (combatlog status {o.name})")
        elif o.status == "duplicate":
            echo(f"{prefix}{o.waiting}: skipped")


def _import_json(outcomes: list[Any]) -> dict[str, Any]:
    """One object whatever was imported: the fields of a single import (the report of the last bundle
    applied, with ``appended`` and ``created`` summed over all), and ``bundles``, one entry each."""
    import msgspec

    reports = [o.report for o in outcomes if o.report is not None]
    appended: dict[str, int] = {}
    created: list[str] = []
    for r in reports:
        for stream_name, count in r.appended.items():
            appended[stream_name] = appended.get(stream_name, 0) + count
        created += [c for c in r.created if c not in created]
    last = reports[-1] if reports else None
    named = next((o.name for o in outcomes if o.name), "")
    return {"stream": last.stream if last else "", "name": last.name if last else named, "appended": appended,
            "created": created, "up_to_date": not appended and all(o.status in ("up_to_date", "duplicate")
                                                                   for o in outcomes),
            "verify": msgspec.to_builtins(last.verify) if last else None,
            "held": [o.to_json() for o in outcomes if o.status in ("held", "still_held")],
            "merges": [msgspec.to_builtins(r.merge) for r in reports if r.merge is not None],
            "bundles": [o.to_json() for o in outcomes]}


def verify(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="An export file (- reads it from standard input), or a combat in this log."),
    allow_rules_mismatch: bool = typer.Option(False, "--allow-rules-mismatch",
                                              help="Report a different rules digest instead of failing."),
    as_json: bool = json_option(),
) -> None:
    """Check a file or a stored combat: every hash, the chain, the dice; exit non-zero on the first problem.

    Example: combatlog verify duel.jsonl
    """
    from combatlog.wiring import verify_file, verify_stream
    from combatlog.exchange.verify import report_text

    st = app_state(ctx)
    path = Path(target)
    strict = not allow_rules_mismatch
    if target == "-":
        with progress("verifying", as_json=as_json) as bar:
            report = _verify_stdin(st, strict, bar.callback)
        if as_json:
            import msgspec

            print_json(msgspec.to_builtins(report))
        else:
            echo(report_text(report))
        return
    if path.is_file() and _is_evidence(path):
        from combatlog.trust.evidence import evidence_text, verify_evidence

        proof = verify_evidence(path)
        if as_json:
            import msgspec

            print_json(msgspec.to_builtins(proof))
        else:
            echo(evidence_text(proof))
        return
    has_log = bool(st.db) or _default_db_exists()
    if path.is_file():
        store = st.store() if has_log else None
        with progress("verifying", as_json=as_json) as bar:
            report = verify_file(path, store, strict_rules=strict, progress=bar.callback)
    else:
        from combatlog.projections.streams import resolve_stream
        from combatlog.store import default_url

        if path.is_dir():
            raise InvalidCommand(f"{target} is a folder; verify an export file or a combat in this log")
        looks_like_a_file = "/" in target or os.sep in target or path.suffix.lower() in (".jsonl", ".json")
        if looks_like_a_file and not log_exists(st.db or default_url()):
            raise NotFound(f"no such file: {target}")
        store = st.store()
        try:
            meta = resolve_stream(store, target)
        except NotFound:
            if looks_like_a_file:
                raise NotFound(f"no such file: {target} (and no combat of that name in this log)") from None
            raise
        with progress("verifying", as_json=as_json) as bar:
            report = verify_stream(store, meta, strict_rules=strict, progress=bar.callback)
    if as_json:
        import msgspec

        print_json(msgspec.to_builtins(report))
        return
    echo(report_text(report))


def _verify_stdin(st: Any, strict: bool, on_progress: Any = None) -> Any:
    """``verify -``: an export piped in, read up to the size a file may have (an equivocation proof
    is verified from a file)."""
    from combatlog.exchange.bundle import MAX_FILE_BYTES
    from combatlog.wiring import verify_file

    data = _stdin().read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise VerificationFailed(f"more than {MAX_FILE_BYTES} bytes: a combat file is at most {MAX_FILE_BYTES} bytes",
                                 where="standard input")
    if not data:
        raise VerificationFailed("nothing on standard input (pipe an export into `combatlog verify -`)",
                                 where="standard input")
    store = st.store() if (st.db or _default_db_exists()) else None
    return verify_file(Path("standard input"), store, strict_rules=strict, progress=on_progress, data=data)


def _is_evidence(path: Path) -> bool:
    from combatlog.trust.evidence import is_evidence

    try:
        with open(path, "rb") as f:
            return is_evidence(f.readline(4096))
    except OSError:
        return False  # verify_file says why it cannot read it


def _default_db_exists() -> bool:
    from combatlog.store import default_url

    return Path(default_url()).exists()



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
