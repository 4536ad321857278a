"""Numbers read from HTTP headers are ASCII digits only. ``str.isdigit`` also says yes to superscripts and other
scripts' digits ('²', '١٢'), which ``int`` then either refuses (a 500 instead of a 400) or reads as a number no
HTTP peer meant: a hostile client's Content-Length, a hostile server's Retry-After."""

from __future__ import annotations

import asyncio

import pytest

from combatlog.remote.client import retry_after
from combatlog.server.errors import ApiError
from combatlog.server.limits import read_body


async def _chunks(*parts: bytes):  # type: ignore[no-untyped-def]
    for part in parts:
        yield part


@pytest.mark.parametrize("length", ["\u00b2", "\u0661\u0662", "\uff11\uff12", "12x", "-1", "1" * 19])
def test_a_content_length_not_of_ascii_digits_is_a_400_before_the_body_is_read(length: str) -> None:
    with pytest.raises(ApiError) as refused:
        asyncio.run(read_body(_chunks(b"x" * 12), length, 1000))
    assert refused.value.status == 400 and "Content-Length is not a whole number" in refused.value.message


def test_a_content_length_of_ascii_digits_is_read_and_bounded() -> None:
    assert asyncio.run(read_body(_chunks(b"abc", b"def"), "6", 1000)) == b"abcdef"
    with pytest.raises(ApiError) as refused:
        asyncio.run(read_body(_chunks(b"x"), "1001", 1000))
    assert refused.value.status == 413


@pytest.mark.parametrize("value", ["\u00b2", "\u0661\u0662", "\uff15", "Wed, 21 Oct 2026 07:28:00 GMT", "1" * 10])
def test_a_retry_after_not_of_ascii_digits_is_not_a_number_of_seconds(value: str) -> None:
    assert retry_after({"Retry-After": value}) is None  # (the client then backs off on its own)


def test_a_retry_after_of_ascii_digits_is_its_seconds() -> None:
    assert retry_after({"retry-after": " 7 "}) == 7
