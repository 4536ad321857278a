"""Whose move: what one player must decide now, with the command lines to paste (``status --mine``).

A ruleset that knows who plays what gives the moves itself (its ``my_moves`` hook, docs/trust.md "For
ruleset authors"); otherwise the player's moves are the ``pending`` entries that name him. Sealed steps
the ruleset does not describe (a freeform ``seal commit --step r1``) are added from the log.

The referee's steps (``pending`` names them ``gm``: rounds, initiative, random assignment...) belong
to the referee: ``gm`` when the combat pins nobody or pins a ``gm``; in a combat that pins players but no
``gm``, the player who created it, who runs them in every worked example (docs/trust.md, "Whose move").
"""

from __future__ import annotations

from typing import Any

from combatlog.errors import CombatlogError
from combatlog.projections.fold import Folded
from combatlog.store.base import EventStore, StreamMeta
from combatlog.trust.api import MyMove, command_line

REFEREE = "gm"
NO_PLAYER = " (no player)"  # ends ``Pending.who`` for a piece no player plays ("carl (no player)")


def referee_of(store: EventStore, meta: StreamMeta) -> str:
    """Who takes the referee's steps of ``meta``'s combat (see the module's docstring)."""
    from combatlog.events.envelope import decode_recorded
    from combatlog.projections.fold import lineage

    try:
        root = lineage(store, meta)[0][0]
    except CombatlogError:  # a broken stream table: no referee to guess
        return REFEREE
    rows = store.read_stream(root.id, 1, 1)
    if not rows:
        return REFEREE
    rec = decode_recorded(rows[0].body)
    named = getattr(rec.event, "options", {}).get("referee", "")
    if named:  # new --referee NAME (commands/authority.py)
        return named  # type: ignore[no-any-return]
    players = [p.name for p in getattr(rec.event, "players", ())]
    if not players or REFEREE in players:
        return REFEREE
    return rec.env.actor


def step_taker(who: str, referee: str) -> str:
    """How ``status`` and a mail name who takes a pending step: ``pending``'s ``gm`` with the player who takes
    the referee's steps here (``referee_of``), when that is someone else."""
    return f"{REFEREE} ({referee}: the referee's step)" if who == REFEREE and referee != REFEREE else who


def moves_unplayed(folded: Folded, player: str) -> bool:
    """Whether ``player`` may move the pieces no player plays: the referee's where the combat has one, any
    player's where it has none (commands/authority.py)."""
    from combatlog.commands.authority import roles_of

    roles = roles_of(folded.ruleset, folded.core.genesis, folded.core.creator)
    return roles.referee == player if roles.referee else True


def my_moves(store: EventStore, meta: StreamMeta, folded: Folded, player: str) -> tuple[bool, list[MyMove]]:
    """(whether ``player`` takes the referee's steps, what ``player`` must decide now)."""
    referee = player == referee_of(store, meta)
    ruleset, state = folded.ruleset, folded.state
    hook = getattr(ruleset, "my_moves", None)
    if hook is not None:
        moves = list(hook(state, player, meta.name, referee, unplayed=moves_unplayed(folded, player)))
    else:
        unplayed = moves_unplayed(folded, player)
        moves = [MyMove(what=p.what if p.who in (player, REFEREE) else f"{p.who}: {p.what}", rule=p.rule,
                        options=tuple(p.options))
                 for p in ruleset.pending(state) if p.who == player or (referee and p.who == REFEREE)
                 or _plays(ruleset, state, p.who, player, unplayed)]
    named = {m.step for m in moves}
    # A ruleset that gives the moves knows which contribution each player owes to a step seeded by chain
    # links (sealed orders, or a bare link): the log alone cannot tell, so it offers none of its own there.
    extra = [m for m in _sealed_steps(store, folded, meta.name, player, links=hook is None) if m.step not in named]
    return referee, moves + extra


def _plays(ruleset: Any, state: Any, piece: str, player: str, unplayed: bool) -> bool:
    """Whether ``player`` makes the decisions of ``piece`` (``Ruleset.players_of``: its players, or, for a piece no
    player plays, whoever may move such pieces)."""
    players = ruleset.players_of(state, piece)
    return players is not None and (player in players if players else unplayed)


def _sealed_steps(store: EventStore, folded: Folded, stream: str, player: str, links: bool = True) -> list[MyMove]:
    """Sealed steps waiting for ``player``'s commit or reveal, from the log (any ruleset)."""
    from combatlog.trust.sealed import scanned
    from combatlog.trust.track import RULE_SEAL

    out = []
    for info in scanned(store, folded.core).steps.values():
        if info.completed_at:
            continue
        if info.chained and player not in info.reveals and player not in info.commits:
            if not links:
                continue
            out.append(MyMove(what=f"contribute your next chain link to seed step {info.name} (one message: no "
                                   "commit and reveal)", rule=RULE_SEAL,
                              command=command_line("seal", "link", stream, "--step", info.name, actor=player),
                              step=info.name))
        elif player in info.missing_commits():
            out.append(MyMove(what=f"commit to step {info.name}: as it stands a nonce for the joint dice; your "
                                   "orders, if any, with --orders-json '{...}' (only their hash enters the log)",
                              rule=RULE_SEAL, command=command_line("seal", "commit", stream, "--step", info.name,
                                                                   actor=player), step=info.name))
        elif not info.missing_commits() and player in info.missing_reveals():
            out.append(MyMove(what=f"reveal what you sealed to step {info.name} (every required commit is in)",
                              rule=RULE_SEAL, command=command_line("seal", "reveal", stream, "--step", info.name,
                                                                   actor=player), step=info.name))
    return out


def out_of_the_fight(folded: Folded, player: str) -> str:
    """Why ``player`` has nothing more to decide in this fight (his characters are dead or gone), in the
    words every view uses ("" while he is in it, or when the ruleset cannot tell: its ``out_of_the_fight``)."""
    hook = getattr(folded.ruleset, "out_of_the_fight", None)
    how = hook(folded.state, player) if hook is not None else ""
    return f"{how}: out of this fight, you have nothing more to decide in it" if how else ""


def out_of_the_fight_all(store: EventStore, meta: StreamMeta, folded: Folded) -> dict[str, str]:
    """For ``status``: each pinned player out of the fight, with how ("bk is dead")."""
    from combatlog.trust.players import genesis_of

    hook = getattr(folded.ruleset, "out_of_the_fight", None)
    genesis = genesis_of(store, meta)
    if hook is None or genesis is None:
        return {}
    found = {p.name: hook(folded.state, p.name) for p in genesis.players}
    return {name: how for name, how in found.items() if how}


def unplayed_mover(folded: Folded) -> str:
    """Who moves the pieces no player plays: the combat's referee, "" where it has none (anyone may)."""
    from combatlog.commands.authority import roles_of

    return roles_of(folded.ruleset, folded.core.genesis, folded.core.creator).referee


def piece_taker(players: tuple[str, ...] | None, piece: str, mover: str) -> str:
    """How "waiting for" and the mail name who decides for ``piece`` (``Ruleset.players_of`` gave
    ``players``): its players with it ("bob (orc1)"); for a piece no player plays, the referee who moves it
    (``unplayed_mover``: "rita (orc1)"); else the piece alone."""
    if players:
        return f"{' or '.join(players)} ({piece})"
    return f"{mover} ({piece})" if players == () and mover else piece


def waiting_for(store: EventStore, meta: StreamMeta, folded: Folded, player: str) -> list[str]:
    """Who else the combat waits for (``pending``; the referee's steps under the referee's name, a piece's
    decision under its players' names, or its referee's where no player plays it)."""
    referee = referee_of(store, meta)
    ruleset, state = folded.ruleset, folded.state
    unplayed = moves_unplayed(folded, player)
    mover = unplayed_mover(folded)
    names = []
    for p in ruleset.pending(state):
        if p.who != REFEREE and _plays(ruleset, state, p.who, player, unplayed):
            continue  # his own piece's decision: his move (my_moves), not someone to wait for
        players = ruleset.players_of(state, p.who) if p.who != REFEREE else None
        names.append(referee if p.who == REFEREE else piece_taker(players, p.who, mover))
    if unplayed:  # pieces no player plays ("carl (no player)") are his to move too
        names = [n for n in names if not n.endswith(NO_PLAYER)]
    return list(dict.fromkeys(n for n in names if n != player and not n.startswith(f"{player} (")))


def moves_json(moves: list[MyMove], player: str) -> list[dict[str, Any]]:
    return [{"who": player, "what": m.what, "options": list(m.options), "rule": m.rule, "command": m.command}
            for m in moves]
