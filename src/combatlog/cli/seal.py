"""``combatlog seal ...``: sealed orders (commit, then reveal), decision points, status."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from combatlog.cli.common import (
    app_state, echo, json_option, outcome_json, print_json, print_outcome, read_state, run_command, stream_argument,
)
from combatlog.errors import InvalidCommand, NotFound

app = typer.Typer(help="Sealed orders: commit (only a hash enters the log), then reveal once everyone has "
                       "committed. Their nonces seed the joint dice.", no_args_is_help=True)


def _read_orders(orders: Optional[str], orders_json: Optional[str]) -> dict[str, Any]:
    import msgspec

    if orders and orders_json:
        raise InvalidCommand("give --orders FILE or --orders-json TEXT, not both")
    if orders:
        try:
            raw = sys.stdin.buffer.read() if orders == "-" else Path(orders).read_bytes()
        except OSError as exc:
            raise NotFound(f"cannot read {orders}: {exc.strerror}") from None
    elif orders_json:
        raw = orders_json.encode()
    else:
        return {}
    from combatlog.events.canonical import depth_problem

    deep = depth_problem(raw)
    if deep:
        raise InvalidCommand(f"the orders are {deep}")
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise InvalidCommand(f"the orders are not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidCommand("the orders must be a JSON object, e.g. {\"attack\": \"thrust\"}")
    return value


def anyway_option() -> Any:
    return typer.Option(False, "--anyway", help="Seal even what the rules would cancel at the reveal (the check "
                                                "names it and its rule): a deliberate choice.")


@app.command("commit")
def commit(
    ctx: typer.Context,
    stream: str = stream_argument(),
    step: str = typer.Option(..., "--step", help="The step these orders are for, e.g. r1 or r3/melee."),
    orders: Optional[str] = typer.Option(None, "--orders", help="A JSON file with the orders (- for stdin); "
                                                                 "none: an empty order, just a dice nonce."),
    orders_json: Optional[str] = typer.Option(None, "--orders-json", help="The orders as JSON text."),
    require: list[str] = typer.Option([], "--require", help="Who must commit to this step (repeatable; "
                                                            "default: every pinned player)."),
    anyway: bool = anyway_option(),
    as_json: bool = json_option(),
) -> None:
    """Seal your orders for a step: the log gets a hash; orders and nonce stay on this machine.

    The ruleset checks them first, as the reveal will: orders it would cancel are refused, with the rule,
    unless --anyway.

    Example: combatlog seal commit duel --step r1 --orders my-orders.json --as alice
    """
    seal_orders(ctx, stream, step, _read_orders(orders, orders_json), required=tuple(require), anyway=anyway,
                as_json=as_json)


def seal_orders(ctx: typer.Context, stream: str, step: str, orders: dict[str, Any], *, required: tuple[str, ...] = (),
                anyway: bool = False, as_json: bool = False) -> None:
    """Commit ``orders`` to ``step`` (``seal commit``, ``mr play --seal``, ``osric declare --seal``). The
    ruleset's check refuses what the reveal would cancel; with ``anyway`` it is sealed and the output
    says what the reveal will do with it."""
    from combatlog.trust.commands import CommitOrders

    warning = None
    if anyway:
        from combatlog.trust.sealed import foreseen

        _meta, folded = read_state(ctx, stream)
        warning = foreseen(folded, step, app_state(ctx).actor, orders)
    outcome = run_command(ctx, stream, CommitOrders(step=step, orders=orders, required=required, anyway=anyway),
                          as_json=as_json, quiet=True)
    if as_json:
        print_json({**outcome_json(outcome), "sealed_anyway": None if warning is None else {
            "message": warning.message, "rule": warning.rule,
            "problems": [{"text": text, "rule": rule} for text, rule in warning.problems]}})
        return
    print_outcome(outcome, False)
    if warning is not None and not outcome.duplicate:
        echo(f"    !! sealed anyway, as you chose: {warning.message}; the reveal applies the rules to it")


@app.command("reveal")
def reveal(
    ctx: typer.Context,
    stream: str = stream_argument(),
    step: str = typer.Option("", "--step", help="The step to reveal (default: the only one awaiting you)."),
    as_json: bool = json_option(),
) -> None:
    """Reveal the orders you sealed, once every required player has committed.

    Example: combatlog seal reveal duel --step r1 --as alice
    """
    from combatlog.trust.commands import RevealOrders

    run_command(ctx, stream, RevealOrders(step=step), as_json=as_json)


@app.command("chain")
def chain(
    ctx: typer.Context,
    stream: str = stream_argument(),
    length: int = typer.Option(0, "--length", help="Links in the chain (default 4096: one per seed step)."),
    as_json: bool = json_option(),
) -> None:
    """Commit to a nonce chain: then each seed step takes one message of yours (a link), not two.

    The chain's secret stays in this log's local secrets; only its head enters the log. Once every
    pinned player has a chain, seed steps are seeded by links (docs/trust.md, "Nonce chains"). Magic
    Realm commands do this by themselves. Refused between the steps of a seed and once every other
    player's chain is released.

    Example: combatlog seal chain cave --as bob
    """
    from combatlog.trust.commands import CommitChain

    run_command(ctx, stream, CommitChain(length=length), as_json=as_json)


@app.command("link")
def link(
    ctx: typer.Context,
    stream: str = stream_argument(),
    step: str = typer.Option(..., "--step", help="The seed step, e.g. r2 or r3/assign."),
    as_json: bool = json_option(),
) -> None:
    """Contribute your next chain link to a seed step (instead of seal commit, then seal reveal).

    Example: combatlog seal link duel --step r2 --as alice
    """
    from combatlog.trust.commands import RevealLink

    run_command(ctx, stream, RevealLink(step=step), as_json=as_json)


@app.command("release")
def release(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Publish your chain's secret when you have nothing left to decide: your links then contribute to
    every later seed step by themselves, and nobody waits for you. Refused unless another player holds
    an unreleased chain (a player with no chain is no secret holder).

    Example: combatlog seal release cave --as alice
    """
    from combatlog.trust.commands import ReleaseChain

    run_command(ctx, stream, ReleaseChain(), as_json=as_json)


@app.command("decision")
def decision(
    ctx: typer.Context,
    stream: str = stream_argument(),
    what: str = typer.Argument(..., help="What was chosen, in words."),
    player: str = typer.Option("", "--player", help="Who chose (default: the actor)."),
    as_json: bool = json_option(),
) -> None:
    """Mark a decision point: a choice made after the joint dice seed was known.

    Strict mode then needs a fresh commit-reveal before the next joint die; friendly mode flags later dice.

    Example: combatlog seal decision duel "Bo presses the attack" --as bob
    """
    from combatlog.trust.commands import MarkDecision

    run_command(ctx, stream, MarkDecision(what=what, player=player), as_json=as_json)


@app.command("status")
def status(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Sealed steps (who committed, who revealed), the joint seed and acknowledgements.

    Example: combatlog seal status duel
    """
    from combatlog.commands.handler import resolve_stream
    from combatlog.projections.fold import state_at
    from combatlog.trust.sealed import status as seal_status

    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    data = seal_status(store, state_at(store, meta))
    if as_json:
        print_json(data)
        return
    for name, fp in data["players"].items():
        echo(f"player {name}: {fp}")
    echo(f"joint dice: {data['joint_dice_mode']} mode; "
         + (f"seed from step {data['joint_seed']['step']} (seq {data['joint_seed']['seq']})"
            if data["joint_seed"] else "no seed yet"))
    for s in data["steps"]:
        if s["completed_at"]:
            state = f"complete at #{s['completed_at']}"
        elif s.get("chained"):
            state = f"seeded by links, waiting for {', '.join(s['waiting_reveals'])}"
        elif s["waiting_commits"]:
            state = f"waiting for commits from {', '.join(s['waiting_commits'])}"
        else:
            state = f"waiting for reveals from {', '.join(s['waiting_reveals'])}"
        echo(f"step {s['step']}: {state}")
    for name, c in data["chains"].items():
        echo(f"{name}'s nonce chain: committed at #{c['committed_at']}, {c['used']} of {c['length']} links used"
             + (f", released at #{c['released_at']}" if c["released_at"] else ""))
    for name, seq in data["acknowledged"].items():
        tail = "" if seq >= data["head_seq"] else f" (not #{seq + 1}-#{data['head_seq']})"
        echo(f"{name} has signed or acknowledged up to #{seq}{tail}")


@app.command("show")
def show(
    ctx: typer.Context,
    stream: str = stream_argument(),
    step: str = typer.Option("", "--step", help="Only this step (default: every step you sealed)."),
    as_json: bool = json_option(),
) -> None:
    """Your own sealed orders, as this machine keeps them (before the reveal only you can read them).

    Shows only what the actor (--as) committed, from this log's local secrets; never another player's
    orders. In a combat with pinned players the actor's secret key must be on this machine.

    Example: combatlog seal show cave --as alice
    """
    import msgspec

    from combatlog.events.core import OrdersRevealed
    from combatlog.projections.streams import resolve_stream
    from combatlog.projections.fold import state_at
    from combatlog.trust.players import signer_for_stream
    from combatlog.trust.sealed import sealed_by

    st = app_state(ctx)
    store = st.store()
    meta = resolve_stream(store, stream)
    signer_for_stream(store, meta, st.actor)  # refuses an actor whose secret key is not held here
    folded = state_at(store, meta)
    rows = sealed_by(store, folded, st.actor, step)
    if as_json:
        print_json({"stream": meta.name, "player": st.actor, "sealed": rows})
        return
    if not rows:
        echo(f"{st.actor} has sealed nothing in {meta.name}" + (f" for step {step}" if step else ""))
    ruleset = folded.ruleset
    for r in rows:
        state = (f"revealed at #{r['revealed_at']}" if r["revealed_at"] else
                 "not revealed yet: only its hash is in the log")
        echo(f"step {r['step']}: sealed by {r['player']} at #{r['committed_at']}, {state}")
        if not r["held"]:
            echo("  the orders are not in this log's secrets (sealed from another database)")
            continue
        if not r["matches"]:
            echo("  the orders kept here do not match the commitment (the secrets were altered): they cannot be "
                 "revealed")
            continue
        echo(f"  orders: {msgspec.json.encode(r['orders']).decode()}")
        words = ruleset.summarize(OrdersRevealed(step=r["step"], player=r["player"], orders=r["orders"], nonce=""))
        if r["orders"] and ": " in words and "{" not in words:
            echo(f"  in words: {words.split(': ', 1)[1]}")
