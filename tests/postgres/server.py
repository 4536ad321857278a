"""The PostgreSQL server the tests start themselves, and the fixtures that hand out logs on it.

One throwaway cluster per test session (``combatlog.store.pgtemp``: a temp
directory, a Unix socket, no fsync), started on first use and stopped at the
end. Each test gets its own schema on it, so tests are isolated and cheap.

Without server binaries the PostgreSQL tests are skipped with the reason, except
in CI (``CI=true``) or with ``COMBATLOG_REQUIRE_POSTGRES=1``, where that is a
failure: CI must run them. ``COMBATLOG_REQUIRE_POSTGRES=0`` allows the skip.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterator

import pytest

from combatlog.store.pgtemp import TempPostgres, unavailable_reason

_server: TempPostgres | None = None


def _required() -> bool:
    """In CI (CI=true) a missing server is a failure, not a skip: CI must run these tests."""
    flag = os.environ.get("COMBATLOG_REQUIRE_POSTGRES")
    if flag is not None:
        return flag not in ("", "0")
    return os.environ.get("CI", "").lower() == "true"


def skip_reason() -> str | None:
    reason = unavailable_reason()
    return f"PostgreSQL tests skipped: {reason}" if reason else None


def shared_server() -> TempPostgres:
    """The session's server, started on first use (skips or fails when it cannot be)."""
    global _server
    _skip_or_fail_without_server()
    if _server is None:
        _server = TempPostgres().start()
        atexit.register(stop_shared_server)
    return _server


def _skip_or_fail_without_server() -> None:
    reason = skip_reason()
    if reason:
        if _required():
            pytest.fail(reason + " (required here: CI=true or COMBATLOG_REQUIRE_POSTGRES=1)")
        pytest.skip(reason)


def stop_shared_server() -> None:
    global _server
    if _server is not None:
        _server.stop()
        _server = None


@pytest.fixture(scope="session")
def pg_server() -> Iterator[TempPostgres]:
    yield shared_server()
    stop_shared_server()


@pytest.fixture
def own_pg_server() -> Iterator[TempPostgres]:
    """A server of this test's own, for a test that stops and restarts it (the session's is shared)."""
    _skip_or_fail_without_server()
    with TempPostgres() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: TempPostgres) -> str:
    """The URL of a fresh, empty log (its own schema) on the session's server."""
    return pg_server.url(schema=pg_server.new_schema())


@pytest.fixture
def postgres_store_factory(pg_server: TempPostgres) -> Iterator[Callable[[], object]]:
    """Fresh PostgreSQL stores, one schema each: the contract suite's ``store_factory`` for PostgreSQL."""
    from combatlog.store.postgres import PostgresStore

    made: list[PostgresStore] = []

    def make() -> PostgresStore:
        store = PostgresStore(pg_server.url(schema=pg_server.new_schema("c")))
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


def postgres_backend_param() -> object:
    """The contract suite's PostgreSQL parameter: the name of the factory fixture above."""
    reason = None if _required() else skip_reason()
    return pytest.param("postgres_store_factory", id="postgres",
                        marks=[pytest.mark.postgres, pytest.mark.skipif(reason is not None, reason=reason or "")])
