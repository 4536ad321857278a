"""Equivocation evidence: one author signed two different events at the same place.

When an import meets an event that differs from ours at the same (stream, seq),
it is a divergence. If both events are validly signed by the same pinned
author, it is more: that author showed two histories. The import is refused
with an ``Equivocation`` error naming both events, and both signed envelopes
(with the genesis that pins the author's key) are written next to the imported
file as ``<file>.equivocation-<seq>.jsonl`` so anyone can check the proof.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from combatlog.errors import CombatlogError, Diverged, VerificationFailed
from combatlog.events.canonical import canonical, is_canonical
from combatlog.events.core import CombatStarted
from combatlog.events.envelope import decode_recorded
from combatlog.rulesets import load_ruleset
from combatlog.store.base import EventStore, StreamMeta
from combatlog.trust.track import TrustChecker, TrustViolation


class Equivocation(Diverged):
    code = "equivocation"

    def __init__(self, stream: str, seq: int, author: str, ours: str, theirs: str, message: str) -> None:
        CombatlogError.__init__(self, message)
        self.stream, self.seq, self.author, self.ours, self.theirs = stream, seq, author, ours, theirs


def check_equivocation(store: EventStore, meta: StreamMeta, seq: int, ours_body: bytes, theirs_body: bytes,
                       path: Path) -> None:
    from combatlog.trust.players import genesis_of

    genesis = genesis_of(store, meta)
    if genesis is None or not genesis.players:
        return
    try:
        ours, theirs = decode_recorded(ours_body), decode_recorded(theirs_body)
    except Exception:
        return
    if ours.env.actor != theirs.env.actor:
        return  # two players appended at the same place: a turn-order conflict, not equivocation
    checker = TrustChecker.from_genesis(genesis)
    try:
        checker._signatures(ours.env)
        checker._signatures(theirs.env)
    except TrustViolation:
        return
    author = ours.env.actor
    root = store.read_stream(_root_id(store, meta), 1, 1)[0].body
    out = path.with_name(f"{path.name}.equivocation-{seq}.jsonl")
    head = canonical(EvidenceHeader(format=EVIDENCE_FORMAT, version=1, name=meta.name, seq=seq, author=author))
    written = ""
    try:
        out.write_bytes(head + b"\n" + root + b"\n" + ours_body + b"\n" + theirs_body + b"\n")
        written = f"; both signed events are in {out}"
    except OSError:
        pass
    raise Equivocation(
        meta.name, seq, author, ours.env.hash, theirs.env.hash,
        f"equivocation by {author}: two different events signed by {author} at {meta.name} seq {seq}: "
        f"ours {ours.env.hash[:16]}... ({ours.env.type}, recorded {ours.env.recorded_at}), "
        f"theirs {theirs.env.hash[:16]}... ({theirs.env.type}, recorded {theirs.env.recorded_at})"
        f"{written}",
    )


def _root_id(store: EventStore, meta: StreamMeta) -> str:
    from combatlog.projections.fold import lineage

    return lineage(store, meta)[0][0].id


# -- checking a proof ------------------------------------------------------------------

EVIDENCE_FORMAT = "combatlog-equivocation"


class EvidenceHeader(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    format: str
    version: int
    name: str
    seq: int
    author: str


class EvidenceReport(msgspec.Struct, kw_only=True):
    ok: bool
    proof: str  # "equivocation"
    name: str
    seq: int
    author: str
    fingerprint: str
    hashes: list[str]
    types: list[str]


def is_evidence(first_line: bytes) -> bool:
    return first_line.startswith(b'{"author":') and b'"format":"combatlog-equivocation"' in first_line


def verify_evidence(path: Path) -> EvidenceReport:
    """Check an equivocation proof on its own: the genesis pins the author's key, and two
    different events at the same place are both validly signed with it.

    Nothing else is needed: whoever holds the file can check that the author showed two
    histories, without trusting the machine that wrote it.
    """
    where = str(path)
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as exc:
        raise VerificationFailed(f"cannot read the proof: {exc.strerror}", where=where) from None
    if len(lines) != 5 or lines[4] != b"" or not all(is_canonical(line) for line in lines[:4]):
        raise VerificationFailed("not an equivocation proof (a header, the genesis, two events; canonical JSON)",
                                 where=where)
    try:
        header = msgspec.json.decode(lines[0], type=EvidenceHeader)
        genesis = decode_recorded(lines[1])
        if type(genesis.event) is CombatStarted:
            load_ruleset(genesis.event.ruleset)  # its payload types, for the two events
        ours, theirs = (decode_recorded(line) for line in lines[2:4])
    except (msgspec.DecodeError, msgspec.ValidationError, CombatlogError) as exc:
        raise VerificationFailed(f"not an equivocation proof: {exc}", where=where) from None
    if header.format != EVIDENCE_FORMAT or header.version != 1:
        raise VerificationFailed(f"format {header.format} v{header.version} is not {EVIDENCE_FORMAT} v1", where=where)
    for rec in (genesis, ours, theirs):
        if rec.env.computed_hash() != rec.env.hash:
            raise VerificationFailed(f"the event at seq {rec.env.seq} does not match its hash (altered)", where=where)
    if type(genesis.event) is not CombatStarted or genesis.env.seq != 1:
        raise VerificationFailed("the second line is not a genesis (core.combat_started at seq 1)", where=where)
    if ours.env.hash == theirs.env.hash or (ours.env.stream, ours.env.seq) != (theirs.env.stream, theirs.env.seq):
        raise VerificationFailed("the two events are not two different events at the same place", where=where)
    if ours.env.seq != header.seq or ours.env.actor != header.author or theirs.env.actor != header.author:
        raise VerificationFailed(f"the events are not by {header.author} at seq {header.seq}, as the header says",
                                 where=where)
    checker = TrustChecker.from_genesis(genesis.event)
    if header.author not in checker.players:
        raise VerificationFailed(f"the genesis does not pin {header.author}", where=where)
    try:
        checker._signatures(ours.env)
        checker._signatures(theirs.env)
    except TrustViolation as exc:
        raise VerificationFailed(f"the proof does not hold: {exc.message}", where=where) from None
    return EvidenceReport(
        ok=True, proof="equivocation", name=header.name, seq=header.seq, author=header.author,
        fingerprint=checker.players[header.author].fingerprint, hashes=[ours.env.hash, theirs.env.hash],
        types=[ours.env.type, theirs.env.type],
    )


def evidence_text(report: EvidenceReport) -> str:
    return (f"proof holds: {report.author} ({report.fingerprint}) signed two different events at {report.name} "
            f"seq {report.seq}: {report.hashes[0][:16]}... ({report.types[0]}) and {report.hashes[1][:16]}... "
            f"({report.types[1]})")
