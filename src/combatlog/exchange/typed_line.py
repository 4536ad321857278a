"""An event line proven canonical by the typed decodes verify makes of it anyway (``ChainVerifier.feed``).

``is_canonical`` decodes a line into plain dicts and lists and encodes them again: most of a line's check,
and as much work again as the typed decodes of its envelope, payload and command that verify needs anyway.
Here those typed values are encoded again instead, and the line is canonical when it is exactly their
canonical bytes:

- the envelope: the hashed part (which the hash needs anyway) with the ``hash`` and ``sigs`` members put
  back where JCS places them, compared with the whole line (key order, whitespace, escapes, duplicate and
  unknown keys: anything but canonical bytes differs). ``data`` and ``command`` are copied verbatim there, so:
- the payload (``data``) is the canonical bytes of the decoded event, and the ``command`` those of the
  decoded command record, each of a type whose every field is an integer, a string, a boolean, null, a
  literal, or lists, tuples, objects, unions and structs of them (no float, no free-form value, no Raw,
  whose bytes would be copied unchecked);
- integers are within +-2**53: a larger one is written with 16 digits or more, and the line holds no run of
  16 digits (most lines; where it does, the full check decides);
- the depth is checked first, by the linear scan, before any decoder sees the line.

A line this cannot prove (an old schema, a set-up or another free-form value, a big number, or a line that
is not canonical at all) is judged by ``is_canonical`` as before, which alone decides what is refused and
how: this is a shortcut to the same answer, never a second opinion.
"""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi

from combatlog.commands.record import CommandRecord, decode_record, record_name
from combatlog.events.canonical import _DIGITS_ONLY, _SIXTEEN_DIGITS, canonical, depth_problem
from combatlog.events.envelope import Envelope, decode_envelope

_encode = msgspec.json.encode  # a string's JSON (no keys: no order to mind)
NOT_DECODED: Any = object()  # the command of a line whose command was not decoded here

_SCALARS = (mi.IntType, mi.StrType, mi.BoolType, mi.NoneType, mi.LiteralType)
_PLAIN: dict[type, bool] = {}  # class -> whether its canonical bytes prove themselves (see _plain_type)
_AROUND: dict[tuple[str, type], tuple[bytes, bytes] | None] = {}  # (ruleset, command class) -> _record_around


class TypedLine(msgspec.Struct, frozen=True):
    """A line proven canonical, with what proving it decoded: the envelope, its hashed part, its payload and
    its command (``NOT_DECODED`` when it carries none)."""

    env: Envelope
    hashed: bytes
    event: Any
    command: Any


def typed_line(body: bytes, ruleset: Any) -> TypedLine | None:
    """``body`` decoded, when its typed values prove it canonical (else None: ``is_canonical`` must judge it)."""
    if depth_problem(body) or _SIXTEEN_DIGITS in body.translate(_DIGITS_ONLY):
        return None
    try:
        return _proven(body, ruleset)
    except Exception:  # a line this cannot read (bad UTF-8 in a Raw part...): is_canonical judges it, and
        return None  # verify finds again, and names, whatever is wrong with it where it looks for it


def _proven(body: bytes, ruleset: Any) -> TypedLine | None:
    env = decode_envelope(body)
    event = env.payload()
    hashed = env.hashed_part()
    if _with_hash_and_sigs(hashed, env) != body or not _plain_type(type(event)) \
            or canonical(event) != bytes(env.data):
        return None
    command = NOT_DECODED
    if env.command is not msgspec.UNSET:
        name = ruleset.info.name
        command = decode_record(name, ruleset.command_types, env.command)
        around = _record_around(name, type(command))
        if around is None or b"".join((around[0], canonical(command), around[1])) != bytes(env.command):
            return None
    return TypedLine(env, hashed, event, command)


def _with_hash_and_sigs(hashed: bytes, env: Envelope) -> bytes:
    """The canonical envelope, from its canonical hashed part: ``hash`` goes before ``placed`` (or ``prev``
    where there is none) and ``sigs`` before ``stream``, as their keys sort. Each key is found as the last
    ``,"key":`` of the hashed part: a string cannot hold that byte sequence (its quote would be escaped), and
    whatever nests in ``data``, ``command`` or ``placed`` comes before the envelope's own key."""
    at_hash = hashed.rfind(b',"prev":' if env.placed is msgspec.UNSET else b',"placed":')
    at_sigs = hashed.rfind(b',"stream":')
    if not 0 < at_hash < at_sigs:
        return b""
    sigs = canonical(env.sigs) if env.sigs else b"[]"
    return b"".join((hashed[:at_hash], b',"hash":', _encode(env.hash), hashed[at_hash:at_sigs], b',"sigs":', sigs,
                     hashed[at_sigs:]))


def _record_around(ruleset_name: str, cls: type) -> tuple[bytes, bytes] | None:
    """The bytes ``encode_record`` writes before and after the canonical arguments of a ``cls`` command, or
    None when those arguments do not prove themselves (``_plain_type``). JCS writes a record's two members,
    ``args`` then ``name``, the same whatever the arguments: only they vary from command to command."""
    key = (ruleset_name, cls)
    if key not in _AROUND:
        _AROUND[key] = None
        if _plain_type(cls):
            marker = b"\x00"  # never in canonical JSON (a control character is escaped in a string)
            whole = canonical(CommandRecord(name=record_name(ruleset_name, cls), args=msgspec.Raw(marker)))
            head, _, tail = whole.partition(marker)
            if whole.isascii() and marker not in tail:
                _AROUND[key] = (head, tail)
    return _AROUND[key]


def _plain_type(cls: type) -> bool:
    """True when every value ``cls`` can hold encodes as what a plain decode would read back: integers,
    strings, booleans, null, literals, and lists, tuples, objects, unions and structs of them."""
    known = _PLAIN.get(cls)
    if known is None:
        known = _PLAIN[cls] = _plain(mi.type_info(cls), set())
    return known


def _plain(info: mi.Type, seen: set[int]) -> bool:
    if isinstance(info, _SCALARS):
        return True
    if isinstance(info, (mi.ListType, mi.VarTupleType)):
        return _plain(info.item_type, seen)
    if isinstance(info, mi.TupleType):
        return all(_plain(t, seen) for t in info.item_types)
    if isinstance(info, mi.DictType):
        return isinstance(info.key_type, mi.StrType) and _plain(info.value_type, seen)
    if isinstance(info, mi.UnionType):
        return all(_plain(t, seen) for t in info.types)
    if isinstance(info, mi.StructType):
        if id(info) in seen:  # a recursive type: judged where it began
            return True
        seen.add(id(info))
        return all(_plain(f.type, seen) for f in info.fields)
    return False  # a float, a free-form value, Raw, or a type a plain decode reads otherwise
