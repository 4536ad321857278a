#!/usr/bin/env bash
# The linter, then the whole test suite, spread over the machine's cores (pytest-xdist;
# COMBATLOG_TEST_WORKERS=N overrides the count, 0 runs in this process; an idle worker takes tests
# queued for a busy one, so a long test near the end does not leave a core idle), with the 15 slowest
# tests listed at the end so that they stay visible. pytest's exit status 5 (no test collected) is a
# failure here.
set -uo pipefail
cd "$(dirname "$0")/.."
# The linter first (its rules: [tool.ruff] in pyproject.toml); a finding fails the run.
if ! .venv/bin/python -m ruff check --quiet .; then
  echo "ruff check found problems (fix them, or run: .venv/bin/python -m ruff check --fix .)" >&2
  exit 1
fi
workers="${COMBATLOG_TEST_WORKERS:-auto}"
if [ "$workers" = 0 ]; then
  .venv/bin/python -m pytest --durations=15 "$@"
else
  .venv/bin/python -m pytest -n "$workers" --dist worksteal --durations=15 "$@"
fi
status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
