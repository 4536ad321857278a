#!/usr/bin/env bash
# The linter, then the whole test suite, spread over the machine's cores (pytest-xdist, one worker more
# than the cores: part of the suite waits on servers, disks and subprocesses, and a spare worker keeps
# the cores busy meanwhile; COMBATLOG_TEST_WORKERS=N overrides the count, 0 runs in this process). The
# longest tests are dealt out first (tests/conftest.py LONG_FIRST) and the rest given to whichever worker
# is free (--dist load), so the run does not end with one core busy on a long test. The 15 slowest tests
# are listed at the end so that they stay visible. pytest's exit status 5 (no test collected) is a failure
# here.
set -uo pipefail
cd "$(dirname "$0")/.."
# The linter first (its rules: [tool.ruff] in pyproject.toml); a finding fails the run.
if ! .venv/bin/python -m ruff check --quiet .; then
  echo "ruff check found problems (fix them, or run: .venv/bin/python -m ruff check --fix .)" >&2
  exit 1
fi
cores="$(.venv/bin/python -c 'import os; print(len(os.sched_getaffinity(0)))' 2>/dev/null || echo 2)"
workers="${COMBATLOG_TEST_WORKERS:-$((cores + 1))}"
if [ "$workers" = 0 ]; then
  .venv/bin/python -m pytest --durations=15 "$@"
else
  .venv/bin/python -m pytest -n "$workers" --dist load --maxschedchunk 1 --durations=15 "$@"
fi
status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
