"""Equivocation evidence: one author signed two different events at the same place, or rewound.

When an import meets an event that differs from ours at the same (stream, seq),
it is a divergence. If both events are validly signed by the same pinned
author, it is more: that author showed two histories. The import is refused
with an ``Equivocation`` error naming both events, and both signed envelopes
(with the genesis that pins the author's key) are written next to the imported
file as ``<file>.equivocation-<seq>.jsonl`` so anyone can check the proof.

A *rewind* is equivocation across places: an author signed an event of one branch after ``#f``,
and authored another branch that parts from it at ``#f`` and goes first in the merge order
(``trust/rewind.py``). The proof (version 2, ``kind: rewind``) holds the genesis, the author's branch
and the branch he signed, each from ``#f + 1``; ``verify`` re-checks hashes, chains, signatures and
the merge order.
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
    if ours.env.actor != theirs.env.actor or ours.env.is_placed or theirs.env.is_placed:
        return  # two players at the same place, or a decision placed there that was made elsewhere: a merge
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


def rewind_error(store: EventStore, meta: StreamMeta, fork_seq: int, winner: list[bytes], loser: list[bytes],
                 signed_seq: int, path: Path | None, *, loser_is_ours: bool) -> Equivocation:
    """The error (and proof file) for a branch whose author signed an event of the other branch after
    ``#fork_seq`` (``signed_seq``) and would win the merge: nothing is merged."""
    from combatlog.trust.rewind import author_of

    first, signed = decode_recorded(winner[0]).env, decode_recorded(loser[signed_seq - fork_seq - 1]).env
    author = author_of([decode_recorded(line).env for line in winner])
    written = ""
    if path is not None:
        root = store.read_stream(_root_id(store, meta), 1, 1)[0].body
        out = path.with_name(f"{path.name}.equivocation-{fork_seq + 1}.jsonl")
        head = canonical(RewindHeader(format=EVIDENCE_FORMAT, version=2, kind="rewind", name=meta.name,
                                      seq=fork_seq + 1, author=author, branch=len(winner), signed=len(loser)))
        try:
            out.write_bytes(b"\n".join([head, root, *winner, *loser]) + b"\n")
            written = f"; the proof is in {out}"
        except OSError:
            pass
    where, other = ("the bundle's", "this log's") if loser_is_ours else ("this log's", "the bundle's")
    return Equivocation(
        meta.name, fork_seq + 1, author, signed.hash, first.hash,
        f"rewind by {author}: {author} signed #{signed_seq} of {other} branch ({signed.type}, "
        f"{signed.hash[:16]}...), and {where} branch, which {author} began at #{fork_seq + 1} "
        f"({first.type}, {first.hash[:16]}...), parts from it at #{fork_seq} and would go first in the merge, "
        f"undoing what {author} had signed: equivocation, nothing merged{written}")


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


class RewindHeader(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    format: str
    version: int
    kind: str  # "rewind"
    name: str
    seq: int  # the first seq of the author's branch (the fork point plus one)
    author: str
    branch: int  # lines of the author's branch
    signed: int  # lines of the branch he had signed


class EvidenceReport(msgspec.Struct, kw_only=True):
    ok: bool
    proof: str  # "equivocation" or "rewind"
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
    if lines and b'"kind":"rewind"' in lines[0]:
        return _verify_rewind(lines, where)
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


def _verify_rewind(lines: list[bytes], where: str) -> EvidenceReport:
    from combatlog.trust.rewind import author_of, rank, rewinder

    if len(lines) < 5 or lines[-1] != b"" or not all(is_canonical(line) for line in lines[:-1]):
        raise VerificationFailed("not a rewind proof (a header, the genesis, two branches; canonical JSON)",
                                 where=where)
    try:
        header = msgspec.json.decode(lines[0], type=RewindHeader)
        genesis = decode_recorded(lines[1])
        if type(genesis.event) is CombatStarted:
            load_ruleset(genesis.event.ruleset)
        if header.branch < 1 or header.signed < 1 or len(lines) != 3 + header.branch + header.signed:
            raise VerificationFailed("the header's counts do not match the lines", where=where)
        recs = [decode_recorded(line) for line in lines[2:-1]]
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise VerificationFailed(f"not a rewind proof: {exc}", where=where) from None
    except CombatlogError as exc:
        raise VerificationFailed(f"not a rewind proof: {exc}", where=where) from None
    if header.format != EVIDENCE_FORMAT or header.version != 2 or header.kind != "rewind":
        raise VerificationFailed(f"format {header.format} v{header.version} is not {EVIDENCE_FORMAT} v2 (rewind)",
                                 where=where)
    if type(genesis.event) is not CombatStarted or genesis.env.seq != 1:
        raise VerificationFailed("the second line is not a genesis (core.combat_started at seq 1)", where=where)
    branch, signed = recs[:header.branch], recs[header.branch:]
    checker = TrustChecker.from_genesis(genesis.event)
    for part in (branch, signed):
        prev, seq = part[0].env.prev, header.seq
        for rec in part:
            env = rec.env
            if env.computed_hash() != env.hash or env.seq != seq or env.prev != prev \
                    or env.stream != part[0].env.stream:
                raise VerificationFailed(f"seq {env.seq}: the event does not hash or chain as its place needs",
                                         where=where)
            try:
                checker._signatures(env)
            except TrustViolation as exc:
                raise VerificationFailed(f"the proof does not hold: {exc.message}", where=where) from None
            prev, seq = env.hash, seq + 1
    if branch[0].env.prev != signed[0].env.prev or branch[0].env.stream != signed[0].env.stream \
            or branch[0].env.hash == signed[0].env.hash:
        raise VerificationFailed("the two branches do not part at the same place", where=where)
    envs_b, envs_s = [r.env for r in branch], [r.env for r in signed]
    if author_of(envs_b) != header.author:
        raise VerificationFailed(f"the branch is not begun by {header.author}, as the header says", where=where)
    fork_seq = header.seq - 1
    if rank(genesis.event, fork_seq, envs_b) >= rank(genesis.event, fork_seq, envs_s):
        raise VerificationFailed(f"the proof does not hold: {header.author}'s branch would not go first in the merge "
                                 "(the other branch is kept, nothing is rewound)", where=where)
    last = rewinder(genesis.event, envs_b, envs_s)
    if last is None:
        raise VerificationFailed(f"the proof does not hold: {header.author} signed nothing of the other branch "
                                 "(or the sequencer settled the order)", where=where)
    return EvidenceReport(
        ok=True, proof="rewind", name=header.name, seq=header.seq, author=header.author,
        fingerprint=checker.players[header.author].fingerprint, hashes=[last.hash, branch[0].env.hash],
        types=[last.type, branch[0].env.type],
    )


def evidence_text(report: EvidenceReport) -> str:
    if report.proof == "rewind":
        return (f"proof holds: {report.author} ({report.fingerprint}) signed {report.hashes[0][:16]}... "
                f"({report.types[0]}) on one branch, then began at {report.name} seq {report.seq} another branch "
                f"({report.hashes[1][:16]}..., {report.types[1]}) that parts before it and goes first in the merge: "
                "a rewind")
    return (f"proof holds: {report.author} ({report.fingerprint}) signed two different events at {report.name} "
            f"seq {report.seq}: {report.hashes[0][:16]}... ({report.types[0]}) and {report.hashes[1][:16]}... "
            f"({report.types[1]})")
