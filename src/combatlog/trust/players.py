"""Pinned players and signers: who may append to a combat, and with which key.

A combat created with ``--player`` names pins each player's public key and
fingerprint in its genesis. From then on every event of that combat (the
genesis included) must carry a valid signature by its actor, and its actor must
be a pinned player. A referee or GM who records events is pinned like any
player (``--player gm``): there are no unsigned events in a combat with pinned
players, because an unsigned event could have been written by anyone.
"""

from __future__ import annotations

from collections.abc import Sequence

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.core import CombatStarted, Player
from combatlog.events.envelope import Envelope, Signature, decode_recorded
from combatlog.store.base import EventStore, StreamMeta

SIGNATURE_DOMAIN = b"combatlog-signature/v1\n"
RULE_SIGNED = "trust: every event of a combat with pinned players is signed by its actor"


def signed_message(event_hash: str) -> bytes:
    """What a signature covers: a domain tag and the event hash (its hex string)."""
    return SIGNATURE_DOMAIN + event_hash.encode("ascii")


def signature_holds(public_raw: bytes, signature: bytes, event_hash: str) -> bool:
    """Whether ``signature`` (its 64 bytes) signs the event of hash ``event_hash`` under the key ``public_raw``."""
    from combatlog.trust.keys import verify_signature

    return verify_signature(public_raw, signature, signed_message(event_hash))


def not_valid(seq: int, signer: str) -> str:
    """What verify says of a signature that does not hold."""
    return f"seq {seq}: the signature of {signer} is not valid for this event (forged, or the event or signature " \
           "was altered)"


def make_signer(name: str):  # type: ignore[no-untyped-def]
    """A ``Signer`` (Envelope -> Envelope) that adds ``name``'s signature."""
    from combatlog.trust.keys import KeySigner

    key = KeySigner(name)

    def sign(env: Envelope) -> Envelope:
        if env.actor != name:
            raise IllegalCommand(f"refusing to sign an event of {env.actor!r} as {name!r}", rule=RULE_SIGNED)
        sig = Signature(signer=name, key=key.fingerprint, sig=key.sign(signed_message(env.hash)))
        return env.with_sigs(tuple(s for s in env.sigs if s.signer != name) + (sig,))

    sign.fingerprint = key.fingerprint  # type: ignore[attr-defined]
    sign.public_raw = key.public_raw  # type: ignore[attr-defined]
    return sign


def pin_players(names: Sequence[str], actor: str):  # type: ignore[no-untyped-def]
    """The genesis ``players`` for ``names`` (keys from the key home) and a signer for ``actor``."""
    from combatlog.trust.keys import b64, check_name, fingerprint, has_secret, load_public

    seen: set[str] = set()
    players: list[Player] = []
    for name in names:
        check_name(name)
        if name in seen:
            raise InvalidCommand(f"--player {name} is given twice")
        seen.add(name)
        raw = load_public(name)
        players.append(Player(name=name, public_key=b64(raw), fingerprint=fingerprint(raw)))
    if actor not in seen:
        raise InvalidCommand(
            f"the genesis is signed by its creator, who must be a pinned player: run with --as one of "
            f"{', '.join(names)} (a referee is pinned too: add --player {actor})"
        )
    if not has_secret(actor):
        raise IllegalCommand(f"you hold no secret key for {actor!r} here; make it with `combatlog keys new {actor}`",
                             rule=RULE_SIGNED)
    signer = make_signer(actor)
    pinned = next(p for p in players if p.name == actor)
    if signer.fingerprint != pinned.fingerprint:
        raise IllegalCommand(f"the public key kept for {actor!r} ({pinned.fingerprint}) is not the one of the "
                             f"secret key held here ({signer.fingerprint})", rule=RULE_SIGNED)
    return tuple(players), signer


def genesis_of(store: EventStore, meta: StreamMeta) -> CombatStarted | None:
    """The root genesis of ``meta``'s history (a fork's is its root's)."""
    from combatlog.errors import NotFound
    from combatlog.projections.fold import lineage

    try:
        root = lineage(store, meta)[0][0]  # bounded: a looping stream table is an error, not a hang
    except NotFound:
        return None
    rows = store.read_stream(root.id, 1, 1)
    if not rows:
        return None
    event = decode_recorded(rows[0].body).event
    return event if isinstance(event, CombatStarted) else None


def signer_for_stream(store: EventStore, meta: StreamMeta, actor: str):  # type: ignore[no-untyped-def]
    """A signer for ``actor`` on ``meta``, None if the combat pins nobody; refuses when it cannot sign."""
    genesis = genesis_of(store, meta)
    if genesis is None or not genesis.players:
        return None
    pinned = {p.name: p for p in genesis.players}
    player = pinned.get(actor)
    if player is None:
        raise IllegalCommand(
            f"{meta.name} pins its players ({', '.join(pinned)}); {actor!r} is not one of them, so it cannot "
            f"append: run with --as PLAYER", rule=RULE_SIGNED)
    from combatlog.trust.keys import has_secret, key_home

    if not has_secret(actor):
        raise IllegalCommand(
            f"the secret key of {actor!r} is not on this machine (key home {key_home()}); only {actor} can "
            f"append as {actor}", rule=RULE_SIGNED)
    signer = make_signer(actor)
    if signer.fingerprint != player.fingerprint:
        raise IllegalCommand(
            f"the key held here for {actor!r} ({signer.fingerprint}) is not the one pinned in {meta.name} "
            f"({player.fingerprint})", rule=RULE_SIGNED)
    return signer


def signers_here():  # type: ignore[no-untyped-def]
    """actor -> a signer when this machine's key home holds that player's secret key, else None (for
    ``import``, which re-applies the decisions of those players after a merge)."""
    from combatlog.trust.keys import has_secret

    made: dict[str, object] = {}

    def signer_for(actor: str):  # type: ignore[no-untyped-def]
        if actor not in made:
            try:
                made[actor] = make_signer(actor) if has_secret(actor) else None
            except (IllegalCommand, InvalidCommand):
                made[actor] = None
        return made[actor]

    return signer_for
