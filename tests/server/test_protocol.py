"""The signed-request message and the rate limiter, on their own (no server)."""

from __future__ import annotations

import pytest

from combatlog.remote.protocol import REQUEST_DOMAIN, request_message
from combatlog.server.errors import ApiError
from combatlog.server.limits import RateLimiter
from combatlog.trust.players import SIGNATURE_DOMAIN

GOOD = dict(method="POST", target="/v1/combats/abc/events", time="1700000000", nonce="a" * 64, signer="alice",
            key="ed25519:0123456789abcdef", body=b"x")


def test_the_message_binds_every_field_and_the_body() -> None:
    base = request_message(**GOOD)  # type: ignore[arg-type]
    assert base.startswith(REQUEST_DOMAIN) and REQUEST_DOMAIN != SIGNATURE_DOMAIN
    for field, other in (("method", "GET"), ("target", "/v1/combats/abd/events"), ("time", "1700000001"),
                         ("nonce", "b" * 64), ("signer", "bob"), ("key", "ed25519:0123456789abcdee"),
                         ("body", b"y")):
        assert request_message(**{**GOOD, field: other}) != base, field  # type: ignore[arg-type]


@pytest.mark.parametrize("field,value", [("signer", "alice\nGET"), ("target", "/v1/x\n/y"), ("time", "1e9"),
                                         ("nonce", "A" * 64), ("key", "ed25519:XYZ"), ("method", "post"),
                                         ("target", "v1/no-slash"), ("signer", "")])
def test_malformed_fields_are_refused_before_signing_or_checking(field: str, value: str) -> None:
    with pytest.raises(ValueError):
        request_message(**{**GOOD, field: value})  # type: ignore[arg-type]


def test_token_buckets_refill_at_their_rate_and_forget_the_oldest() -> None:
    now = [0.0]
    limiter = RateLimiter(2.0, 3, clock=lambda: now[0], max_buckets=2)
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("a") == pytest.approx(0.5)
    with pytest.raises(ApiError) as refused:
        limiter.check("address:a")
        limiter.check("address:a")
        limiter.check("address:a")
        limiter.check("address:a")
    assert refused.value.status == 429 and refused.value.headers["Retry-After"] == "1"
    now[0] = 0.5  # one token back for "a"
    assert limiter.take("a") == 0.0
    limiter.take("b")
    limiter.take("c")  # "a" is forgotten: it comes back with a full bucket, never with less
    assert limiter.take("a") == 0.0


def test_every_busy_answer_says_when_to_come_back() -> None:
    """Clients retry 429/503 after Retry-After (remote/client.py): the server never sends one without it,
    and keeps the wait a raise site names (the stream cap's 5 s, the nonce window's 300 s)."""
    for status in (429, 503):
        assert ApiError(status, "busy", "not now").headers == {"Retry-After": "1"}
        assert ApiError(status, "busy", "not now", headers={"Retry-After": "5"}).headers["Retry-After"] == "5"
    assert "Retry-After" not in ApiError(409, "conflict", "pull first").headers
    shared = {"X": "y"}
    ApiError(429, "rate_limited", "slow down", headers=shared)
    assert shared == {"X": "y"}  # the caller's dict is not changed


def test_retry_after_is_read_in_seconds_and_anything_else_is_ignored() -> None:
    from combatlog.remote.client import retry_after

    assert retry_after({"retry-after": "3"}) == 3 and retry_after({"Retry-After": " 30 "}) == 30
    for value in ("", "-1", "1.5", "Wed, 21 Oct 2026 07:28:00 GMT", "9" * 12):
        assert retry_after({"Retry-After": value}) is None, value  # the client backs off on its own
    assert retry_after({}) is None
