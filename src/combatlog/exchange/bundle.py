# Over 500 lines on purpose: the file format's export, header checks and all-or-nothing import share one bundle model; split, each half would re-read the other's header rules.
"""Export, import and verification of combat files (JSON Lines).

A file is a header line, then one event envelope per line in its canonical
bytes. A fork's file carries its parent's prefix too, so it stands alone. With
``since`` it is an incremental bundle: only the events after that seq, and the
header names the hash they chain to.

Import verifies everything first, then appends all or nothing: the same file
twice changes nothing, a longer version of a log appends only the new tail,
and a log that diverges from ours is refused with the first differing seq and
both hashes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from combatlog import ENGINE_VERSION
from combatlog.commands.record import UNRECORDED_RULE, records_commands, unrecorded_problem
from combatlog.errors import Diverged, IllegalCommand, InvalidCommand, NotFound, VerificationFailed
from combatlog.events.canonical import canonical, is_canonical, line_size_problem, sha256_hex
from combatlog.exchange.stored import fed
from combatlog.exchange.verify import ChainVerifier, Segment, VerifyReport, segments_of  # noqa: F401  (re-exported)
from combatlog.events.envelope import Recorded, parse_recorded_at
from combatlog.names import is_stream_id, name_problem
from combatlog.projections.fold import MAX_FORK_DEPTH, SNAPSHOT_EVERY, Folded, history, lineage, snapshot_key, state_at
from combatlog.rulesets import KNOWN, load_ruleset
from combatlog.store.base import EventStore, ImportBatch, NewRow, StreamMeta
from combatlog.ports import Wiring

if TYPE_CHECKING:  # merging is imported by the imports that merge (``import_lines``), not by every export
    from combatlog.exchange.merge import MergeReport, SignerFor

FORMAT = "combatlog-export"
FORMAT_VERSION = 1
Progress = Callable[[int, int], None]
Prior = Callable[[], Iterable[Recorded]]



class Header(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    format: str
    version: int
    stream: str
    name: str
    ruleset: str
    ruleset_version: str
    rules_digest: str
    engine_version: str
    segments: list[Segment]
    since: int = 0
    base_hash: str = ""
    count: int
    head_seq: int
    head_hash: str
    check: str = ""  # SHA-256 of this header's canonical form without ``check``


class ImportReport(msgspec.Struct, kw_only=True):
    stream: str
    name: str
    appended: dict[str, int]  # stream name -> events appended
    created: list[str]
    up_to_date: bool
    verify: VerifyReport
    merge: MergeReport | None = None  # the bundle and this log continued the same event differently
    superseded: int = 0  # events of a branch this log had already superseded, kept as evidence
    head_seq: int = 0  # this log's head (of the bundle's last segment) after the import


def _header_check(header: Header | dict[str, object]) -> str:
    """SHA-256 over the header's JSON object without ``check``, exactly as written.

    Computed on the generic object (not a decoded struct), so that a renamed or
    added key is caught even where a decoder would fall back to a default.
    """
    fields = dict(msgspec.to_builtins(header)) if isinstance(header, Header) else dict(header)
    fields.pop("check", None)
    return sha256_hex(b"combatlog-header/v1\n", canonical(fields))


def check_header(header: Header, where: str) -> None:
    """Nothing in a header is trusted: its shape must be one our own export could write.

    The events are checked against it afterwards (the genesis and each fork event
    must name the segment they open), so a header that names a parent, a name or a
    ruleset its events do not is refused before anything is stored.
    """
    def bad(message: str) -> None:
        raise VerificationFailed(f"the header {message}", where=where)

    if header.ruleset not in KNOWN:
        bad(f"names ruleset {header.ruleset!r}, which this combatlog does not know ({', '.join(KNOWN)})")
    segs = header.segments
    if not segs or len(segs) > MAX_FORK_DEPTH:
        bad(f"has {len(segs)} segments (1 to {MAX_FORK_DEPTH})")
    if segs[-1].id != header.stream or segs[-1].name != header.name:
        bad("does not end with the stream it names")
    if len({seg.id for seg in segs}) != len(segs):
        bad("names one stream twice in its segments (a fork cannot be its own ancestor)")
    for i, seg in enumerate(segs):
        if not is_stream_id(seg.id):
            bad(f"segment {i + 1}: {seg.id!r} is not a stream id")
        problem = name_problem(seg.name)
        if problem:
            bad(f"segment {i + 1}: combat name {seg.name!r}: {problem}")
        if seg.ruleset != header.ruleset:
            bad(f"segment {i + 1} names ruleset {seg.ruleset!r}, the header {header.ruleset!r}")
        if seg.created_at and parse_recorded_at(seg.created_at) is None:
            bad(f"segment {i + 1}: created_at {seg.created_at!r} is not an RFC 3339 UTC time")
        if i == 0:
            if seg.parent is not None or seg.fork_seq != 0:
                bad("starts with a fork: the first segment must be the combat's own genesis")
        elif seg.parent != segs[i - 1].id or seg.fork_seq < 1:
            bad(f"segment {i + 1} ({seg.name}) does not fork from the segment before it")
        later = [s.fork_seq for s in segs[i + 1:]]
        if seg.to_seq != (min(later) if later else None):
            bad(f"segment {i + 1} ({seg.name}) ends at seq {seg.to_seq}, its forks say {min(later) if later else None}")
    if header.since < 0 or header.head_seq < header.since or header.count != header.head_seq - header.since:
        bad(f"counts do not add up (since {header.since}, count {header.count}, head {header.head_seq})")
    if bool(header.since) != bool(header.base_hash) or not _is_hash(header.head_hash) or (
            header.base_hash and not _is_hash(header.base_hash)):
        bad("has a malformed hash")


def _is_hash(value: str) -> bool:
    return len(value) == 64 and all(c in "0123456789abcdef" for c in value)


def export_lines(store: EventStore, meta: StreamMeta, since: int = 0, until: int | None = None) -> Iterable[bytes]:
    """The header and event lines of ``meta``'s bundle: the events after ``since`` up to ``until`` (the head
    when None; a push sends a long backlog in parts, each such a prefix of it)."""
    head = state_at(store, meta, until)
    if since < 0 or since > head.core.head_seq:
        raise InvalidCommand(f"--since {since}: {meta.name} has events 1-{head.core.head_seq}")
    base_hash = ""
    if since:
        base_hash = state_at(store, meta, since).core.head_hash
    genesis = head.core.genesis
    assert genesis is not None
    header = Header(
        format=FORMAT, version=FORMAT_VERSION, stream=meta.id, name=meta.name, ruleset=meta.ruleset,
        ruleset_version=genesis.ruleset_version, rules_digest=genesis.rules_digest,
        engine_version=ENGINE_VERSION, segments=segments_of(store, meta), since=since, base_hash=base_hash,
        count=head.core.head_seq - since, head_seq=head.core.head_seq, head_hash=head.core.head_hash,
    )
    yield canonical(msgspec.structs.replace(header, check=_header_check(header)))
    for seg, low, high in lineage(store, meta):
        lo = max(low, since + 1)
        # up to the head the header announces: another writer (a second server process on the same
        # PostgreSQL database) may append between the reads, and the bundle must stay as announced
        high = head.core.head_seq if high is None else min(high, head.core.head_seq)
        if lo > high:
            continue
        for row in store.read_stream(seg.id, lo, high):
            yield row.body


def export_file(store: EventStore, meta: StreamMeta, path: Path, since: int = 0,
                progress: Callable[[int, int], None] | None = None) -> int:
    """Write the bundle to ``path``; returns the number of events. ``progress(done, total)`` is told every
    1,000 lines (the header counts as one)."""
    count = 0
    total = store.head(meta.id).seq - since + 1 if progress is not None else 0
    with open(path, "wb") as out:
        for line in export_lines(store, meta, since):
            out.write(line + b"\n")
            count += 1
            if progress is not None and (count % 1000 == 0 or count == total):
                progress(count, total)
    return count - 1


MAX_FILE_BYTES = 1 << 30  # a million-event combat exports to ~0.5 GiB


def read_file(path: Path) -> tuple[Header, list[bytes]]:
    return read_bytes(read_limited(path), str(path))


def read_limited(path: Path, limit: int = MAX_FILE_BYTES, what: str = "a combat file") -> bytes:
    """A file's bytes, refused before reading when it is larger than ``limit``."""
    try:
        if path.is_dir():
            raise NotFound(f"{path} is a folder, not a combat file")
        size = path.stat().st_size
        if size > limit:
            raise VerificationFailed(f"{size} bytes: {what} is at most {limit} bytes", where=str(path))
        with open(path, "rb") as f:
            # the file may have grown since stat(); read() allocates what it is asked for up front
            data = f.read(min(size, limit) + 1)
            if len(data) > size and len(data) <= limit:
                data += f.read(limit + 1 - len(data))
    except OSError as exc:
        raise NotFound(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise VerificationFailed(f"more than {limit} bytes: {what} is at most {limit} bytes", where=str(path))
    return data


SQLITE_MAGIC = b"SQLite format 3\x00"


def what_else(data: bytes, where: str) -> str:
    """Why ``data`` is plainly not an export, before its shape is read ("" when it may be one): a
    SQLite log given where an export was expected, or bytes that are not a JSON header line."""
    if data.startswith(SQLITE_MAGIC):
        db = "FILE" if " " in where else where  # standard input has no file name to give
        return (f"this is a SQLite log, not an export: verify a combat stored in it with "
                f"`combatlog --db {db} verify NAME` (`combatlog --db {db} list` names them)")
    if not data.startswith(b"{") or b"\x00" in data[:4096]:
        return "not a combatlog export (an export is JSON Lines text starting with its header line)"
    return ""


def read_bytes(data: bytes, where: str) -> tuple[Header, list[bytes]]:
    """The header and event lines of a bundle, its shape checked (the events are verified later)."""
    if len(data) > MAX_FILE_BYTES:
        raise VerificationFailed(f"{len(data)} bytes: a combat file is at most {MAX_FILE_BYTES} bytes", where=where)
    not_export = what_else(data, where)
    if not_export:
        raise VerificationFailed(not_export, where=where)
    if not data.endswith(b"\n"):
        raise VerificationFailed("the file does not end with a newline (truncated?)", where=where)
    lines = data[:-1].split(b"\n")
    first = f"{where}:1"
    if not is_canonical(lines[0]):
        raise VerificationFailed("the header is not canonical JSON (altered, or not a combatlog export)", where=first)
    try:
        header = msgspec.json.decode(lines[0], type=Header)
    except msgspec.DecodeError as exc:
        raise VerificationFailed(f"not a combatlog export header: {exc}", where=first) from None
    if header.format != FORMAT or header.version != FORMAT_VERSION:
        raise VerificationFailed(f"format {header.format} v{header.version} is not {FORMAT} v{FORMAT_VERSION}", where=first)
    if header.check != _header_check(msgspec.json.decode(lines[0])):
        raise VerificationFailed("the header's check digest does not match (header altered)", where=first)
    if len(lines) - 1 != header.count:
        raise VerificationFailed(f"the header announces {header.count} events, the file holds {len(lines) - 1} "
                                 "(events dropped or added)", where=f"{where}:{len(lines)}")
    check_header(header, first)
    return header, lines[1:]


class Waiting(NotFound):
    """An incremental bundle that rests on events this log does not have yet (its predecessor)."""

    def __init__(self, message: str, *, waits_on: StreamMeta, have: int, need: int, missing: str,
                 where: str | None = None) -> None:
        super().__init__(message, where=where)
        self.waits_on, self.have, self.need, self.missing = waits_on, have, need, missing


def base_stream(store: EventStore, header: Header, where: str) -> StreamMeta | None:
    """The local stream whose history up to ``header.since`` the bundle continues (None for a whole export).

    For a fork's bundle that is the fork itself when it is here, else the parent it forks from: a
    bundle of a fork whose parent's prefix the recipient has need not repeat that prefix, and it is
    verified against the recipient's own copy of the parent. Raises ``Waiting`` when the combat is
    here but lacks the events up to ``since``, and ``NotFound`` when the combat is not here at all.
    """
    if header.since == 0:
        return None
    segs = header.segments
    root = store.get_stream(segs[0].id)
    if root is None:
        same_name = next((m for m in store.list_streams() if m.name == segs[0].name), None)
        other = (f"; the combat named {same_name.name} here is another one (id {same_name.id}, the bundle's "
                 f"{segs[0].id})") if same_name is not None else ""
        raise NotFound(f"{where} is an incremental bundle from seq {header.since} of {header.name}, "
                       f"which this log does not have; import the full export first{other}")
    if root.ruleset != header.ruleset:
        raise VerificationFailed(f"the bundle says {header.name} is a {header.ruleset} combat; here it is "
                                 f"{root.ruleset}", where=where)
    # the segment holding seq ``since``; any later segment here shares that history up to it
    j = next(i for i, seg in enumerate(segs) if seg.to_seq is None or header.since <= seg.to_seq)
    local = [m for m in (root if i == 0 else store.get_stream(seg.id) for i, seg in enumerate(segs)) if m is not None]
    for meta in reversed(local):
        if any(seg.id == meta.id for seg in segs[j:]):
            have = store.head(meta.id).seq
            if have >= header.since:
                return meta
            missing = f"#{have + 1}-#{header.since}" if have + 1 < header.since else f"#{header.since}"
            raise Waiting(f"the bundle rests on #{header.since} of {meta.name}, and this log ends at #{have}: "
                          f"waiting for {missing}", waits_on=meta, have=have, need=header.since,
                          missing=f"{missing} of {meta.name}", where=where)
    nearest = local[-1]  # the fork the bundle continues is not here yet: its earlier bundle is missing
    missing = segs[j]
    have = min(store.head(nearest.id).seq, missing.fork_seq)
    span = f"#{missing.fork_seq + 1}-#{header.since}" if missing.fork_seq + 1 < header.since else f"#{header.since}"
    raise Waiting(f"the bundle rests on #{header.since} of {missing.name}, a fork of {nearest.name} this log "
                  f"does not have yet: waiting for its events {span}", waits_on=nearest, have=have,
                  need=header.since, missing=f"{span} of the fork {missing.name}", where=where)


def _base_from_store(store: EventStore, header: Header, where: str) -> tuple[Folded | None, StreamMeta | None]:
    meta = base_stream(store, header, where)
    if meta is None:
        return None, None
    base = state_at(store, meta, header.since)
    if base.core.head_hash != header.base_hash:
        raise Diverged(header.name, header.since, base.core.head_hash, header.base_hash, hint=(
            f"the bundle starts after #{header.since}, and this log holds another #{header.since}: two players "
            "answered the same head, and the events where they part are not in the bundle. Ask its sender for "
            f"a bundle from the last event you both had (combatlog export {header.name} --for YOU, or --since "
            "that seq): it merges"))
    genesis = base.core.genesis
    if genesis is not None and not records_commands(genesis.engine_version):
        raise IllegalCommand(f"{where}: nothing can be added to {meta.name}: {unrecorded_problem(genesis)}",
                             rule=UNRECORDED_RULE)
    return base, meta


def _prior(store: EventStore, meta: StreamMeta | None, since: int) -> Prior | None:
    """The events before an incremental bundle, for checks that need the whole history."""
    if meta is None:
        return None
    return lambda: history(store, meta, 1, since)


def verify_lines(header: Header, lines: list[bytes], path: Path | str, *, base: Folded | None,
                 strict_rules: bool = True, progress: Progress | None = None,
                 prior: Prior | None = None, wiring: Wiring,
                 verifier: ChainVerifier | None = None) -> VerifyReport:
    """``verifier``: one already at the bundle's base (``ChainVerifier.continuing``), instead of a new one."""
    total = len(lines)
    verifier = verifier or ChainVerifier(header.segments, base=base, strict_rules=strict_rules, prior=prior,
                                         wiring=wiring)
    for i, line in enumerate(lines, start=2):
        verifier.feed(line, f"{path}:{i}")
        if progress is not None and i % 1000 == 0:
            progress(i - 1, total)
    report = verifier.finish(f"{path}:{total + 1}")
    return _ends_as_announced(report, header, path)


def _ends_as_announced(report: VerifyReport, header: Header, path: Path | str) -> VerifyReport:
    if report.head_seq != header.head_seq or report.head_hash != header.head_hash:
        raise VerificationFailed(f"the events end at seq {report.head_seq} ({report.head_hash[:12]}...), the header "
                                 f"announces {header.head_seq} ({header.head_hash[:12]}...)", where=f"{path}")
    return report


def verify_file(path: Path, store: EventStore | None = None, *, strict_rules: bool = True,
                progress: Progress | None = None, wiring: Wiring,
                data: bytes | None = None) -> VerifyReport:
    """Verify an export file, or ``data`` already read (standard input) named by ``path``."""
    header, lines = read_file(path) if data is None else read_bytes(data, str(path))
    base, base_meta = _base_from_store(store, header, str(path)) if store is not None else (None, None)
    if header.since and base is None:
        raise InvalidCommand(f"{path} is an incremental bundle; verify it against a log with --db")
    report = verify_lines(header, lines, path, base=base, strict_rules=strict_rules, progress=progress,
                          prior=_prior(store, base_meta, header.since) if store is not None else None,
                          wiring=wiring)
    if store is not None:
        _compare_with_local(store, lines, path, wiring)
    return report


def _compare_with_local(store: EventStore, lines: list[bytes], path: Path, wiring: Wiring) -> None:
    """A file that is sound by itself may still differ from the log here: say so (and who equivocated)."""
    for line in lines:
        env = msgspec.json.decode(line, type=_Slim)
        local = store.get_stream(env.stream)
        if local is None:
            continue
        rows = store.read_stream(env.stream, env.seq, env.seq)
        if rows and rows[0].hash != env.hash:
            for check in wiring.divergence_checks:  # equivocation: one author signed both
                check(store, local, env.seq, rows[0].body, line, path)
            raise Diverged(local.name, env.seq, rows[0].hash, env.hash)


def verify_stream(store: EventStore, meta: StreamMeta, *, strict_rules: bool = True,
                  progress: Progress | None = None, wiring: Wiring) -> VerifyReport:
    """Verify ``meta``'s history as stored, and every snapshot this build keeps of it: each must be the fold of
    the events up to its seq (the views of a long log start at one: ``projections/fold.py``'s docstring)."""
    verifier = ChainVerifier(segments_of(store, meta), strict_rules=strict_rules, wiring=wiring)
    for _event in fed(verifier, store, meta, snapshots=True):
        if progress is not None and verifier.count % 1000 == 0:
            progress(verifier.count, 0)
    return verifier.finish(meta.name)


def import_file(store: EventStore, path: Path, *, name: str | None = None, strict_rules: bool = True,
                progress: Progress | None = None, wiring: Wiring,
                signer_for: SignerFor | None = None, merge_branches: bool = True) -> ImportReport:
    header, lines = read_file(path)
    return import_bundle(store, header, lines, str(path), proof=path, name=name, strict_rules=strict_rules,
                         progress=progress, wiring=wiring, signer_for=signer_for, merge_branches=merge_branches)


def import_bundle(store: EventStore, header: Header, lines: list[bytes], where: str, *, proof: Path,
                  name: str | None = None, strict_rules: bool = True, progress: Progress | None = None,
                  wiring: Wiring, signer_for: SignerFor | None = None,
                  merge_branches: bool = True, prefer_theirs: bool = False,
                  kept: KeptVerifiers | None = None, then: Callable[[Any], None] | None = None) -> ImportReport:
    """Verify a bundle read by ``read_bytes``, then append what is new here, all or nothing.

    ``where`` names it in errors (a file, or a block of a message); an equivocation proof is written
    beside ``proof``. Raises ``Waiting`` when it rests on events this log does not have yet.

    A bundle that continues an event of this log differently (two players answered the same email)
    is merged (``exchange/merge.py``) unless ``merge_branches`` is False: the same branch is kept on
    every machine, and the other's decisions are re-applied here for the actors ``signer_for`` can
    sign for. One that continues a branch this log has already superseded is kept as evidence.

    ``kept`` (the server): the verifier of each combat's last import, by stream id. A bundle that continues
    exactly where it ended is verified by it (``ChainVerifier.continuing``): the new events only, without
    folding the log again; after an import that appended, its verifier is kept for the next one.

    ``then`` (the server: its request's nonce) runs in the transaction that appends the new events, if there
    are any (``EventStore.import_batches``); it is not run at all when nothing is appended, or on a merge.
    """
    from combatlog.exchange.merge import check_against_superseded, keep_lost_branch, merge

    lost = _continues_superseded(store, header) if merge_branches else None
    if lost is not None:
        _check_lost_branch(store, lost, header, lines, where)
        kept = keep_lost_branch(store, lost, [_new_row(line) for line in lines])
        return ImportReport(stream=lost.id, name=lost.name, appended={}, created=[], up_to_date=True,
                            verify=_verify_here(store, lost, wiring), superseded=kept,
                            head_seq=store.head(lost.id).seq)
    before = _kept_at(kept, header, strict_rules, wiring) if kept is not None else None
    if before is not None:  # the base is where the last import here ended: no fold of the log
        base, base_meta = before.folded, base_stream(store, header, where)
        verifier = ChainVerifier.continuing(before, header.segments, _prior(store, base_meta, header.since))
    else:
        base, base_meta = _base_from_store(store, header, where)
        verifier = ChainVerifier(header.segments, base=base, strict_rules=strict_rules,
                                 prior=_prior(store, base_meta, header.since), wiring=wiring)
    if len(header.segments) == 1:  # (a fork's history holds its parent's events: its snapshots are the fork's own)
        verifier.snapshot_every = SNAPSHOT_EVERY
    report = verify_lines(header, lines, where, base=base, progress=progress, verifier=verifier, wiring=wiring)
    load_ruleset(header.ruleset)  # payload types registered for the comparisons below
    batches: list[ImportBatch] = []
    appended: dict[str, int] = {}
    created: list[str] = []
    by_segment: dict[str, list[tuple[int, str, bytes, str, str]]] = {}
    for line in lines:
        env = msgspec.json.decode(line, type=_Slim)
        by_segment.setdefault(env.stream, []).append((env.seq, env.hash, line, env.type, env.command_id))
    for seg in header.segments:
        rows = by_segment.get(seg.id, [])
        local = store.get_stream(seg.id)
        if local is None:
            if not rows:
                raise NotFound(f"{where}: stream {seg.name} ({seg.id}) is neither here nor in the file")
            first = rows[0][0]
            if first != (seg.fork_seq + 1 if seg.parent else 1):
                raise NotFound(f"{where}: {seg.name} starts at seq {first}, but this log lacks its earlier events")
            is_last = seg is header.segments[-1]
            meta = StreamMeta(id=seg.id, name=(name if (name and is_last) else seg.name), ruleset=seg.ruleset,
                              created_at=seg.created_at, parent=seg.parent, fork_seq=seg.fork_seq)
            _name_free(store, meta, where, renamable=is_last)
            batches.append(ImportBatch(stream_id=seg.id, expected_version=0, create=meta,
                                       rows=[NewRow(s, t, h, b, c) for s, h, b, t, c in rows]))
            appended[meta.name] = len(rows)
            created.append(meta.name)
            continue
        if (local.parent, local.fork_seq, local.ruleset) != (seg.parent, seg.fork_seq, seg.ruleset):
            raise Diverged(seg.name, seg.fork_seq + 1, f"fork of {local.parent}@{local.fork_seq}",
                           f"fork of {seg.parent}@{seg.fork_seq}")
        local_head = store.head(seg.id).seq
        if rows and rows[0][0] <= local_head:  # (events the bundle holds and this log has too: compared)
            ours = {r.seq: r for r in store.read_stream(seg.id, rows[0][0], min(rows[-1][0], local_head))}
            for seq, theirs, body, _t, _c in rows:
                if seq in ours and ours[seq].hash != theirs:
                    for check in wiring.divergence_checks:
                        check(store, local, seq, ours[seq].body, body, proof)
                    if not merge_branches or seg is not header.segments[-1] or batches or not _pinned(store, local):
                        raise Diverged(local.name, seq, ours[seq].hash, theirs)
                    branch = [NewRow(s, t, h, b, c) for s, h, b, t, c in rows if s >= seq]
                    result = merge(store, local, seq - 1, branch, signer_for=signer_for, wiring=wiring, where=where,
                                   prefer_theirs=prefer_theirs, proof=proof)
                    changed = result.kept == "theirs" or result.superseded or any(
                        d.outcome in ("reapplied", "placed") for d in result.decisions)
                    return ImportReport(stream=local.id, name=local.name, appended={local.name: len(branch)}
                                        if result.kept == "theirs" else {}, created=[], up_to_date=not changed,
                                        verify=report, merge=result, head_seq=result.head_seq)
        tail = [r for r in rows if r[0] > local_head]
        if tail and merge_branches:
            check_against_superseded(store, local, [r[2] for r in tail])
        if tail:
            if tail[0][0] != local_head + 1:
                raise NotFound(f"{where}: {local.name} continues at seq {tail[0][0]} but this log ends at {local_head}")
            batches.append(ImportBatch(stream_id=seg.id, expected_version=local_head,
                                       rows=[NewRow(s, t, h, b, c) for s, h, b, t, c in tail]))
            appended[local.name] = len(tail)
    if batches:
        store.import_batches(batches, then=then)
        if verifier.snapshots:  # states the verify folded anyway, for state_at and the views to start at
            key = snapshot_key(verifier.ruleset)
            for seq, blob in verifier.snapshots:
                store.save_snapshot(header.segments[0].id, seq, key, blob)
        if kept is not None and len(header.segments) == 1:
            _keep(kept, header.stream, verifier)
    last = header.segments[-1]
    final = store.get_stream(last.id)
    return ImportReport(stream=last.id, name=final.name if final else last.name, appended=appended,
                        created=created, up_to_date=not batches, verify=report,
                        head_seq=store.head(last.id).seq if final else 0)


# The server's verifiers kept between imports: stream id -> the verifier of its last import (at its head).
KeptVerifiers = dict[str, ChainVerifier]
MAX_KEPT = 256  # combats whose verifier is kept (the least recently appended to is dropped first)


def _kept_at(kept: KeptVerifiers, header: Header, strict_rules: bool, wiring: Wiring) -> ChainVerifier | None:
    """The kept verifier of the bundle's combat if it ended exactly at the bundle's base (taken out: it is
    consumed, and put back only once this import has appended)."""
    before = kept.pop(header.stream, None)
    if before is None or not header.since or len(header.segments) != 1:
        return None
    core = before.folded.core
    if (core.stream, core.head_seq, core.head_hash) != (header.stream, header.since, header.base_hash) \
            or before.strict_rules != strict_rules or before.wiring is not wiring:
        return None
    return before


def _keep(kept: KeptVerifiers, stream_id: str, verifier: ChainVerifier) -> None:
    kept[stream_id] = verifier
    while len(kept) > MAX_KEPT:
        kept.pop(next(iter(kept)))


def _pinned(store: EventStore, meta: StreamMeta) -> bool:
    """Merges are for combats played at a distance (pinned players); elsewhere a divergence is refused."""
    genesis = state_at(store, meta, 1).core.genesis
    return genesis is not None and bool(genesis.players)


def _continues_superseded(store: EventStore, header: Header) -> StreamMeta | None:
    """The local stream when an incremental bundle rests on an event this log superseded in a merge.

    Cheap on the common path: the superseded table is looked at first (almost always empty), and the
    log is folded only when the bundle's base is one of its events."""
    if not header.since:
        return None
    meta = store.get_stream(header.stream)
    if meta is None or not any(r.hash == header.base_hash for r in store.superseded(meta.id)):
        return None
    if store.head(meta.id).seq >= header.since and state_at(store, meta, header.since).core.head_hash \
            == header.base_hash:
        return None  # superseded once, but in the log again (a later merge kept that branch)
    return meta


def _check_lost_branch(store: EventStore, meta: StreamMeta, header: Header, lines: list[bytes], where: str) -> None:
    """What can be checked of evidence resting on a superseded event: each line's hash, chain and signature."""
    from combatlog.events.envelope import decode_envelope
    from combatlog.trust.track import TrustChecker, TrustViolation

    genesis = state_at(store, meta, 1).core.genesis
    checker = TrustChecker.from_genesis(genesis) if genesis is not None else None
    prev, seq = header.base_hash, header.since
    for i, line in enumerate(lines, start=2):
        at = f"{where}:{i}"
        too_large = line_size_problem(line)
        if too_large:  # evidence obeys the event size limit as the log does
            raise VerificationFailed(too_large, where=at)
        if not is_canonical(line):
            raise VerificationFailed("not the canonical JSON of an event", where=at)
        try:
            env = decode_envelope(line)
        except msgspec.DecodeError as exc:
            raise VerificationFailed(f"not a valid event envelope: {exc}", where=at) from None
        seq += 1
        if env.stream != meta.id or env.seq != seq or env.prev != prev or env.computed_hash() != env.hash:
            raise VerificationFailed(f"seq {env.seq}: the event does not hash or chain as its place needs", where=at)
        if checker is not None:
            try:  # a placed decision carries its author's signature over where he made it (its original)
                checker._signatures(env.original())
            except TrustViolation as exc:
                raise VerificationFailed(exc.message, where=at) from None
        prev = env.hash
    if prev != header.head_hash:
        raise VerificationFailed("the events do not end at the head the header announces", where=where)


def _verify_here(store: EventStore, meta: StreamMeta, wiring: Wiring) -> VerifyReport:
    return verify_stream(store, meta, wiring=wiring)


def _new_row(line: bytes) -> NewRow:
    env = msgspec.json.decode(line, type=_Slim)
    return NewRow(env.seq, env.type, env.hash, line, env.command_id)


def _name_free(store: EventStore, meta: StreamMeta, where: str, *, renamable: bool) -> None:
    """A new combat whose name another combat holds here: say which is which (the store refuses it anyway)."""
    taken = next((m for m in store.list_streams() if m.name == meta.name), None)
    if taken is None:
        return
    hint = " (choose a local name with --name NEW)" if renamable else ""
    raise InvalidCommand(f"{where}: this log already has a combat named {meta.name} (id {taken.id}), another one "
                         f"than the bundle's (id {meta.id}){hint}")


class _Slim(msgspec.Struct):
    stream: str
    seq: int
    hash: str
    type: str
    command_id: str
