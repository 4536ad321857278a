"""Canonical bytes (RFC 8785, JCS) for hashing and signing.

msgspec with sorted keys emits exactly JCS for the values events may carry:
strings, integers within +-2**53, booleans, null, lists and objects. Floats
are not allowed in events (JCS's number formatting would differ), which a test
checks for every registered payload type; a property test compares this
encoder with the ``rfc8785`` package.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

_ENCODER = msgspec.json.Encoder(order="sorted")
MAX_SAFE_INT = 2**53 - 1


def canonical(value: Any) -> bytes:
    return _ENCODER.encode(value)


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
    return _ENCODER.encode(value) == line


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
