"""``text.may_hold_control``: the cheap test verify runs before the control-character regex must never
skip a line the regex would catch (else a forged control character would pass verify)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.text import CONTROL_BYTES, may_hold_control

# Bytes made of what canonical JSON lines hold, weighted towards backslashes, C1 and bidi bytes.
PIECES = st.sampled_from([b"a", b'"', b"\\", b"n", b"u", b"0", b"1", b"f", b"\x7f", b"\xc2", b"\x85",
                          b"\xe2", b"\x80", b"\xae", b"\x81", b"\xa6", b" "])


@settings(max_examples=500)
@given(st.lists(PIECES, max_size=30).map(b"".join))
def test_the_guard_never_skips_a_match(body: bytes) -> None:
    if CONTROL_BYTES.search(body):
        assert may_hold_control(body)


def test_the_guard_lets_plain_lines_skip_and_sees_each_kind_of_control() -> None:
    assert not may_hold_control(b'{"action":"swings at Bo","who":"Aldo"}')
    for forged in (b'{"a":"x\\u001b[2J"}', b'{"a":"x\\n"}', b'{"a":"x\x7f"}', b'{"a":"x\xc2\x85"}',
                   b'{"a":"\xe2\x80\xae"}'):
        assert CONTROL_BYTES.search(forged) and may_hold_control(forged), forged
