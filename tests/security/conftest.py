"""Fixtures the security tests share with the server tests (a live serve on 127.0.0.1)."""

from tests.server.conftest import start_server  # noqa: F401  (the fixture)
