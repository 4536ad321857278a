"""``roll`` and ``seed``: dice outside any ruleset command, and referee seeds."""

from __future__ import annotations

from typing import Optional

import typer

from combatlog.cli.common import echo, json_option, old_name, print_json, renamed, run_command, stream_argument

seed_app = typer.Typer(help="Referee seeds: commit one before play, reveal it at the end.", no_args_is_help=True)


def roll(
    ctx: typer.Context,
    stream: str = stream_argument(),
    dice: str = typer.Argument(..., help="Dice notation: 2d6, d100, 1d10+3, 3d4."),
    label: str = typer.Option(..., "--label", "-l", help="What the roll is for, unique in the combat, e.g. r3/morale/orcs."),
    scheme: Optional[str] = typer.Option(None, "--scheme", help="manual, local, referee or joint (default: the combat's)."),
    faces: Optional[str] = typer.Option(None, "--face", metavar="FACES",
                                        help="Manual dice: the faces rolled at the table, e.g. 3,5 (LABEL=3,5 as "
                                             "in other commands works too, with this roll's label)."),
    purpose: str = typer.Option("", "--purpose", help="Why, in words."),
    by: Optional[str] = typer.Option(None, "--by", help="Who rolled (default: the actor)."),
    as_json: bool = json_option(),
    old_faces: Optional[str] = old_name("--faces"),
) -> None:
    """Roll dice under a semantic label; a label can be drawn only once per combat.

    Example: combatlog roll duel 2d6 --label r1/morale/goblins --scheme manual --face 3,5
    """
    from combatlog.cli.common import refuse_blank
    from combatlog.commands.core import RollDice
    from combatlog.errors import InvalidCommand

    refuse_blank(by, "--by", "who rolled")
    faces = renamed(faces, old_faces, "--face", "--faces") or ""
    named, sep, rolled = faces.rpartition("=")
    if sep:
        if named != label:
            raise InvalidCommand(f"--face {faces!r}: this roll's label is {label!r}; give just the faces, e.g. 3,5")
        faces = rolled

    if faces and scheme is None:
        scheme = "manual"
    outcome = run_command(ctx, stream, RollDice(label=label, notation=dice, purpose=purpose, by=by or ""),
                          dice=scheme, faces=[f"{label}={faces}"] if faces else [], quiet=True)
    ev = outcome.events[0].event if outcome.events else None
    if as_json:
        print_json({"stream": outcome.stream.name, "seq": outcome.first_seq, "duplicate": outcome.duplicate,
                    "label": label, "faces": list(getattr(ev, "faces", ())), "total": getattr(ev, "total", None),
                    "scheme": getattr(ev, "scheme", None)})
        return
    if ev is None:
        echo(f"{outcome.stream.name}: already recorded at seq {outcome.first_seq} (same command id)")
        return
    echo(f"{outcome.stream.name} #{outcome.first_seq}  {label}: {ev.notation} -> "  # type: ignore[attr-defined]
         f"{list(ev.faces)} = {ev.total}  ({ev.scheme})")  # type: ignore[attr-defined]


@seed_app.command("commit")
def seed_commit(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Commit to a fresh secret seed (its hash goes in the log; the seed stays on this machine).

    Example: combatlog seed commit duel
    """
    from combatlog.commands.core import CommitSeed

    run_command(ctx, stream, CommitSeed(), as_json=as_json)


@seed_app.command("reveal")
def seed_reveal(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Reveal the open seed, so anyone can recompute every referee die.

    Example: combatlog seed reveal duel
    """
    from combatlog.commands.core import RevealSeed

    run_command(ctx, stream, RevealSeed(), as_json=as_json)
