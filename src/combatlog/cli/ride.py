"""What a command appends around the decision a player typed, so that joint dice cost no extra message
(docs/trust.md, "Nonce chains: joint dice without extra messages"): his nonce chain (once), his link to
the seed step ahead, his early empty plays, his release when nothing is left for him to decide.

Each is its own command, run after the player's own succeeded (a refused command appends nothing), and
printed like it. ``COMBATLOG_NONCE_CHAINS=off`` on a machine keeps its player off chains: the combat then
stays with commit and reveal for every seed step (a step is seeded by links only when every pinned player
has a chain).
"""

from __future__ import annotations

import os
from typing import Any

import typer

from combatlog.cli.common import app_state, print_outcome, signer_for

ENV = "COMBATLOG_NONCE_CHAINS"


def chains_wanted() -> bool:
    return os.environ.get(ENV, "on").strip().lower() not in ("off", "0", "no", "false")


def _now(ctx: typer.Context, stream: str) -> tuple[Any, Any, Any]:
    from combatlog.projections.fold import state_at
    from combatlog.projections.streams import resolve_stream
    from combatlog.trust.sealed import scanned

    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    folded = state_at(store, meta)
    return meta, folded, scanned(store, folded.core)


def extra(ctx: typer.Context, stream: str, command: Any, suffix: str, as_json: bool) -> Any:
    """Run one more command in this invocation (a derived command id when one was given, so a retry stays
    a retry)."""
    from combatlog.wiring import execute
    from combatlog.projections.streams import resolve_stream

    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    cid = f"{st.command_id}+{suffix}" if st.command_id else None
    outcome = execute(store, meta.id, command, actor=st.actor, command_id=cid, signer=signer_for(st, meta))
    if not as_json:
        print_outcome(outcome, False)
    return outcome


def ensure_chain(ctx: typer.Context, stream: str, as_json: bool = False) -> int:
    """Commit the actor's nonce chain if he has none yet (joint dice, pinned players, no seed step open,
    his key on this machine); the seq of the commit, 0 when none was due."""
    from combatlog.trust.commands import CommitChain
    from combatlog.trust.sealed import chain_due

    if not chains_wanted():
        return 0
    _meta, _folded, checker = _now(ctx, stream)
    if not chain_due(checker, app_state(ctx).actor):
        return 0
    return int(extra(ctx, stream, CommitChain(), "chain", as_json).last_seq)


def after_decision(ctx: typer.Context, stream: str, as_json: bool = False) -> None:
    """After a Magic Realm decision: the chain (once), the link that rides along (``sealed.ride_step``),
    the release when nothing is left to decide."""
    from combatlog.rulesets.magic_realm.sealed import release_due, ride_step
    from combatlog.trust.commands import ReleaseChain, RevealLink
    from combatlog.trust.sealed import link_problem

    ensure_chain(ctx, stream, as_json)
    actor = app_state(ctx).actor
    _meta, folded, checker = _now(ctx, stream)
    state = folded.state
    step = ride_step(state, actor)
    if step and not link_problem(checker, actor, step):
        extra(ctx, stream, RevealLink(step=step), "link", as_json)
        _meta, folded, checker = _now(ctx, stream)
        state = folded.state
    if release_due(state, actor) and actor in checker.chains and not checker.chains[actor].secret \
            and not checker.release_problem(actor):
        extra(ctx, stream, ReleaseChain(), "release", as_json)


def before_referee(ctx: typer.Context, stream: str, command: Any, as_json: bool = False) -> None:
    """Before a step that draws joint dice: the actor's own contribution when it is the last one missing
    (his link, or the reveal of his empty plays: ``sealed.contributed_first``, which the legal moves probe
    too), so the step completes in the same bundle. Nothing is revealed for a ``command`` the rules refuse
    whatever he contributes (not its step, or a player still to decide): the refusal comes first, as for any
    command, and records nothing."""
    from combatlog.rulesets.magic_realm.decide import referee_step_due
    from combatlog.rulesets.magic_realm.sealed import contributed_first
    from combatlog.trust.commands import RevealLink
    from combatlog.trust.sealed import link_problem

    _meta, folded, checker = _now(ctx, stream)
    referee_step_due(folded.state, command)
    if ensure_chain(ctx, stream, as_json):  # his chain's commit went first: the state moved on
        _meta, folded, checker = _now(ctx, stream)
    actor = app_state(ctx).actor
    for first in contributed_first(folded.state, command, actor):
        if isinstance(first, RevealLink) and link_problem(checker, actor, first.step):
            continue
        extra(ctx, stream, first, "link" if isinstance(first, RevealLink) else "reveal", as_json)


def after_referee(ctx: typer.Context, stream: str, as_json: bool = False) -> None:
    """After the Attention chits: a player with no character in the Melee Step commits his empty plays now."""
    from combatlog.rulesets.magic_realm.sealed import early_plays_due
    from combatlog.trust.commands import CommitOrders

    actor = app_state(ctx).actor
    _meta, folded, _checker = _now(ctx, stream)
    step = early_plays_due(folded.state, actor)
    if step:
        extra(ctx, stream, CommitOrders(step=step, orders={"plays": {}}), "plays", as_json)
