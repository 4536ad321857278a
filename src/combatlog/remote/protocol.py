"""The signed-request scheme shared by the server and its clients (no third-party imports).

A write (and any read a player wants to make as a player) carries five headers::

    X-Combatlog-Signer     the player name pinned in the combat (or the creator's, for a create)
    X-Combatlog-Key        that player's key fingerprint (ed25519: and 16 hex digits)
    X-Combatlog-Time       the time of signing, whole seconds since the Unix epoch
    X-Combatlog-Nonce      32 random bytes, 64 lowercase hex digits, never used twice
    X-Combatlog-Signature  base64 Ed25519 signature over request_message(...)

The signed message is domain-separated from event signatures
(``combatlog-signature/v1``), so a request signature can never pass for an event
signature nor the other way round::

    "combatlog-request/v1\\n" METHOD "\\n" TARGET "\\n" TIME "\\n" NONCE "\\n" SIGNER "\\n" KEY "\\n" SHA256(BODY)

TARGET is the path and query exactly as sent on the request line
(``/v1/combats/abc/events?since=3``), SHA256(BODY) is lowercase hex (of the
empty string for a request without a body). Every field is checked against a
strict pattern before the message is built, so no field can smuggle a newline.
"""

from __future__ import annotations

import hashlib
import re

REQUEST_DOMAIN = b"combatlog-request/v1\n"
H_SIGNER = "X-Combatlog-Signer"
H_KEY = "X-Combatlog-Key"
H_TIME = "X-Combatlog-Time"
H_NONCE = "X-Combatlog-Nonce"
H_SIGNATURE = "X-Combatlog-Signature"
H_TOKEN = "X-Combatlog-Token"
SIGNED_HEADERS = (H_SIGNER, H_KEY, H_TIME, H_NONCE, H_SIGNATURE)

METHOD = re.compile(r"^[A-Z]{1,10}$")
TARGET = re.compile(r"^/[A-Za-z0-9/_.~%=&?+-]{0,2047}$")
SIGNER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # as key names (trust.keys)
KEY = re.compile(r"^ed25519:[0-9a-f]{16}$")
TIME = re.compile(r"^[0-9]{1,12}$")
NONCE = re.compile(r"^[0-9a-f]{64}$")


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def request_message(method: str, target: str, time: str, nonce: str, signer: str, key: str, body: bytes) -> bytes:
    """The bytes a request signature covers; ValueError when a field is malformed."""
    for value, pattern, what in ((method, METHOD, "method"), (target, TARGET, "target"), (time, TIME, "time"),
                                 (nonce, NONCE, "nonce"), (signer, SIGNER, "signer"), (key, KEY, "key")):
        if not pattern.match(value):
            raise ValueError(f"malformed {what}")
    fields = (method, target, time, nonce, signer, key, body_digest(body))
    return REQUEST_DOMAIN + "\n".join(fields).encode("ascii")
