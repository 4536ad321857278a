"""An event line proven canonical by the typed decodes verify makes of it anyway (``ChainVerifier.feed``).

``is_canonical`` decodes a line into plain dicts and lists and encodes them again: most of a line's check,
and as much work again as the typed decodes of its envelope, payload and command that verify needs anyway.
Here those typed values are encoded again instead, and the line is canonical when it is exactly their
canonical bytes:

- the envelope: encoded again, compared with the whole line (key order, whitespace, escapes, duplicate and
  unknown keys: anything but canonical bytes differs); the hashed part the hash needs is then the line with
  its ``hash`` and ``sigs`` members cut out. ``data`` and ``command`` are copied verbatim there, so:
- the payload (``data``) is the canonical bytes of the decoded event, and the ``command`` is ``{"args":``, the
  canonical bytes of the decoded arguments, and the fixed bytes that end a record of their command's name
  (``_record_tails``), each of a type whose every field is an integer, a string, a boolean, null, a
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

from combatlog.commands.record import MAX_COMMAND_BYTES, command_decoders
from combatlog.events.canonical import _DIGITS_ONLY, _SIXTEEN_DIGITS, canonical, depth_problem
from combatlog.events.envelope import Envelope, decode_envelope

_encode = msgspec.json.encode  # a string's JSON (no keys: no order to mind)
NOT_DECODED: Any = object()  # the command of a line whose command was not decoded here

_SCALARS = (mi.IntType, mi.StrType, mi.BoolType, mi.NoneType, mi.LiteralType)
_PLAIN: dict[type, bool] = {}  # class -> whether its canonical bytes prove themselves (see _plain_type)
_RECORD_HEAD = b'{"args":'  # a canonical command record's first bytes (``args`` sorts before ``name``)
_TAILS: dict[str, tuple[tuple[type, ...], dict[bytes, Any]]] = {}  # ruleset -> (its command types, _record_tails)


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
    if canonical(env) != body or not _plain_type(type(event)) or canonical(event) != bytes(env.data):
        return None
    hashed = _without_hash_and_sigs(body, env)
    if not hashed:
        return None
    command = NOT_DECODED
    if env.command is not msgspec.UNSET:
        record = bytes(env.command)
        at_name = record.rfind(b',"name":')
        decoder = _record_tails(ruleset).get(record[at_name:])
        if decoder is None or len(record) > MAX_COMMAND_BYTES or not record.startswith(_RECORD_HEAD):
            return None
        args = record[len(_RECORD_HEAD):at_name]
        command = decoder.decode(args)
        if canonical(command) != args:
            return None
    return TypedLine(env, hashed, event, command)


def _without_hash_and_sigs(line: bytes, env: Envelope) -> bytes:
    """The hashed part of a canonical envelope line (``Envelope.hashed_part``): the line without its ``hash`` and
    ``sigs`` members. ``hash`` stands before ``placed`` (or ``prev`` where there is none), ``sigs`` before
    ``state`` (or ``stream`` where there is none), as their keys sort; each key is found as the last
    ``,"key":`` of the line: a string cannot hold that byte sequence (its quote would be escaped), and whatever nests in ``data``, ``command`` or ``placed``
    (where a signature's ``sigs`` key stands) comes before the envelope's own key. JCS sorts the members of
    the hashed part as it sorts the envelope's, so cutting two members out of the one gives the other."""
    at_hash = line.rfind(b',"hash":')
    after_hash = line.rfind(b',"prev":' if env.placed is msgspec.UNSET else b',"placed":')
    at_sigs = line.rfind(b',"sigs":')
    at_stream = line.rfind(b',"stream":')
    after_sigs = at_stream if env.state is msgspec.UNSET else line.rfind(b',"state":')  # (``state`` sorts between)
    if not 0 < at_hash < after_hash < at_sigs < after_sigs <= at_stream:
        return b""
    return b"".join((line[:at_hash], line[after_hash:at_sigs], line[after_sigs:]))


def _record_tails(ruleset: Any) -> dict[bytes, msgspec.json.Decoder[Any]]:
    """The bytes ``encode_record`` writes after the canonical arguments of each of ``ruleset``'s commands whose
    arguments prove themselves (``_plain_type``) -> the decoder of its arguments. JCS writes a record's two
    members, ``args`` then ``name``, so a canonical record is ``{"args":`` + the arguments + this tail; the
    tail is found as the record's last ``,"name":`` (whatever nests in the arguments comes before it). Built
    once per ruleset, from ``decode_record``'s table of decoders."""
    name, types = ruleset.info.name, ruleset.command_types
    known = _TAILS.get(name)
    if known is None or known[0] is not types:
        tails = {}
        for record, decoder in command_decoders(name, types).items():
            if _plain_type(decoder.type):
                tails[b"".join((b',"name":', _encode(record), b"}"))] = decoder
        known = _TAILS[name] = (types, tails)
    return known[1]


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
