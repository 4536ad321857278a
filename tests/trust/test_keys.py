"""Keys: where they live, who may read them, the exchange format, pinning, start-up cost."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from combatlog.errors import IllegalCommand, InvalidCommand, NotFound
from combatlog.trust import keys
from combatlog.trust.players import pin_players


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_new_key_is_owner_only_and_never_overwritten(home: Path) -> None:
    info = keys.new_key("alice")
    assert info.secret and info.fingerprint.startswith("ed25519:") and len(info.fingerprint) == 8 + 16
    assert stat.S_IMODE((home / "keys").stat().st_mode) == 0o700
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "keys" / "alice.key").stat().st_mode) == 0o600
    with pytest.raises(InvalidCommand, match="already exists"):
        keys.new_key("alice")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_secret_key_readable_by_others_is_refused(home: Path) -> None:
    keys.new_key("alice")
    os.chmod(home / "keys" / "alice.key", 0o644)
    with pytest.raises(InvalidCommand, match="readable by other users"):
        keys.KeySigner("alice")


def test_the_default_home_is_the_users_config_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("COMBATLOG_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    if sys.platform != "win32":
        assert keys.key_home() == tmp_path / "cfg" / "combatlog"


def test_export_then_import_gives_the_same_key_and_fingerprint(home: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    info = keys.new_key("bob")
    line = keys.key_line("bob", keys.load_public("bob"))
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "other"))
    got = keys.import_public("# comment\n" + line + "\n")
    assert (got.name, got.fingerprint, got.secret) == ("bob", info.fingerprint, False)
    assert keys.import_public(line).fingerprint == info.fingerprint  # the same key again is fine
    with pytest.raises(InvalidCommand, match="a different key named 'bob'"):
        keys.import_public(keys.key_line("bob", b"\x01" * 32))
    with pytest.raises(InvalidCommand, match="not 32 bytes"):
        keys.import_public("combatlog-key v1 eve ed25519 AAAA")


def test_pinning_needs_every_key_and_the_creators_secret(home: Path) -> None:
    keys.new_key("alice")
    with pytest.raises(NotFound, match="no key for 'bob'"):
        pin_players(["alice", "bob"], "alice")
    keys.import_public(keys.key_line("bob", b"\x02" * 32))
    with pytest.raises(InvalidCommand, match="must be a pinned player"):
        pin_players(["alice", "bob"], "gm")
    with pytest.raises(IllegalCommand, match="no secret key for 'bob'"):
        pin_players(["alice", "bob"], "bob")
    players, signer = pin_players(["alice", "bob"], "alice")
    assert [p.name for p in players] == ["alice", "bob"] and signer.fingerprint == players[0].fingerprint


def test_commands_that_need_no_key_do_not_import_cryptography(tmp_path: Path) -> None:
    code = ("import sys\nfrom combatlog.cli.app import main\ntry:\n    main(['list'])\nexcept SystemExit:\n    pass\n"
            "print('cryptography' in ' '.join(sys.modules))")
    env = {**os.environ, "COMBATLOG_DB": str(tmp_path / "log.db"), "COMBATLOG_HOME": str(tmp_path / "h")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.strip().endswith("False")
