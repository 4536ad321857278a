"""Canonical bytes (RFC 8785, JCS) for hashing and signing.

msgspec with sorted keys emits exactly JCS for the values events may carry:
strings, integers within +-2**53, booleans, null, lists and objects. Floats
are not allowed in events (JCS's number formatting would differ), which a test
checks for every registered payload type; a property test compares this
encoder with the ``rfc8785`` package.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import msgspec

_ENCODER = msgspec.json.Encoder(order="sorted")
_INSERTION_ORDER = msgspec.json.Encoder()
MAX_SAFE_INT = 2**53 - 1
# UTF-8 lead bytes of U+E000..U+FFFF and of characters beyond the BMP.
_ORDER_SENSITIVE = re.compile(rb"[\xee-\xf4]")


def canonical(value: Any) -> bytes:
    """JCS bytes. msgspec sorts keys by code point, JCS by UTF-16 code unit; the two
    orders differ only between keys holding U+E000..U+FFFF and keys beyond the BMP,
    so only output containing such characters takes the slow, re-sorting path."""
    out = _ENCODER.encode(value)
    if not out.isascii() and _ORDER_SENSITIVE.search(out):
        out = _INSERTION_ORDER.encode(_utf16_sorted(msgspec.json.decode(out)))
    return out


def _utf16_sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _utf16_sorted(value[k]) for k in sorted(value, key=lambda k: k.encode("utf-16-be"))}
    if isinstance(value, list):
        return [_utf16_sorted(v) for v in value]
    return value


def sha256_hex(*parts: bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
    return h.hexdigest()


def is_canonical(line: bytes) -> bool:
    """True when ``line`` is the JCS form of the JSON it holds (no floats, at most ``MAX_DEPTH`` deep)."""
    if depth_problem(line):
        return False  # never handed to a decoder that would recurse into it
    try:
        value = _NO_FLOATS.decode(line)
    except (_Float, msgspec.DecodeError, UnicodeDecodeError):
        return False
    # Floats were refused by the decoder and the depth above, so only an integer beyond 2**53 is left for
    # unsafe_json to find, and such an integer is written with 16 digits or more: a line without a run of 16
    # digits (most events: verify checks every one) needs no walk of its value.
    if _SIXTEEN_DIGITS in line.translate(_DIGITS_ONLY) and unsafe_json(value):
        return False
    return canonical(value) == line


class _Float(Exception):
    """A JSON number with a fraction or an exponent, met while decoding."""


def _no_float(text: str) -> Any:
    raise _Float(text)


_NO_FLOATS = msgspec.json.Decoder(float_hook=_no_float)
_DIGITS_ONLY = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))  # each digit -> "0", any other byte -> " "
_SIXTEEN_DIGITS = b"0" * 16


MAX_DEPTH = 32  # nesting of lists and objects in any value a log holds (orders, set-ups, payloads)
MAX_EVENT_BYTES = 1 << 20  # one event's canonical bytes
MAX_LINE_BYTES = MAX_EVENT_BYTES + 64 * 1024  # the payload, its envelope and a few signatures


def line_size_problem(body: bytes) -> str:
    """Why an event line is too large to store ("" when it is not): every path that stores one asks."""
    if len(body) > MAX_LINE_BYTES:
        return (f"an event line of {len(body)} bytes: an event is at most {MAX_EVENT_BYTES} bytes "
                f"({MAX_LINE_BYTES} with its envelope and signatures)")
    return ""


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def depth_problem(data: bytes | str, limit: int = MAX_DEPTH) -> str:
    """Why JSON text nests too deep to be parsed ("" when it does not): checked before any decoder sees
    it, by a linear scan of the brackets outside strings, never by recursion.

    A decoder recurses once per level: text nested 100,000 deep would end in a RecursionError (an
    internal error) instead of a refusal. Brackets inside strings do not count; text that is not JSON
    may be over-counted, which only refuses what the decoder would refuse anyway."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return ""  # the fast path: too few brackets to nest deeper, wherever they stand
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if len(brackets) <= limit:
        return ""
    depth = 0
    for byte in brackets:
        if byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return f"nested deeper than {limit} levels"
        else:
            depth = max(0, depth - 1)
    return ""


def unsafe_json(value: Any) -> bool:
    """True for a float, an integer beyond +-2**53, or nesting deeper than ``MAX_DEPTH``.

    Iterative, one level of nesting at a time: a crafted value nested thousands deep must be refused, not crash
    the reader. The exact types a JSON decoder gives are tested first (``verify`` walks every event: isinstance
    chains made this walk most of its canonical check); any other is judged as isinstance sees it.
    """
    level, depth = [value], 0
    while level:
        deeper: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                if not -MAX_SAFE_INT <= item <= MAX_SAFE_INT:
                    return True
                continue
            if kind is not dict and kind is not list:
                kind = _json_kind(item)
                if kind is None:
                    return True
                if kind is str:
                    continue
                if kind is int:
                    if abs(item) > MAX_SAFE_INT:
                        return True
                    continue
            if depth >= MAX_DEPTH:
                return True
            deeper.extend(item.values() if kind is dict else item)
        level, depth = deeper, depth + 1
    return False


def _json_kind(item: Any) -> type | None:
    """What a value of an unusual type counts as: str (any scalar that is safe), int, list or dict; None when it
    is a float or no JSON value."""
    if isinstance(item, bool) or isinstance(item, str):
        return str
    if isinstance(item, float):
        return None
    if isinstance(item, int):
        return int
    if isinstance(item, list):
        return list
    if isinstance(item, dict):
        return dict
    return None


def json_problem(value: Any, where: str) -> str:
    """Why ``value`` cannot be stored in a log ("" when it can), naming the path.

    For input at the edge (orders, set-ups): JSON values only, whole numbers within
    +-2**53, string keys, at most ``MAX_DEPTH`` levels of nesting.
    """
    stack: list[tuple[Any, int, str]] = [(value, 0, where)]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, float):
            return f"{path}: numbers are whole numbers (got {item})"
        if isinstance(item, int):
            if abs(item) > MAX_SAFE_INT:
                return f"{path}: number {item} is too large"
            continue
        if depth >= MAX_DEPTH:
            return f"{path}: nested deeper than {MAX_DEPTH} levels"
        if isinstance(item, dict):
            for k, v in item.items():
                if not isinstance(k, str):
                    return f"{path}: keys are strings"
                stack.append((v, depth + 1, f"{path}.{k}"))
        elif isinstance(item, (list, tuple)):
            stack.extend((v, depth + 1, f"{path}[{i}]") for i, v in enumerate(item))
        else:
            return f"{path}: {type(item).__name__} is not a JSON value"
    return ""
