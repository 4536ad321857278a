"""A SQLite log holds its player's secrets (a referee seed before its reveal, sealed orders' nonces): readable
by every local user, anyone on the machine could read the seed and know every die before it is rolled (found
by an exploratory test: `seed commit` under umask 022 left the seed in a -rw-r--r-- file). A log is created
owner-only, and an older one is made so before a secret enters it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.conftest import Cli


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_log_is_readable_by_its_owner_only(cli: Cli) -> None:
    before = os.umask(0o022)  # the usual umask, under which a file is created -rw-r--r--
    try:
        cli("new", "s", "--ruleset", "freeform")
    finally:
        os.umask(before)
    assert _mode(Path(cli.db)) == 0o600


def test_an_older_log_readable_by_others_is_made_owner_only_before_a_secret_enters_it(cli: Cli) -> None:
    cli("new", "s", "--ruleset", "freeform")
    db = Path(cli.db)
    db.chmod(0o644)  # as a log made by an earlier build, or copied in, may be
    cli("note", "s", "no secret yet")
    assert _mode(db) == 0o644  # left alone while it holds no secret
    cli("seed", "commit", "s")
    assert _mode(db) == 0o600
    for extra in (Path(f"{db}-wal"), Path(f"{db}-shm")):
        assert not extra.exists() or _mode(extra) & 0o077 == 0
