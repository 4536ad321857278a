"""The trust layer's API for rulesets (documented in docs/trust.md, "For ruleset authors").

Everything here is pure: a ruleset may import this module from ``decide``,
``evolve`` or its views (it imports no store, handler or CLI).

Sealed orders
    A ruleset's CLI turns a secret play into ``CommitOrders(step=..., orders={...})``
    and later ``RevealOrders(step=...)``, passed to ``run_command`` like any command.
    The engine keeps the orders and nonce in the local secrets, appends
    ``OrdersCommitted`` (a hash) and then ``OrdersRevealed`` (the orders), and
    checks commit/reveal order and the hash on write and in ``verify``.
    The ruleset's ``evolve`` reads ``OrdersRevealed.orders`` for the steps it owns
    (name them ``r<round>/<phase>``, e.g. ``r3/melee``); ``track_sealed`` keeps the
    per-step picture in the ruleset's state.

    Optional ruleset hooks (plain methods on the ruleset object):
    ``sealed_required(state, step) -> tuple[str, ...]``: who must commit to a step
    (default: every pinned player); ``check_orders(state, step, player, orders)``:
    raise ``IllegalCommand`` or ``InvalidCommand`` to refuse a commit whose orders
    could never be accepted (not this player's step, malformed), and
    ``RefusedAtReveal`` for orders the rules would cancel or void at the reveal
    (apply the same rules ``decide``/``evolve`` apply there); ``CommitOrders(anyway=True)``
    (``--anyway`` on the CLI) seals those regardless, as a deliberate choice. It runs
    on the committing machine only (the log never sees the orders before the
    reveal), so ``evolve`` must still treat an illegal revealed order by the rules.
    ``seed_step_name(state) -> str``: the name of a fresh seed step, where the
    ruleset's dice labels begin otherwise than with the round ("r3"): Argad's "t2".
    A player's moves (``status --mine``, the mail) are the rules' legal moves
    (``Ruleset.candidates``, kept by commands/legal.py) and the seed steps their
    joint dice need (trust/offers.py).

Joint dice
    With the ``joint`` scheme, ``dice.roll(label, "2d6")`` derives faces from the
    newest completed seed step (a step every pinned player committed to and
    revealed). Nothing else changes for the ruleset.

Decision points
    When a player chooses after the seed is known and a later die depends on that
    choice, return ``decision_point(player, what)`` among the command's events,
    *before* the dice it precedes (place the ``Roll.event`` objects yourself to
    control the order). Strict mode (the default, genesis option
    ``joint_dice=strict``) then refuses further joint dice until a fresh seed step
    completes; friendly mode (``joint_dice=friendly``) allows them and ``verify``
    flags each one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.errors import CombatlogError, IllegalCommand
from combatlog.events.base import Event
from combatlog.events.core import (
    Acknowledged, ChainCommitted, ChainReleased, DecisionMarked, LinkRevealed, OrdersCommitted, OrdersRevealed,
)
from combatlog.trust.commands import Acknowledge, CommitOrders, MarkDecision, RevealOrders
from combatlog.trust.crypto import commitment, joint_seed, new_nonce

__all__ = [
    "Acknowledge", "Acknowledged", "ChainCommitted", "ChainReleased", "CommitOrders", "LinkRevealed", "DecisionMarked", "MarkDecision", "MyMove", "OrdersCommitted",
    "OrdersRevealed", "RefusedAtReveal", "RevealOrders", "SealedStep", "commitment", "command_line",
    "decision_point", "joint_seed", "new_nonce", "track_sealed",
]


class RefusedAtReveal(IllegalCommand):
    """Sealed orders the rules would cancel or void at the reveal (``check_orders``): refused before
    sealing unless the player seals them ``anyway``. ``problems`` lists each one (text, rule)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        CombatlogError.__init__(self, "; ".join(f"{text} ({rule})" for text, rule in problems))
        self.rule = "; ".join(dict.fromkeys(rule for _text, rule in problems))
        self.problems = list(problems)


class MyMove(msgspec.Struct, frozen=True, kw_only=True):
    """One thing a player must decide now (``status --mine``): what, the rule, and a command line to
    paste (empty when none can be named)."""

    what: str
    rule: str = ""
    command: str = ""
    options: tuple[str, ...] = ()
    step: str = ""  # the sealed step this move commits or reveals to, if any
    waiting: str = ""  # why it has no command yet: it could not succeed now (its joint dice wait for a seed step)


def command_line(*words: str, actor: str = "") -> str:
    """``combatlog WORD ...`` quoted for a POSIX shell (placeholders in capitals are left as they are),
    with ``--as ACTOR`` at the end when given."""
    import shlex

    parts = ["combatlog", *words, *(("--as", actor) if actor else ())]
    return " ".join(shlex.quote(p) for p in parts)


def decision_point(player: str, what: str) -> DecisionMarked:
    """The event marking that ``player`` chose ``what`` after the joint seed was known."""
    return DecisionMarked(player=player, what=what)


class SealedStep(msgspec.Struct, frozen=True, kw_only=True):
    """One sealed step as a ruleset's state can keep it (see ``track_sealed``)."""

    step: str
    required: tuple[str, ...]
    committed: tuple[str, ...] = ()
    orders: dict[str, dict[str, Any]] = {}  # revealed orders by player
    linked: tuple[str, ...] = ()  # players whose chain link is their contribution (revealed, or a released chain's)
    chained: bool = False  # a seed step whose contributions are chain links (docs/trust.md, "Nonce chains")

    @property
    def all_committed(self) -> bool:
        return all(p in self.committed or p in self.linked for p in self.required)

    @property
    def complete(self) -> bool:
        return all(p in self.orders or p in self.linked for p in self.required)

    def contributed(self, player: str) -> bool:
        """His contribution to the seed is public (a reveal or a link)."""
        return player in self.orders or player in self.linked

    def waiting(self) -> list[tuple[str, str]]:
        """(player, "commit" | "reveal" | "link") for everyone the step is waiting for."""
        if self.chained:  # links need no commit first: each is waited for as it stands
            ready = self.all_committed
            return [(p, "reveal" if p in self.committed else "link") for p in self.required
                    if not self.contributed(p) and (ready or p not in self.committed)]
        if not self.all_committed:
            return [(p, "commit") for p in self.required if p not in self.committed]
        return [(p, "reveal") for p in self.required if p not in self.orders]


class Chains(msgspec.Struct, frozen=True, kw_only=True):
    """Who has a nonce chain, and whose chain is released, as a ruleset's state can keep it."""

    players: tuple[str, ...] = ()  # every pinned player
    committed: tuple[str, ...] = ()
    released: tuple[str, ...] = ()

    @property
    def all_chained(self) -> bool:
        return bool(self.players) and all(p in self.committed for p in self.players)


def track_chains(chains: Chains, event: Event) -> Chains:
    if isinstance(event, ChainCommitted) and event.player not in chains.committed:
        return msgspec.structs.replace(chains, committed=chains.committed + (event.player,))
    if isinstance(event, ChainReleased) and event.player not in chains.released:
        return msgspec.structs.replace(chains, released=chains.released + (event.player,))
    return chains


def track_sealed(steps: dict[str, SealedStep], event: Event, chains: Chains | None = None) -> dict[str, SealedStep]:
    """Pure: ``steps`` after ``event`` (the same dict for events that are not sealed orders or links).

    ``verify`` and the write path have already checked the events, so this only records. ``chains``
    (the picture *before* the event, see ``track_chains``) lets it follow chained seed steps: a link
    opens one, and released chains contribute to it by themselves.
    """
    chains = chains or Chains()

    def opened(step: str, required: tuple[str, ...]) -> SealedStep:
        chained = chains.all_chained and set(chains.players) <= set(required)
        auto = tuple(p for p in required if p in chains.released) if chained else ()
        return SealedStep(step=step, required=required, chained=chained, linked=auto)

    if isinstance(event, OrdersCommitted):
        old = steps.get(event.step) or opened(event.step, event.required)
        new = msgspec.structs.replace(old, committed=old.committed + (event.player,))
        return {**steps, event.step: new}
    if isinstance(event, LinkRevealed):
        old = steps.get(event.step) or opened(event.step, chains.players)
        return {**steps, event.step: msgspec.structs.replace(old, linked=old.linked + (event.player,))}
    if isinstance(event, ChainReleased):
        out = dict(steps)
        for name, old in steps.items():
            if old.chained and not old.complete and event.player in old.required and event.player not in old.committed \
                    and event.player not in old.linked:
                out[name] = msgspec.structs.replace(old, linked=old.linked + (event.player,))
        return out
    if isinstance(event, OrdersRevealed):
        old = steps.get(event.step)
        if old is None:
            return steps
        new = msgspec.structs.replace(old, orders={**old.orders, event.player: dict(event.orders)})
        return {**steps, event.step: new}
    return steps
