"""Everything a player may do now: the rules' legal moves (commands/legal.py) and the steps the trust layer
asks of him (a seed step before joint dice, a sealed step to reveal), each as a command line that runs.

A move whose joint dice cannot be drawn yet is not offered: the seed step it needs is, to every pinned player
(each owes a part of it). ``combatlog moves``, ``status`` and the mail stand on this list.
"""

from __future__ import annotations

import shlex
from typing import Any

from combatlog.commands.legal import Move, _moves
from combatlog.ports import Wiring
from combatlog.projections.fold import Folded
from combatlog.store.base import EventStore, StreamMeta
from combatlog.trust.api import MyMove
from combatlog.trust.mine import (
    NO_PLAYER, REFEREE, _plays, _sealed_steps, fresh_seed_move, moves_unplayed, pending_moves, referee_of, seed_now,
    seed_step_base,
)

# More moves than this for one piece are not listed in status and the mail: a count and ``combatlog moves``
SHOWN_PER_PIECE = 6
RULINGS = "(rulings)"  # the group of a player's rulings (damage, conditions...), apart from the procedure's steps


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
    # ... but not the fresh seed step a choice waits for (rulesets/foresight.py): that one is the log's
    if getattr(getattr(folded.state, "foresight", None), "deferred", None) is not None:
        own_seals = False
    genesis = folded.core.genesis
    pinned = [p.name for p in genesis.players] if genesis is not None else []
    for person in ([player] if player else pinned):
        # the sealed steps the log has open for him; a ruleset that seals orders proposes its own steps' moves
        # (named ``r<N>/<phase>``: ``r2/declare``, ``r1/plays``), and the log's seed steps (``surprise``, ``r2``) stay here
        steps += [Move(player=person, argv=_argv(m.command), text=m.what, step=True, kind="step", group=f"seal:{m.step}")
                  for m in _sealed_steps(store, folded, meta.name, person)
                  if m.command and not (own_seals and "/" in m.step)]
        # a fresh seed step for one who can do nothing else now: his legal moves all wait for joint dice
        # a fresh seed step for one whose piece's move (or, for the procedure's runner, step) waits for joint
        # dice (a ruling that rolls does not call for one), or who can do nothing else now
        own_waiting = [m for m in waiting if m.player in (person, "")]
        own_ready = any(m.player in (person, "") for m in ready)
        wanted = any(m.kind == "move" or (m.kind == "step" and person == referee) for m in own_waiting) \
            or (own_waiting and not own_ready)
        if seed is not None and person in seed.players and wanted and not seed.usable \
                and not seed.open and not (seed.chained and person in seed.released):
            # named after the first part of the labels of the dice it is for (``r2``, ``t3``, ``surprise``), as the
            # refusal of such a die names it; else the ruleset's own step name
            first = next((m.dice[0] for m in own_waiting if m.dice and m.kind != "ruling"), "")
            base = first.partition("/")[0] if "/" in first else seed_step_base(folded.ruleset, folded.state)
            name = seed.fresh(base)
            m = fresh_seed_move(seed, name, meta.name, person)
            steps.append(Move(player=person, argv=_argv(m.command), text=m.what, step=True, kind="step", group=f"seal:{name}"))
    return steps + ready, waiting


def proposes_moves(folded: Folded) -> bool:
    """Whether the combat's ruleset lists its legal moves (``Ruleset.candidates``) for ``status`` and the mail."""
    from combatlog.rulesets.base import Ruleset

    return type(folded.ruleset).candidates is not Ruleset.candidates


def legal_by_piece(store: EventStore, meta: StreamMeta, folded: Folded, *, wiring: Wiring) -> dict[str, list[Move]]:
    """Every decider's moves now (``offered_moves``), by the piece they move ("" for a step of the procedure or a
    ruling); under ``waiting:PIECE`` the legal ones whose joint dice wait for a seed step."""
    by: dict[str, list[Move]] = {}
    ready, waiting = offered_moves(store, meta, folded, wiring=wiring)
    for m in ready:
        by.setdefault(m.piece, []).append(m)
    for m in waiting:
        by.setdefault(f"waiting:{m.piece}", []).append(m)
    return by


def answering(p: Any, players: tuple[str, ...] | None, legal: dict[str, list[Move]]) -> tuple[list[Move], list[Move]]:
    """(the moves that answer the pending decision ``p``, the legal ones of them waiting for a seed step): the
    moves of the piece it is for, made by ``players`` (who take it; None where nobody can tell), or the
    procedure's steps and rulings for the referee's; for a decision a player owes by name (a side's
    declarations), his pieces' moves; for one named after a player and his character ("bob (amazon)") or after
    a piece no player plays ("carl (no player)") in a combat that does not say who plays what, the piece's."""
    piece = "" if p.who == REFEREE else p.who
    found = legal.get(piece)
    if found is None and not players and piece.endswith(")") and " (" in piece:
        piece = piece[:-len(NO_PLAYER)] if piece.endswith(NO_PLAYER) else piece[piece.index(" (") + 2:-1]
        found = legal.get(piece)
    if found is not None and players:  # the moves of those who take it (the referee's own seed step, not bob's)
        found = [m for m in found if not m.player or m.player in players]
    if found is None and players:  # a decision a player owes by name (a side's declarations): his pieces' moves
        found = [m for ms in legal.values() for m in ms if m.player in players and m.kind == "move"]
    held = [m for m in legal.get(f"waiting:{piece}", ()) if m.kind != "ruling"
            and (not players or not m.player or m.player in players)]
    return list(found or ()), held


def moves_of(store: EventStore, meta: StreamMeta, folded: Folded, player: str, *,
             wiring: Wiring) -> tuple[bool, list[MyMove]]:
    """(whether ``player`` takes the referee's steps, what he may do now) for ``status --mine`` and the mail:
    his legal moves grouped by the piece they move (the procedure's steps and rulings together, a sealed step
    on its own), each group under what ``pending`` says is owed there; a group of more than ``SHOWN_PER_PIECE``
    moves is given as its count and the ``combatlog moves`` line that lists them. What ``pending`` says he owes
    and no listed move answers (a move with free words, such as a freeform join) is said without a command. For
    a ruleset that lists no moves: what ``pending`` says he owes, without commands (``trust.mine.pending_moves``)."""
    if not proposes_moves(folded):
        return pending_moves(store, meta, folded, player)
    ruleset, state = folded.ruleset, folded.state
    referee = player == referee_of(store, meta)
    ready, waiting = offered_moves(store, meta, folded, wiring=wiring, player=player)
    pending = ruleset.pending(state) if state is not None else []
    unplayed = moves_unplayed(folded, player)
    groups: dict[str, list[Move]] = {}
    from combatlog.rulesets.foresight import Resolve

    for m in ready:
        # (a held-back choice's resolve is everyone's: whoever completes its seed step runs it in the same bundle)
        if m.step and not referee and not m.group.startswith("seal:") and not isinstance(m.command, Resolve):
            continue  # a step of the procedure anyone may take is its runner's to owe (``combatlog moves`` lists it)
        key = m.piece or (m.group if m.group.startswith("seal:") else RULINGS if m.kind == "ruling" else REFEREE)
        groups.setdefault(key, []).append(m)
    def answers(key: str) -> bool:
        """Whether the group's moves answer what ``pending`` says is owed there: a piece's do; the referee's only
        through a step of the procedure (a ruling alone, such as ending the combat, does not start a round)."""
        return key != REFEREE or any(m.step for m in groups[key])

    out: list[MyMove] = []
    for key, items in groups.items():
        # the referee's pending step names his group; another player's share of it is rulings anyone may make
        owed = next((p for p in pending if p.who == key and (key != REFEREE or (referee and answers(key)))), None)
        lines = [shlex.join(("combatlog", *m.argv)) for m in items]
        rule = owed.rule if owed is not None else ""
        step = key.partition(":")[2] if key.startswith("seal:") else ""
        named = "" if key in (REFEREE, RULINGS) or step else f"{key}: "
        if len(items) == 1:
            what = (f"{named}{owed.what}: {items[0].text}" if named else owed.what) if owed is not None else \
                f"a ruling you may make: {items[0].text}" if key == RULINGS else items[0].text
            out.append(MyMove(what=what, rule=rule, command=lines[0], step=step))
            continue
        what = f"{named}{owed.what}" if owed is not None else f"{named}one of {len(items)} moves" if named else \
            "rulings you may make" if key == RULINGS else "the procedure's steps"
        if len(items) <= SHOWN_PER_PIECE:
            out.append(MyMove(what=what, rule=rule, command=lines[0], options=tuple(lines[1:]), step=step))
        else:
            listing = ("combatlog", "moves", meta.name, *(("--as", player) if player else ()))
            out.append(MyMove(what=f"{what} ({len(items)} legal moves)", rule=rule, command=shlex.join(listing)))
    seed = seed_now(store, folded)
    held: dict[str, list[Move]] = {}
    for m in waiting:  # legal, but their joint dice wait for a seed step: said, with what they wait for
        if m.kind != "ruling" and (referee or not m.step):
            held.setdefault(m.piece or REFEREE, []).append(m)
    for key, items in held.items():
        why = (f"its joint dice wait for seed step {seed.open}, which waits for {seed.waits(player)}"
               if seed is not None and seed.open else "its joint dice need a seed step first (above)")
        texts = sorted({m.text for m in items})
        what = texts[0] if len(texts) == 1 else f"{texts[0]} (or {len(texts) - 1} more like it)"
        out.append(MyMove(what=what, waiting=why))
    for p in pending:  # owed by him, and no move listed for it
        key = p.who
        if (key in groups and answers(key)) or not (key == player or (referee and key == REFEREE)
                                 or _plays(ruleset, state, key, player, unplayed)):
            continue
        # nothing legal answers it now: with a seed step open, what it waits for (one seed step at a time)
        why = f"once seed step {seed.open} is complete (one seed step at a time), which waits for " \
              f"{seed.waits(player)}" if seed is not None and seed.open else ""
        out.append(MyMove(what=p.what if key in (player, REFEREE) else f"{key}: {p.what}", rule=p.rule, waiting=why))
    return referee, out


class Offered:
    """Where joint dice stand for what ``status`` offers (``seed_now``): whether any legal move is withheld now
    for want of a seed (cli/status.py says why beside each)."""

    def __init__(self, store: EventStore, meta: StreamMeta, folded: Folded, wiring: Wiring) -> None:
        self.store, self.meta, self.folded, self.wiring = store, meta, folded, wiring
        self.seed = seed_now(store, folded)

    @property
    def withholds(self) -> bool:
        """Whether any command may be withheld now."""
        return self.seed is not None and (not self.seed.usable or bool(self.seed.open))
