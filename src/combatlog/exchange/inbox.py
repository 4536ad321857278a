"""The inbox: bundles applied in whatever order they arrive; early ones held until their predecessor comes.

``receive`` takes every bundle found in the inputs of one ``import`` (files, a
folder, standard input, blocks of messages), together with the bundles this log
already holds for the same combats, and applies each as soon as the events it
rests on are here: a bundle of #8-#12 that arrives before #4-#7 is held
(durably, in the store's ``held_bundles``), and applied, verified in full, when
#4-#7 arrives, in this import or a later one. ``status`` lists what is held and
what it waits for (``held.held_for``).

What is held is checked first for everything that can be checked without the
events before it: the header, each line's size, canonical form, hash and chain
link, and, in a combat with pinned players, each event's signature by a pinned
player (with the keys its genesis pins): garbage, and anything from a
non-player, is refused at once, not kept. A bundle with no events is never
held. Dice and the rules are checked when it is applied. A combat holds at most
``MAX_HELD`` bundles of at most ``MAX_HELD_BYTES`` in all, and at most
``MAX_HELD_PER_SENDER`` from one sender (the signer of a bundle's last event),
so one player cannot crowd out the others' early bundles. A bundle of a combat
this log does not have at all is refused, not held (import the full export
first): nothing waits on a combat nobody here has accepted.

A refusal changes nothing: a bundle is applied all or nothing, and one that is
refused is not held. A held bundle that is refused once its predecessor has
arrived (it diverges, or does not verify) is dropped from the store, with the
error reported; one whose base this log now holds as another event (superseded
by a merge, or by moves made here) is dropped the same way, saying so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path

import msgspec

from combatlog.errors import CombatlogError, Diverged, NotFound, VerificationFailed
from combatlog.events.canonical import is_canonical, line_size_problem
from combatlog.events.envelope import decode_envelope, future_problem, latest_allowed, parse_recorded_at
from combatlog.exchange.bundle import Header, ImportReport, Progress, Waiting, base_stream, import_bundle, read_bytes
from combatlog.exchange.merge import SignerFor
from combatlog.exchange.sources import Incoming
from combatlog.store.base import EventStore, HeldBundle, StreamMeta
from combatlog.ports import Wiring

MAX_HELD = 64  # bundles held for one combat
MAX_HELD_BYTES = 64 << 20  # their bytes, together
MAX_HELD_PER_SENDER = 16  # bundles held for one combat from one sender (the signer of the last event)


@dataclass
class Outcome:
    """What happened to one bundle."""

    where: str
    status: str  # applied | up_to_date | held | still_held | duplicate | refused
    name: str = ""  # the combat (as the bundle names it, or as it is named here)
    seqs: str = ""  # "#5-#9"
    report: ImportReport | None = None
    error: CombatlogError | None = None
    waiting: str = ""  # for held bundles: what they wait for

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"source": self.where, "status": self.status, "combat": self.name, "events": self.seqs}
        if self.report is not None:
            out["appended"] = self.report.appended
            out["created"] = self.report.created
            out["head_seq"] = self.report.verify.head_seq
        if self.waiting:
            out["waiting_for"] = self.waiting
        if self.error is not None:
            out["error"] = self.error.to_json()
        return out


@dataclass
class _Candidate:
    where: str
    proof: Path
    data: bytes
    header: Header
    lines: list[bytes]
    digest: str
    held: HeldBundle | None = None  # set when it came from the store


def seqs_of(header: Header) -> str:
    if header.count == 0:
        return "no events"
    first = header.since + 1
    return f"#{first}" if first == header.head_seq else f"#{first}-#{header.head_seq}"


def receive(store: EventStore, incoming: list[Incoming], *, name: str | None = None, strict_rules: bool = True,
            progress: Progress | None = None, wiring: Wiring,
            signer_for: SignerFor | None = None) -> list[Outcome]:
    """Apply every bundle that can be, hold those whose predecessor has not arrived, refuse the rest."""
    outcomes: list[Outcome] = []
    pool: list[_Candidate] = []
    seen: dict[str, str] = {}
    for item in incoming:
        if item.error is not None or item.data is None:
            outcomes.append(Outcome(item.where, "refused", error=item.error))
            continue
        try:
            header, lines = read_bytes(item.data, item.where)
        except CombatlogError as exc:
            outcomes.append(Outcome(item.where, "refused", error=exc))
            continue
        digest = hashlib.sha256(item.data).hexdigest()
        if digest in seen:
            outcomes.append(Outcome(item.where, "duplicate", header.name, seqs_of(header),
                                    waiting=f"the same bundle as {seen[digest]}"))
            continue
        seen[digest] = item.where
        pool.append(_Candidate(item.where, item.proof, item.data, header, lines, digest))
    # the bundles held here for the same combats may be applied now too
    by_digest = {c.digest: c for c in pool}
    roots = {c.header.segments[0].id for c in pool}
    for held in _held_of(store, roots):
        if held.digest in by_digest:  # it arrived again: one candidate, released once applied
            by_digest[held.digest].held = held
            continue
        where = f"held bundle from {held.source}"
        try:
            header, lines = read_bytes(held.body, where)
        except CombatlogError as exc:  # cannot happen unless the store was edited: drop it, say so
            store.release_bundle(held.digest)
            outcomes.append(Outcome(where, "refused", error=exc))
            continue
        cand = _Candidate(where, Path(f"held-{held.digest[:12]}"), held.body, header, lines, held.digest, held=held)
        by_digest[held.digest] = cand
        pool.append(cand)
    pool.sort(key=lambda c: (c.header.since, c.header.head_seq))
    while True:  # apply what can be, until nothing more can: each success may unblock another
        progressed = False
        for cand in list(pool):
            result = _try(store, cand, name=name, strict_rules=strict_rules, progress=progress, wiring=wiring,
                          signer_for=signer_for)
            if result is not None and cand.held is not None and isinstance(result.error, Diverged):
                result.error = VerificationFailed(
                    f"a held bundle ({result.seqs}) was dropped: it rests on #{cand.header.since}, and this log "
                    f"now holds another #{cand.header.since} (superseded; {result.error})", where=cand.where)
            if result is None:
                continue  # still waiting
            pool.remove(cand)
            outcomes.append(result)
            if cand.held is not None and _settled(result):
                store.release_bundle(cand.digest)
            progressed = progressed or result.status == "applied"
        if not progressed:
            break
    for cand in pool:  # what is left waits for a predecessor
        outcomes.append(_hold(store, cand))
    return outcomes


def _settled(result: Outcome) -> bool:
    """Whether a held bundle is done with: applied, or refused for good (not for a busy or broken store)."""
    return result.status != "refused" or isinstance(result.error, (VerificationFailed, Diverged, NotFound))


def _try(store: EventStore, cand: _Candidate, **kw) -> Outcome | None:  # type: ignore[no-untyped-def]
    header = cand.header
    try:
        report = import_bundle(store, header, cand.lines, cand.where, proof=cand.proof, **kw)
    except Waiting:
        return None
    except CombatlogError as exc:
        return Outcome(cand.where, "refused", header.name, seqs_of(header), error=exc)
    status = "up_to_date" if report.up_to_date else "applied"
    return Outcome(cand.where, status, report.name, seqs_of(header), report=report)


def _hold(store: EventStore, cand: _Candidate) -> Outcome:
    header = cand.header
    try:
        base_stream(store, header, cand.where)
    except Waiting as waiting:
        meta, text = waiting.waits_on, waiting.missing
    except CombatlogError as exc:  # the log changed under us: say so, hold nothing
        return Outcome(cand.where, "refused", header.name, seqs_of(header), error=exc)
    else:
        return Outcome(cand.where, "refused", header.name, seqs_of(header), error=VerificationFailed(
            "the bundle could not be applied, and it waits for nothing", where=cand.where))
    if cand.held is not None:  # held already: it stays
        return Outcome(cand.where, "still_held", header.name, seqs_of(header), waiting=text)
    try:
        if not cand.lines:
            raise VerificationFailed("the bundle holds no events: there is nothing to hold", where=cand.where)
        sender = _check_shape(store, header, cand.lines, cand.where)
        _check_room(store, meta, len(cand.data), sender, cand.where)
    except CombatlogError as exc:
        return Outcome(cand.where, "refused", header.name, seqs_of(header), error=exc)
    held = HeldBundle(digest=cand.digest, stream=header.stream, waits_on=meta.id, since=header.since,
                      head_seq=header.head_seq, received_at=_now(), source=cand.where[:300], body=cand.data)
    status = "held" if store.hold_bundle(held) else "still_held"
    return Outcome(cand.where, status, header.name, seqs_of(header), waiting=text)


def _check_shape(store: EventStore, header: Header, lines: list[bytes], where: str) -> str:
    """What can be checked of a bundle without the events it rests on: each line's size, bytes, hash and
    link, and its signature by a pinned player. Returns the sender (the actor of the last event)."""
    from combatlog.trust.track import TrustViolation

    checker = _signatures_of(store, header)
    prev = header.base_hash
    seq = header.since
    ids = {seg.id for seg in header.segments}
    actor = ""
    not_after = latest_allowed()
    for i, line in enumerate(lines, start=2):
        at = f"{where}:{i}"
        too_large = line_size_problem(line)
        if too_large:
            raise VerificationFailed(too_large, where=at)
        if not is_canonical(line):
            raise VerificationFailed("not the canonical JSON of an event (the line was altered or is not an event)",
                                     where=at)
        try:
            env = decode_envelope(line)
        except msgspec.DecodeError as exc:
            raise VerificationFailed(f"not a valid event envelope: {exc}", where=at) from None
        seq += 1
        if env.seq != seq or env.prev != prev or env.computed_hash() != env.hash or env.stream not in ids:
            raise VerificationFailed(f"seq {env.seq}: the event does not hash or chain as its place in the bundle "
                                     "needs (altered)", where=at)
        when = parse_recorded_at(env.recorded_at)
        if when is not None and when > not_after:
            raise VerificationFailed(f"seq {env.seq}: " + future_problem(when, env.recorded_at, not_after), where=at)
        if checker is not None:
            try:
                checker._signatures(env)
            except TrustViolation as exc:
                raise VerificationFailed(f"not held: {exc.message}", where=at) from None
        prev, actor = env.hash, env.actor
    if lines and prev != header.head_hash:
        raise VerificationFailed("the events do not end at the head the header announces", where=where)
    return actor


def _signatures_of(store: EventStore, header: Header):  # type: ignore[no-untyped-def]
    """A signature checker with the keys the combat's genesis (here) pins; None when it pins none."""
    from combatlog.projections.fold import state_at
    from combatlog.trust.track import TrustChecker

    root = store.get_stream(header.segments[0].id)
    genesis = state_at(store, root, 1).core.genesis if root is not None else None
    if genesis is None or not genesis.players:
        return None  # a combat without pinned players: nobody signs, and nobody is a non-player
    return TrustChecker.from_genesis(genesis)


def _check_room(store: EventStore, meta: StreamMeta, size: int, sender: str, where: str) -> None:
    held = store.held_bundles(meta.id)
    if len(held) >= MAX_HELD or sum(len(h.body) for h in held) + size > MAX_HELD_BYTES:
        raise VerificationFailed(f"{meta.name} already holds {len(held)} bundles waiting for earlier events (at most "
                                 f"{MAX_HELD}, {MAX_HELD_BYTES} bytes): import the missing bundles first", where=where)
    if sender:
        mine = sum(1 for h in held if _sender_of(h.body) == sender)
        if mine >= MAX_HELD_PER_SENDER:
            raise VerificationFailed(f"{meta.name} already holds {mine} bundles from {sender} waiting for earlier "
                                     f"events (at most {MAX_HELD_PER_SENDER} from one sender): import the missing "
                                     "bundles first", where=where)


class _Actor(msgspec.Struct):
    actor: str = ""


def _sender_of(body: bytes) -> str:
    """The actor of a held bundle's last event (it was checked, signature included, when it was held)."""
    last = body.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    try:
        return msgspec.json.decode(last, type=_Actor).actor
    except (msgspec.DecodeError, msgspec.ValidationError):
        return ""


def _held_of(store: EventStore, roots: set[str]) -> list[HeldBundle]:
    """The held bundles of the combats rooted at ``roots``."""
    if not roots:
        return []
    out = []
    for held in store.held_bundles():
        try:
            header_line = held.body.split(b"\n", 1)[0]
            segments = msgspec.json.decode(header_line, type=_Roots).segments
        except (msgspec.DecodeError, msgspec.ValidationError):
            out.append(held)  # let the caller report it
            continue
        if segments and segments[0].id in roots:
            out.append(held)
    return out


class _Seg(msgspec.Struct):
    id: str


class _Roots(msgspec.Struct):
    segments: list[_Seg]


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
