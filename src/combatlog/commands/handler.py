"""The write path: resolve the stream, fold it, decide, rehearse, append.

Nothing is appended unless every step succeeds: ``decide`` checks legality,
the new events are decoded back from their canonical bytes and folded onto
the current state (so ``evolve`` sees exactly what a later replay will see),
the ruleset's invariants are checked, and only then does the store append the
batch atomically against the version that was folded.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from combatlog import ENGINE_VERSION
from combatlog.commands.core import AddNote, CommitSeed, CoreCommand, RevealSeed, RollDice
from combatlog.dice.derive import seed_commitment
from combatlog.dice.port import DicePort
from combatlog.errors import CombatlogError, IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.events.canonical import MAX_SAFE_INT
from combatlog.events.core import CombatStarted, Forked, Noted, Player, SeedCommitted, SeedRevealed
from combatlog.events.envelope import GENESIS_PREV, Envelope, Recorded, encode_envelope, seal
from combatlog.projections.fold import SNAPSHOT_EVERY, CoreTrack, Folded, empty, save_snapshot, state_at
from combatlog.rulesets import load_ruleset
from combatlog.rulesets.base import Step
from combatlog.projections.streams import resolve_stream  # noqa: F401  (re-exported)
from combatlog.store.base import EventStore, NewRow, StreamMeta

Signer = Callable[[Envelope], Envelope]


class InternalInvariantError(CombatlogError):
    code = "invariant"


class Outcome(msgspec.Struct, kw_only=True):
    stream: StreamMeta
    first_seq: int
    last_seq: int
    duplicate: bool = False
    events: list[Recorded] = []
    steps: list[Step] = []
    folded: Folded | None = None


# -- streams ----------------------------------------------------------------------


def new_stream_id() -> str:
    return secrets.token_hex(8)


def new_command_id() -> str:
    return secrets.token_hex(12)


# -- dice keys --------------------------------------------------------------------

# scheme -> f(store, core) -> (seq of the commitment, key). The trust layer adds "joint".
KEY_SOURCES: dict[str, Callable[[EventStore, CoreTrack], tuple[int, bytes]]] = {}


def _referee_key(store: EventStore, core: CoreTrack) -> tuple[int, bytes]:
    seq = core.open_seed("referee")
    if seq is None:
        raise IllegalCommand(
            "no referee seed is open in this combat; run: combatlog seed commit STREAM",
            rule="core: referee dice derive from a committed seed",
        )
    secret = store.get_secret(f"seed:{core.seeds[seq].commitment}")
    if secret is None:
        raise IllegalCommand(
            f"the referee seed committed at seq {seq} is not on this machine; the referee rolls these dice",
            rule="core: only the referee holds the seed",
        )
    return seq, secret


KEY_SOURCES["referee"] = _referee_key

# Core commands decided outside this module (the trust layer's sealed orders and
# acknowledgements): command type -> f(store, folded, command, dice, actor) -> events.
CORE_DECIDERS: dict[type, Callable[[EventStore, Folded, Any, DicePort, str], list[Event]]] = {}

# Checks run on every sealed batch before it is appended (the trust layer: signatures,
# sealed orders, joint dice): f(store, folded state before the batch, envelopes). They
# raise a CombatlogError to refuse the append, so the write path refuses what verify would.
PRE_APPEND: list[Callable[[EventStore, Folded, list[Envelope]], None]] = []


def _pre_append(store: EventStore, folded: Folded, envelopes: list[Envelope]) -> None:
    for check in PRE_APPEND:
        check(store, folded, envelopes)


def dice_port(
    store: EventStore, folded: Folded, *, actor: str, scheme: str | None = None,
    manual_faces: Mapping[str, tuple[int, ...]] | None = None,
) -> DicePort:
    genesis = folded.core.genesis
    # Faces typed in by a player mean the manual scheme, whatever the combat's default.
    chosen = scheme or ("manual" if manual_faces else (genesis.dice if genesis else "local"))
    source = KEY_SOURCES.get(chosen)
    return DicePort(
        scheme=chosen, actor=actor, labels_taken=folded.core.labels,
        key_source=(lambda _s: source(store, folded.core)) if source else None,
        manual_faces=manual_faces, collect_missing=True,
    )


def decide_core(store: EventStore, folded: Folded, command: CoreCommand, dice: DicePort, actor: str) -> list[Event]:
    decider = CORE_DECIDERS.get(type(command))
    if decider is not None:
        return decider(store, folded, command, dice, actor)
    if isinstance(command, RollDice):
        dice.roll(command.label, command.notation, purpose=command.purpose, by=command.by or None)
        return []
    if isinstance(command, AddNote):
        if not command.text.strip():
            raise InvalidCommand("a note needs some text")
        return [Noted(text=command.text, about=command.about)]
    if isinstance(command, CommitSeed):
        if folded.core.open_seed("referee") is not None:
            raise IllegalCommand("a referee seed is already open; reveal it first", rule="core: one open seed")
        seed = secrets.token_bytes(32)
        commitment = seed_commitment(seed)
        store.put_secret(f"seed:{commitment}", seed)  # harmless if the append later fails
        return [SeedCommitted(commitment=commitment, by=actor)]
    if isinstance(command, RevealSeed):
        seq = folded.core.open_seed("referee")
        if seq is None:
            raise IllegalCommand("no referee seed is open", rule="core: reveal follows commit")
        secret = store.get_secret(f"seed:{folded.core.seeds[seq].commitment}")
        if secret is None:
            raise IllegalCommand("the open seed is not on this machine; only the referee can reveal it",
                                 rule="core: only the referee holds the seed")
        return [SeedRevealed(commit_seq=seq, seed=secret.hex())]
    raise InvalidCommand(f"unknown core command {type(command).__name__}")


# -- the write path -----------------------------------------------------------------


def _with_dice(drawn: list[Event], events: list[Event]) -> list[Event]:
    included = {id(e) for e in events}
    return [d for d in drawn if id(d) not in included] + list(events)


def _rehearse(folded: Folded, envelopes: list[Envelope]) -> tuple[list[Recorded], list[Step]]:
    """Fold the new events exactly as a replay will read them; collect derived steps."""
    ruleset = folded.ruleset
    recorded: list[Recorded] = []
    steps: list[Step] = []
    for env in envelopes:
        rec = Recorded(env, env.payload())
        before = folded.state
        folded.apply(rec)
        steps.extend(ruleset.explain(before, rec.event, folded.state, env.seq))
        recorded.append(rec)
    problems = ruleset.check(folded.state)
    if problems:
        raise InternalInvariantError(
            "refusing to append: the result would break the ruleset's invariants: " + "; ".join(problems)
        )
    return recorded, steps


def _seal_all(
    stream_id: str, events: list[Event], *, start_seq: int, prev: str, actor: str, command_id: str,
    signer: Signer | None,
) -> list[Envelope]:
    out: list[Envelope] = []
    for offset, event in enumerate(events):
        env = seal(stream=stream_id, seq=start_seq + offset, prev=prev, event=event, actor=actor, command_id=command_id)
        if signer is not None:
            env = signer(env)
        out.append(env)
        prev = env.hash
    return out


def _rows(envelopes: list[Envelope]) -> list[NewRow]:
    return [NewRow(e.seq, e.type, e.hash, encode_envelope(e)) for e in envelopes]


def execute(
    store: EventStore, ref: str, command: Any, *, actor: str, command_id: str | None = None,
    scheme: str | None = None, manual_faces: Mapping[str, tuple[int, ...]] | None = None,
    signer: Signer | None = None,
) -> Outcome:
    meta = resolve_stream(store, ref)
    cid = command_id or new_command_id()
    earlier = store.command_result(meta.id, cid)
    if earlier is not None:
        return Outcome(stream=meta, first_seq=earlier.first_seq, last_seq=earlier.last_seq, duplicate=True)
    folded = state_at(store, meta)
    head_seq, head_hash = folded.core.head_seq, folded.core.head_hash
    port = dice_port(store, folded, actor=actor, scheme=scheme, manual_faces=manual_faces)
    try:
        if isinstance(command, CoreCommand):
            events = decide_core(store, folded, command, port, actor)
        else:
            events = folded.ruleset.decide(folded.state, command, port)
    except Exception:
        if port.missing:  # decided on placeholder faces: the missing faces are the error to report
            raise port.missing_error() from None
        raise
    port.check_complete()  # no event decided on a placeholder face goes past this line
    events = _with_dice(list(port.drawn), events)
    if not events:
        raise InvalidCommand("the command records nothing")
    envelopes = _seal_all(meta.id, events, start_seq=head_seq + 1, prev=head_hash, actor=actor,
                          command_id=cid, signer=signer)
    _pre_append(store, folded, envelopes)
    recorded, steps = _rehearse(folded, envelopes)
    result = store.append(meta.id, _rows(envelopes), expected_version=head_seq, command_id=cid)
    if result.duplicate:  # the same command id landed meanwhile
        return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq, duplicate=True)
    if result.last_seq // SNAPSHOT_EVERY > head_seq // SNAPSHOT_EVERY:
        save_snapshot(store, meta, folded)
    return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq,
                   events=recorded, steps=steps, folded=folded)


def _check_json_safe(value: Any, where: str) -> None:
    if isinstance(value, float):
        raise InvalidCommand(f"{where}: numbers in a combat log are whole numbers (got {value})")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INT:
        raise InvalidCommand(f"{where}: number {value} is too large")
    if isinstance(value, dict):
        for k, v in value.items():
            _check_json_safe(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_json_safe(v, f"{where}[{i}]")


def create_combat(
    store: EventStore, name: str, ruleset_name: str, *, actor: str, setup: dict[str, Any] | None = None,
    dice: str = "local", players: tuple[Player, ...] = (), options: dict[str, str] | None = None,
    command_id: str | None = None, signer: Signer | None = None,
) -> Outcome:
    if not name.strip() or any(c.isspace() for c in name) or len(name) > 100:
        raise InvalidCommand(f"combat name {name!r}: 1-100 characters without spaces")
    ruleset = load_ruleset(ruleset_name)
    cid = command_id or new_command_id()
    for meta in store.list_streams():
        if meta.name == name:
            earlier = store.command_result(meta.id, cid)
            if earlier is not None:
                return Outcome(stream=meta, first_seq=earlier.first_seq, last_seq=earlier.last_seq, duplicate=True)
            raise InvalidCommand(f"a combat named {name!r} already exists")
    if dice not in ("manual", "local", "referee", "joint"):
        raise InvalidCommand(f"unknown dice scheme {dice!r}")
    setup = ruleset.validate_setup(dict(setup or {}))
    _check_json_safe(setup, "setup")
    stream_id = new_stream_id()
    events: list[Event] = [CombatStarted(
        name=name, ruleset=ruleset.info.name, ruleset_version=ruleset.info.version,
        rules_digest=ruleset.rules_digest(), engine_version=ENGINE_VERSION, setup=setup,
        players=players, dice=dice, options=dict(options or {}),
    )]
    folded = empty(ruleset)
    if dice == "referee":
        port = DicePort(scheme="manual", actor=actor, labels_taken=())
        events += decide_core(store, folded, CommitSeed(), port, actor)
    envelopes = _seal_all(stream_id, events, start_seq=1, prev=GENESIS_PREV, actor=actor, command_id=cid,
                          signer=signer)
    _pre_append(store, folded, envelopes)
    recorded, steps = _rehearse(folded, envelopes)
    meta = StreamMeta(id=stream_id, name=name, ruleset=ruleset.info.name, created_at=envelopes[0].recorded_at)
    result = store.create_stream(meta, _rows(envelopes), command_id=cid)
    return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq, events=recorded,
                   steps=steps, folded=folded)


def fork_stream(
    store: EventStore, ref: str, *, at_seq: int, name: str, actor: str, reason: str = "",
    command_id: str | None = None, signer: Signer | None = None,
) -> Outcome:
    parent = resolve_stream(store, ref)
    if at_seq < 1:
        raise InvalidCommand("a fork point is a seq of 1 or more")
    if any(m.name == name for m in store.list_streams()):
        raise InvalidCommand(f"a combat named {name!r} already exists")
    folded = state_at(store, parent, at_seq)
    stream_id = new_stream_id()
    cid = command_id or new_command_id()
    event = Forked(name=name, parent=parent.id, parent_name=parent.name, at_seq=at_seq,
                   parent_hash=folded.core.head_hash, reason=reason)
    envelopes = _seal_all(stream_id, [event], start_seq=at_seq + 1, prev=folded.core.head_hash, actor=actor,
                          command_id=cid, signer=signer)
    _pre_append(store, folded, envelopes)
    recorded, steps = _rehearse(folded, envelopes)
    meta = StreamMeta(id=stream_id, name=name, ruleset=parent.ruleset, created_at=envelopes[0].recorded_at,
                      parent=parent.id, fork_seq=at_seq)
    result = store.create_stream(meta, _rows(envelopes), command_id=cid)
    return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq, events=recorded,
                   steps=steps, folded=folded)


# The trust layer registers the joint key source, its core commands and its checks.
from combatlog.trust.hooks import install_handler as _install  # noqa: E402

_install(sys.modules[__name__])
