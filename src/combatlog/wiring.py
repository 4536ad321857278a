"""The composition root: the one place where the core and the trust layer are put together.

The write path (``commands.handler.execute``), the verifier (``exchange.verify``)
and the importer (``exchange.bundle``) take a ``Wiring``: every key source,
core decider and check they run is a field here, so reading ``execute`` shows
each step, and nothing depends on which module happened to be imported first.
``standard()`` builds the wiring a real combat uses; a test can build a smaller
one (for example without the trust layer) and pass it explicitly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from combatlog.dice.port import DicePort
    from combatlog.events.base import Event
    from combatlog.events.core import DiceRolled
    from combatlog.events.envelope import Envelope, Recorded
    from combatlog.exchange.verify import ChainVerifier
    from combatlog.projections.fold import CoreTrack, Folded
    from combatlog.store.base import EventStore, StreamMeta

# scheme -> f(store, core) -> (seq of the commitment, key); raises a clear error when it cannot draw now
KeySource = Callable[["EventStore", "CoreTrack"], tuple[int, bytes]]
# a core command decided outside the handler: f(store, folded, command, dice, actor) -> events
CoreDecider = Callable[["EventStore", "Folded", Any, "DicePort", str], list["Event"]]
# refuse a sealed batch before it is appended: f(store, folded state before it, envelopes)
PreAppend = Callable[["EventStore", "Folded", list["Envelope"]], None]
# verify, per event, after the core checks: f(verifier, recorded, where)
EventCheck = Callable[["ChainVerifier", "Recorded", str], None]
# verify a die of a scheme the core does not recompute itself: f(verifier, die, seq, where)
SchemeCheck = Callable[["ChainVerifier", "DiceRolled", int, str], None]
# verify, after the last event: f(verifier)
FinishCheck = Callable[["ChainVerifier"], None]
# an imported event differs from ours at the same seq: f(store, stream, seq, ours, theirs, file)
DivergenceCheck = Callable[["EventStore", "StreamMeta", int, bytes, bytes, Path], None]


@dataclass(frozen=True)
class Wiring:
    key_sources: Mapping[str, KeySource]
    deciders: Mapping[type, CoreDecider]
    pre_append: tuple[PreAppend, ...]
    event_checks: tuple[EventCheck, ...]
    scheme_checks: Mapping[str, SchemeCheck]
    finish_checks: tuple[FinishCheck, ...]
    divergence_checks: tuple[DivergenceCheck, ...]


def core_only() -> Wiring:
    """The engine without the trust layer: referee dice, no signatures or sealed orders."""
    from combatlog.commands.keys import referee_key

    return Wiring(key_sources={"referee": referee_key}, deciders={}, pre_append=(), event_checks=(),
                  scheme_checks={}, finish_checks=(), divergence_checks=())


@functools.cache
def standard() -> Wiring:
    """What every command, import and verification of a real combat uses: the core plus the trust layer.

    - dice keys: the referee's committed seed; the joint seed of the players' revealed nonces;
    - core commands: sealed orders (commit, reveal), acknowledgements, decision points;
    - before an append: signatures, sealed orders and joint dice, as ``verify`` checks them;
    - ``verify``: the same per event (joint dice recomputed there), then acknowledgements and notes;
    - ``import``: two differing events signed by one player are equivocation, with a proof file.
    """
    from combatlog.commands.keys import referee_key
    from combatlog.trust import evidence, hooks, sealed

    return Wiring(
        key_sources={"referee": referee_key, "joint": sealed.joint_key},
        deciders=dict(sealed.DECIDERS),
        pre_append=(sealed.pre_append,),
        event_checks=(hooks.verify_event,),
        scheme_checks={"joint": hooks.joint_checked_by_trust},
        finish_checks=(hooks.verify_finish,),
        divergence_checks=(evidence.check_equivocation,),
    )
