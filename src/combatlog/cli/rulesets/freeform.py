"""``combatlog freeform ...``: participants, rounds, actions, hit points, conditions."""

from __future__ import annotations

from typing import Optional

import typer

from combatlog.cli.common import (
    dice_scheme_option, faces_option, json_option, run_command, state_completer, stream_argument,
)

app = typer.Typer(help="Freeform combat for any game: participants, rounds, actions, hp, conditions.",
                  no_args_is_help=True)

# Shell completion of the participants of the combat named on the line (with their side).
_participants = state_completer(lambda state, _typed: [(p.name, p.side) for p in state.participants.values()])


@app.command()
def join(
    ctx: typer.Context,
    stream: str = stream_argument(),
    name: str = typer.Argument(..., help="The participant's name."),
    side: str = typer.Option(..., "--side", help="Side or team."),
    hp: Optional[int] = typer.Option(None, "--hp", help="Starting hit points, if the game uses them."),
    note: str = typer.Option("", "--note", help="Free text kept with the entry."),
    player: str = typer.Option("", "--player", help="The player who plays it: only that player may act for it "
                               "where roles are enforced (pinned players or --referee)."),
    as_json: bool = json_option(),
) -> None:
    """Add a participant.

    Example: combatlog freeform join duel Aldo --side red --hp 12
    """
    from combatlog.rulesets.freeform.commands import Join

    run_command(ctx, stream, Join(name=name, side=side, hp=hp, note=note, player=player), as_json=as_json)


@app.command()
def leave(
    ctx: typer.Context,
    stream: str = stream_argument(),
    name: str = typer.Argument(..., autocompletion=_participants, help="The participant who leaves."),
    reason: str = typer.Option("", "--reason"),
    as_json: bool = json_option(),
) -> None:
    """Take a participant out of the combat (fled, surrendered...).

    Example: combatlog freeform leave duel Bo --reason fled
    """
    from combatlog.rulesets.freeform.commands import Leave

    run_command(ctx, stream, Leave(name=name, reason=reason), as_json=as_json)


@app.command("round")
def start_round(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Start the next round (ending the open one, if any).

    Example: combatlog freeform round duel
    """
    from combatlog.rulesets.freeform.commands import StartRound

    run_command(ctx, stream, StartRound(), as_json=as_json)


@app.command("end-round")
def end_round(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """End the open round.

    Example: combatlog freeform end-round duel
    """
    from combatlog.rulesets.freeform.commands import EndRound

    run_command(ctx, stream, EndRound(), as_json=as_json)


@app.command()
def act(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_participants, help="Who acts."),
    action: str = typer.Argument(..., help="What they do, in words."),
    roll: str = typer.Option("", "--roll", help="Dice rolled with the action, e.g. 1d20+3."),
    label: str = typer.Option("", "--label", help="Dice label (default r<round>/<who>/act; refused with joint dice)."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Record what a participant does this round, optionally with a roll.

    Example: combatlog freeform act duel Aldo "swings at Bo" --roll 1d20+3
    """
    from combatlog.rulesets.freeform.commands import Act

    run_command(ctx, stream, Act(who=who, action=action, roll=roll, label=label), dice=dice, faces=face,
                as_json=as_json)


def _hp(ctx: typer.Context, stream: str, who: str, amount: str, heal: bool, reason: str, label: str,
        dice: Optional[str], face: list[str], as_json: bool) -> None:
    from combatlog.rulesets.freeform.commands import ChangeHp

    run_command(ctx, stream, ChangeHp(who=who, amount=amount, heal=heal, reason=reason, label=label),
                dice=dice, faces=face, as_json=as_json)


@app.command()
def damage(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_participants, help="Who takes the damage."),
    amount: str = typer.Argument(..., help="A number, or dice such as 1d8+1."),
    reason: str = typer.Option("", "--reason"),
    label: str = typer.Option("", "--label",
                              help="Dice label (default r<round>/<who>/damage; refused with joint dice)."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Take hit points away (a number or a roll).

    Example: combatlog freeform damage duel Bo 1d8 --reason "Aldo's sword"
    """
    _hp(ctx, stream, who, amount, False, reason, label, dice, face, as_json)


@app.command()
def heal(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_participants, help="Who is healed."),
    amount: str = typer.Argument(..., help="A number, or dice such as 1d4."),
    reason: str = typer.Option("", "--reason"),
    label: str = typer.Option("", "--label", help="Dice label (default r<round>/<who>/heal; refused with joint dice)."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Restore hit points (a number or a roll).

    Example: combatlog freeform heal duel Bo 2 --reason potion
    """
    _hp(ctx, stream, who, amount, True, reason, label, dice, face, as_json)


@app.command()
def condition(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_participants, help="The participant (a name in the combat)."),
    name: str = typer.Argument(..., help="The condition, e.g. stunned."),
    off: bool = typer.Option(False, "--off", help="Remove the condition instead."),
    reason: str = typer.Option("", "--reason"),
    as_json: bool = json_option(),
) -> None:
    """Give or remove a condition.

    Example: combatlog freeform condition duel Bo stunned --reason "shield bash"
    """
    from combatlog.rulesets.freeform.commands import SetCondition

    run_command(ctx, stream, SetCondition(who=who, condition=name, present=not off, reason=reason),
                as_json=as_json)


@app.command("end")
def end_combat(
    ctx: typer.Context,
    stream: str = stream_argument(),
    outcome: str = typer.Option("", "--outcome", help="How it ended, in words."),
    as_json: bool = json_option(),
) -> None:
    """End the combat.

    Example: combatlog freeform end duel --outcome "Bo yields"
    """
    from combatlog.rulesets.freeform.commands import EndCombat

    run_command(ctx, stream, EndCombat(outcome=outcome), as_json=as_json)
