"""Remotes: named servers, kept in ``<key home>/remotes.json``.

Why a file in the key home rather than the log: a remote and its invite tokens belong to the
person (like their keys), not to one log; a log is copied, exported and mailed, and a token must
never travel with it; and one person reaches the same server from every log they keep. The file
is written owner-only (0600), whole or not at all.

    {"remotes": {"NAME": {"url": "https://...", "token": "", "tokens": {"COMBAT_ID": "TOKEN"}}}}

``token`` is the one given to ``remote add --token`` (an invitation to a combat); ``tokens`` the
ones the server returned when this machine created a combat there.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import msgspec

from combatlog.errors import InvalidCommand, NotFound

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,128}$")


class Remote(msgspec.Struct, kw_only=True):
    name: str = ""
    url: str
    token: str = ""
    tokens: dict[str, str] = {}

    def token_for(self, combat_id: str) -> str:
        return self.tokens.get(combat_id) or self.token


class _File(msgspec.Struct):
    remotes: dict[str, Remote] = {}


def path() -> Path:
    from combatlog.trust.keys import key_home

    return key_home() / "remotes.json"


def load() -> dict[str, Remote]:
    file = path()
    if not file.exists():
        return {}
    try:
        data = msgspec.json.decode(file.read_bytes(), type=_File)
    except (OSError, msgspec.DecodeError) as exc:
        raise InvalidCommand(f"{file}: not a remotes file ({exc}); fix or remove it") from None
    return {name: msgspec.structs.replace(r, name=name) for name, r in data.remotes.items()}


def save(remotes: dict[str, Remote]) -> None:
    file = path()
    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = msgspec.json.format(msgspec.json.encode(_File({n: msgspec.structs.replace(r, name="")
                                                          for n, r in sorted(remotes.items())})), indent=2)
    part = file.with_name(f".{file.name}.{os.getpid()}.part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data + b"\n")
    finally:
        os.close(fd)
    os.replace(part, file)


def check_url(url: str) -> str:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidCommand(f"{url!r}: a remote is an http:// or https:// URL (https:// for a server that is "
                             "not on this machine)")
    if parts.query or parts.fragment:
        raise InvalidCommand(f"{url!r}: no query or fragment in a remote URL")
    return url.rstrip("/")


def plain_http_elsewhere(url: str) -> bool:
    """An http:// URL whose host is not this machine (loopback)."""
    import ipaddress
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme != "http":
        return False
    host = parts.hostname or ""
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def add(name: str, url: str, token: str = "") -> Remote:
    if not _NAME.match(name):
        raise InvalidCommand(f"remote name {name!r}: 1-64 letters, digits, '_', '.' or '-'")
    if token and not _TOKEN.match(token):
        raise InvalidCommand("--token: an invite token is 8-128 letters, digits, '_' or '-'")
    remotes = load()
    old = remotes.get(name)
    remote = Remote(name=name, url=check_url(url), token=token or (old.token if old else ""),
                    tokens=dict(old.tokens) if old and old.url == check_url(url) else {})
    remotes[name] = remote
    save(remotes)
    return remote


def remove(name: str) -> None:
    remotes = load()
    if name not in remotes:
        raise NotFound(f"no remote {name!r} (see: combatlog remote list)")
    del remotes[name]
    save(remotes)


def remember_token(name: str, combat_id: str, token: str) -> None:
    remotes = load()
    if name in remotes:
        remotes[name].tokens[combat_id] = token
        save(remotes)


def choose(name: str | None) -> Remote:
    """The remote named, or the only one there is."""
    remotes = load()
    if name:
        if name not in remotes:
            raise NotFound(f"no remote {name!r} (see: combatlog remote list)")
        return remotes[name]
    if len(remotes) == 1:
        return next(iter(remotes.values()))
    if not remotes:
        raise NotFound("no remote yet: combatlog remote add NAME URL")
    raise InvalidCommand(f"several remotes ({', '.join(sorted(remotes))}): choose one with --remote NAME")
