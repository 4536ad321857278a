"""The envelope around every payload, and the hash chain.

    hash = SHA-256("combatlog-event/v1\\n" || JCS(envelope without hash and sigs))

Each envelope names the previous event's hash (``prev``); a stream's genesis
names 64 zeros; a fork's first event names its parent's hash at the fork
point. Signatures sit outside the hashed part, so they can be checked against
the hash. ``recorded_at`` is informational (folds never see it) but hashed,
so it cannot be altered in an export unnoticed. The global position belongs
to one store and is therefore not part of the envelope.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta, timezone

import msgspec

from combatlog.events.base import Event, decode_payload, tag_of
from combatlog.events.canonical import canonical

ENVELOPE_VERSION = 1
GENESIS_PREV = "0" * 64
HASH_DOMAIN = b"combatlog-event/v1\n"
_HASH_START = hashlib.sha256(HASH_DOMAIN)  # each event's hash goes on from a copy (verify hashes every one)
# How far ahead of the receiver's clock an event may be recorded (docs/trust.md): times never go
# backwards along a chain, so one far-future time would stamp every later event by anyone.
MAX_CLOCK_SKEW = timedelta(minutes=10)


class Signature(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    signer: str  # the player name pinned in the genesis
    key: str  # the key's fingerprint
    sig: str  # base64 Ed25519 signature over the event hash (hex string's bytes)


class Placement(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where a placed event was decided, and its author's signature there (docs/trust.md, "Crossings").

    A merge places a decision of the branch it did not keep after the kept one, unchanged: the same
    actor, command id, time, command and payload, with a new ``seq`` and ``prev``. The author's signature
    covers the event as he made it, so it stays valid only for the original place: the original is the
    placed envelope with this ``seq`` and ``prev`` (and no ``placed``), whose hash ``sigs`` sign."""

    seq: int
    prev: str
    sigs: tuple[Signature, ...]


class _Hashed(msgspec.Struct, frozen=True, kw_only=True):
    v: int
    stream: str
    seq: int
    type: str
    schema: int
    actor: str
    recorded_at: str
    command_id: str
    prev: str
    data: msgspec.Raw
    command: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    placed: Placement | msgspec.UnsetType = msgspec.UNSET
    state: str | msgspec.UnsetType = msgspec.UNSET


class Envelope(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    v: int
    stream: str
    seq: int
    type: str
    schema: int
    actor: str
    recorded_at: str
    command_id: str
    prev: str
    data: msgspec.Raw
    hash: str
    sigs: tuple[Signature, ...] = ()
    # The command that produced this batch, on the batch's first envelope only (``commands/record.py``):
    # hashed and signed with the event, so ``verify`` can re-decide it. UNSET is never encoded, so an
    # envelope without one (core commands, logs of engine 0.1) keeps its bytes and its hash.
    command: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    # A decision placed by a merge (``exchange/merge.py``): its original place and signature. A placed
    # envelope carries no ``sigs`` of its own; nobody signs the placement, every machine re-derives it.
    placed: Placement | msgspec.UnsetType = msgspec.UNSET
    # The digest of the rules' state after the batch, on the batch's last envelope only (engine 0.3 and later,
    # ``projections/digest.py``): hashed and signed with it, so every machine and every later build checks that
    # it folds the same state from the same events. UNSET is never encoded: older envelopes keep their bytes.
    state: str | msgspec.UnsetType = msgspec.UNSET

    def hashed_part(self) -> bytes:
        return canonical(
            _Hashed(
                v=self.v, stream=self.stream, seq=self.seq, type=self.type,
                schema=self.schema, actor=self.actor, recorded_at=self.recorded_at,
                command_id=self.command_id, prev=self.prev, data=self.data, command=self.command,
                placed=self.placed, state=self.state,
            )
        )

    @property
    def is_placed(self) -> bool:
        return self.placed is not msgspec.UNSET

    @property
    def signatures(self) -> tuple[Signature, ...]:
        """The signatures this event carries: its own, or for a placed one its author's over the original."""
        placed = self.placed
        return self.sigs if placed is msgspec.UNSET else placed.sigs

    def original(self) -> Envelope:
        """A placed envelope as its author made and signed it (itself when it was not placed)."""
        placed = self.placed
        if placed is msgspec.UNSET:
            return self
        env = msgspec.structs.replace(self, seq=placed.seq, prev=placed.prev, placed=msgspec.UNSET, sigs=placed.sigs,
                                      hash="")
        return msgspec.structs.replace(env, hash=env.computed_hash())

    def placed_at(self, *, seq: int, prev: str) -> Envelope:
        """This (original, signed) envelope placed at ``seq`` after ``prev`` of its stream: unsigned, its
        hash new. A placed envelope is placed again from its original: a warrant is always the author's."""
        if self.placed is not msgspec.UNSET:
            return self.original().placed_at(seq=seq, prev=prev)
        env = msgspec.structs.replace(self, seq=seq, prev=prev, sigs=(), hash="",
                                      placed=Placement(seq=self.seq, prev=self.prev, sigs=self.sigs))
        return msgspec.structs.replace(env, hash=env.computed_hash())

    def computed_hash(self) -> str:
        return hash_of(self.hashed_part())

    def payload(self) -> Event:
        return decode_payload(self.type, self.schema, self.data)

    def with_sigs(self, sigs: tuple[Signature, ...]) -> Envelope:
        return msgspec.structs.replace(self, sigs=sigs)

    def with_state(self, digest: str) -> Envelope:
        """This unsigned envelope carrying the state digest ``digest``, its hash computed again (the hashes of
        the envelopes before it in its batch do not change: they do not cover it)."""
        env = msgspec.structs.replace(self, state=digest, sigs=(), hash="")
        return msgspec.structs.replace(env, hash=env.computed_hash())


def hash_of(hashed_part: bytes) -> str:
    """An event's hash, from its envelope's ``hashed_part``."""
    h = _HASH_START.copy()  # = sha256_hex(HASH_DOMAIN, hashed_part)
    h.update(hashed_part)
    return h.hexdigest()


class Recorded(msgspec.Struct, frozen=True):
    """An envelope with its decoded payload (and, when read from a store, its position)."""

    env: Envelope
    event: Event
    position: int = 0

    @property
    def seq(self) -> int:
        return self.env.seq


_ENV_DECODER = msgspec.json.Decoder(Envelope)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


_RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


def parse_recorded_at(text: str) -> datetime | None:
    """``recorded_at`` as a UTC datetime, or None unless it is RFC 3339 in UTC (``...Z``).

    What a timestamp proves (docs/trust.md): only that the writer's clock said so,
    and that the chain's times never go backwards; not when an event really happened.
    """
    if not _RFC3339_UTC.match(text):
        return None
    try:
        return datetime.fromisoformat(text)  # Python 3.11+ reads the "Z" itself
    except ValueError:
        return None


def latest_allowed(now: datetime | None = None) -> datetime:
    """The latest ``recorded_at`` this machine accepts now: its clock plus ``MAX_CLOCK_SKEW``."""
    return (now or datetime.now(timezone.utc)) + MAX_CLOCK_SKEW


def future_problem(when: datetime, text: str, not_after: datetime) -> str:
    """Why a time is refused as being in the future ("" when it is not)."""
    if when <= not_after:
        return ""
    return (f"recorded at {text}, later than this machine's clock allows (at most "
            f"{int(MAX_CLOCK_SKEW.total_seconds() // 60)} minutes ahead of it, until "
            f"{not_after.strftime('%Y-%m-%dT%H:%M:%SZ')}): a time from the future is refused, since every later "
            "event would have to carry it (check the sender's clock, or this one's)")


def recorded_after(head_time: str) -> str:
    """Now, or the head's time when this machine's clock is behind it (the chain never goes back); refused
    when the head is further ahead than the skew allows (the write path never makes a far-future time)."""
    from combatlog.errors import InvalidCommand

    now = now_iso()
    head = parse_recorded_at(head_time) if head_time else None
    current = parse_recorded_at(now)
    if head is not None and current < head:  # type: ignore[operator]
        problem = future_problem(head, head_time, latest_allowed(current))
        if problem:
            raise InvalidCommand(f"the log's last event is {problem}")
        return head_time
    return now


def seal(
    *, stream: str, seq: int, prev: str, event: Event, actor: str, command_id: str,
    recorded_at: str | None = None, command: bytes | None = None, state: str | None = None,
) -> Envelope:
    """Wrap a payload in an envelope and compute its hash (one struct of each kind: this is the hot path)."""
    cls = type(event)
    fields = dict(
        v=ENVELOPE_VERSION, stream=stream, seq=seq, type=tag_of(cls), schema=cls.schema_version, actor=actor,
        recorded_at=recorded_at if recorded_at is not None else now_iso(), command_id=command_id, prev=prev,
        data=msgspec.Raw(canonical(event)),
    )
    if command is not None:
        fields["command"] = msgspec.Raw(command)
    if state is not None:
        fields["state"] = state
    digest = hash_of(canonical(_Hashed(**fields)))
    return Envelope(**fields, hash=digest)


def encode_envelope(env: Envelope) -> bytes:
    """The stored and exported form: one JCS object."""
    return canonical(env)


def decode_envelope(body: bytes) -> Envelope:
    return _ENV_DECODER.decode(body)


def decode_recorded(body: bytes, position: int = 0) -> Recorded:
    env = _ENV_DECODER.decode(body)
    return Recorded(env, env.payload(), position)
