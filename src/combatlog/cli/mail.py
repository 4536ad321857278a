"""``combatlog mail``: a message for one player, with the bundle they lack armoured inside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from combatlog.cli.common import app_state, note, print_json, refuse_blank, stream_argument


def command(
    ctx: typer.Context,
    stream: str = stream_argument(),
    for_player: str = typer.Option(..., "--for", metavar="PLAYER", help="The player the message is for."),
    fmt: str = typer.Option("text", "--format", help="text (an email body), markdown or bbcode (forum posts)."),
    since: Optional[int] = typer.Option(None, "--since", help="Tell and send the events after this seq instead of "
                                                              "after the player's last acknowledgement."),
    output: str = typer.Option("-", "-o", "--output", metavar="FILE",
                               help="The file to write; - (the default) for standard output."),
    as_json: bool = typer.Option(False, "--json", help="Print the message as JSON (its sections, your decisions "
                                                       "with their commands, the armoured bundle and the body); "
                                                       "with -o FILE the body still goes to FILE."),
) -> None:
    """Write an email or forum message for a player: what happened since they last acknowledged (rules
    cited, dice shown), their side now, what they must decide with the command to type, and the bundle
    they lack as an armoured block that `combatlog import` reads back from the message. In a combat
    that pins no players, nobody acknowledges: give --since.

    Example: combatlog mail duel --for bob -o to-bob.txt
    """
    from combatlog.cli.exchange import _to_stdout, _write_whole, since_for_player
    from combatlog.exchange.mail import FORMATS, mail_body, mail_json
    from combatlog.errors import InvalidCommand
    from combatlog.projections.streams import resolve_stream

    refuse_blank(for_player, "--for", "the player the message is for", required=True)
    if fmt not in FORMATS:
        raise InvalidCommand(f"--format {fmt!r}: choose {', '.join(FORMATS)}")
    store = app_state(ctx).store()
    meta = resolve_stream(store, stream)
    given = since is not None
    if since is None:
        since = since_for_player(store, meta, for_player)
    mine, extra, out = _moves_of(store, meta, for_player)
    told: list[Any] = []  # the dropped decisions the message tells him of: marked told once it is written
    args: dict[str, Any] = dict(since=since, fmt=fmt, extra=extra, mine=mine, known=_known_command(ctx),
                                acknowledged=not given, out=out, told=told)
    if as_json:
        message = mail_json(store, meta, for_player, **args)
        text = str(message["body"])
    else:
        text = mail_body(store, meta, for_player, **args)
    data = text.encode("utf-8")
    if as_json:
        if output != "-":
            _write_whole(Path(output), lambda path: path.write_bytes(data))
        print_json(message)
    elif output == "-":
        _to_stdout(lambda: (data, 0))
    else:
        _write_whole(Path(output), lambda path: path.write_bytes(data))
        note(f"wrote a message for {for_player} to {output}: events after #{since} of {meta.name}")
    from combatlog.trust.after_merge import mark_told

    for o in told:
        mark_told(store, meta.id, o.player, o.command_id)


def _moves_of(store: Any, meta: Any, player: str) -> tuple[list[Any] | None, list[Any], str]:
    """What the player must decide now, as ``status --mine`` gives it (complete command lines), and the
    acknowledgement they owe, where the ruleset knows who plays what (it lists its legal moves, or gives
    ``players_of``) and players are pinned. Otherwise: the ruleset's own pending entries (None) and the trust
    layer's sealed steps.
    Last, why he has nothing more to decide in this fight, as ``status --mine`` says it ("" unless so)."""
    from combatlog.exchange.mail import Todo
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.base import Ruleset
    from combatlog.trust.players import genesis_of

    genesis = genesis_of(store, meta)
    todos = _trust_todos(store, meta, player)
    folded = state_at(store, meta)
    ruleset = type(folded.ruleset)
    knows = ruleset.players_of is not Ruleset.players_of or ruleset.candidates is not Ruleset.candidates
    if genesis is None or not genesis.players or not knows:
        return None, todos, ""  # the ruleset does not know who plays what: its own pending entries say it
    from combatlog.trust.mine import out_of_the_fight
    from combatlog.trust.offers import moves_of
    from combatlog.wiring import deciding

    referee, moves = moves_of(store, meta, folded, player, wiring=deciding())
    # options that are command lines (the legal moves of one decision) are given as commands, each runnable
    lines = [tuple(o for o in m.options if o.startswith("combatlog ")) for m in moves]
    mine = [Todo(player, m.what + (f" (not yet: {m.waiting})" if m.waiting else ""), m.rule,
                 tuple(o for o in m.options if o not in alts), ([m.command] if m.command else []) + list(alts),
                 yours=True) for m, alts in zip(moves, lines)]
    out = out_of_the_fight(folded, player) if not moves and not referee else ""
    return mine, [t for t in todos if "countersign" in t.what], out


def _trust_todos(store: Any, meta: Any, player: str) -> list[Any]:
    """What the trust layer knows the player owes: sealed steps to commit or reveal, an acknowledgement."""
    import shlex

    from combatlog.exchange.mail import Todo
    from combatlog.projections.fold import state_at
    from combatlog.trust.sealed import status

    folded = state_at(store, meta)
    data = status(store, folded)
    pending_text = " ".join(p.what for p in folded.ruleset.pending(folded.state))
    combat, who = shlex.quote(meta.name), shlex.quote(player)
    out = []
    for step in data["steps"]:
        if step["step"] in pending_text:
            continue  # the ruleset asks for it in its own words (and commands)
        name = shlex.quote(step["step"])
        if player in step["waiting_commits"]:
            out.append(Todo(player, f"commit to sealed step {step['step']}", "trust: sealed orders",
                            commands=[f"combatlog seal commit {combat} --step {name} --as {who}"], yours=True))
        elif player in step["waiting_reveals"]:
            out.append(Todo(player, f"reveal sealed step {step['step']}", "trust: sealed orders",
                            commands=[f"combatlog seal reveal {combat} --step {name} --as {who}"], yours=True))
    if data["acknowledged"].get(player, data["head_seq"]) < data["head_seq"]:
        out.append(Todo(player, f"once imported, countersign up to #{data['head_seq']}", "trust: acknowledgement",
                        commands=[f"combatlog ack {combat} --as {who}"], yours=True))
    return out


def _known_command(ctx: typer.Context) -> Any:
    """Whether ``combatlog GROUP SUB ...`` names a real command of this CLI."""
    root = ctx.find_root().command

    def known(line: str) -> bool:
        words = line.split()[1:3]
        group = root.get_command(ctx.find_root(), words[0]) if words else None  # type: ignore[attr-defined]
        if group is None or len(words) < 2:
            return group is not None
        commands = getattr(group, "commands", None)
        return commands is None or words[1] in commands

    return known
