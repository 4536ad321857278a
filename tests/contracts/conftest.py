"""The store contract runs against every backend: each one is a ``store_factory`` parameter.

A factory returns a fresh, empty store. The PostgreSQL backend adds itself in
tests/postgres when its server can be started here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from combatlog.store.base import EventStore

BACKENDS: dict[str, Callable[[Path], EventStore]] = {}

try:  # the PostgreSQL factory is a fixture (it needs the session's server); import it so it is found by name
    from tests.postgres.server import pg_server, postgres_store_factory  # noqa: F401
except ImportError:
    pass


def _memory(_: Path) -> EventStore:
    from combatlog.store.memory import MemoryStore

    return MemoryStore()


def _sqlite(tmp: Path) -> EventStore:
    from combatlog.store.sqlite import SQLiteStore

    return SQLiteStore(tmp / "contract.db")


BACKENDS["memory"] = _memory
BACKENDS["sqlite"] = _sqlite


def backend_params() -> list[object]:
    params: list[object] = [pytest.param("memory"), pytest.param("sqlite")]
    try:
        from tests.postgres.server import postgres_backend_param  # added by the PostgreSQL suite
    except ImportError:
        return params
    return params + [postgres_backend_param()]


@pytest.fixture(params=backend_params())
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], EventStore]]:
    made: list[EventStore] = []
    counter = iter(range(1000))

    def factory() -> EventStore:
        name = request.param
        if name in BACKENDS:
            sub = tmp_path / f"s{next(counter)}"
            sub.mkdir()
            store = BACKENDS[name](sub)
        else:  # a backend fixture supplied by name (PostgreSQL)
            store = request.getfixturevalue(name)()
        made.append(store)
        return store

    yield factory
    for store in made:
        store.close()
