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

from combatlog.errors import InvalidCommand, NotFound

KEY_LINE_PREFIX = "combatlog-key v1"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class KeyInfo(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    public_key: str  # base64 of the raw 32 bytes
    fingerprint: str
    secret: bool  # True when the secret key is in this key home


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


def parse_key_line(text: str) -> tuple[str, bytes]:
    """(name, raw public key) from an exported key line (comments and blank lines ignored)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if len(lines) != 1:
        raise InvalidCommand("a public key file holds one line: combatlog-key v1 NAME ed25519 BASE64")
    parts = lines[0].split()
    if len(parts) != 5 or " ".join(parts[:2]) != KEY_LINE_PREFIX or parts[3] != "ed25519":
        raise InvalidCommand("not a combatlog public key (expected: combatlog-key v1 NAME ed25519 BASE64)")
    raw = strict_b64(parts[4], 32)
    if raw is None:
        raise InvalidCommand("the public key is not 32 bytes of base64")
    return check_name(parts[2]), raw


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


def import_public(text: str, name: str | None = None) -> KeyInfo:
    """Keep another player's public key (from ``keys export``) under ``name``."""
    their_name, raw = parse_key_line(text)
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
    return parse_key_line(path.read_text(encoding="ascii"))[1]


def has_secret(name: str) -> bool:
    return _NAME.match(name) is not None and _secret_path(name).exists()


def _load_private(name: str) -> Any:
    from cryptography.hazmat.primitives import serialization

    path = _secret_path(name)
    if not path.exists():
        raise NotFound(f"the secret key of {name!r} is not in {keys_dir()}")
    if os.name == "posix":
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise InvalidCommand(f"{path} is readable by other users (mode {mode:o}); "
                                 f"refusing to use it: run chmod 600 {path}")
    return serialization.load_pem_private_key(path.read_bytes(), password=None)


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
    folder = keys_dir()
    if not folder.is_dir():
        return []
    names = sorted({p.stem for p in folder.iterdir() if p.suffix in (".key", ".pub") and _NAME.match(p.stem)})
    out = []
    for name in names:
        raw = load_public(name)
        out.append(KeyInfo(name=name, public_key=b64(raw), fingerprint=fingerprint(raw),
                           secret=_secret_path(name).exists()))
    return out


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
