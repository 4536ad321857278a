"""Player keys: Ed25519 key pairs kept in the key home, fingerprints, signing.

The key home is ``$COMBATLOG_HOME`` or, by default, the user's configuration
directory (``$XDG_CONFIG_HOME/combatlog``, ``~/.config/combatlog``, or
``%APPDATA%\\combatlog`` on Windows). Keys live in ``<home>/keys/``:

- ``NAME.key``: the secret key (PKCS#8 PEM), created owner-only (0600) in an
  owner-only directory (0700). A secret key file readable by others is refused,
  as ssh does.
- ``NAME.pub``: the public part in the one-line exchange format that
  ``keys export`` prints and ``keys import`` reads::

      combatlog-key v1 NAME ed25519 BASE64-RAW-PUBLIC-KEY

  ``keys import`` finds that line in any text (a mail, quoted with "> ", with other text and a
  signature around it): exactly one such line, or the import is refused.

A fingerprint is ``ed25519:`` and the first 16 hex digits of SHA-256 over the
raw 32-byte public key; it is for people comparing keys out of band (the full
public key is what a genesis pins and what signatures are checked against).

``cryptography`` is imported inside the functions that need it, so commands
that never touch a key do not pay for it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import msgspec

from combatlog.errors import CombatlogError, InvalidCommand, NotFound

KEY_LINE_PREFIX = "combatlog-key v1"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class KeyInfo(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    public_key: str  # base64 of the raw 32 bytes; "" when no file of the key can be read
    fingerprint: str  # "" likewise
    secret: bool  # True when the secret key is in this key home and can sign
    damaged: str = ""  # why a file of this key cannot be used ("" when both are fine)


# -- where ------------------------------------------------------------------------


def key_home() -> Path:
    env = os.environ.get("COMBATLOG_HOME")
    if env:
        return Path(env).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "combatlog"


def keys_dir(create: bool = False) -> Path:
    home = key_home()
    path = home / "keys"
    if create:
        for d in (home, path):
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
            if os.name == "posix":
                os.chmod(d, 0o700)
    return path


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise InvalidCommand(f"key name {name!r}: 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
    return name


# -- encodings ----------------------------------------------------------------------


def fingerprint(public_raw: bytes) -> str:
    return "ed25519:" + hashlib.sha256(public_raw).hexdigest()[:16]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def strict_b64(text: str, size: int | None = None) -> bytes | None:
    """Decode standard base64 only if ``text`` is exactly its canonical encoding.

    Canonical means: re-encoding the bytes gives ``text`` back (so unused low bits
    of the last character cannot be flipped unnoticed).
    """
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None
    if b64(raw) != text or (size is not None and len(raw) != size):
        return None
    return raw


def key_line(name: str, public_raw: bytes) -> str:
    return f"{KEY_LINE_PREFIX} {name} ed25519 {b64(public_raw)}"


KEY_FORMAT = "combatlog-key v1 NAME ed25519 BASE64"
_MAIL_QUOTING = re.compile(r"^(?:\s*>)+")  # "> ", ">> ", "> > ": a key quoted in a reply


def parse_key_line(line: str) -> tuple[str, bytes]:
    """(name, raw public key) from one key line as ``keys export`` writes it."""
    parts = line.split()
    if len(parts) != 5 or " ".join(parts[:2]) != KEY_LINE_PREFIX or parts[3] != "ed25519":
        raise InvalidCommand(f"not a combatlog public key (expected: {KEY_FORMAT})")
    raw = strict_b64(parts[4], 32)
    if raw is None:
        raise InvalidCommand("the public key is not 32 bytes of base64")
    return check_name(parts[2]), raw


def _unquoted(line: str) -> str:
    return _MAIL_QUOTING.sub("", line).strip()


def find_key_line(text: str, where: str = "the text") -> tuple[str, bytes]:
    """(name, raw public key) from the one key line in ``text``: a file ``keys export`` wrote (a ``#``
    comment and the key line) or a mail holding it, quoted or not, among other lines. Several key lines
    are refused rather than one picked: which one the sender meant is for the user to say."""
    found = [(number, _unquoted(line)) for number, line in enumerate(text.splitlines(), start=1)
             if _unquoted(line).startswith(KEY_LINE_PREFIX.split()[0])]
    if not found:
        raise InvalidCommand(f"no public key in {where}: expected a line {KEY_FORMAT} (as keys export "
                             f"writes it; other lines and mail quoting '> ' around it are fine)")
    if len(found) > 1:
        lines = ", ".join(str(number) for number, _ in found)
        raise InvalidCommand(f"{where} holds {len(found)} key lines (lines {lines}): keep only the one to "
                             f"import (one key per import)")
    number, line = found[0]
    try:
        return parse_key_line(line)
    except InvalidCommand as exc:
        raise InvalidCommand(f"{where}, line {number}: {exc.message}") from None


# -- the key home -----------------------------------------------------------------------


def _secret_path(name: str) -> Path:
    return keys_dir() / f"{check_name(name)}.key"


def _public_path(name: str) -> Path:
    return keys_dir() / f"{check_name(name)}.pub"


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def new_key(name: str) -> KeyInfo:
    """Make an Ed25519 key pair for ``name`` in the key home; never overwrite one."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    check_name(name)
    keys_dir(create=True)
    secret, public = _secret_path(name), _public_path(name)
    if secret.exists() or public.exists():
        raise InvalidCommand(f"a key named {name!r} already exists in {keys_dir()} (keys are never overwritten)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    _write_private(secret, pem)
    public.write_text(key_line(name, raw) + "\n", encoding="ascii")
    return KeyInfo(name=name, public_key=b64(raw), fingerprint=fingerprint(raw), secret=True)


def import_public(text: str, name: str | None = None, where: str = "the text") -> KeyInfo:
    """Keep another player's public key (the key line of ``keys export``, found in ``text``) under
    ``name``; ``where`` names the text in refusals."""
    their_name, raw = find_key_line(text, where)
    name = check_name(name or their_name)
    keys_dir(create=True)
    public = _public_path(name)
    if public.exists():
        known = load_public(name)
        if known == raw:
            return KeyInfo(name=name, public_key=b64(raw), fingerprint=fingerprint(raw),
                           secret=_secret_path(name).exists())
        raise InvalidCommand(f"a different key named {name!r} is already here ({fingerprint(known)}); "
                             f"import this one under another name with --name")
    public.write_text(key_line(name, raw) + "\n", encoding="ascii")
    return KeyInfo(name=name, public_key=b64(raw), fingerprint=fingerprint(raw), secret=False)


def load_public(name: str) -> bytes:
    path = _public_path(name)
    if not path.exists():
        if _secret_path(name).exists():
            return _public_of_secret(name)
        raise NotFound(f"no key for {name!r} in {keys_dir()}: make yours with `combatlog keys new {name}`, or "
                       f"import the other player's with `combatlog keys import {name}.pub`")
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidCommand(f"the public key file {path} cannot be read: {_reason(exc)}") from None
    return find_key_line(text, str(path))[1]


def _reason(exc: Exception) -> str:
    return getattr(exc, "strerror", None) or str(exc)


def other_names_of(key: KeyInfo) -> list[str]:
    """The names other than ``key.name`` this key home keeps the same key under: one player known under
    two names would pass for two players (a combat could pin him twice)."""
    return [k.name for k in list_keys() if k.name != key.name and k.public_key == key.public_key]


def has_secret(name: str) -> bool:
    return _NAME.match(name) is not None and _secret_path(name).exists()


def _load_private(name: str) -> Any:
    path = _secret_path(name)
    if not path.exists():
        raise NotFound(f"the secret key of {name!r} is not in {keys_dir()}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidCommand(f"the secret key file {path} cannot be read: {_reason(exc)}") from None
    key = _secret_key_from(path, data)  # a damaged file is said to be damaged before any chmod advice
    if os.name == "posix":
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise InvalidCommand(f"{path} is readable by other users (mode {mode:o}); "
                                 f"refusing to use it: run chmod 600 {path}")
    return key


def _secret_key_from(path: Path, data: bytes) -> Any:
    """The Ed25519 key a secret key file holds, or a refusal that names the file and says what is wrong
    with it (it used to escape as the PEM loader's ValueError, an "internal" error)."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise _damaged(path, "it is protected by a password (combatlog keys have none)") from None
    except (ValueError, UnsupportedAlgorithm):
        what = ("it holds a public key line, not a secret key" if KEY_LINE_PREFIX.encode() in data
                else "it is not a PEM private key")
        raise _damaged(path, what) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise _damaged(path, f"it holds a {type(key).__name__.lstrip('_')} key, not an Ed25519 one")
    return key


def _damaged(path: Path, what: str) -> InvalidCommand:
    return InvalidCommand(f"the secret key file {path} is damaged: {what}; it cannot sign. "
                          f"Restore it from a backup")


def _public_of_secret(name: str) -> bytes:
    from cryptography.hazmat.primitives import serialization

    key = _load_private(name)
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)  # type: ignore[no-any-return]


def only_secret_key() -> str | None:
    """The name of the only secret key in the key home: the player this machine acts for by default
    (``--as``). None when there is no secret key, or several (then nobody is guessed)."""
    try:
        names = [p.stem for p in keys_dir().iterdir() if p.suffix == ".key" and _NAME.match(p.stem)]
    except OSError:
        return None
    return names[0] if len(names) == 1 else None


def list_keys() -> list[KeyInfo]:
    """Every key of the key home; a key whose file cannot be used is listed as damaged, with why, and
    the others are listed all the same."""
    folder = keys_dir()
    if not folder.is_dir():
        return []
    names = sorted({p.stem for p in folder.iterdir() if p.suffix in (".key", ".pub") and _NAME.match(p.stem)})
    return [_key_info(name) for name in names]


def _key_info(name: str) -> KeyInfo:
    """What ``keys list`` says of one name: the public key (from NAME.pub, else from the secret key),
    and whether the secret key is here and can sign."""
    problems = []
    public_raw = secret_raw = None
    if _public_path(name).exists():
        try:
            public_raw = load_public(name)
        except CombatlogError as exc:
            problems.append(exc.message)
    if _secret_path(name).exists():
        try:
            secret_raw = _public_of_secret(name)
        except CombatlogError as exc:
            problems.append(exc.message)
    if public_raw is not None and secret_raw is not None and public_raw != secret_raw:
        problems.append(f"{_secret_path(name)} and {_public_path(name)} hold different keys")
    raw = public_raw or secret_raw
    return KeyInfo(name=name, public_key=b64(raw) if raw else "", fingerprint=fingerprint(raw) if raw else "",
                   secret=secret_raw is not None, damaged="; ".join(problems))


# -- signing ------------------------------------------------------------------------------


class KeySigner:
    """Signs event hashes as ``name`` with the secret key held here."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._key = _load_private(name)
        self.public_raw = _public_of_secret(name)
        self.fingerprint = fingerprint(self.public_raw)

    def sign(self, message: bytes) -> str:
        return b64(self._key.sign(message))


_PUBLIC_CACHE: dict[bytes, Any] = {}


def verify_signature(public_raw: bytes, signature: bytes, message: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = _PUBLIC_CACHE.get(public_raw)
    if key is None:
        key = _PUBLIC_CACHE[public_raw] = Ed25519PublicKey.from_public_bytes(public_raw)
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True
