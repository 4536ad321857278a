"""CPU seconds per test, for finding the costly tests on a machine too busy for wall-clock times.

``pytest -p tests.cpu_time`` appends one line per test to ``$COMBATLOG_CPU_REPORT`` (default
``cpu-per-test.tsv``): CPU seconds of the test's process and of the children it waited for (the CLI
runs, the servers), wall seconds, test id. Under pytest-xdist each worker appends its own lines. Sum
the first column to estimate the suite on an idle machine (docs/benchmarks.md, "The test suite").
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator

import pytest


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    cpu, wall = _cpu(), time.monotonic()
    yield
    with open(os.environ.get("COMBATLOG_CPU_REPORT", "cpu-per-test.tsv"), "a") as out:
        out.write(f"{_cpu() - cpu:.2f}\t{time.monotonic() - wall:.2f}\t{item.nodeid}\n")
