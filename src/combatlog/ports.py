"""What the write path, the verifier and the importer take from the composition root (``combatlog.wiring``).

Only the shape: ``Wiring`` and the signatures of the functions it holds. The lower layers
(``commands.handler``, ``exchange.verify``, ``exchange.bundle``, ``exchange.inbox``,
``exchange.merge``) import this module for their type hints and are handed a ``Wiring`` by
their caller; none of them imports ``combatlog.wiring``, which builds the standard one from
the core and the trust layer and offers the composed operations (docs/design.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

if TYPE_CHECKING:
    from combatlog.dice.port import DicePort
    from combatlog.events.base import Event
    from combatlog.events.core import DiceRolled
    from combatlog.events.envelope import Envelope, Recorded
    from combatlog.projections.fold import CoreTrack, Folded
    from combatlog.store.base import EventStore, StreamMeta


class Verifying(Protocol):
    """What the wiring's checks see of the verifier (``exchange.verify.ChainVerifier``), declared here so that
    this module does not import the verifier that imports it."""

    folded: Folded  # the state so far
    first_seq: int  # the first seq this verifier checks (> 1: a bundle on top of a local base)
    prior: Callable[[], Any] | None  # with a base: the events before it
    extra: dict[str, Any]  # what the checks keep between events
    notes: list[str]
    acknowledged: dict[str, int]
    signatures: int
    tally: Any  # exchange.verify.DiceTally

    def fail(self, where: str, message: str) -> None: ...

# scheme -> f(store, core, label of the die to draw) -> (seq of the commitment, key); raises a clear error
# when it cannot draw now
KeySource = Callable[["EventStore", "CoreTrack", str], tuple[int, bytes]]
# a core command decided outside the handler: f(store, folded, command, dice, actor) -> events
CoreDecider = Callable[["EventStore", "Folded", Any, "DicePort", str], list["Event"]]
# refuse a sealed batch before it is appended: f(store, folded state before it, envelopes)
PreAppend = Callable[["EventStore", "Folded", list["Envelope"]], None]
# verify, per event, after the core checks: f(verifier, recorded, where). It reads the events (and what it keeps
# in ``verifier.extra``), never the rules' fold
EventCheck = Callable[["Verifying", "Recorded", str], None]
# verify a die of a scheme the core does not recompute itself: f(verifier, die, seq, where)
SchemeCheck = Callable[["Verifying", "DiceRolled", int, str], None]
# verify, after the last event: f(verifier); it may add to ``notes``, set ``acknowledged`` (as the event checks:
# from the events only)
FinishCheck = Callable[["Verifying"], None]
# an imported event differs from ours at the same seq: f(store, stream, seq, ours, theirs, file)
DivergenceCheck = Callable[["EventStore", "StreamMeta", int, bytes, bytes, Path], None]


class Wiring(msgspec.Struct, frozen=True):  # (not a dataclass: dataclasses imports inspect, felt at start-up)
    key_sources: Mapping[str, KeySource]
    deciders: Mapping[type, CoreDecider]
    pre_append: tuple[PreAppend, ...]
    event_checks: tuple[EventCheck, ...]
    scheme_checks: Mapping[str, SchemeCheck]
    finish_checks: tuple[FinishCheck, ...]
    divergence_checks: tuple[DivergenceCheck, ...]
