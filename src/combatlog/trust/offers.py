"""Everything a player may do now: the rules' legal moves (commands/legal.py) and the steps the trust layer
asks of him (a seed step before joint dice, a sealed step to reveal), each as a command line that runs.

A move whose joint dice cannot be drawn yet is not offered: the seed step it needs is, to every pinned player
(each owes a part of it). ``combatlog moves``, ``status`` and the mail stand on this list.
"""

from __future__ import annotations

import shlex

from combatlog.commands.legal import Move, _moves
from combatlog.ports import Wiring
from combatlog.projections.fold import Folded
from combatlog.store.base import EventStore, StreamMeta
from combatlog.trust.mine import _sealed_steps, fresh_seed_move, referee_of, seed_now, seed_step_base


def _argv(command_line: str) -> tuple[str, ...]:
    return tuple(shlex.split(command_line)[1:])  # without the leading "combatlog"


def offered_moves(store: EventStore, meta: StreamMeta, folded: Folded, *, wiring: Wiring,
                  player: str | None = None) -> tuple[list[Move], list[Move]]:
    """(the moves that run now, the legal moves waiting for a seed step) for ``player``, or every decider."""
    referee = referee_of(store, meta)
    ready, waiting = _moves(store, folded, meta.name, wiring=wiring, player=player, referee=referee)
    if folded.state is None or folded.ruleset.finished(folded.state):
        return [], []
    steps: list[Move] = []
    seed = seed_now(store, folded)
    own_seals = getattr(folded.ruleset, "seals_orders", False)  # its candidates propose its sealed steps
    genesis = folded.core.genesis
    pinned = [p.name for p in genesis.players] if genesis is not None else []
    for person in ([player] if player else pinned):
        if not own_seals:
            steps += [Move(player=person, argv=_argv(m.command), text=m.what, step=True, group=f"seal:{m.step}")
                      for m in _sealed_steps(store, folded, meta.name, person) if m.command]
        if seed is not None and person in seed.players and waiting and not seed.usable and not seed.open \
                and not (seed.chained and person in seed.released):
            name = seed.fresh(seed_step_base(folded.ruleset, folded.state))
            m = fresh_seed_move(seed, name, meta.name, person)
            steps.append(Move(player=person, argv=_argv(m.command), text=m.what, step=True, group=f"seal:{name}"))
    return steps + ready, waiting
