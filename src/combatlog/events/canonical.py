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
    """True when ``line`` is the JCS form of the JSON it holds (no floats)."""
    try:
        value = msgspec.json.decode(line)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return False
    if _has_unsafe_number(value):
        return False
    return canonical(value) == line


def _has_unsafe_number(value: Any) -> bool:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return False
    if isinstance(value, float):
        return True
    if isinstance(value, int):
        return abs(value) > MAX_SAFE_INT
    if isinstance(value, list):
        return any(_has_unsafe_number(v) for v in value)
    if isinstance(value, dict):
        return any(_has_unsafe_number(v) for v in value.values())
    return True
