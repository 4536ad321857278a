"""Property: any single byte flipped anywhere in a signed export is detected by ``verify``.

The export holds a signed combat with sealed orders, joint dice and an
acknowledgement (``signed_duel``); the flip may land in the header, a payload, a
hash, a signature, a separator or the final newline.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.errors import CombatlogError
from combatlog.wiring import verify_file
from tests.trust.pbem import export, key_home, signed_duel


@pytest.fixture(scope="module")
def signed_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, Path]:
    root = tmp_path_factory.mktemp("flip")
    with key_home(root / "home"):
        store, _, _ = signed_duel(root)
        export(store, root / "duel.jsonl")
        store.close()
    data = (root / "duel.jsonl").read_bytes()
    verify_file(root / "duel.jsonl")  # the untouched file is sound
    return data, root


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(0, 1, exclude_max=True), mask=st.integers(1, 255))
def test_any_flipped_byte_is_detected(signed_export: tuple[bytes, Path], where: float, mask: int) -> None:
    data, root = signed_export
    i = int(where * len(data))
    flipped = bytearray(data)
    flipped[i] ^= mask
    path = root / f"flipped-{os.getpid()}.jsonl"
    path.write_bytes(bytes(flipped))
    with pytest.raises(CombatlogError):
        verify_file(path)


def test_the_unused_bits_of_a_signature_cannot_be_flipped(signed_export: tuple[bytes, Path]) -> None:
    """Base64 of 64 bytes leaves 4 unused bits in its last character; flipping them would decode to
    the same signature, so signatures are accepted only in their canonical encoding."""
    import base64
    import json

    data, root = signed_export
    lines = data.split(b"\n")
    sig = json.loads(lines[2])["sigs"][0]["sig"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    last = sig[-3]
    twin = alphabet[alphabet.index(last) ^ 1] + "=="
    other = sig[:-3] + twin
    assert base64.b64decode(other) == base64.b64decode(sig)  # same bytes, different text
    path = root / "twin.jsonl"
    path.write_bytes(data.replace(sig.encode(), other.encode()))
    with pytest.raises(CombatlogError, match="seq 2: the signature of alice is not valid"):
        verify_file(path)
