"""The fold: state at any point of a stream is ``evolve`` applied to its history.

Besides the ruleset's state, the engine tracks what every stream needs
whatever the game (``CoreTrack``): labels already drawn, referee seed
commitments, round boundaries, the head. ``CoreTrack`` is the engine's own
accumulator and is mutated in place (a set of a million labels cannot be
copied per event); the ruleset's state stays immutable.

A fork's history is its parent's history up to the fork point, then its own
events, recursively. Snapshots (state after a seq, keyed by engine and ruleset
version and a digest of the code that folds) make the state at the end of a long
log cost a tail fold.

A snapshot is not evidence. It is a row of the local database, and whoever holds the file can write anything
in it: the state bytes, their seq, the head hash they claim, and any digest or MAC kept beside them (a key kept
in the same file is no secret from the one who edits it). Nothing in the hash chain binds a state: only folding
the events proves one. So the state the views draw (``show``, ``sheet``, ``status``...), and the one commands
are decided on, is the fold of the log from its first event whenever it is the state after at most
``FOLD_WHOLE_UP_TO`` events: every real combat (20 to 300 events; folding 300 costs about 2 ms in freeform,
some tens of ms in Magic Realm) is drawn from its events alone, whatever the snapshot table holds. Only a
longer log starts from a snapshot, and only from one that belongs to its chain where it claims to be (the head
hash it holds is the stored event's at its seq: not another combat's, nor a superseded branch's). Its state
bytes there are trusted as a local cache; ``verify`` of a stored combat, the report and the live page (which
verify as they walk) compare every snapshot of this build with the fold at its seq and refuse a log whose
snapshot differs, naming the seq (``exchange/stored.py`` ``fed``). Thus ``verify`` never says ok while a view
draws a state it would refuse: on a short log the views never read a snapshot, and on a long one a doctored
snapshot fails ``verify``. Snapshots never leave this machine (exports carry events only), so an edited one
deceives no one but the person who edited it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from combatlog import ENGINE_VERSION
from combatlog.errors import InvalidCommand, NotFound, StoreError
from combatlog.events.core import CombatStarted, DiceRolled, Forked, SeedCommitted, SeedRevealed
from combatlog.events.envelope import Recorded, decode_recorded
from combatlog.rulesets import load_ruleset
from combatlog.rulesets.base import Ruleset
from combatlog.store.base import EventStore, StreamMeta

SNAPSHOT_EVERY = 500
# a state up to this seq is folded from the log's first event, snapshots unread (the module's docstring)
FOLD_WHOLE_UP_TO = 1_000
_READ_PAGE = 5000


class SeedInfo(msgspec.Struct, kw_only=True):
    commitment: str
    scheme: str = "referee"
    revealed: str = ""  # hex seed once revealed


class CoreTrack(msgspec.Struct, kw_only=True):
    """The engine's own accumulator over the log: labels drawn, seed commitments, round boundaries, the head.
    Mutable on purpose, unlike the rulesets' frozen states: a frozen set of a million labels cannot be copied
    per event."""

    stream: str = ""
    name: str = ""
    ruleset: str = ""
    genesis: CombatStarted | None = None
    creator: str = ""  # the genesis's actor: the referee by default where a ruleset has one by nature
    head_seq: int = 0
    head_hash: str = ""
    head_time: str = ""  # recorded_at of the head event ("" in snapshots made before it was tracked)
    labels: dict[str, int] = {}
    seeds: dict[int, SeedInfo] = {}
    round_first: dict[int, int] = {}
    round_last: dict[int, int] = {}

    def open_seed(self, scheme: str = "referee") -> int | None:
        """The newest unrevealed commitment of ``scheme`` (its seq), if any."""
        for seq in sorted(self.seeds, reverse=True):
            info = self.seeds[seq]
            if info.scheme == scheme and not info.revealed:
                return seq
        return None


_FOLD: Any = object()  # ``Folded.apply``: no state given, fold the event


def evolved(ruleset: Ruleset[Any], state: Any, rec: Recorded) -> Any:
    """The rules' state after ``rec`` (``Folded.apply``'s), without changing anything."""
    event = rec.event
    if type(event) is CombatStarted:
        return ruleset.initial_state(event)
    if type(event) is Forked:
        return state
    return ruleset.evolve(state, event, rec.env.seq)


class Folded:
    """A ruleset state with the core track, after folding up to ``core.head_seq``."""

    __slots__ = ("ruleset", "state", "core", "replayed")

    def __init__(self, ruleset: Ruleset[Any], state: Any, core: CoreTrack) -> None:
        self.ruleset, self.state, self.core = ruleset, state, core
        self.replayed = 0  # events ``state_at`` folded past its snapshot (the write path saves one when many)

    def apply(self, rec: Recorded, after: Any = _FOLD) -> None:
        """Fold ``rec``. ``after``: the rules' state after it, when the caller computed it already (``evolved``:
        the write path rehearses a batch before it seals it with the digest of the state it leaves)."""
        event, seq, core = rec.event, rec.env.seq, self.core
        if type(event) is CombatStarted:
            core.genesis, core.creator = event, rec.env.actor
            core.name, core.ruleset = event.name, event.ruleset
            self.state = self.ruleset.initial_state(event) if after is _FOLD else after
        elif type(event) is Forked:
            core.name = event.name
        else:
            self.state = self.ruleset.evolve(self.state, event, seq) if after is _FOLD else after
            if type(event) is DiceRolled:
                core.labels[event.label] = seq
            elif type(event) is SeedCommitted:
                core.seeds[seq] = SeedInfo(commitment=event.commitment)
            elif type(event) is SeedRevealed:
                info = core.seeds.get(event.commit_seq)
                if info is not None:
                    info.revealed = event.seed
        core.stream = rec.env.stream
        core.head_seq, core.head_hash = seq, rec.env.hash
        if rec.env.placed is msgspec.UNSET:  # a placed decision keeps its author's (earlier) time
            core.head_time = rec.env.recorded_at
        # the genesis is the set-up, round 0, in every ruleset (Magic Realm's state begins in round 1)
        rnd = 0 if type(event) is CombatStarted else self.ruleset.round_of(self.state)
        if rnd not in core.round_first:
            core.round_first[rnd] = seq
        core.round_last[rnd] = seq


def empty(ruleset: Ruleset[Any]) -> Folded:
    return Folded(ruleset, None, CoreTrack())


def fold(ruleset: Ruleset[Any], records: Iterable[Recorded], start: Folded | None = None) -> Folded:
    folded = start or empty(ruleset)
    for rec in records:
        folded.apply(rec)
    return folded


# -- history of a stream --------------------------------------------------------


MAX_FORK_DEPTH = 256  # forks of forks: far beyond any real "what if", small enough to walk


def lineage(store: EventStore, meta: StreamMeta) -> list[tuple[StreamMeta, int, int | None]]:
    """The (stream, from_seq, to_seq) segments whose events make ``meta``'s history.

    The walk over parents is bounded and refuses a cycle or a fork point that does
    not go back in time: a stream row poisoned by a forged import (before imports
    were checked) must make a clear error, never a loop.
    """
    segments: list[tuple[StreamMeta, int, int | None]] = []
    upper: int | None = None
    seen: set[str] = set()
    current: StreamMeta | None = meta
    while current is not None:
        if current.id in seen or len(seen) >= MAX_FORK_DEPTH:
            raise StoreError(f"the forks of {meta.name} ({meta.id}) loop or nest deeper than {MAX_FORK_DEPTH}: "
                             "this log's stream table is damaged")
        seen.add(current.id)
        if current.parent is not None and current.fork_seq < 1:
            raise StoreError(f"stream {current.name} ({current.id}) forks at seq {current.fork_seq}: "
                             "this log's stream table is damaged")
        low = current.fork_seq + 1 if current.parent else 1
        segments.append((current, low, upper))
        if current.parent is None:
            break
        # A fork of a fork taken before the latter's own fork point reads less of the grandparent.
        upper = current.fork_seq if upper is None else min(upper, current.fork_seq)
        parent = store.get_stream(current.parent)
        if parent is None:
            raise NotFound(f"stream {current.id} forks from {current.parent}, which this store lacks")
        current = parent
    segments.reverse()
    return segments


def history(store: EventStore, meta: StreamMeta, from_seq: int = 1, to_seq: int | None = None) -> Iterator[Recorded]:
    """Decoded events of ``meta``'s history with from_seq <= seq <= to_seq."""
    load_ruleset(meta.ruleset)  # registers the payload types its events decode to
    for seg, low, high in lineage(store, meta):
        lo = max(low, from_seq)
        hi = high if to_seq is None else (to_seq if high is None else min(high, to_seq))
        while hi is None or lo <= hi:
            page_hi = lo + _READ_PAGE - 1 if hi is None else min(hi, lo + _READ_PAGE - 1)
            rows = store.read_stream(seg.id, lo, page_hi)
            for row in rows:
                yield decode_recorded(row.body, row.position)
            if len(rows) < page_hi - lo + 1:
                break
            lo = page_hi + 1


# -- snapshots --------------------------------------------------------------------


def snapshot_key(ruleset: Ruleset[Any]) -> str:
    """The build a snapshot was folded by: engine and ruleset versions, and a digest of the code that folds
    (``fold_code_digest``). A snapshot folded by other code is not used, and the log is folded again: a rules
    fix that folds an event otherwise must not be hidden behind a state an earlier build saved (neither
    version is bumped for every fix, and a ruleset version bump would change the rules digest of new logs)."""
    return f"{ENGINE_VERSION}/{ruleset.info.name}/{ruleset.info.version}/{fold_code_digest(type(ruleset))}"


@functools.lru_cache(maxsize=16)
def fold_code_digest(ruleset_class: type) -> str:
    """16 hex digits of SHA-256 over the source of ``ruleset_class``'s package (its folder's modules), its data
    files and the core's fold (this module, the core events, the envelope). About 2 ms, once per process."""
    import hashlib
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent.parent  # the combatlog package
    module = sys.modules[ruleset_class.__module__]
    folder = Path(module.__file__ or "").resolve().parent
    files = sorted(folder.glob("*.py")) + [here / "projections" / "fold.py", here / "events" / "core.py",
                                           here / "events" / "envelope.py"] + sorted(ruleset_class.data_files)
    digest = hashlib.sha256()
    for path in files:
        try:
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:  # an installation without sources: the versions alone key its snapshots
            continue
    return digest.hexdigest()[:16]


def encode_snapshot(folded: Folded) -> bytes:
    return msgspec.json.encode({"core": folded.core, "state": folded.state})


def _decode_snapshot(ruleset: Ruleset[Any], blob: bytes) -> Folded | None:
    """The state a snapshot holds; None where its bytes are not one (a damaged or edited file): a cache, so the
    log is folded instead, rather than every command on the combat failing."""
    shape = msgspec.defstruct("Snap", [("core", CoreTrack), ("state", ruleset.state_type)])
    try:
        snap = msgspec.json.decode(blob, type=shape)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return Folded(ruleset, snap.state, snap.core)  # type: ignore[attr-defined]


def save_snapshot(store: EventStore, meta: StreamMeta, folded: Folded) -> None:
    store.save_snapshot(meta.id, folded.core.head_seq, snapshot_key(folded.ruleset), encode_snapshot(folded))


def load_snapshot_at(store: EventStore, meta: StreamMeta, seq: int) -> tuple[int, bytes, Folded] | None:
    """This build's latest snapshot of ``meta``'s own stream at or before ``seq``: its seq, bytes and state."""
    ruleset = load_ruleset(meta.ruleset)
    found = store.load_snapshot(meta.id, seq, snapshot_key(ruleset))
    base = _decode_snapshot(ruleset, found[1]) if found is not None and found[0] >= 1 else None
    return None if found is None or base is None else (found[0], found[1], base)


def _of_this_chain(store: EventStore, segments: list[tuple[StreamMeta, int, int | None]], seq: int,
                   start: Folded) -> bool:
    """Whether the state ``start``, a snapshot's at ``seq``, ends where this history does at ``seq``: its head is
    the stored event's seq and hash (not a state of another combat, of a superseded branch, or moved)."""
    if start.core.head_seq != seq:
        return False
    for seg, low, high in segments:
        if low <= seq and (high is None or seq <= high):
            rows = store.read_stream(seg.id, seq, seq)
            return bool(rows) and rows[0].hash == start.core.head_hash
    return False


def state_at(store: EventStore, meta: StreamMeta, seq: int | None = None, *, use_snapshots: bool = True) -> Folded:
    """The fold of ``meta``'s history up to ``seq`` (the head when None): from the log's first event up to
    ``FOLD_WHOLE_UP_TO``, beyond from this build's latest snapshot that is of this chain (the module's
    docstring)."""
    if seq is not None and seq < 1:
        raise InvalidCommand(f"seq numbers start at 1 (#1 creates {meta.name}); {seq} is before the combat")
    ruleset = load_ruleset(meta.ruleset)
    start: Folded | None = None
    from_seq = 1
    if use_snapshots and (seq if seq is not None else store.head(meta.id).seq) > FOLD_WHOLE_UP_TO:
        segments = lineage(store, meta)
        for seg, low, high in reversed(segments):
            limit = seq if high is None else (high if seq is None else min(high, seq))
            found = store.load_snapshot(seg.id, limit if limit is not None else 2**62, snapshot_key(ruleset))
            if found is not None and found[0] >= low - 1 and found[0] >= 1:
                start = _decode_snapshot(ruleset, found[1])
                if start is not None and not _of_this_chain(store, segments, found[0], start):
                    start = None
                from_seq = found[0] + 1 if start is not None else 1  # (one that is not: the log from #1)
                break
    folded = fold(ruleset, history(store, meta, from_seq, seq), start)
    folded.replayed = folded.core.head_seq - from_seq + 1
    if folded.core.genesis is None:
        raise InvalidCommand(f"stream {meta.name} has no genesis event")
    if seq is not None and folded.core.head_seq < seq:
        raise NotFound(f"{meta.name} has no event {seq} (its last is {folded.core.head_seq})")
    return folded


def round_end(folded: Folded, round_no: int) -> int:
    """The seq of the last event of round ``round_no``."""
    if round_no not in folded.core.round_last:
        known = sorted(r for r in folded.core.round_last if r > 0)
        if not known:
            rounds = "no round yet"
        elif known == list(range(1, known[-1] + 1)):
            rounds = f"rounds so far: 1 to {known[-1]}" if len(known) > 1 else "so far round 1"
        else:
            rounds = "rounds so far: " + ", ".join(map(str, known))
        raise NotFound(f"no round {round_no} in {folded.core.name} (round 0 is the set-up before round 1; "
                       f"{rounds})")
    return folded.core.round_last[round_no]
