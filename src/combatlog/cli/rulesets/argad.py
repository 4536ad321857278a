"""``combatlog argad ...``: « Argad ! » skirmish game turns (movement, shooting, melee, survival).

The ruleset package is imported inside each command so start-up stays fast.
"""

from __future__ import annotations

import shlex
from typing import Any, Optional

import typer

from combatlog.cli.common import (
    add_resolve,
    dice_scheme_option, echo_view, faces_option, json_option, print_json, read_state, run_command, state_completer,
    stream_argument,
)
from combatlog.errors import IllegalCommand, InvalidCommand

app = typer.Typer(help="« Argad ! » skirmish: figures, game turns, shooting, melee, wounds and survival.",
                  no_args_is_help=True)

# Shell completion of the figures of the combat named on the line.
_figures = state_completer(lambda state, _typed: state.figures)


def _attackers(items: list[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """``name`` or ``name@rank`` (rank 2: above a friend's shoulders)."""
    names: list[str] = []
    ranks: list[int] = []
    for item in items:
        name, sep, rank = item.partition("@")
        if sep and not (rank.isascii() and rank.isdigit()):
            raise InvalidCommand(f"{item!r}: write NAME or NAME@RANK, e.g. gob-d@2")
        names.append(name)
        ranks.append(int(rank) if sep else 1)
    return tuple(names), (tuple(ranks) if any(r != 1 for r in ranks) else ())


@app.command()
def species(as_json: bool = json_option()) -> None:
    """List the species table shipped with the ruleset (the seed's table and strength categories).

    Example: combatlog argad species
    """
    import msgspec

    from combatlog.rulesets.argad.tables import species_table

    table = species_table()
    if as_json:
        print_json([msgspec.to_builtins(s) for s in table.values()])
        return
    for s in table.values():
        wounds = "1" if s.wounds == "1" else s.wounds.upper()
        shoot = f"1D{s.shooting_die}" if s.shooting_die else "rare"
        echo_view(f"{s.id:<17} {s.name:<24} {s.strength:<3} melee 1D{s.melee_die:<2} shoot {shoot:<5} "
             f"wounds {wounds:<4} base {s.base_mm / 10:g} cm")


@app.command()
def options(as_json: bool = json_option()) -> None:
    """List the rules options (the seed's ambiguities) with their values and defaults.

    Example: combatlog argad options
    """
    from combatlog.rulesets.argad.options import CHOICES

    if as_json:
        print_json({name: {"values": list(v), "default": d, "help": h} for name, (v, d, h) in CHOICES.items()})
        return
    for name, (values, default, text) in CHOICES.items():
        echo_view(f"{name} = {default}   ({' | '.join(values)})\n    {text}")


@app.command()
def add(
    ctx: typer.Context,
    stream: str = stream_argument(),
    name: str = typer.Argument(..., help="The figure's name (letters, digits, - _ .)."),
    side: str = typer.Option(..., "--side", help="Its side."),
    species_id: str = typer.Option("", "--species", help="A species id (see: combatlog argad species)."),
    strength: str = typer.Option("", "--strength", help="-H, =H, +H, ++H or H2 (default: the species')."),
    klass: Optional[int] = typer.Option(None, "--class", help="Class 1-5 (default: the worn armour)."),
    worn: Optional[int] = typer.Option(None, "--worn", help="Worn armour: 3 light clothing, 4 mail, 5 full."),
    armour: Optional[int] = typer.Option(None, "--armour", help="Melee armour, hide included (default: derived)."),
    wounds: str = typer.Option("", "--wounds", help="Life points: 1, 1d2, 1d3 or 1d4."),
    weapon: str = typer.Option("", "--weapon", help="short, spear, halberd, pike, two_handed_axe or lance."),
    missile: str = typer.Option("", "--missile", help="simple_bow, short_composite_bow, longbow, light_crossbow, "
                                                      "war_crossbow or thrown."),
    mounted: bool = typer.Option(False, "--mounted", help="Mounted (wolf, boar, pony, horse...)."),
    rider: str = typer.Option("", "--rider", help="good (default) or mounted_infantry."),
    ability: list[str] = typer.Option([], "--ability", help="elite_shooter, strong, strike_last, skeleton, "
                                                             "zombie or hero (repeatable)."),
    as_json: bool = json_option(),
) -> None:
    """Add a figure during the combat (reinforcements); most figures come from the --setup file.

    Example: combatlog argad add skirmish bob --side men --species human --worn 4 --weapon spear
    """
    from combatlog.rulesets.argad.commands import AddFigure

    entry: dict[str, Any] = {"name": name, "side": side}
    for key, value in (("species", species_id), ("strength", strength), ("wounds", wounds), ("weapon", weapon),
                       ("missile", missile), ("rider", rider)):
        if value:
            entry[key] = value
    for key, number in (("class", klass), ("worn", worn), ("armour", armour)):
        if number is not None:
            entry[key] = number
    if mounted:
        entry["mounted"] = True
    if ability:
        entry["abilities"] = list(ability)
    run_command(ctx, stream, AddFigure(figure=entry), as_json=as_json)


@app.command()
def turn(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Start the next game turn (simultaneous movement, shooting and melee; no initiative).

    Example: combatlog argad turn skirmish
    """
    from combatlog.rulesets.argad.commands import StartTurn

    run_command(ctx, stream, StartTurn(), as_json=as_json)


@app.command()
def move(
    ctx: typer.Context,
    stream: str = stream_argument(),
    figure: str = typer.Argument(..., autocompletion=_figures, help="The figure moving."),
    charge: bool = typer.Option(False, "--charge", help="A mounted charge in a straight line."),
    crossing: bool = typer.Option(False, "--crossing", help="Crosses an obstacle (enemies strike it at +1)."),
    stationary: bool = typer.Option(False, "--stationary", help="Stays still (e.g. to shoot a war crossbow)."),
    out_of_command: bool = typer.Option(False, "--out-of-command", help="Beyond 20 cm of its chiefs (option)."),
    ground: str = typer.Option("", "--ground", help="Now standing on 'mineral' ground or 'other'."),
    note: str = typer.Option("", "--note", help="Where it goes, in words."),
    as_json: bool = json_option(),
) -> None:
    """Record a figure's move in the movement phase (what the move means for the rules).

    Example: combatlog argad move skirmish knight --charge --note "at the Troll"
    """
    from combatlog.rulesets.argad.commands import Move

    run_command(ctx, stream, Move(figure=figure, charge=charge, crossing=crossing, stationary=stationary,
                                  out_of_command=out_of_command, ground=ground, note=note), as_json=as_json)


@app.command()
def shoot(
    ctx: typer.Context,
    stream: str = stream_argument(),
    shooters: list[str] = typer.Argument(..., autocompletion=_figures,
                                         help="The shooters rolling together (one missile weapon)."),
    at: list[str] = typer.Option(..., "--at", autocompletion=_figures,
                                 help="The target; twice or more for a group (hits at random)."),
    range_: str = typer.Option("short", "--range", help="short, medium or long."),
    need: int = typer.Option(0, "--need", help="The generic table's need for this armour (armour 5 column for "
                                               "6+); default: the seed's worked examples."),
    cover: int = typer.Option(0, "--cover", help="Terrain, shield wall or pavise modifier (negative)."),
    idle: bool = typer.Option(False, "--idle", help="The target stands idle (reptilians shoot it at -1)."),
    into_melee: bool = typer.Option(False, "--into-melee", help="The target stands in a melee."),
    range_cm: int = typer.Option(0, "--range-cm", help="Distance in cm (0-10 to shoot into a melee)."),
    friend: list[str] = typer.Option([], "--friend", autocompletion=_figures,
                                     help="A small friend close to the target (double 1s hit it)."),
    mod: int = typer.Option(0, "--mod", help="Another tactical modifier from the generic rules."),
    why: str = typer.Option("", "--why", help="The reason for --mod."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Shoot a volley at a target (or group) in the shooting phase; re-rolls of a natural maximum follow.

    Example: combatlog argad shoot wall xbow-1 --at ogre-naked --dice manual --face t1/shoot/ogre-naked/xbow-1=5
    """
    from combatlog.rulesets.argad.commands import Shoot

    run_command(ctx, stream, Shoot(shooters=tuple(shooters), targets=tuple(at), range=range_, need=need,
                                   cover=cover, idle=idle, into_melee=into_melee, range_cm=range_cm,
                                   friends=tuple(friend), mod=mod, why=why), dice=dice, faces=face, as_json=as_json)


@app.command()
def strike(
    ctx: typer.Context,
    stream: str = stream_argument(),
    attackers: list[str] = typer.Argument(..., autocompletion=_figures,
                                          help="Attackers rolling together: NAME, or NAME@2 from the 2nd rank."),
    at: list[str] = typer.Option(..., "--at", autocompletion=_figures,
                                 help="The enemy struck; an H2 creature may name two (1D6 each)."),
    over: str = typer.Option("", "--over", autocompletion=_figures,
                             help="The friend whose shoulders the rear ranks strike above."),
    mod: int = typer.Option(0, "--mod", help="Another tactical modifier from the generic rules."),
    why: str = typer.Option("", "--why", help="The reason for --mod."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Strike in melee: the pool's best total against the enemy's class and armour.

    Example: combatlog argad strike goblins gob-d@2 gob-e@2 gob-f --at warrior --over gob-a
    """
    from combatlog.rulesets.argad.commands import Strike

    names, ranks = _attackers(attackers)
    run_command(ctx, stream, Strike(attackers=names, targets=tuple(at), ranks=ranks, over=over, mod=mod, why=why),
                dice=dice, faces=face, as_json=as_json)


@app.command()
def hold(
    ctx: typer.Context,
    stream: str = stream_argument(),
    figures: Optional[list[str]] = typer.Argument(None, autocompletion=_figures,
                                                  help="Figures of one side that will not strike this turn."),
    side: str = typer.Option("", "--side", help="Instead of naming them: every figure of SIDE that may still "
                                                "strike this turn."),
    as_json: bool = json_option(),
) -> None:
    """Declare that figures will not strike this game turn (out of contact, or giving up their blow).

    Name figures of one side, or give --side SIDE for every figure of that side that may still strike. A
    held figure may not strike later in the turn; shorter blows at it no longer wait for it, and ending the
    turn no longer gives up its blow (while a figure may still strike, only its side's players or the
    referee may end the turn). Its side's players, or the referee, hold it.

    Example: combatlog argad hold skirmish gob-e gob-f
    """
    from combatlog.rulesets.argad.commands import Hold

    if not figures and not side:
        raise InvalidCommand("name the figures that will not strike this turn, or --side SIDE for all of that "
                             "side's figures that may still strike")
    run_command(ctx, stream, Hold(figures=tuple(figures or ()), side=side), as_json=as_json)


@app.command("recoil-policy")
def recoil_policy(
    ctx: typer.Context,
    stream: str = stream_argument(),
    figure: str = typer.Argument(..., autocompletion=_figures, help="A large creature or a Dwarf."),
    refuse: bool = typer.Option(True, "--refuse/--accept", help="Refuse (default) or accept recoils it may refuse."),
    as_json: bool = json_option(),
) -> None:
    """Set whether a figure refuses the recoils the rules let it refuse (large creatures, Dwarves on rock).

    Example: combatlog argad recoil-policy skirmish troll --accept
    """
    from combatlog.rulesets.argad.commands import SetRecoilPolicy

    run_command(ctx, stream, SetRecoilPolicy(figure=figure, refuse=refuse), as_json=as_json)


@app.command()
def remove(
    ctx: typer.Context,
    stream: str = stream_argument(),
    figure: str = typer.Argument(..., autocompletion=_figures, help="The figure that leaves the fight."),
    reason: str = typer.Option("fled", "--reason"),
    as_json: bool = json_option(),
) -> None:
    """Take a figure off the table (it flees, surrenders...).

    Example: combatlog argad remove skirmish gob-c --reason fled
    """
    from combatlog.rulesets.argad.commands import Remove

    run_command(ctx, stream, Remove(figure=figure, reason=reason), as_json=as_json)


@app.command("end-turn")
def end_turn(
    ctx: typer.Context,
    stream: str = stream_argument(),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """End the game turn: deaths, survival rolls (1D2/1D3/1D4) and optional wound localisation.

    It gives up the blows still open: where roles are enforced, while a figure may still strike only its
    side's players (or the referee) may end the turn; a side that will not strike with it holds it first
    (argad hold).

    A 1D2 is thrown with a d6 read odd = 1, even = 2 (enter the d6 face, or a coin's 1 or 2).

    Example: combatlog argad end-turn skirmish --dice manual --face t1/survival/ogre=3
    """
    from combatlog.rulesets.argad.commands import EndTurn

    try:
        run_command(ctx, stream, EndTurn(), dice=dice, faces=face, as_json=as_json)
    except IllegalCommand as exc:  # the refusal's hold commands (argad/authority.py) name this combat
        exc.message = exc.message.replace(" argad hold STREAM ", f" argad hold {shlex.quote(stream)} ")
        exc.args = (exc.message,)
        raise


add_resolve(app, 'combatlog seal link skirmish --step t1#2, then: combatlog argad resolve skirmish')


@app.command("end")
def end_combat(
    ctx: typer.Context,
    stream: str = stream_argument(),
    outcome: str = typer.Option("", "--outcome", help="How it ended, in words."),
    as_json: bool = json_option(),
) -> None:
    """End the combat.

    Example: combatlog argad end skirmish --outcome "the Troll is dead"
    """
    from combatlog.rulesets.argad.commands import EndCombat

    run_command(ctx, stream, EndCombat(outcome=outcome), as_json=as_json)


@app.command()
def figures(
    ctx: typer.Context,
    stream: str = stream_argument(),
    round_no: Optional[int] = typer.Option(None, "--turn", help="At the end of this game turn."),
    as_json: bool = json_option(),
) -> None:
    """Each figure's status: wounds, dead or standing, recoiled this turn, lasting effects.

    Example: combatlog argad figures skirmish --turn 2
    """
    _, folded = read_state(ctx, stream, round_no=round_no)
    data = folded.ruleset.describe(folded.state)
    if as_json:
        print_json(data["figures"])
        return
    echo_view(folded.ruleset.render(folded.state))


@app.command("turn-summary")
def turn_summary(
    ctx: typer.Context,
    stream: str = stream_argument(),
    round_no: Optional[int] = typer.Option(None, "--turn", help="The game turn (default: the current or last)."),
    as_json: bool = json_option(),
) -> None:
    """The shots and strikes of a game turn with dice, totals and results, and the figures held back.

    Example: combatlog argad turn-summary skirmish --turn 1
    """
    _, folded = read_state(ctx, stream, round_no=round_no)
    data = folded.ruleset.describe(folded.state)
    summary = data.get("turn_summary") or data.get("last_turn_summary") or {}
    if as_json:
        print_json(summary)
        return
    for s in summary.get("shots", []):
        dice = ", ".join(f"{d['who']} {'+'.join(map(str, d['faces']))}={d['total']}" for d in s["dice"])
        echo_view(f"#{s['seq']} {', '.join(s['shooters'])} shoot {' + '.join(s['targets'])} (need {s['need']}): "
             f"{dice}; hits: {', '.join(s['hits']) or 'none'}")
    for s in summary.get("strikes", []):
        dice = ", ".join(f"{d['who']} {'+'.join(map(str, d['faces']))}={d['total']}" for d in s["dice"])
        flags = (" [cancelled: " + s["priority"] + "]") if s["cancelled"] else ""
        echo_view(f"#{s['seq']} {', '.join(s['attackers'])} -> {s['target']} ({s['order']}): {dice}; best {s['best']} "
             f"vs {s['defence']}: {s['result']}{flags}")
    if summary.get("held"):
        echo_view(f"held back (no blow this turn): {', '.join(summary['held'])}")
    for row in summary.get("survival", []):
        read = f" ({row['read']})" if row.get("read") else ""
        echo_view(f"survival {row['figure']}: {row['roll']}{read} with {row['wounds']} wound(s): "
             f"{'dies' if row['died'] else 'survives'}")
    if not summary:
        echo_view("no game turn played yet")
