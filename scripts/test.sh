#!/usr/bin/env bash
# The whole test suite, spread over the machine's cores (pytest-xdist; COMBATLOG_TEST_WORKERS=N
# overrides the count, 0 runs in this process), with the 15 slowest tests listed at the end so that
# they stay visible. pytest's exit status 5 (no test collected) is a failure here.
set -uo pipefail
cd "$(dirname "$0")/.."
workers="${COMBATLOG_TEST_WORKERS:-auto}"
.venv/bin/python -m pytest -n "$workers" --durations=15 "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
