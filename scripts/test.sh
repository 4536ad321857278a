#!/usr/bin/env bash
# The linter, then the whole test suite. pytest's exit status 5 (no test collected) is a failure here.
set -uo pipefail
cd "$(dirname "$0")/.."
# The linter first (its rules: [tool.ruff] in pyproject.toml); a finding fails the run.
if ! .venv/bin/python -m ruff check --quiet .; then
  echo "ruff check found problems (fix them, or run: .venv/bin/python -m ruff check --fix .)" >&2
  exit 1
fi
.venv/bin/python -m pytest "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
