"""Fixtures for the PostgreSQL tests: a server started in a temp directory (see server.py)."""

from tests.postgres.server import own_pg_server, pg_server, pg_url, postgres_store_factory  # noqa: F401  (fixtures by name)
