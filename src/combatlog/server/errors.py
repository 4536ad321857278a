"""The one error type of the API: an HTTP status, a stable code and a message, sent as JSON."""

from __future__ import annotations

from typing import Any

BUSY = (429, 503)
DEFAULT_RETRY_AFTER = "1"  # seconds; a busy answer that names no better wait


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = dict(headers or {})
        if status in BUSY:  # every busy answer says when to come back: clients wait that long, then retry
            self.headers.setdefault("Retry-After", DEFAULT_RETRY_AFTER)
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}


def from_combatlog(exc: Exception) -> ApiError:
    """A domain error raised while verifying or storing, as the API reports it."""
    from combatlog.errors import (ConcurrencyConflict, Diverged, IllegalCommand, InvalidCommand, NotFound,
                                  Unavailable, VerificationFailed)

    text = str(exc)
    if isinstance(exc, Unavailable):  # the store reconnects by itself; the client comes back after Retry-After.
        # Not the store's own message: it names the database's address, which is the operator's (the log has it).
        return ApiError(503, "unavailable", "the server's database is out of reach for now; try again shortly")
    if isinstance(exc, (ConcurrencyConflict, Diverged)):
        return ApiError(409, "conflict", text)
    if isinstance(exc, VerificationFailed):
        return ApiError(422, "verify_failed", text)
    if isinstance(exc, IllegalCommand):
        return ApiError(422, "illegal", text)
    if isinstance(exc, NotFound):
        return ApiError(409, "not_found", text)
    if isinstance(exc, InvalidCommand):
        return ApiError(400, "invalid", text)
    return ApiError(400, getattr(exc, "code", "error"), text)
