"""Events: payload base and registry, canonical encoding, envelope and hash chain."""

from combatlog.events.base import Event, register, register_upcaster, registered, tag_of
from combatlog.events.core import (
    CombatStarted, DiceRolled, Forked, Noted, Player, SeedCommitted, SeedRevealed,
)
from combatlog.events.envelope import (
    GENESIS_PREV, Envelope, Recorded, Signature, decode_envelope, decode_recorded,
    encode_envelope, seal,
)

__all__ = [
    "Event", "register", "register_upcaster", "registered", "tag_of",
    "CombatStarted", "DiceRolled", "Forked", "Noted", "Player", "SeedCommitted", "SeedRevealed",
    "GENESIS_PREV", "Envelope", "Recorded", "Signature", "decode_envelope", "decode_recorded",
    "encode_envelope", "seal",
]
