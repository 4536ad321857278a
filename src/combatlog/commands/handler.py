"""The write path: resolve the stream, fold it, decide, rehearse, append.

Nothing is appended unless every step succeeds: ``decide`` checks legality,
the new events are decoded back from their canonical bytes and folded onto
the current state (so ``evolve`` sees exactly what a later replay will see),
the ruleset's invariants are checked, and only then does the store append the
batch atomically against the version that was folded.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from combatlog import ENGINE_VERSION
from combatlog.commands.authority import check_authority, roles_of
from combatlog.commands.core import AddNote, CommitSeed, CoreCommand, RevealSeed, RollDice
from combatlog.commands.kept import kept_command, kept_name
from combatlog.commands.record import UNRECORDED_RULE, encode_record, records_commands, records_state, unrecorded_problem
from combatlog.dice.derive import seed_commitment
from combatlog.dice.port import DicePort, rules_label_error, with_drawn
from combatlog.errors import CombatlogError, IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.events.canonical import MAX_DEPTH, MAX_EVENT_BYTES, depth_problem, json_problem, unsafe_json
from combatlog.events.core import CombatStarted, DiceRolled, Forked, Noted, Player, SeedCommitted, SeedRevealed
from combatlog.events.envelope import GENESIS_PREV, Envelope, Recorded, decode_envelope, encode_envelope, recorded_after, seal
from combatlog.names import check_name
from combatlog.text import CONTROL_BYTES, control_problem, may_hold_control
from combatlog.projections.digest import state_digest
from combatlog.projections.fold import FOLD_WHOLE_UP_TO, SNAPSHOT_EVERY, Folded, empty, evolved, save_snapshot, state_at
from combatlog.rulesets import load_ruleset
from combatlog.rulesets.base import Step
from combatlog.projections.streams import resolve_stream  # noqa: F401  (re-exported)
from combatlog.store.base import EventStore, NewRow, StreamMeta
from combatlog.ports import Wiring

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


MAX_NOTE = 20_000

# -- dice and core commands ----------------------------------------------------------


def _pre_append(wiring: Wiring, store: EventStore, folded: Folded, envelopes: list[Envelope]) -> list[bytes]:
    """What verify would refuse is refused before it is appended (the core's limits, then the wiring's checks).
    Returns the envelopes' stored bytes (encoded once: the checks read them, the append stores them)."""
    bodies = _check_sizes(envelopes)
    for check in wiring.pre_append:
        check(store, folded, envelopes)
    return bodies

def dice_port(
    store: EventStore, folded: Folded, *, actor: str, scheme: str | None = None,
    manual_faces: Mapping[str, tuple[int, ...]] | None = None, wiring: Wiring,
    replay: Sequence[DiceRolled] | None = None,
) -> DicePort:
    genesis = folded.core.genesis
    # Faces typed in by a player mean the manual scheme, whatever the combat's default.
    chosen = scheme or ("manual" if manual_faces else (genesis.dice if genesis else "local"))
    source = wiring.key_sources.get(chosen)
    return DicePort(
        scheme=chosen, actor=actor, labels_taken=folded.core.labels,
        key_source=(lambda label: source(store, folded.core, label)) if source else None,
        manual_faces=manual_faces, collect_missing=True, replay=replay,
        owns_label=folded.ruleset.owns_label, ruleset=folded.ruleset.info.name,
    )


def decide_core(store: EventStore, folded: Folded, command: CoreCommand, dice: DicePort, actor: str,
                wiring: Wiring) -> list[Event]:
    decider = wiring.deciders.get(type(command))
    if decider is not None:  # sealed orders, acknowledgements, decision points (the trust layer)
        return decider(store, folded, command, dice, actor)
    if isinstance(command, RollDice):
        if dice.scheme == "joint":
            # Anyone who knows a revealed joint seed can compute any label's faces: a free roll
            # under a label of the roller's choosing could be tried offline until it rolls well.
            raise IllegalCommand(
                "a free roll cannot use joint dice: its label would be the roller's choice, and a revealed "
                "seed tells anyone the faces of every label; roll through the rules' commands, or use "
                "--scheme local or manual (marked unverifiable)",
                rule="trust: joint dice have the rules' labels",
            )
        if folded.ruleset.owns_label(command.label):  # (verify refuses such a free roll too)
            raise rules_label_error(command.label, folded.ruleset.info.name, "a free roll's label")
        dice.roll(command.label, command.notation, purpose=command.purpose, by=command.by or None)
        return []
    if isinstance(command, AddNote):
        if not command.text.strip():
            raise InvalidCommand("a note needs some text")
        if any(not about.strip() for about in command.about):
            raise InvalidCommand("--about is blank: name who or what the note concerns, or leave --about out")
        if len(command.text) > MAX_NOTE:
            raise InvalidCommand(f"a note is at most {MAX_NOTE} characters (this one has {len(command.text)})")
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


def _rehearse(folded: Folded, envelopes: list[Envelope]) -> tuple[list[Recorded], list[Any], list[Step]]:
    """Fold the new events exactly as a replay will read them (decoded back from their bytes), without changing
    ``folded``: the rules' state after each, and the derived steps; then the ruleset's invariants."""
    ruleset = folded.ruleset
    recorded: list[Recorded] = []
    states: list[Any] = []
    steps: list[Step] = []
    state = folded.state
    for env in envelopes:
        rec = Recorded(env, env.payload())
        after = evolved(ruleset, state, rec)
        steps.extend(ruleset.explain(state, rec.event, after, env.seq))
        recorded.append(rec)
        states.append(after)
        state = after
    problems = ruleset.check(state)
    if problems:
        raise InternalInvariantError(
            "refusing to append: the result would break the ruleset's invariants: " + "; ".join(problems)
        )
    return recorded, states, steps


def _close(folded: Folded, recorded: list[Recorded], states: list[Any], signer: Signer | None,
           *, digest: bool) -> list[Envelope]:
    """The batch as it is appended: the digest of the state it leaves on its last envelope (where the log records
    it: ``records_state``), then each envelope signed. ``recorded`` is updated in place."""
    if digest:
        last = recorded[-1]
        recorded[-1] = Recorded(last.env.with_state(state_digest(folded.ruleset, states[-1])), last.event)
    if signer is not None:
        recorded[:] = [Recorded(signer(rec.env), rec.event) for rec in recorded]
    return [rec.env for rec in recorded]


def _commit(folded: Folded, recorded: list[Recorded], states: list[Any]) -> None:
    """Fold the rehearsed batch into ``folded`` (its states computed already)."""
    for rec, after in zip(recorded, states, strict=True):
        folded.apply(rec, after)


def _seal_all(
    stream_id: str, events: list[Event], *, start_seq: int, prev: str, actor: str, command_id: str,
    signer: Signer | None, head_time: str = "", command: bytes | None = None,
) -> list[Envelope]:
    out: list[Envelope] = []
    recorded_at = recorded_after(head_time)  # verify refuses times that go backwards along the chain
    for offset, event in enumerate(events):
        env = seal(stream=stream_id, seq=start_seq + offset, prev=prev, event=event, actor=actor, command_id=command_id,
                   recorded_at=recorded_at, command=command if offset == 0 else None)
        if signer is not None:
            env = signer(env)
        out.append(env)
        prev = env.hash
    return out


def _rows(envelopes: list[Envelope], bodies: list[bytes]) -> list[NewRow]:
    return [NewRow(e.seq, e.type, e.hash, body) for e, body in zip(envelopes, bodies, strict=True)]


def execute(
    store: EventStore, ref: str | StreamMeta, command: Any, *, actor: str, command_id: str | None = None,
    scheme: str | None = None, manual_faces: Mapping[str, tuple[int, ...]] | None = None,
    signer: Signer | None = None, wiring: Wiring, folded: Folded | None = None,
    replay: Sequence[DiceRolled] | None = None,
) -> Outcome:
    """Run one command: every step, in order, with the checks ``wiring`` assembles (``combatlog.wiring``).

    ``folded``: the stream's state that the caller already holds (``run FILE`` keeps it between lines), used
    only if it ends at the store's head (same seq and hash), else the log is folded. The new events are
    applied to it in place (``Outcome.folded``), so a caller that keeps it must drop it when this raises
    with its ``core.head_seq`` moved (rehearsed, then not appended).

    ``replay``: the dice a decision drew when it was first made, when a merge re-runs it (``exchange/merge.py``):
    each die drawn again shows the same faces, or the command is refused (``DicePort``: no re-roll).
    """
    meta = ref if isinstance(ref, StreamMeta) else resolve_stream(store, ref)  # a caller's meta: one read less
    cid = command_id or new_command_id()
    earlier = store.command_result(meta.id, cid)
    if earlier is not None:  # a retry by the same actor; another actor's id is refused
        _same_author(store, meta, earlier.first_seq, cid, actor)
        return Outcome(stream=meta, first_seq=earlier.first_seq, last_seq=earlier.last_seq, duplicate=True)
    # 1. the state: a fold of the log (from the newest snapshot), or the caller's when it ends at the head
    folded = _at_head(store, meta, folded)
    _refuse_unrecorded(folded, meta.name)
    head_seq, head_hash = folded.core.head_seq, folded.core.head_hash
    # 2. decide: authority, legality and the events, randomness only through the dice port
    port = dice_port(store, folded, actor=actor, scheme=scheme, manual_faces=manual_faces, wiring=wiring,
                     replay=replay)
    record: bytes | None = None
    try:
        if isinstance(command, CoreCommand):
            events = decide_core(store, folded, command, port, actor, wiring)
        else:
            roles = roles_of(folded.ruleset, folded.core.genesis, folded.core.creator)
            check_authority(folded.ruleset, folded.state, roles, command, actor)
            events = folded.ruleset.decide(folded.state, command, port)
            if any(d.scheme == "manual" for d in port.drawn):
                check_authority(folded.ruleset, folded.state, roles, command, actor, manual_dice=True)
            record = encode_record(folded.ruleset.info.name, command)  # verify re-decides it
    except Exception:
        if port.missing:  # decided on placeholder faces: the missing faces are the error to report
            raise port.missing_error() from None
        raise
    port.check_complete()  # no event decided on a placeholder face goes past this line
    events = with_drawn(port.drawn, events)
    if not events:
        raise InvalidCommand("the command records nothing")
    # 3. seal: envelopes chained to the head, the command on the first
    envelopes = _seal_all(meta.id, events, start_seq=head_seq + 1, prev=head_hash, actor=actor,
                          command_id=cid, signer=None, head_time=folded.core.head_time, command=record)
    # 4. rehearse: fold the events as a replay will read them (the state before stays as it is), then the
    #    ruleset's invariants; the digest of the state they leave goes on the last envelope, which only then is
    #    signed with the others by the actor where players are pinned (projections/digest.py)
    recorded, states, steps = _rehearse(folded, envelopes)
    genesis = folded.core.genesis
    envelopes = _close(folded, recorded, states, signer,
                       digest=genesis is not None and records_state(genesis.engine_version))
    # 5. refuse what verify would: sizes, nesting, control characters; signatures, sealed orders, joint dice
    bodies = _pre_append(wiring, store, folded, envelopes)
    _commit(folded, recorded, states)
    # 6. append atomically against the version folded; where players are pinned, the command is kept here in
    #    the same transaction, because a merge may have to re-run it (exchange/merge.py, commands/kept.py)
    kept = {kept_name(meta.id, cid): kept_command(command, actor=actor, scheme=scheme, manual_faces=manual_faces)} \
        if genesis is not None and genesis.players else None
    result = store.append(meta.id, _rows(envelopes, bodies), expected_version=head_seq, command_id=cid,
                          **({"secrets": kept} if kept else {}))
    if result.duplicate:  # the same command id landed meanwhile
        _same_author(store, meta, result.first_seq, cid, actor)
        return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq, duplicate=True)
    # a snapshot every SNAPSHOT_EVERY events, and one whenever this command had to fold as many without one on a
    # log long enough to read them (a log whose snapshots another build saved: they are not used, and every
    # command would fold it all; a shorter log is always folded whole, fold.FOLD_WHOLE_UP_TO)
    if result.last_seq // SNAPSHOT_EVERY > head_seq // SNAPSHOT_EVERY \
            or (folded.replayed >= SNAPSHOT_EVERY and head_seq > FOLD_WHOLE_UP_TO):
        save_snapshot(store, meta, folded)
        folded.replayed = 0
    return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq,
                   events=recorded, steps=steps, folded=folded)


def _refuse_unrecorded(folded: Folded, name: str) -> None:
    """Nothing is added to a combat whose genesis claims an engine from before command records: no machine
    would re-decide what it holds (it was accepted, to read, with ``--accept-unrecorded``)."""
    genesis = folded.core.genesis
    if genesis is not None and not records_commands(genesis.engine_version):
        raise IllegalCommand(f"nothing can be added to {name}: {unrecorded_problem(genesis)}; start a new combat",
                             rule=UNRECORDED_RULE)


def _at_head(store: EventStore, meta: StreamMeta, folded: Folded | None) -> Folded:
    """``folded`` if it is the state at the stream's head (no one appended since), else a fold of the log."""
    if folded is not None and folded.core.stream == meta.id:
        head = store.head(meta.id)
        if head.seq == folded.core.head_seq and head.hash == folded.core.head_hash:
            return folded
    return state_at(store, meta)


def _same_author(store: EventStore, meta: StreamMeta, first_seq: int, command_id: str, actor: str) -> None:
    """A command id already recorded is a retry only when the same actor sent it.

    Another player reusing an id (or running the same line of a command file) must
    not be told "already recorded" while nothing of theirs was appended.
    """
    rows = store.read_stream(meta.id, first_seq, first_seq)
    author = decode_envelope(rows[0].body).actor if rows else actor
    if author != actor:
        raise IllegalCommand(
            f"command id {command_id!r} was already used by {author} in {meta.name} (seq {first_seq}); "
            f"nothing was recorded for {actor}: use another command id",
            rule="core: a command id is a retry only for the player who sent it",
        )


def _check_json_safe(value: Any, where: str) -> None:
    problem = json_problem(value, where)
    if problem:
        raise InvalidCommand(problem)


def _check_sizes(envelopes: list[Envelope]) -> list[bytes]:
    """What verify would refuse as too deep, too large, holding a number no log holds or control characters is
    refused before it is appended; returns the bodies. A command whose rules compute such a value (damage of
    99999999999999999999 taken from hit points) is an error, never a log that no machine verifies after."""
    bodies = []
    for env in envelopes:
        data = bytes(env.data)
        if len(data) > MAX_EVENT_BYTES:
            raise InvalidCommand(f"the {env.type} event would be {len(data)} bytes; an event is at most "
                                 f"{MAX_EVENT_BYTES} bytes")
        if depth_problem(data):  # (a linear scan: never handed to a decoder that would recurse into it)
            raise InvalidCommand(f"the {env.type} event nests values deeper than {MAX_DEPTH} levels")
        value = msgspec.json.decode(data)
        if unsafe_json(value):  # a number verify refuses (beyond +-2**53, or a fraction): the rules computed it
            raise InvalidCommand(f"the {env.type} event would hold what a log cannot: "
                                 f"{json_problem(value, 'its ' + env.type.rpartition('.')[2])}")
        body = encode_envelope(env)
        if may_hold_control(body) and CONTROL_BYTES.search(body):  # the regex only where a match could be
            problem = control_problem(msgspec.json.decode(body))
            if problem:
                raise InvalidCommand(f"{problem.replace('data.', '', 1)}: control characters (and line breaks, "
                                     "but in notes and orders) could rewrite another player's screen")
        bodies.append(body)
    return bodies


def create_combat(
    store: EventStore, name: str, ruleset_name: str, *, actor: str, setup: dict[str, Any] | None = None,
    dice: str = "local", players: tuple[Player, ...] = (), options: dict[str, str] | None = None,
    command_id: str | None = None, signer: Signer | None = None, wiring: Wiring,
) -> Outcome:
    check_name(name)
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
    referee = (options or {}).get("referee")
    if referee is not None:
        from combatlog.commands.authority import PLAYER_NAME

        if not PLAYER_NAME.match(referee):
            raise InvalidCommand(f"--referee {referee[:40]!r}: a player's name (1-64 letters, digits, _ . -)")
        if players and referee not in {p.name for p in players}:
            raise InvalidCommand(f"--referee {referee}: the referee must be one of the pinned players "
                                 f"({', '.join(p.name for p in players)})")
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
        events += decide_core(store, folded, CommitSeed(), port, actor, wiring)
    envelopes = _seal_all(stream_id, events, start_seq=1, prev=GENESIS_PREV, actor=actor, command_id=cid,
                          signer=None)
    recorded, states, steps = _rehearse(folded, envelopes)
    envelopes = _close(folded, recorded, states, signer, digest=True)  # (this engine's log: records_state)
    bodies = _pre_append(wiring, store, folded, envelopes)
    _commit(folded, recorded, states)
    meta = StreamMeta(id=stream_id, name=name, ruleset=ruleset.info.name, created_at=envelopes[0].recorded_at)
    result = store.create_stream(meta, _rows(envelopes, bodies), command_id=cid)
    return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq, events=recorded,
                   steps=steps, folded=folded)


def fork_stream(
    store: EventStore, ref: str, *, at_seq: int, name: str, actor: str, reason: str = "",
    command_id: str | None = None, signer: Signer | None = None, wiring: Wiring,
) -> Outcome:
    parent = resolve_stream(store, ref)
    check_name(name)
    if at_seq < 1:
        raise InvalidCommand("a fork point is a seq of 1 or more")
    if any(m.name == name for m in store.list_streams()):
        raise InvalidCommand(f"a combat named {name!r} already exists")
    folded = state_at(store, parent, at_seq)
    _refuse_unrecorded(folded, parent.name)
    stream_id = new_stream_id()
    cid = command_id or new_command_id()
    event = Forked(name=name, parent=parent.id, parent_name=parent.name, at_seq=at_seq,
                   parent_hash=folded.core.head_hash, reason=reason)
    envelopes = _seal_all(stream_id, [event], start_seq=at_seq + 1, prev=folded.core.head_hash, actor=actor,
                          command_id=cid, signer=None, head_time=folded.core.head_time)
    recorded, states, steps = _rehearse(folded, envelopes)
    genesis = folded.core.genesis
    envelopes = _close(folded, recorded, states, signer,
                       digest=genesis is not None and records_state(genesis.engine_version))
    bodies = _pre_append(wiring, store, folded, envelopes)
    _commit(folded, recorded, states)
    meta = StreamMeta(id=stream_id, name=name, ruleset=parent.ruleset, created_at=envelopes[0].recorded_at,
                      parent=parent.id, fork_seq=at_seq)
    result = store.create_stream(meta, _rows(envelopes, bodies), command_id=cid)
    return Outcome(stream=meta, first_seq=result.first_seq, last_seq=result.last_seq, events=recorded,
                   steps=steps, folded=folded)
