"""Fixtures: a live server per test (subprocess, free port on 127.0.0.1) and players with their own logs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import LiveServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path, "--open")
    yield live
    live.stop()


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator:  # type: ignore[type-arg]
    started: list[LiveServer] = []

    def start(*args: str) -> LiveServer:
        live = LiveServer(tmp_path, *args)
        started.append(live)
        return live

    yield start
    for live in started:
        live.stop()
