"""What ``combatlog status`` prints: who must decide what next (``--mine``: the actor's own moves); and
what ``combatlog list`` prints.

Without click or typer, so that the fast path (cli/fast.py) prints exactly what the typer commands
(cli/views.py ``status``, cli/streams.py ``list_streams``) print: both call ``print_status`` and
``print_streams``.
"""

from __future__ import annotations

import re
from typing import Any

from combatlog.cli.output import echo, echo_view, pending_json, print_json
from combatlog.cli.state import AppState, read_state_of
from combatlog.text import one_line


def print_status(st: AppState, stream: str, *, mine: bool, as_json: bool) -> None:
    from combatlog.exchange.held import held_for
    from combatlog.trust.after_merge import AfterMerge
    from combatlog.trust.mine import out_of_the_fight_all, takers, waiting_for
    from combatlog.trust.offers import Offered, legal_by_piece, proposes_moves
    from combatlog.wiring import deciding

    meta, folded = read_state_of(st, stream)
    store = st.store()
    # decisions a merge could neither keep nor place: still owed, or (the rules refuse them now) dropped
    owed = AfterMerge(store, meta).owed(folded.ruleset, folded)
    if mine:
        _status_mine(st, meta, folded, as_json, owed)
        return
    ruleset, state = folded.ruleset, folded.state
    pending = ruleset.pending(state)
    held = held_for(store, meta)  # bundles that arrived before their predecessor
    out = out_of_the_fight_all(store, meta, folded)
    # who takes each decision, named as status --mine and the mail name them (a piece with its players), and
    # the commands each can run now (with joint dice, none that needs a seed not there yet: its seed step first)
    named = takers(store, meta, folded, pending)
    offered = Offered(store, meta, folded, deciding())
    legal = legal_by_piece(store, meta, folded, wiring=deciding()) if proposes_moves(folded) else None
    entries = [_entry(p, players, meta, offered, legal) for p, (_name, players) in zip(pending, named)]
    if as_json:
        print_json({"stream": meta.name, "id": meta.id, "seq": folded.core.head_seq,
                    "round": ruleset.current_round(state), "event_round": ruleset.round_of(state),
                    "finished": ruleset.finished(state), "pending": entries, "held": held,
                    "waiting_for": waiting_for(store, meta, folded, ""),
                    "roles": roles_json(roles(folded)), "owed": [owed_json(o) for o in owed if o.owed],
                    "dropped": [owed_json(o) for o in owed if not o.owed], "out_of_the_fight": out})
        return
    where = "finished" if ruleset.finished(state) else f"round {ruleset.current_round(state)}"
    echo_view(f"{meta.name}: {where}, seq {folded.core.head_seq}")
    the_roles = roles(folded)
    if the_roles.enforced:
        echo_view("  " + the_roles.describe())
    if not pending:
        echo_view("  nothing pending")
    for p, (name, _players), entry in zip(pending, named, entries):
        opts = f"  [{' | '.join(p.options)}]" if p.options else ""
        rule = f"  ({p.rule})" if p.rule else ""
        what = re.sub(r"\bSTREAM\b", meta.name, p.what)  # a command a pending text names, for this combat
        echo_view(one_line(f"  {name}: {what}{opts}{rule}"))
        if legal is not None:
            _print_moves(entry["commands"], meta.name, (entry.get("players") or []) if the_roles.enforced else [])
        for w in entry["withheld"]:
            first = [c for c in entry["commands"] if _kind(c) in ("seal commit", "seal link", "seal reveal")]
            echo_view(one_line(f"    not yet: {_kind(w['command'])}: {w['waiting']}"
                               + (f"; first: {first[0]}" if first else "")))
    for o in owed:  # a dropped decision is said until its author has been told (trust/after_merge.py)
        if o.owed or not o.told:
            echo_view(one_line(f"  {o.player}: {o.line(None)}"))
    for name, how in out.items():  # once per player, not on every pending item
        echo_view(one_line(f"  {name}: out of the fight ({how}), nothing more to decide in it"))
    for h in held:
        echo_view(one_line(f"  held: bundle {h['events']} (from {h['source']}), waiting for {h['waiting_for']}"))


SHOWN = 3  # plain status lists this many moves under a decision; more are counted, with the command listing them


def _print_moves(commands: list[str], stream: str, players: list[str]) -> None:
    import shlex

    if len(commands) <= SHOWN:
        for c in commands:
            echo_view(one_line(f"    {c}"))
        return
    who = [("--as", players[0])] if len(players) == 1 and players[0] else []
    listing = shlex.join(["combatlog", "moves", stream, *(w for pair in who for w in pair)])
    echo_view(one_line(f"    {len(commands)} legal moves: {listing}"))


def _entry(p: Any, players: Any, meta: Any, offered: Any, legal: dict[str, list[Any]] | None) -> dict[str, Any]:
    """A pending decision as ``status --json`` gives it (``pending_json``), with the players who take it
    (``players``, also given). Where the ruleset lists its legal moves (``legal``), the command lines are exactly
    the legal moves that answer it (``trust.offers.answering``: the piece's, the procedure's steps and rulings
    for the referee's), and those whose joint dice wait for a seed step are ``withheld``, each with why; a
    ruleset that lists none names no command."""
    import shlex

    from combatlog.trust.offers import answering

    found, held = answering(p, players, legal) if legal is not None else ([], [])
    commands = [shlex.join(("combatlog", *m.argv)) for m in found]
    seed = offered.seed
    why = "its joint dice need a seed first" + (f" ({seed.why})" if seed is not None and seed.why else "") \
        if seed is None or not seed.open else f"seed step {seed.open} comes first, which waits for {seed.waits()}"
    withheld = [{"command": shlex.join(("combatlog", *m.argv)), "waiting": why} for m in held]
    entry = pending_json(p, commands)
    command = commands[0] if commands else None
    entry.update(players=list(players) if players is not None else None, command=command, commands=commands,
                 kind=_kind(command) if command else None, withheld=withheld)
    return entry


def _kind(command: str) -> str:
    return " ".join(command.split()[1:3])


def owed_json(o: Any) -> dict[str, Any]:
    """A decision a merge could neither keep nor place (``trust/after_merge.py``); a dropped one (``refused``:
    the rules refuse it now, so nobody owes it) says why."""
    out = {"player": o.player, "what": o.what, "was": o.was, "merge_at": o.merge_at}
    if o.refused:
        out["refused"] = o.refused
        out["told"] = o.told
    return out


def roles(folded: Any) -> Any:
    from combatlog.commands.authority import roles_of

    return roles_of(folded.ruleset, folded.core.genesis, folded.core.creator)


def roles_json(roles: Any) -> dict[str, Any]:
    return {"enforced": roles.enforced, "referee": roles.referee or None, "referee_named": roles.referee_named,
            "players": list(roles.players)}


def _status_mine(st: AppState, meta: Any, folded: Any, as_json: bool, owed: list[Any]) -> None:
    """``status --mine``: the actor's own moves (trust/mine.py), each with its command line; first the
    decisions of his a merge could neither keep nor place (``trust/after_merge.py``)."""
    from combatlog.trust.mine import moves_json, out_of_the_fight, waiting_for
    from combatlog.trust.offers import moves_of
    from combatlog.wiring import deciding

    ruleset, state = folded.ruleset, folded.state
    referee, moves = moves_of(st.store(), meta, folded, st.actor, wiring=deciding())
    others = waiting_for(st.store(), meta, folded, st.actor)
    out = out_of_the_fight(folded, st.actor) if not moves and not referee else ""
    mine = [o for o in owed if o.player == st.actor]
    # another who owes a decision is waited for as that, not as an ordinary pending move (not for one the rules
    # refuse now: it cannot be made again)
    owing = {o.player for o in owed if o.player != st.actor and o.owed}
    others += [name for name in sorted(owing) if name not in others]
    if as_json:
        print_json({"stream": meta.name, "id": meta.id, "seq": folded.core.head_seq,
                    "round": ruleset.current_round(state), "finished": ruleset.finished(state), "player": st.actor,
                    "referee": referee, "pending": moves_json(moves, st.actor), "waiting_for": others,
                    "out_of_the_fight": out, "owed": [owed_json(o) for o in mine if o.owed],
                    "dropped": [owed_json(o) for o in mine if not o.owed]})
        _told(st.store(), meta, mine)
        return
    where = "finished" if ruleset.finished(state) else f"round {ruleset.current_round(state)}"
    # "the referee" only for one the combat has (named, or the ruleset's by default): in a combat without one,
    # the player who runs the steps of the procedure (trust/mine.referee_of) is no referee
    named = roles(folded).referee == st.actor
    echo(f"{meta.name}: {where}, seq {folded.core.head_seq}; {st.actor}"
         + (" (the referee)" if named and st.actor != "gm" else " (runs the procedure's steps)" if referee
            and st.actor != "gm" else "") + " must decide:")
    for o in mine:  # a dropped one once: he is told why, then it is settled (trust/after_merge.py)
        if o.owed or not o.told:
            echo(one_line(f"  {o.line(st.actor)}"))
    _told(st.store(), meta, mine)
    waiting = [f"{name} (a decision the merge could not place)" if name in owing else name for name in others]
    owes = [o for o in mine if o.owed]
    if out and not owes:  # his characters are dead or gone: told so, not "waiting for" the others' moves
        echo(one_line(f"  nothing: {out}"))
    elif not moves and not owes:
        echo("  nothing now" + (f" (waiting for {', '.join(waiting)})" if waiting else ""))
    elif waiting and moves:  # his moves do not end the others' turn: say whom the combat also waits for
        echo(one_line(f"  (also waiting for {', '.join(waiting)})"))
    for m in moves:
        rule = f"  ({m.rule})" if m.rule else ""
        echo(one_line(f"  {m.what}{rule}"))
        echo(one_line(f"    {m.command}" if m.command else f"    not yet: {m.waiting}" if m.waiting
                      else "    (this ruleset gives no command line for it)"))
        if m.options:
            echo(one_line(f"    choices: {' | '.join(m.options)}"))


def _told(store: Any, meta: Any, owed: list[Any]) -> None:
    """The dropped decisions just shown to their author: told, so they are not repeated."""
    from combatlog.trust.after_merge import mark_told

    for o in owed:
        if not o.owed and not o.told:
            mark_told(store, meta.id, o.player, o.command_id)


def print_streams(st: AppState, *, as_json: bool) -> None:
    """The combats in the log, with their ids, forks and heads."""
    store = st.store()
    rows = []
    for meta in store.list_streams():
        head = store.head(meta.id)
        rows.append({"id": meta.id, "name": meta.name, "ruleset": meta.ruleset, "created_at": meta.created_at,
                     "parent": meta.parent, "fork_seq": meta.fork_seq or None, "head_seq": head.seq,
                     "head_hash": head.hash})
    if as_json:
        print_json(rows)
        return
    if not rows:
        echo("no combats yet (start one: combatlog new NAME --ruleset freeform)")
    names = {r["id"]: r["name"] for r in rows}
    for r in rows:
        fork = f"  fork of {names.get(r['parent'], r['parent'])}@{r['fork_seq']}" if r["parent"] else ""
        echo(f"{r['id']}  {r['name']:<20} {r['ruleset']:<16} {r['head_seq']:>6} events{fork}")
