"""``export``, ``import``, ``verify``: combats as files that travel."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import typer

from combatlog.cli.common import app_state, echo, json_option, log_exists, note, print_json, stream_argument
from combatlog.errors import InvalidCommand, NotFound


def _progress(label: str):  # type: ignore[no-untyped-def]
    """A one-line progress counter on stderr, only on a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        of = f"/{total}" if total else ""
        sys.stderr.write(f"\r{label}: {done}{of} events")
        sys.stderr.flush()

    return show


def export(
    ctx: typer.Context,
    stream: str = stream_argument(),
    output: Path = typer.Option(..., "-o", "--output", help="The file to write (JSON Lines)."),
    since: int = typer.Option(0, "--since", help="Only events after this seq (an incremental bundle)."),
    fmt: str = typer.Option("jsonl", "--format", help="jsonl (the authority) or text (for email and forums)."),
    as_json: bool = json_option(),
) -> None:
    """Write a combat to a file that other players verify and import.

    Example: combatlog export duel -o duel.jsonl
    """
    from combatlog.projections.streams import resolve_stream
    from combatlog.exchange.bundle import export_file

    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    if fmt == "text":
        from combatlog.trust.text_export import export_text  # the trust layer's readable rendering

        count = _write_whole(output, lambda path: export_text(store, meta, path, since=since))
    elif fmt == "jsonl":
        count = _write_whole(output, lambda path: export_file(store, meta, path, since=since))
    else:
        raise InvalidCommand(f"--format {fmt!r}: choose jsonl or text")
    if as_json:
        print_json({"stream": meta.name, "file": str(output), "events": count, "since": since, "format": fmt})
        return
    echo(f"exported {count} events of {meta.name} to {output}" + (f" (after seq {since})" if since else ""))


def _write_whole(output: Path, write: Callable[[Path], int]) -> int:
    """Write ``output`` whole or not at all: into a file beside it, renamed over it once complete, so
    that a refused export (a missing folder, a bad --since, a full disk) leaves no file and no
    half-overwritten one. A device or pipe that already exists (-o /dev/stdout) is written directly."""
    if output.is_dir():
        raise InvalidCommand(f"-o {output}: is a folder; name a file in it, e.g. {output / 'combat.jsonl'}")
    if output.exists() and not output.is_file():
        return write(output)
    if output.is_symlink():
        output = output.resolve()
    folder = output.parent
    if not folder.is_dir():
        raise NotFound(f"-o {output}: no folder {folder} (create it first)")
    part = folder / f".{output.name}.{os.getpid()}.part"
    try:
        count = write(part)
        os.replace(part, output)
    except OSError as exc:
        raise InvalidCommand(f"-o {output}: cannot write: {exc.strerror or exc}") from None
    finally:
        part.unlink(missing_ok=True)
    return count


def import_(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="An export or bundle (JSON Lines)."),
    name: str = typer.Option("", "--name", help="Local name for the combat, if its own name is taken here."),
    allow_rules_mismatch: bool = typer.Option(False, "--allow-rules-mismatch",
                                              help="Accept a log made under a different rules digest."),
    trust_new_key: bool = typer.Option(False, "--trust-new-key",
                                       help="Accept a combat that pins, for a name in your key home, another key "
                                            "(check it with that player out of band first)."),
    as_json: bool = json_option(),
) -> None:
    """Verify a file, then append it whole or not at all (only what is new here).

    A combat that pins, for a player whose key you keep, a different key is refused (impersonation)
    unless --trust-new-key; one that pins a key for you (--as) that you do not hold is warned about.

    Example: combatlog import duel.jsonl
    """
    from combatlog.exchange.bundle import import_file
    from combatlog.trust.pins import check_pinned_keys

    st = app_state(ctx)
    store = st.store()
    key_warnings = check_pinned_keys(store, file, st.actor, trust_new_key=trust_new_key)
    report = import_file(store, file, name=name or None, strict_rules=not allow_rules_mismatch,
                         progress=_progress("verifying"))
    for warning in key_warnings:
        note(f"warning: {warning}")
    if as_json:
        import msgspec

        print_json({**msgspec.to_builtins(report), "key_warnings": key_warnings})
        return
    if report.up_to_date:
        echo(f"{report.name}: already up to date (head seq {report.verify.head_seq})")
        return
    for stream_name, count in report.appended.items():
        made = " (new here)" if stream_name in report.created else ""
        echo(f"{stream_name}: appended {count} events{made}")
    echo(f"verified: head seq {report.verify.head_seq}, {report.verify.head_hash[:16]}...")


def verify(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="An export file, or a combat in this log."),
    allow_rules_mismatch: bool = typer.Option(False, "--allow-rules-mismatch",
                                              help="Report a different rules digest instead of failing."),
    as_json: bool = json_option(),
) -> None:
    """Check a file or a stored combat: every hash, the chain, the dice; exit non-zero on the first problem.

    Example: combatlog verify duel.jsonl
    """
    from combatlog.exchange.bundle import verify_file, verify_stream
    from combatlog.exchange.verify import report_text

    st = app_state(ctx)
    path = Path(target)
    strict = not allow_rules_mismatch
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
        report = verify_file(path, store, strict_rules=strict, progress=_progress("verifying"))
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
        report = verify_stream(store, meta, strict_rules=strict, progress=_progress("verifying"))
    if sys.stderr.isatty():
        note("")
    if as_json:
        import msgspec

        print_json(msgspec.to_builtins(report))
        return
    echo(report_text(report))


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

