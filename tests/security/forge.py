"""A hostile player's workbench: forged export files, and a fingerprint of a log to prove it unchanged.

The forgeries go as far as a careful cheat can: every hash recomputed, the chain
re-linked, the header's check digest redone, and the cheat's own events
re-signed with the cheat's own key. Only the checks that the attack targets can
catch what is left.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from combatlog.events.canonical import canonical
from combatlog.events.envelope import Envelope, decode_envelope, encode_envelope
from combatlog.exchange.bundle import Header, _header_check

Signer = Callable[[Envelope], Envelope]


def header_of(lines: list[bytes]) -> dict[str, Any]:
    return json.loads(lines[0])  # type: ignore[no-any-return]


def with_header(lines: list[bytes], mutate: Callable[[dict[str, Any]], None]) -> list[bytes]:
    """The file with its header changed by ``mutate`` and its check digest recomputed."""
    header = header_of(lines)
    mutate(header)
    header.pop("check", None)
    header["check"] = _header_check(header)
    return [canonical(header), *lines[1:]]


def reforge(lines: list[bytes], mutate: Mapping[int, Callable[[dict[str, Any]], None]],
            signers: Mapping[str, Signer] | None = None,
            envelope: Mapping[int, Callable[[dict[str, Any]], None]] | None = None) -> list[bytes]:
    """Change the payloads (``mutate``: seq -> f(data)) or envelopes (``envelope``: seq -> f(env dict)),
    recompute every hash from there, re-link the chain, re-sign with ``signers`` (actor -> signer; events
    of other actors keep their old, now invalid, signatures) and rewrite the header."""
    signers = signers or {}
    out: list[bytes] = []
    prev: str | None = None
    changed = False
    for line in lines[1:]:
        env = decode_envelope(line)
        if prev is None:
            prev = env.prev
        if env.seq in mutate:
            data = json.loads(bytes(env.data))
            mutate[env.seq](data)
            env = msgspec.structs.replace(env, data=msgspec.Raw(canonical(data)))
            changed = True
        if envelope and env.seq in envelope:
            raw = json.loads(encode_envelope(env))
            envelope[env.seq](raw)
            env = msgspec.json.decode(canonical(raw), type=Envelope)
            changed = True
        env = msgspec.structs.replace(env, prev=prev)
        env = msgspec.structs.replace(env, hash=env.computed_hash())
        if changed and env.actor in signers:
            env = signers[env.actor](env.with_sigs(()))
        prev = env.hash
        out.append(encode_envelope(env))
    header = msgspec.json.decode(lines[0], type=Header)
    last = decode_envelope(out[-1])
    header = msgspec.structs.replace(header, head_hash=last.hash, count=len(out), head_seq=last.seq)
    header = msgspec.structs.replace(header, check=_header_check(header))
    return [canonical(header), *out]


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def read(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def log_fingerprint(db: Path) -> list[str]:
    """Every row a SQLite log holds (its schema aside: opening a new log creates it), in order."""
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        return [line for line in conn.iterdump() if line.startswith("INSERT")]
    finally:
        conn.close()


def seq_of(lines: list[bytes], predicate: Callable[[dict[str, Any]], bool]) -> int:
    """The seq of the first event whose payload satisfies ``predicate``."""
    for line in lines[1:]:
        env = json.loads(line)
        if predicate(env["data"]):
            return int(env["seq"])
    raise AssertionError("no such event in the file")
