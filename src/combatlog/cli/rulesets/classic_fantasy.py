"""``combatlog cfi ...``: Classic Fantasy Imperative rounds, attacks, reactions, Special Effects,
Combat Actions and the combatant sheets."""

from __future__ import annotations

from typing import Optional

import typer

from combatlog.cli.common import (
    add_resolve,
    dice_scheme_option, echo_view, faces_option, json_option, print_json, read_state, run_command, state_completer,
    stream_argument,
)
from combatlog.errors import InvalidCommand

app = typer.Typer(help="Classic Fantasy Imperative (Mythras) combat: rounds, attacks, parries, Special Effects.",
                  no_args_is_help=True)

# Shell completion of the combatants of the combat named on the line.
_combatants = state_completer(lambda state, _typed: state.combatants)


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidCommand(f"{what} {item!r}: expected KEY=VALUE")
        out[key.strip().lower()] = value.strip()
    return out


def _initiative_text(initiative: int | None) -> str:
    """Initiative is rolled at the start of round 1 (CFI Ch.8 Initiative): none before it."""
    return "not rolled yet" if initiative is None else str(initiative)


def _names(items: list[str]) -> tuple[str, ...]:
    return tuple(n.strip() for item in items for n in item.split(",") if n.strip())


def _situations() -> list[str]:
    return typer.Option([], "--situation", help="A situational modifier (repeatable), e.g. confined, "
                                                "from_behind, light_wind, target_running.")


@app.command("round")
def start_round(
    ctx: typer.Context,
    stream: str = stream_argument(),
    reroll: bool = typer.Option(False, "--reroll", help="Re-roll Initiative (only when something forces it)."),
    surprised: list[str] = typer.Option([], "--surprised", autocompletion=_combatants,
                                        help="Surprised combatants (with the Initiative roll)."),
    force: bool = typer.Option(False, "--force", help="End the open Round although Action Points remain."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Start the next Combat Round: Initiative (first Round or --reroll), Action Points, Bleed ticks.

    Dice labels: r<N>/init/<name> (1d10), ties r<N>/init/<name>/tie.

    Example: combatlog cfi round ambush --surprised Goblin2 --dice manual --face r1/init/Brom=7 --face r1/init/Goblin2=4
    """
    from combatlog.rulesets.classic_fantasy.commands import StartRound

    run_command(ctx, stream, StartRound(reroll=reroll, surprised=_names(surprised), force=force),
                dice=dice, faces=face, as_json=as_json)


@app.command()
def attack(
    ctx: typer.Context,
    stream: str = stream_argument(),
    attacker: str = typer.Argument(..., autocompletion=_combatants, help="Who attacks (on their Turn)."),
    target: str = typer.Argument(..., autocompletion=_combatants, help="Whom they attack."),
    weapon: str = typer.Option("", "--weapon", "-w", help="Weapon (default: the first held weapon)."),
    charge: bool = typer.Option(False, "--charge", help="A Charge: Hard, Size and Damage Modifier one step up."),
    moving: bool = typer.Option(False, "--moving", help="Move into contact and attack (one Action Point)."),
    situation: list[str] = _situations(),
    grade: str = typer.Option("", "--grade", help="A Games Master grade: easy, hard, formidable, herculean..."),
    cap: str = typer.Option("", "--cap", help="Cap the Combat Skill by another skill: ride or swim."),
    range_band: str = typer.Option("", "--range", help="Ranged: close, effective (default) or long."),
    crowd: str = typer.Option("", "--crowd", help="Ranged into a melee: edge (Hard) or through (Formidable)."),
    bystander: list[str] = typer.Option([], "--bystander", autocompletion=_combatants,
                                        help="Who may be struck instead (firing into a crowd)."),
    stationary: bool = typer.Option(False, "--stationary", help="Ranged: the target is stationary or unaware."),
    blind_strike: bool = typer.Option(False, "--blind-strike", help="Strike blindly at a target behind total cover."),
    mount_dm: str = typer.Option("", "--mount-dm", help="Charging rider: use the mount's Damage Modifier."),
    sweep: list[str] = typer.Option([], "--sweep", autocompletion=_combatants,
                                    help="Sweep Attack: further targets in the path (one roll "
                                                        "for all; each defends separately)."),
    leap: bool = typer.Option(False, "--leap", help="Leaping Attack: Athletics against Brawn or Evade, no damage; "
                                                     "a win knocks the target prone with the leaper astride."),
    pass_through: bool = typer.Option(False, "--pass-through", help="Charge: sweep on past the target, breaking "
                                                                    "engagement after the blow."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Attack (spending an Action Point); rolls r<N>/a<K>/attack (1d100). A sweep's further targets
    use labels r<N>/a<K>/<target>/..., a leap rolls Athletics under r<N>/a<K>/attack.

    Example: combatlog cfi attack duel Brom Orc --weapon longsword --moving
    """
    from combatlog.rulesets.classic_fantasy.commands import Attack

    cmd = Attack(attacker=attacker, target=target, weapon=weapon, charge=charge, moving=moving,
                 situations=tuple(situation), grade=grade.lower(), cap=cap.lower(), range=range_band.lower(),
                 crowd=crowd.lower(), bystanders=_names(bystander), stationary=stationary,
                 blind_strike=blind_strike, mount_dm=mount_dm, sweep=_names(sweep), leap=leap,
                 pass_through=pass_through)
    run_command(ctx, stream, cmd, dice=dice, faces=face, as_json=as_json)


def _defend(ctx: typer.Context, stream: str, defender: str, kind: str, weapon: str, situation: list[str],
            grade: str, cap: str, dice: Optional[str], face: list[str], as_json: bool, back: bool = False,
            longer: str = "", set_weapon: bool = False) -> None:
    from combatlog.rulesets.classic_fantasy.commands import Defend

    run_command(ctx, stream, Defend(defender=defender, kind=kind, weapon=weapon, situations=tuple(situation),
                                    grade=grade.lower(), cap=cap.lower(), back=back, longer=longer.lower(),
                                    set_weapon=set_weapon), dice=dice, faces=face, as_json=as_json)


@app.command()
def parry(
    ctx: typer.Context,
    stream: str = stream_argument(),
    defender: str = typer.Argument(..., autocompletion=_combatants, help="The one attacked."),
    weapon: str = typer.Option("", "--weapon", "-w", help="Parrying weapon or shield (default: the largest held)."),
    situation: list[str] = _situations(),
    grade: str = typer.Option("", "--grade"),
    cap: str = typer.Option("", "--cap"),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Parry the open attack (an Action Point); rolls r<N>/a<K>/parry. Damage rolls follow if no Special Effects.

    Example: combatlog cfi parry duel Orc --weapon "great axe"
    """
    _defend(ctx, stream, defender, "parry", weapon, situation, grade, cap, dice, face, as_json)


@app.command()
def evade(
    ctx: typer.Context,
    stream: str = stream_argument(),
    defender: str = typer.Argument(..., autocompletion=_combatants, help="The one attacked."),
    situation: list[str] = _situations(),
    grade: str = typer.Option("", "--grade"),
    back: bool = typer.Option(False, "--back", help="The attack comes from a back square: a free Perception roll "
                                                    "(r<N>/a<K>/perception) to see it, then Evade at Formidable."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Evade the open attack (an Action Point; leaves the evader prone); rolls r<N>/a<K>/evade.

    Example: combatlog cfi evade skirmish Mira
    """
    _defend(ctx, stream, defender, "evade", "", situation, grade, "", dice, face, as_json, back=back)


@app.command()
def counter(
    ctx: typer.Context,
    stream: str = stream_argument(),
    defender: str = typer.Argument(..., autocompletion=_combatants, help="The recipient of the charge."),
    longer: str = typer.Option(..., "--longer", help="Whose weapon is longer (strikes first): recipient, charger "
                                                      "or same (both land together)."),
    weapon: str = typer.Option("", "--weapon", "-w", help="The counter-attacking weapon (default: the first held)."),
    set_weapon: bool = typer.Option(False, "--set", help="The weapon is set against the charge (trait Set): use "
                                                         "the charger's Damage Modifier."),
    situation: list[str] = _situations(),
    grade: str = typer.Option("", "--grade"),
    cap: str = typer.Option("", "--cap"),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Counter-attack a charge instead of parrying or evading (an Action Point); rolls r<N>/a<K>/counter.
    The counter-attack's own dice are labelled r<N>/a<K>/counter/... (location, damage, dm, ...).

    Example: combatlog cfi counter duel Brom --longer recipient --set -w longspear
    """
    _defend(ctx, stream, defender, "counter", weapon, situation, grade, cap, dice, face, as_json,
            longer=longer, set_weapon=set_weapon)


@app.command()
def brawn(
    ctx: typer.Context,
    stream: str = stream_argument(),
    defender: str = typer.Argument(..., autocompletion=_combatants, help="The target of the leap."),
    situation: list[str] = _situations(),
    grade: str = typer.Option("", "--grade"),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Resist a Leaping Attack with Brawn (an Action Point); rolls r<N>/a<K>/brawn. (Evade resists it too.)

    Example: combatlog cfi brawn duel Brom
    """
    _defend(ctx, stream, defender, "brawn", "", situation, grade, "", dice, face, as_json)


@app.command("no-defence")
def no_defence(
    ctx: typer.Context,
    stream: str = stream_argument(),
    defender: str = typer.Argument(..., autocompletion=_combatants, help="The one attacked."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Do not react: counted as an automatic Failure.

    Example: combatlog cfi no-defence duel Orc
    """
    _defend(ctx, stream, defender, "none", "", [], "", "", dice, face, as_json)


@app.command()
def effects(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_combatants, help="The winner of the Special Effects."),
    chosen: list[str] = typer.Argument(None, help="Effects, e.g. bleed maximize_damage (repeat stackable ones)."),
    param: list[str] = typer.Option([], "--param", "-p", help="KEY=VALUE: location, sharpshooter (the location "
                                                           "aimed for, named before the hit location is rolled), "
                                                           "bypass, blind, entangle, counter, bystander, disarm, "
                                                           "obstacle."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Choose Special Effects (a decision after seeing the rolls); then location, damage and resistance rolls.

    Effects are chosen before the hit location is rolled (CFI Ch.8 Special Effects): Sharpshooter
    names the location aimed for now, and moves the shot there if the rolled location adjoins it.

    Example: combatlog cfi effects duel Brom choose_location bleed --param location=head
    """
    from combatlog.rulesets.classic_fantasy.commands import ChooseEffects

    run_command(ctx, stream, ChooseEffects(who=who, effects=tuple(chosen or ()), params=_pairs(param, "--param")),
                dice=dice, faces=face, as_json=as_json)


@app.command()
def luck(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_combatants, help="The combatant (a name in the combat)."),
    roll: str = typer.Argument(..., help="attack or defence (the open exchange, or the blow just resolved); a roll "
                                         "of the blow just resolved: damage, location, endurance, bleed, stun, "
                                         "knockback, trip, disarm, blind, obstacle...; action-point (Desperate "
                                         "Effort); mitigate (a Major Wound becomes Serious); heroic (Heroic Last "
                                         "Action)."),
    swap: bool = typer.Option(False, "--swap", help="Swap the d100's digits (75 -> 57) instead of re-rolling."),
    location: str = typer.Option("", "--location", help="mitigate: the Major-wounded location (default: the one "
                                                        "just wounded)."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Spend a Luck Point (a Free Action): Cheat Fate, Desperate Effort, Mitigate Damage or a Heroic Last Action.
    Re-rolls are labelled r<N>/a<K>/<roll>-luck (a second re-roll of one label: -luck2).

    Example: combatlog cfi luck duel Orc damage
    """
    from combatlog.rulesets.classic_fantasy.commands import UseLuck

    run_command(ctx, stream, UseLuck(who=who, roll=roll.lower(), swap=swap, location=location.lower()),
                dice=dice, faces=face, as_json=as_json)


@app.command()
def act(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument(..., autocompletion=_combatants, help="The combatant (a name in the combat)."),
    action: str = typer.Argument(..., help="move, hustle, delay, dither, brace, ready, aim, regain_footing, "
                                           "struggle, outmaneuver, first_aid, take_cover, change_range, mount, "
                                           "cast_magic, hold_magic, trip_entangled, interrupt, counter_spell, "
                                           "assess_situation, drop_item, signal, speak, ward_location."),
    target: str = typer.Argument("", autocompletion=_combatants, help="Whom the action is aimed at, if anyone."),
    detail: list[str] = typer.Option([], "--detail", "-d", help="KEY=VALUE, e.g. weapon=shortbow mode=reload, "
                                                              "gait=sprint, against=A,B, locations=head,chest."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Take a Proactive, Reactive or Free Combat Action other than attack/parry/evade.

    Example: combatlog cfi act skirmish Mira ready -d weapon=shortbow -d mode=reload
    """
    from combatlog.rulesets.classic_fantasy.commands import Act

    run_command(ctx, stream, Act(who=who, action=action, target=target, detail=_pairs(detail, "--detail")),
                dice=dice, faces=face, as_json=as_json)


add_resolve(app, 'combatlog seal link duel --step r1#2, then: combatlog cfi resolve duel')


@app.command("end")
def end_combat(
    ctx: typer.Context,
    stream: str = stream_argument(),
    outcome: str = typer.Option("", "--outcome", help="How it ended, in words."),
    as_json: bool = json_option(),
) -> None:
    """End the combat.

    Example: combatlog cfi end duel --outcome "the orc flees"
    """
    from combatlog.rulesets.classic_fantasy.commands import EndCombat

    run_command(ctx, stream, EndCombat(outcome=outcome), as_json=as_json)


@app.command()
def sheet(
    ctx: typer.Context,
    stream: str = stream_argument(),
    who: str = typer.Argument("", autocompletion=_combatants, help="One combatant (default: all)."),
    round_no: Optional[int] = typer.Option(None, "--round", help="As at the end of this round."),
    as_json: bool = json_option(),
) -> None:
    """Combatant sheets: locations with HP and armour, fatigue, conditions with time left, weapons.

    Example: combatlog cfi sheet duel Orc --json
    """
    from combatlog.rulesets.classic_fantasy.views import cond_text, sheet as make_sheet

    _meta, folded = read_state(ctx, stream, round_no=round_no)
    state = folded.state
    people = [c for c in state.combatants.values() if not who or c.name == who]
    if who and not people:
        raise InvalidCommand(f"no combatant {who!r}")
    if as_json:
        print_json([make_sheet(c) for c in people])
        return
    for c in people:
        s = make_sheet(c)
        # "Action Points" and "armour" in words: "AP" is both in the rules (Action Points, Armor Points)
        echo_view(f"{c.name} ({c.side})  Action Points {c.ap}/{c.ap_max}  Initiative {_initiative_text(c.initiative)}  Fatigue {s['fatigue']}  "
             f"Luck {c.luck}  DM {c.dm}  SIZ {c.siz}")
        for loc in c.locations:
            echo_view(f"  {loc.lo:>2}-{loc.hi:<2} {loc.name:<10} HP {loc.hp:>3}/{loc.max_hp:<3} armour {loc.natural + loc.worn}"
                 + (f"  {loc.wound}" if loc.wound else ""))
        echo_view(f"  holds: {', '.join(c.held) or 'nothing'}")
        for cond in c.conditions:
            echo_view(f"  - {cond_text(cond)}")


@app.command()
def initiative(
    ctx: typer.Context,
    stream: str = stream_argument(),
    round_no: Optional[int] = typer.Option(None, "--round", help="As at the end of this round."),
    as_json: bool = json_option(),
) -> None:
    """Initiative order and Action Points this round, with whose Turn it is.

    Example: combatlog cfi initiative duel
    """
    _meta, folded = read_state(ctx, stream, round_no=round_no)
    state = folded.state
    rows = [{"name": n, "initiative": state.combatants[n].initiative, "ap": state.combatants[n].ap,
             "turn": n == state.turn, "delaying": state.combatants[n].delaying} for n in state.order]
    if as_json:
        print_json({"round": state.round, "turn": state.turn, "order": rows})
        return
    echo_view(f"round {state.round}" + (f", {state.turn}'s Turn" if state.turn else ""))
    for r in rows:
        mark = ">" if r["turn"] else " "
        echo_view(f" {mark} {r['initiative']!s:>3}  {r['name']:<12} {r['ap']} AP" + ("  (delaying)" if r["delaying"] else ""))
