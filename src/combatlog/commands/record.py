"""The command recorded with each batch of events, so that every machine can re-decide it.

A ruleset command's batch carries, on its first envelope (``Envelope.command``), the
command's name and arguments as canonical JSON. The envelope's hash, and so its
signature, cover it: the author signs *what he asked for* together with what it
produced. ``verify`` and ``import`` decode it, re-run the ruleset's ``decide`` on the
state before the batch with the batch's own dice, check the actor's authority, and
refuse the batch unless it is exactly what the rules produce (``exchange/redecide.py``).

Names are ``<ruleset>.<Class>``: stable across module moves. A command class renamed
later keeps its old name by declaring ``record_name``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import msgspec

from combatlog.errors import InvalidCommand
from combatlog.events.canonical import canonical

MAX_COMMAND_BYTES = 64 * 1024  # a command is a handful of names and numbers; a set-up travels in the genesis


class CommandRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    args: msgspec.Raw


_RECORD = msgspec.json.Decoder(CommandRecord)


def _since(engine_version: str, since: tuple[int, ...]) -> bool:
    try:
        version = tuple(int(part) for part in engine_version.split(".")[:3])
    except ValueError:
        return True  # not a version this project wrote: held to the strict rule
    return version >= since


def records_commands(engine_version: str) -> bool:
    """True when a log begun by ``engine_version`` records its commands (and must: verify re-decides them)."""
    from combatlog import COMMANDS_RECORDED_SINCE

    return _since(engine_version, COMMANDS_RECORDED_SINCE)


def records_state(engine_version: str) -> bool:
    """True when a log begun by ``engine_version`` records the state digest on the last envelope of each batch
    (and must, for a ruleset command's: verify compares it with its own fold). The write path adds it only to
    such logs: a log keeps the format of the engine that began it, which every player's build reads."""
    from combatlog import STATE_RECORDED_SINCE

    return _since(engine_version, STATE_RECORDED_SINCE)


def must_record(genesis: Any) -> bool:
    """True when every event of the rules in the combat begun by ``genesis`` must come with a recorded command:
    a log of an engine that records commands, and whatever the genesis claims, a combat with pinned players
    (the engine a genesis names is the creator's word: it cannot turn the re-deciding of anyone's moves off)."""
    return records_commands(genesis.engine_version) or bool(genesis.players)


UNRECORDED_RULE = "core: every decision is re-decided"


def unrecorded_problem(genesis: Any) -> str:
    """Why a log whose genesis claims an engine from before command records cannot be trusted as played."""
    return (f"the genesis claims engine {genesis.engine_version[:40]!r}, from before commands were recorded: its "
            "set-up and decisions cannot be re-decided (not re-decided), so whoever wrote them may have recorded "
            "anything the rules refuse")


def commands_in(module: ModuleType) -> tuple[type, ...]:
    """Every command class of a ruleset's ``commands`` module (the subclasses of its ``_Command``)."""
    base = module._Command
    return tuple(cls for cls in vars(module).values()
                 if isinstance(cls, type) and issubclass(cls, base) and cls is not base)


def record_name(ruleset_name: str, cls: type) -> str:
    return f"{ruleset_name}.{getattr(cls, 'record_name', cls.__name__)}"


def encode_record(ruleset_name: str, command: Any) -> bytes:
    """The canonical bytes an envelope carries for ``command``."""
    return canonical(CommandRecord(name=record_name(ruleset_name, type(command)),
                                   args=msgspec.Raw(canonical(command))))


_DECODERS: dict[str, tuple[tuple[type, ...], dict[str, msgspec.json.Decoder[Any]]]] = {}


def command_decoders(ruleset_name: str, types: tuple[type, ...]) -> dict[str, msgspec.json.Decoder[Any]]:
    """Record name -> a decoder of its command class, built once per ruleset: verify decodes a record per
    command, and a cache keyed by the tuple of types would hash the whole tuple every time (the tuple is
    the ruleset's own, so it is recognised by identity)."""
    known = _DECODERS.get(ruleset_name)
    if known is None or known[0] is not types:
        known = _DECODERS[ruleset_name] = (types, {record_name(ruleset_name, cls): msgspec.json.Decoder(cls)
                                                   for cls in types})
    return known[1]


def decode_record(ruleset_name: str, types: tuple[type, ...], raw: bytes | msgspec.Raw) -> Any:
    """The command a record names, decoded strictly; ``InvalidCommand`` says what is wrong."""
    if len(raw) > MAX_COMMAND_BYTES:
        raise InvalidCommand(f"a recorded command of {len(raw)} bytes (at most {MAX_COMMAND_BYTES})")
    try:
        record = _RECORD.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise InvalidCommand(f"not a recorded command: {exc}") from None
    decoder = command_decoders(ruleset_name, types).get(record.name)
    if decoder is None:
        raise InvalidCommand(f"recorded command {record.name[:80]!r} is not a {ruleset_name} command")
    try:
        return decoder.decode(record.args)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise InvalidCommand(f"recorded command {record.name}: {exc}") from None
