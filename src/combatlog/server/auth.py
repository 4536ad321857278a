"""Who is asking: signed requests (the players' own Ed25519 keys) and invite tokens.

The scheme is in ``combatlog.remote.protocol``. Here the server parses the headers (a request
with none of them is unsigned; one with some but not all, or any malformed, is refused), checks
the time window, and checks a signature against a public key the caller chose: the one pinned in
the combat for that player, or the creator's pinned in the genesis of a combat being created.
A request names its key by fingerprint only to say which one; it is the full pinned key that is
checked, never a key the request brings.

Refusals: 401 when the request is not authenticated (unsigned where a signature is needed, a
malformed or wrong signature, a timestamp outside the window, a replayed nonce); 403 when it is
authenticated but not allowed (a key not pinned in that combat, a create by a key not allowed,
a wrong invite token).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from combatlog.remote import protocol as p
from combatlog.server.errors import ApiError

WINDOW_S = 300  # a signed request is accepted within 5 minutes either side of the server's clock


@dataclass(frozen=True)
class SignedRequest:
    signer: str
    key: str  # fingerprint
    time: str
    nonce: str
    signature: bytes
    message: bytes  # what the signature must cover

    @property
    def expires(self) -> int:
        return int(self.time) + WINDOW_S


def signed_request(headers: dict[str, str], method: str, target: str, body: bytes) -> SignedRequest | None:
    """The request's signature headers, parsed and well-formed; None when it carries none."""
    from combatlog.trust.keys import strict_b64

    values = {name: headers.get(name.lower()) for name in p.SIGNED_HEADERS}
    present = [name for name, value in values.items() if value is not None]
    if not present:
        return None
    if len(present) != len(values):
        missing = ", ".join(name for name, value in values.items() if value is None)
        raise ApiError(401, "unauthenticated", f"a signed request needs all five signature headers; missing: {missing}")
    signature = strict_b64(values[p.H_SIGNATURE] or "", 64)
    if signature is None:
        raise ApiError(401, "bad_signature", f"{p.H_SIGNATURE} is not 64 bytes of base64")
    try:
        message = p.request_message(method, target, values[p.H_TIME] or "", values[p.H_NONCE] or "",
                                    values[p.H_SIGNER] or "", values[p.H_KEY] or "", body)
    except ValueError as exc:
        raise ApiError(401, "bad_signature", f"malformed signature headers: {exc}") from None
    return SignedRequest(signer=values[p.H_SIGNER] or "", key=values[p.H_KEY] or "", time=values[p.H_TIME] or "",
                         nonce=values[p.H_NONCE] or "", signature=signature, message=message)


def check_fresh(req: SignedRequest, now: float | None = None) -> None:
    now = time.time() if now is None else now
    skew = int(req.time) - now
    if abs(skew) > WINDOW_S:
        raise ApiError(401, "expired", f"the request was signed {abs(int(skew))} s "
                       f"{'ahead of' if skew > 0 else 'behind'} the server's clock; at most {WINDOW_S} s are "
                       "accepted (check your clock, then sign again)")


def check_signature(req: SignedRequest, public_raw: bytes) -> None:
    from combatlog.trust.keys import fingerprint, verify_signature

    if fingerprint(public_raw) != req.key:
        raise ApiError(403, "wrong_key", f"{req.key} is not the key pinned for {req.signer} ({fingerprint(public_raw)})")
    if not verify_signature(public_raw, req.signature, req.message):
        raise ApiError(401, "bad_signature", f"the request signature does not verify with {req.signer}'s key "
                       f"{req.key} (wrong key, or the method, path, body or headers changed after signing)")


def require(req: SignedRequest | None, what: str) -> SignedRequest:
    if req is None:
        raise ApiError(401, "unauthenticated", f"{what} must be signed: send the {', '.join(p.SIGNED_HEADERS)} "
                       "headers (combatlog push does)")
    return req
