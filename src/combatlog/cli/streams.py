"""``new``, ``list``, ``fork``, ``note``: combats as streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from combatlog.cli.common import (
    app_state, at_option, complete_ruleset, echo, json_option, print_json, renamed, signer_for, stream_argument,
)
from combatlog.errors import InvalidCommand


def new(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="A short name for the combat (no spaces)."),
    ruleset: str = typer.Option(..., "--ruleset", "-r", autocompletion=complete_ruleset,
                                help="freeform, magic_realm (mr), classic_fantasy (cfi), osric, argad."),
    setup: Optional[Path] = typer.Option(None, "--setup", help="JSON file with the ruleset's set-up (combatants, options)."),
    dice: str = typer.Option("local", "--dice", help="Default dice scheme: manual, local, referee (commits a seed now) or joint."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help="A rules option (repeatable)."),
    player: list[str] = typer.Option([], "--player", help="A player whose public key is pinned in the genesis (repeatable)."),
    referee: str = typer.Option("", "--referee", help="The player who makes the rulings (damage no die decided, "
                                "conditions, the end...); a pinned player where players are pinned. OSRIC "
                                "defaults to the combat's creator."),
    as_json: bool = json_option(),
) -> None:
    """Start a new combat log.

    Example: combatlog new duel --ruleset freeform
    """
    from combatlog.wiring import create_combat

    setup_data: dict[str, object] = {}
    if setup is not None:
        from combatlog.commands.setup_file import read_setup

        setup_data = read_setup(setup)
    options: dict[str, str] = {}
    for item in option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InvalidCommand(f"--option {item!r}: expected KEY=VALUE")
        options[key] = value
    if referee:
        options["referee"] = referee
    st = app_state(ctx)
    players = ()
    signer = None
    if player:
        from combatlog.trust.players import pin_players  # the trust layer

        players, signer = pin_players(player, st.actor)
    outcome = create_combat(st.store(), name, ruleset, actor=st.actor, setup=setup_data, dice=dice,
                            players=players, options=options, command_id=st.command_id, signer=signer)
    head = _chain_for_creator(ctx, outcome, ruleset, dice, bool(players)) or outcome.last_seq
    if st.run is not None:  # a line of run FILE: the lines after it must follow what it recorded
        st.run.noted(outcome.stream.id, outcome.duplicate, head)
    if as_json:
        out = {"id": outcome.stream.id, "name": outcome.stream.name, "ruleset": outcome.stream.ruleset,
               "duplicate": outcome.duplicate, "head_seq": head,
               "players": [{"name": p.name, "fingerprint": p.fingerprint} for p in players]}
        print_json(out)
        return
    verb = "already exists" if outcome.duplicate else "created"
    echo(f"{verb}: {outcome.stream.name} (id {outcome.stream.id}, ruleset {outcome.stream.ruleset}, dice {dice})")
    for p in players:
        echo(f"  player {p.name}: key {p.fingerprint}")
    if head != outcome.last_seq:
        echo(f"  #{head}: {st.actor} commits to a nonce chain for the joint dice (docs/trust.md, \"Nonce chains\")")


def _chain_for_creator(ctx: typer.Context, outcome: Any, ruleset: str, dice: str, pinned: bool) -> int:
    """Magic Realm commands carry the players' chain links (docs/trust.md, "Nonce chains"): the creator's
    chain goes with the genesis, the others' with their first command. The new head seq (0: none)."""
    if ruleset == "magic_realm" and dice == "joint" and pinned and not outcome.duplicate:
        from combatlog.cli.ride import ensure_chain

        return ensure_chain(ctx, outcome.stream.name, True)
    return 0


def list_streams(ctx: typer.Context, as_json: bool = json_option()) -> None:
    """List the combats in this log, with their ids, forks and heads.

    Example: combatlog list --json
    """
    from combatlog.cli.status import print_streams

    print_streams(app_state(ctx), as_json=as_json)


def fork(
    ctx: typer.Context,
    stream: str = stream_argument(),
    at: Optional[int] = at_option("Fork after this seq."),
    round_no: Optional[int] = typer.Option(None, "--round", help="Fork after the last event of this round."),
    new_name: Optional[str] = typer.Option(None, "--name", metavar="NEW",
                                           help="Name of the new combat (the what-if).  [required]"),
    reason: str = typer.Option("", "--reason", help="Why this fork exists."),
    as_json: bool = json_option(),
    old_new_name: Optional[str] = typer.Option(None, "--fork-as", hidden=True),  # `fork --as NEW`, cli/argv.py
) -> None:
    """Fork a combat at a point into a "what if" that chains to the parent's hash there.

    Example: combatlog fork duel --round 2 --name duel-whatif
    """
    new_name = renamed(new_name, old_new_name, "--name", "--as")
    if not new_name:
        raise InvalidCommand("give the new combat's name: --name NEW")
    from combatlog.commands.handler import resolve_stream
    from combatlog.wiring import fork_stream
    from combatlog.projections.fold import round_end, state_at

    st = app_state(ctx)
    store = st.store()
    if (at is None) == (round_no is None):
        raise InvalidCommand("give exactly one of --at SEQ or --round N")
    meta = resolve_stream(store, stream)
    seq = at if at is not None else round_end(state_at(store, meta), round_no)  # type: ignore[arg-type]
    outcome = fork_stream(store, meta.id, at_seq=seq, name=new_name, actor=st.actor, reason=reason,
                          command_id=st.command_id, signer=signer_for(st, meta))
    if as_json:
        print_json({"id": outcome.stream.id, "name": outcome.stream.name, "parent": meta.id, "fork_seq": seq})
        return
    echo(f"forked: {outcome.stream.name} (id {outcome.stream.id}) from {meta.name} after seq {seq}")


def note(
    ctx: typer.Context,
    stream: str = stream_argument(),
    text: str = typer.Argument(..., help="The note."),
    about: list[str] = typer.Option([], "--about", help="Who or what it concerns (repeatable)."),
    as_json: bool = json_option(),
) -> None:
    """Add a note to any combat (a ruling, a dispute, a table agreement).

    Example: combatlog note duel "Bo disputes the reach of the spear" --about Bo
    """
    from combatlog.cli.common import run_command
    from combatlog.commands.core import AddNote

    run_command(ctx, stream, AddNote(text=text, about=tuple(about)), as_json=as_json)


