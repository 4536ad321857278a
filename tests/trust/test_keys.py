"""Keys: where they live, who may read them, the exchange format, pinning, start-up cost."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from combatlog.errors import ExitStatus, IllegalCommand, InvalidCommand, NotFound
from combatlog.trust import keys
from combatlog.trust.players import pin_players
from tests.conftest import Cli


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


# -- defects of the key handling (export over a key, damaged key files, keys pasted in mail, one key under two names)


def test_export_never_overwrites_the_secret_key_nor_writes_in_the_key_home(cli: Cli, tmp_path: Path) -> None:
    # the defect: `keys export alice -o <home>/keys/alice.key` replaced the secret key with the public one
    cli("keys", "new", "alice")
    folder = Path(cli.env["COMBATLOG_HOME"]) / "keys"
    secret = (folder / "alice.key").read_bytes()
    for target in ("alice.key", "alice.pub", "mallory.pub"):  # a new .pub there would be a key imported unchecked
        for force in ((), ("--force",)):
            refused = cli("keys", "export", "alice", "-o", str(folder / target), *force, ok=False)
            assert refused.code == ExitStatus.INVALID and "keys export never writes there" in refused.err
    link = tmp_path / "innocent.pub"
    link.symlink_to(folder / "zed.key")  # a link that leads into the key home is refused too
    assert "never writes there" in cli("keys", "export", "alice", "-o", str(link), ok=False).err
    assert (folder / "alice.key").read_bytes() == secret
    assert sorted(p.name for p in folder.iterdir()) == ["alice.key", "alice.pub"]
    assert "secret + public" in cli("keys", "list").out


def test_export_refuses_an_existing_file_and_force_replaces_only_a_public_key(cli: Cli, tmp_path: Path) -> None:
    cli("keys", "new", "alice")
    out = tmp_path / "alice.pub"
    cli("keys", "export", "alice", "-o", str(out))
    refused = cli("keys", "export", "alice", "-o", str(out), ok=False)
    assert refused.code == ExitStatus.INVALID and "the file exists; keys export never overwrites" in refused.err
    cli("keys", "export", "alice", "-o", str(out), "--force")  # a public key file may be written again
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    refused = cli("keys", "export", "alice", "-o", str(notes), "--force", ok=False)
    assert refused.code == ExitStatus.INVALID and "holds no public key" in refused.err
    assert notes.read_text() == "my notes\n"


def _damage(home: Path, name: str, content: bytes) -> Path:
    path = home / "keys" / f"{name}.key"
    path.write_bytes(content)
    os.chmod(path, 0o600)
    return path


def test_a_damaged_secret_key_is_refused_by_name_and_listed_as_damaged(cli: Cli) -> None:
    # the defect: a damaged key file ended in error[internal]: ValueError: Unable to load PEM file
    cli("keys", "new", "alice")
    cli("keys", "new", "bob")
    home = Path(cli.env["COMBATLOG_HOME"])
    zed = _damage(home, "zed", b"garbage\n")
    bob = _damage(home, "bob", (home / "keys" / "bob.pub").read_bytes())  # what `export -o bob.key` left
    refused = cli("keys", "export", "zed", ok=False)
    assert refused.code == ExitStatus.INVALID and f"{zed} is damaged: it is not a PEM private key" in refused.err
    assert "internal" not in refused.err
    listed = cli("keys", "list")
    assert listed.code == 0 and "alice" in listed.out  # the others are still listed
    lines = {line.split()[0]: line for line in listed.out.splitlines()}
    assert "secret + public" in lines["alice"]
    assert "public only; damaged:" in lines["bob"] and "holds a public key line, not a secret key" in lines["bob"]
    assert "no usable key; damaged:" in lines["zed"]
    as_json = {k["name"]: k for k in cli("keys", "list", "--json").json()}  # type: ignore[union-attr]
    assert (as_json["bob"]["secret"], as_json["alice"]["damaged"]) == (False, None)
    assert str(bob) in as_json["bob"]["damaged"]
    signing = cli("new", "duel", "--ruleset", "freeform", "--player", "bob", "--as", "bob", ok=False)
    assert signing.code == ExitStatus.INVALID and f"{bob} is damaged" in signing.err


def test_a_key_pasted_in_a_quoted_mail_is_imported(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the defect: a key quoted in a reply was refused with "a public key file holds one line"
    keys.new_key("bob")
    line = keys.key_line("bob", keys.load_public("bob"))
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "alice"))
    mail = f"Hi Alice,\n\nOn Tue, Bob wrote:\n> # bob ed25519:...\n>  {line}\n>\n\n-- \nBob, Grüße\n"
    assert keys.import_public(mail).name == "bob"
    assert keys.import_public(f">> {line}\r\n", "bob2").name == "bob2"


def test_a_mail_with_no_key_or_several_is_refused_naming_the_lines(home: Path) -> None:
    one, two = keys.key_line("bob", b"\x01" * 32), keys.key_line("carol", b"\x02" * 32)
    with pytest.raises(InvalidCommand, match="no public key in mail.txt: expected a line combatlog-key v1 NAME"):
        keys.import_public("Hi,\nmy key follows\n", where="mail.txt")
    with pytest.raises(InvalidCommand, match=r"mail.txt holds 2 key lines \(lines 2, 4\)"):
        keys.import_public(f"Hi\n> {one}\n\n{two}\n", where="mail.txt")
    with pytest.raises(InvalidCommand, match="mail.txt, line 2: the public key is not 32 bytes"):
        keys.import_public("Hi\n> combatlog-key v1 eve ed25519 AAAA\n", where="mail.txt")
    # the safety checks stay: a bad name, and another key under a name already here
    with pytest.raises(InvalidCommand, match="key name '-eve'"):
        keys.import_public("> " + keys.key_line("-eve", b"\x03" * 32))
    keys.import_public(one)
    with pytest.raises(InvalidCommand, match="a different key named 'bob'"):
        keys.import_public("> " + keys.key_line("bob", b"\x04" * 32))


def test_one_key_imported_under_a_second_name_is_warned_about(cli: Cli, tmp_path: Path) -> None:
    # the defect: the same key could be kept silently as bob, bob2, b4 (one player, counted as several)
    bob = Cli(tmp_path / "bob" / "log.db", tmp_path)
    bob("keys", "new", "bob")
    bob("keys", "export", "bob", "-o", str(tmp_path / "bob.pub"))
    assert cli("keys", "import", str(tmp_path / "bob.pub")).err == ""
    again = cli("keys", "import", str(tmp_path / "bob.pub"), "--name", "bob2")
    assert again.code == 0 and "warning: this key (ed25519:" in again.err and "already known as bob:" in again.err
    as_json = cli("keys", "import", str(tmp_path / "bob.pub"), "--name", "b4", "--json")
    assert as_json.json()["also_known_as"] == ["bob", "bob2"]  # type: ignore[index]


@pytest.mark.skipif(not Path("/dev/stdout").exists(), reason="no /dev/stdout")
def test_export_to_dev_stdout_redirected_to_a_file_is_not_an_existing_file(cli: Cli, tmp_path: Path) -> None:
    # the no-overwrite refusal must not catch -o /dev/stdout when the shell redirected stdout to a file
    cli("keys", "new", "alice")
    out = tmp_path / "out.txt"
    with out.open("w") as handle:
        done = subprocess.run([sys.executable, "-m", "combatlog", "keys", "export", "alice", "-o", "/dev/stdout"],
                              env=cli.env, stdout=handle, stderr=subprocess.PIPE, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "combatlog-key v1 alice ed25519 " in out.read_text()
