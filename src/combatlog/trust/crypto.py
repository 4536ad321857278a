"""The trust layer's pure derivations: orders commitments and joint dice seeds.

    commitment = SHA-256("combatlog-orders/v1\\n" || JCS({"nonce": NONCE, "orders": ORDERS}))
    seed       = SHA-256("combatlog-joint-dice/v1\\n"
                         || JCS([GENESIS_HASH, STEP, [[PLAYER, NONCE], ...]]))   # players sorted by name

    link      = SHA-256("combatlog-nonce-chain/v1\n" || previous link)  # a nonce chain, read backwards

NONCE is 32 random bytes written as 64 lowercase hex digits. Each die is then
``combatlog.dice.derive.derive_faces(seed, label, count, sides)``: HMAC-SHA256
over the seed and the label with rejection sampling. Anyone can recompute both
with a few lines of any language (docs/trust.md shows how).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from typing import Any

from combatlog.errors import InvalidCommand
from combatlog.events.canonical import canonical, json_problem

ORDERS_DOMAIN = b"combatlog-orders/v1\n"
JOINT_DOMAIN = b"combatlog-joint-dice/v1\n"
CHAIN_DOMAIN = b"combatlog-nonce-chain/v1\n"
CHAIN_LENGTH = 4096  # links per chain: one per seed step the player contributes to
MAX_CHAIN_LENGTH = 65536
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def new_nonce() -> str:
    return secrets.token_bytes(32).hex()


def is_hex64(text: str) -> bool:
    return bool(_HEX64.match(text))


def commitment(orders: Mapping[str, Any], nonce: str) -> str:
    return hashlib.sha256(ORDERS_DOMAIN + canonical({"nonce": nonce, "orders": dict(orders)})).hexdigest()


def chain_step(link: str) -> str:
    """H(x) of a nonce chain: the link before ``link`` (64 hex digits in, 64 out)."""
    return hashlib.sha256(CHAIN_DOMAIN + bytes.fromhex(link)).hexdigest()


def chain_walk(value: str, times: int) -> str:
    """H applied ``times`` times."""
    for _ in range(times):
        value = chain_step(value)
    return value


def chain_link(secret: str, length: int, index: int) -> str:
    """Link ``index`` (0 = the head, 1..length the links revealed in turn) of the chain of ``secret``."""
    return chain_walk(secret, length - index)


def joint_seed(genesis_hash: str, step: str, nonces: Mapping[str, str]) -> bytes:
    pairs = [[player, nonces[player]] for player in sorted(nonces)]
    return hashlib.sha256(JOINT_DOMAIN + canonical([genesis_hash, step, pairs])).digest()


MAX_ORDERS_BYTES = 64 * 1024


def check_orders_value(value: Any, where: str = "orders") -> None:
    """Orders are JSON with whole numbers only (canonical hashing forbids floats), bounded in depth and size."""
    problem = json_problem(value, where)
    if problem:
        raise InvalidCommand(problem)
    size = len(canonical(value))
    if size > MAX_ORDERS_BYTES:
        raise InvalidCommand(f"{where}: {size} bytes; sealed orders are at most {MAX_ORDERS_BYTES} bytes")
