"""Every error a user can see, with a stable code and one exit status each.

The CLI maps these to stderr lines ``error[<code>]: <message>`` and to the exit
status below; nothing else in the code base decides exit statuses.
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2  # reserved for click's own usage errors
    INVALID = 3
    ILLEGAL = 4
    AMBIGUOUS = 5
    NOT_FOUND = 6
    CONFLICT = 7
    VERIFY_FAILED = 8
    DIVERGED = 9
    STORE = 10
    UNAVAILABLE = 11


class CombatlogError(Exception):
    code = "error"
    exit_status = ExitStatus.FAILURE
    as_json = False  # shown as JSON whatever the command line says (a failing line of run FILE asked for it)

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code, "message": self.message}
        if self.where:
            out["where"] = self.where
        return out


class InvalidCommand(CombatlogError):
    """The input is malformed or names something that does not exist in the combat."""

    code = "invalid"
    exit_status = ExitStatus.INVALID


class IllegalCommand(CombatlogError):
    """Well-formed, but the rules forbid it now. ``rule`` cites the rule."""

    code = "illegal"
    exit_status = ExitStatus.ILLEGAL

    def __init__(self, message: str, *, rule: str, where: str | None = None) -> None:
        super().__init__(f"{message} ({rule})", where=where)
        self.rule = rule

    def to_json(self) -> dict[str, object]:
        out = super().to_json()
        out["rule"] = self.rule
        return out


class AmbiguousCommand(CombatlogError):
    code = "ambiguous"
    exit_status = ExitStatus.AMBIGUOUS


class NotFound(CombatlogError):
    code = "not_found"
    exit_status = ExitStatus.NOT_FOUND


class ConcurrencyConflict(CombatlogError):
    code = "conflict"
    exit_status = ExitStatus.CONFLICT

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(
            f"stream {stream} moved on: expected version {expected}, actual {actual}; "
            "reload and try again"
        )
        self.stream, self.expected, self.actual = stream, expected, actual


class VerificationFailed(CombatlogError):
    code = "verify_failed"
    exit_status = ExitStatus.VERIFY_FAILED


class Diverged(CombatlogError):
    code = "diverged"
    exit_status = ExitStatus.DIVERGED

    def __init__(self, stream: str, seq: int, ours: str, theirs: str, hint: str = "") -> None:
        super().__init__(
            f"stream {stream} diverges at seq {seq}: ours {ours}, theirs {theirs}" + (f"; {hint}" if hint else "")
        )
        self.seq, self.ours, self.theirs = seq, ours, theirs


class StoreError(CombatlogError):
    code = "store"
    exit_status = ExitStatus.STORE


class Unavailable(CombatlogError):
    """A backend or optional component is not installed or not reachable here."""

    code = "unavailable"
    exit_status = ExitStatus.UNAVAILABLE
