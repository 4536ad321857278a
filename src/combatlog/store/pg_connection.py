"""One PostgreSQL connection that outlives the server going away: what the store and serve's
registry each keep (docs/postgres.md, "When the server goes away").

A connection the server closed (a restart, a crash, a network cut) is not reopened in the middle of
an operation: the operation fails with ``Unavailable`` (exit 11; HTTP 503 from ``combatlog serve``),
never ``StoreError``, and its transaction is rolled back by the server, so nothing is half-written.
Nor is the operation sent again here: a commit whose answer was lost may have happened, and only the
caller can retry it safely (a command id, a bundle's expected version). The next operation opens a
new connection; while the server is still out of reach it fails at once with ``Unavailable`` again,
trying to connect at most once per ``RECONNECT_PAUSE_S`` so that a process serving many requests
does not queue them all behind connection attempts.

psycopg is imported here only when a connection is opened, so that the CLI does not pay for it
(~0.15 s) unless a ``postgresql://`` URL is used.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from combatlog.errors import CombatlogError, InvalidCommand, StoreError, Unavailable

log = logging.getLogger("combatlog.store")

RECONNECT_PAUSE_S = 1.0
# SQLSTATEs of a server that is going or gone, rather than of a statement that failed: class 08
# (connection exception) and 57P01-57P05 (shut down, crashed, starting, database dropped, idle timeout).
LOST_STATES = ("08", "57P")


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise Unavailable("the PostgreSQL backend needs psycopg 3: pip install 'psycopg[binary]'") from None
    _quiet_pipeline_warning()
    return psycopg


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    url = re.sub(r"(://[^:/@?]*:)[^@/?]*@", r"\1***@", url)
    return re.sub(r"(password=)[^&\s]*", r"\1***", url)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _PipelineEndFilter(logging.Filter):
    """psycopg warns "error ignored terminating <psycopg.Pipeline [BAD]>" when a connection breaks
    inside a pipeline (``executemany``): the error that broke it is raised to us and reported as
    ``Unavailable``; the warning is the same loss told again, on stderr, past the CLI's error line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error ignored terminating")


_PIPELINE_END_FILTER = _PipelineEndFilter()


def _quiet_pipeline_warning() -> None:
    psycopg_log = logging.getLogger("psycopg")
    if _PIPELINE_END_FILTER not in psycopg_log.filters:
        psycopg_log.addFilter(_PIPELINE_END_FILTER)


class PgConnection:
    """The connection to ``url``, opened now, and reopened by the first use after it was lost."""

    def __init__(self, url: str, application_name: str) -> None:
        self.url = url
        self._pg = _psycopg()
        self._kwargs: dict[str, Any] = {"autocommit": True}
        if "connect_timeout" not in url:
            self._kwargs["connect_timeout"] = 10
        if "application_name" not in url:
            self._kwargs["application_name"] = application_name
        self._conn: Any = self._connect()
        self._lost_at: float | None = None  # when the connection was lost, until a new one is open
        self._next_try = 0.0  # no connection attempt before this (time.monotonic())
        self._told_out_of_reach = False
        self._closed = False  # by close(): not to be reopened

    @property
    def errors(self) -> Any:
        return self._pg.errors

    def _connect(self) -> Any:
        pg = self._pg
        try:
            return pg.connect(self.url, **self._kwargs)
        except pg.OperationalError as exc:
            raise Unavailable(f"cannot connect to PostgreSQL at {redact(self.url)}: {first_line(exc)}") from None
        except pg.ProgrammingError as exc:
            raise InvalidCommand(f"not a usable PostgreSQL URL {redact(self.url)}: {exc}") from None

    def get(self) -> Any:
        """The open connection; a new one when the last was lost (``Unavailable`` while that fails)."""
        if not self._conn.closed or self._closed:
            return self._conn  # closed by close(): its use fails as on any closed connection
        if self._lost_at is None:  # lost between two operations
            self._lost_at = time.monotonic()
        return self._reconnect()

    def _reconnect(self) -> Any:
        now = time.monotonic()
        if now < self._next_try:
            raise Unavailable(f"PostgreSQL at {redact(self.url)} is out of reach; trying again shortly")
        try:
            self._conn = self._connect()
        except Unavailable as exc:
            self._next_try = now + RECONNECT_PAUSE_S
            if not self._told_out_of_reach:  # once per outage: a long-lived process (serve) says why it fails
                log.warning("%s; every use fails until it is back", exc.message)
                self._told_out_of_reach = True
            raise
        assert self._lost_at is not None
        log.warning("reconnected to PostgreSQL at %s after %.1f s", redact(self.url), now - self._lost_at)
        self._lost_at, self._told_out_of_reach = None, False
        return self._conn

    @contextmanager
    def translate(self) -> Iterator[None]:
        """Database errors reach the user as ``Unavailable`` when the connection is gone, else as
        ``StoreError`` with the server's message."""
        try:
            yield
        except CombatlogError:
            raise
        except self._pg.Error as exc:
            if self._is_lost(exc):
                raise self._lost(exc) from None
            raise StoreError(f"PostgreSQL ({redact(self.url)}): {first_line(exc)}") from None

    def _is_lost(self, exc: Any) -> bool:
        if self._closed:
            return False
        return bool(self._conn.closed or (getattr(exc, "sqlstate", None) or "").startswith(LOST_STATES))

    def _lost(self, exc: Any) -> Unavailable:
        """Forget the connection (the next use opens another) and say so."""
        self._lost_at = time.monotonic()
        self._conn.close()
        return Unavailable(f"lost the connection to PostgreSQL at {redact(self.url)}: {first_line(exc)}; "
                           "try again when it is back")

    def close(self) -> None:
        self._closed = True
        self._conn.close()
