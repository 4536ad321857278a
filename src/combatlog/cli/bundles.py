"""What ``export`` and ``import`` do, without click or typer: run by their typer commands (cli/exchange.py) and by
the fast path (cli/fast.py), which takes their plainest command lines (issue 22: click and typer were about a
quarter of an export's CPU, and a game by mail is mostly exports and imports)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from combatlog.cli.output import echo, note, print_json
from combatlog.cli.progress import progress
from combatlog.cli.state import AppState
from combatlog.errors import InvalidCommand, VerificationFailed


def run_export(st: AppState, stream: str, output: str, since: int | None = None, for_player: str = "",
               fmt: str = "jsonl", as_json: bool = False) -> None:
    """``combatlog export STREAM -o OUTPUT``."""
    from combatlog.projections.streams import resolve_stream
    from combatlog.exchange.bundle import export_file, export_lines

    store = st.store()
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


def run_import(st: AppState, files: list[str] | None = None, inbox: Path | None = None, name: str = "",
               allow_rules_mismatch: bool = False, trust_new_key: bool = False, as_json: bool = False) -> None:
    """``combatlog import FILE...``."""
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
    store = st.store()
    key_warnings = [w for item in incoming if item.data is not None  # impersonation is refused here, whole
                    for w in check_pinned_keys(store, item.data, st.actor, trust_new_key=trust_new_key,
                                                where=item.where)]
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
            if report.merge is not None and report.up_to_date:  # a crossing merged here before: nothing new
                echo(f"{prefix}{report.name}: already up to date: the bundle's events (to #{report.verify.head_seq}) "
                     f"were merged here before; this log ends at #{report.head_seq}")
                continue
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
                echo(f"{prefix}{report.name}: already up to date (the bundle ends at #{report.verify.head_seq}, "
                     f"this log at #{report.head_seq})")
                continue
            for stream_name, count in report.appended.items():
                made = " (new here)" if stream_name in report.created else ""
                echo(f"{prefix}{stream_name}: appended {count} events{made}")
            echo(f"{prefix}verified: head seq {report.verify.head_seq}, {report.verify.head_hash[:16]}...")
            v = report.verify
            if v.rules_revision or v.state_differs_at:  # the rules it is read under, and where they differ
                for note in v.notes:
                    if note.startswith(("the log was begun under", "today's", "under today's")) \
                            or "this build folds another state" in note:
                        echo(f"{prefix}note: {note}")
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


def run_verify(st: AppState, target: str, allow_rules_mismatch: bool = False, as_json: bool = False) -> None:
    """``combatlog verify TARGET`` (cli/exchange.py's command and the fast path, cli/fast.py): an export file
    (``-``: standard input), an equivocation proof, or a combat of this log; the report, or the first problem
    as an error."""
    import os

    from combatlog.cli.state import log_exists
    from combatlog.errors import NotFound
    from combatlog.exchange.verify import report_text
    from combatlog.wiring import verify_file, verify_stream

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
