"""The composition root: the one place where the core and the trust layer are put together.

The write path (``commands.handler.execute``), the verifier (``exchange.verify.ChainVerifier``),
the importer (``exchange.bundle``, ``exchange.inbox``) and the merge take a ``Wiring``
(``combatlog.ports``): every key source, core decider and check they run is a field of it, so
reading ``execute`` shows each step, and nothing depends on which module happened to be imported
first. ``standard()`` builds the wiring a real combat uses; the functions below are those
operations composed with it, and are what the CLI, the server and the client call. Nothing below
this module imports it: a layer that needs a wiring is handed one (``tests/core/test_layers.py``).
A test may build a smaller wiring (``core_only()``) and pass it explicitly.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from combatlog.ports import Wiring

if TYPE_CHECKING:
    from combatlog.commands.handler import Outcome
    from combatlog.dice.port import DicePort
    from combatlog.exchange.verify import ChainVerifier, VerifyReport

__all__ = ["Wiring", "core_only", "standard", "execute", "create_combat", "fork_stream", "dice_port", "verifier",
           "verify_lines", "verify_file", "verify_stream", "import_file", "import_bundle", "receive"]


def core_only() -> Wiring:
    """The engine without the trust layer: referee dice, no signatures or sealed orders."""
    from combatlog.commands.keys import referee_key

    return Wiring(key_sources={"referee": referee_key}, deciders={}, pre_append=(), event_checks=(),
                  scheme_checks={}, finish_checks=(), divergence_checks=())


@functools.cache
def deciding() -> Wiring:
    """What deciding a command takes and no check of ``verify``: the dice key sources and the core deciders
    (sealed orders, acknowledgements, decision points). Legal moves are probed with it (``status``, ``moves``),
    so a read command loads neither the verifier nor the write path."""
    from combatlog.commands.keys import referee_key
    from combatlog.trust import sealed

    return Wiring(key_sources={"referee": referee_key, "joint": sealed.joint_key}, deciders=dict(sealed.DECIDERS),
                  pre_append=(), event_checks=(), scheme_checks={}, finish_checks=(), divergence_checks=())


@functools.cache
def standard() -> Wiring:
    """What every command, import and verification of a real combat uses: the core plus the trust layer.

    - dice keys: the referee's committed seed; the joint seed of the players' revealed nonces;
    - core commands: sealed orders (commit, reveal), acknowledgements, decision points;
    - before an append: signatures, sealed orders and joint dice, as ``verify`` checks them;
    - ``verify``: the same per event (joint dice recomputed there), then acknowledgements and notes;
    - ``import``: two differing events signed by one player are equivocation, with a proof file.
    """
    from combatlog.trust import evidence, hooks, sealed

    decide = deciding()
    return Wiring(
        key_sources=decide.key_sources,
        deciders=decide.deciders,
        pre_append=(sealed.pre_append,),
        event_checks=(hooks.verify_event,),
        scheme_checks={"joint": hooks.joint_checked_by_trust},
        finish_checks=(hooks.verify_finish,),
        divergence_checks=(evidence.check_equivocation,),
    )


# -- the operations, composed with the standard wiring (or the one given) --------------------------------


def execute(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Outcome:
    from combatlog.commands import handler

    return handler.execute(*args, wiring=wiring or standard(), **kw)


def create_combat(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Outcome:
    from combatlog.commands import handler

    return handler.create_combat(*args, wiring=wiring or standard(), **kw)


def fork_stream(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Outcome:
    from combatlog.commands import handler

    return handler.fork_stream(*args, wiring=wiring or standard(), **kw)


def dice_port(*args: Any, wiring: Wiring | None = None, **kw: Any) -> DicePort:
    from combatlog.commands import handler

    return handler.dice_port(*args, wiring=wiring or standard(), **kw)


def verifier(*args: Any, wiring: Wiring | None = None, **kw: Any) -> ChainVerifier:
    from combatlog.exchange.verify import ChainVerifier

    return ChainVerifier(*args, wiring=wiring or standard(), **kw)


def verify_lines(*args: Any, wiring: Wiring | None = None, **kw: Any) -> VerifyReport:
    from combatlog.exchange import bundle

    return bundle.verify_lines(*args, wiring=wiring or standard(), **kw)


def verify_file(*args: Any, wiring: Wiring | None = None, **kw: Any) -> VerifyReport:
    from combatlog.exchange import bundle

    return bundle.verify_file(*args, wiring=wiring or standard(), **kw)


def verify_stream(*args: Any, wiring: Wiring | None = None, **kw: Any) -> VerifyReport:
    from combatlog.exchange import bundle

    return bundle.verify_stream(*args, wiring=wiring or standard(), **kw)


def import_file(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Any:
    from combatlog.exchange import bundle

    return bundle.import_file(*args, wiring=wiring or standard(), **kw)


def import_bundle(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Any:
    from combatlog.exchange import bundle

    return bundle.import_bundle(*args, wiring=wiring or standard(), **kw)


def receive(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Any:
    from combatlog.exchange import inbox

    return inbox.receive(*args, wiring=wiring or standard(), **kw)


def moves(*args: Any, wiring: Wiring | None = None, **kw: Any) -> Any:
    """Every legal move now, and the trust layer's steps (``trust.offers.offered_moves``)."""
    from combatlog.trust.offers import offered_moves

    return offered_moves(*args, wiring=wiring or deciding(), **kw)
