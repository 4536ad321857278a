# Over 500 lines on purpose: one typer command per OSRIC command, each a few lines of options; the group is loaded as one.
"""``combatlog osric ...``: surprise, declarations, initiative, the segment timeline, attacks, spells."""

from __future__ import annotations

from typing import Any, Optional

import typer

from combatlog.cli.common import (
    add_resolve,
    app_state, dice_scheme_option, echo_view, faces_option, json_option, print_json, read_state, run_command,
    state_completer, stream_argument,
)
from combatlog.errors import InvalidCommand

app = typer.Typer(help="OSRIC combat: surprise, declarations, side initiative in segments, attacks, spells, morale.",
                  no_args_is_help=True)

# Shell completion of the combatants and sides of the combat named on the line.
_combatants = state_completer(lambda state, _typed: state.roster)
_sides = state_completer(lambda state, _typed: state.sides)


def _run(ctx: typer.Context, stream: str, command: Any, dice: Optional[str] = None, face: Optional[list[str]] = None,
         as_json: bool = False) -> None:
    run_command(ctx, stream, command, dice=dice, faces=face or [], as_json=as_json)


def _flags(rear: bool, flank: bool, higher: bool, sees: bool, cover: int, concealment: str) -> tuple[str, ...]:
    out = [name for name, on in (("rear", rear), ("flank", flank), ("higher", higher), ("sees-invisible", sees)) if on]
    if cover:
        out.append(f"cover:{cover}")
    if concealment:
        out.append(f"concealment:{concealment}")
    return tuple(out)


REAR = typer.Option(False, "--rear", help="From directly behind: +2, no shield or Dex.")
FLANK = typer.Option(False, "--flank", help="From the unshielded flank: no shield.")
HIGHER = typer.Option(False, "--higher", help="Monster with a height advantage: +1 attack level.")
SEES = typer.Option(False, "--sees-invisible", help="The attacker perceives an invisible target (no -4).")
COVER = typer.Option(0, "--cover", help="Target's cover in percent: 25, 50, 75 or 90.")
CONCEAL = typer.Option("", "--concealment", help="quarter, half, three-quarters or nine-tenths.")
MOD = typer.Option(0, "--mod", help="Referee's adjustment to the roll, -100 to 100 (say why with --reason).")
REASON = typer.Option("", "--reason")
SEGMENT = typer.Option(0, "--segment", help="Act in this segment (default: the earliest allowed).")
WHO = typer.Argument(..., autocompletion=_combatants, help="The combatant (a name in the combat).")
TARGET = typer.Argument(..., autocompletion=_combatants, help="The other combatant (a name in the combat).")


@app.command()
def surprise(
    ctx: typer.Context, stream: str = stream_argument(),
    alert: list[str] = typer.Option([], "--alert", autocompletion=_sides,
                                    help="A side already alerted: it does not roll (repeatable)."),
    dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(), as_json: bool = json_option(),
) -> None:
    """Check surprise: d6 per side (dice surprise/SIDE); 1-2 surprised for that many segments.

    Example: combatlog osric surprise ford --dice manual --face surprise/party=4 --face surprise/orcs=2
    """
    from combatlog.rulesets.osric.commands import CheckSurprise

    _run(ctx, stream, CheckSurprise(alert=tuple(alert)), dice, face, as_json)


@app.command()
def segment(ctx: typer.Context, stream: str = stream_argument(),
            number: int = typer.Argument(..., help="The segment to move the timeline to."),
            end: bool = typer.Option(False, "--end", help="To the end of that segment, after its actions."),
            as_json: bool = json_option()) -> None:
    """Move the timeline on to a segment (next surprise segment; let a spell go off before its effects).

    Example: combatlog osric segment ford 3 --end
    """
    from combatlog.rulesets.osric.commands import ReachSegment

    _run(ctx, stream, ReachSegment(segment=number, end=end), as_json=as_json)


@app.command("round")
def start_round(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Start the next round (ending the open round or the surprise segments).

    Example: combatlog osric round ford
    """
    from combatlog.rulesets.osric.commands import StartRound

    _run(ctx, stream, StartRound(), as_json=as_json)


@app.command("end-round")
def end_round(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """End the round: spells due go off, the unconscious bleed.

    Example: combatlog osric end-round ford
    """
    from combatlog.rulesets.osric.commands import EndRound

    _run(ctx, stream, EndRound(), as_json=as_json)


@app.command()
def declare(
    ctx: typer.Context, stream: str = stream_argument(),
    side: str = typer.Argument(..., autocompletion=_sides, help="The side declaring."),
    entries: list[str] = typer.Argument(None, help="WHO=ACTION[:ARG][@TARGET], e.g. Brom=melee, "
                                                   "Halvaine=spell:sleep:1, Ael=missile:long bow@orc2"),
    rest: str = typer.Option("", "--rest", help="Action for every able member not listed (e.g. melee)."),
    seal: bool = typer.Option(False, "--seal", help="With pinned players: commit them to step rN/declare (only "
                                                    "a hash enters the log); reveal later with osric reveal."),
    anyway: bool = typer.Option(False, "--anyway", help="With --seal: seal even declarations the rules would "
                                                        "refuse later (named with their rule), as a deliberate choice."),
    as_json: bool = json_option(),
) -> None:
    """Declare a side's spells and general actions before initiative (one event per side).

    Actions: melee missile charge close retreat flee parry hold set unarmed grapple overbear
    spell:NAME:SEGMENTS negotiate none other:TEXT (continue is automatic for a spell still being cast).
    In a combat with pinned players the side's caller seals them (--seal) and reveals them once every
    required commit is in (osric reveal).

    Example: combatlog osric declare ford party Brom=melee Halvaine=spell:sleep:1 "Ael=missile:long bow"
    """
    from combatlog.rulesets.osric.commands import Declare, parse_declaration

    decls = tuple(parse_declaration(x) for x in entries or [])
    if not seal:
        if anyway:
            raise InvalidCommand("--anyway goes with --seal (a plain declaration is checked when it is made)")
        _run(ctx, stream, Declare(side=side, declarations=decls, rest=rest), as_json=as_json)
        return
    from combatlog.cli.seal import seal_orders
    from combatlog.errors import IllegalCommand
    from combatlog.rulesets.osric.declare import orders_for, raw_orders, step_name

    _meta, folded = read_state(ctx, stream)
    try:
        orders = orders_for(folded.state, side, decls, rest)
    except IllegalCommand:  # the check before sealing names every problem with its rule (and --anyway)
        orders = raw_orders(side, decls, rest)
    seal_orders(ctx, stream, step_name(folded.state.round), orders, anyway=anyway, as_json=as_json)


def _sealed(ctx: typer.Context, stream: str, make: Any, as_json: bool) -> None:
    """Run ``make(state, step)`` for this round's sealed declaration step (rN/declare)."""
    from combatlog.rulesets.osric.declare import step_name

    _meta, folded = read_state(ctx, stream)
    _run(ctx, stream, make(folded.state, step_name(folded.state.round)), as_json=as_json)


@app.command()
def reveal(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Reveal your sealed declarations (step rN/declare) once every required commit is in the log.

    Example: combatlog osric reveal ford --as alice
    """
    from combatlog.trust.api import RevealOrders

    _sealed(ctx, stream, lambda _s, step: RevealOrders(step=step), as_json)


@app.command()
def seed(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Joint dice: commit a nonce (empty orders) to step rN/declare, for a pinned player who declares for
    no side (a referee); reveal it with osric reveal.

    Example: combatlog osric seed ford --as gm
    """
    from combatlog.trust.api import CommitOrders

    _sealed(ctx, stream, lambda _s, step: CommitOrders(step=step), as_json)


@app.command()
def initiative(ctx: typer.Context, stream: str = stream_argument(), dice: Optional[str] = dice_scheme_option(),
               face: list[str] = faces_option(), as_json: bool = json_option()) -> None:
    """Roll initiative: d6 per side (dice rN/initiative/SIDE); each roll is the segment the OTHER side acts in.

    Example: combatlog osric initiative ford --dice manual --face r1/initiative/party=6 --face r1/initiative/orcs=1
    """
    from combatlog.rulesets.osric.commands import RollInitiative

    _run(ctx, stream, RollInitiative(), dice, face, as_json)


@app.command()
def attack(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    target: str = typer.Option("", "--target", autocompletion=_combatants,
                               help="The opponent attacked. Option melee_target=random (default): only with one "
                                    "opponent engaged, else the target is random. melee_target=declared: default "
                                    "the declared target (WHO=melee@TARGET); another engaged opponent may be named."),
    weapon: str = typer.Option("", "--weapon", help="Weapon, monster attack form, or 'unarmed'."),
    offhand: str = typer.Option("", "--offhand", help="Two-weapon fighting: the off-hand dagger or hand axe."),
    rear: bool = REAR, flank: bool = FLANK, higher: bool = HIGHER, sees: bool = SEES, cover: int = COVER,
    concealment: str = CONCEAL, mod: int = MOD, reason: str = REASON, segment: int = SEGMENT,
    dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(), as_json: bool = json_option(),
) -> None:
    """A melee attack routine (dice rN/WHO/atkK, rN/WHO/atkK/dmg on a hit, rN/WHO/atkK/target if random).

    Example: combatlog osric attack ford Brom --dice manual --face r1/Brom/atk1=14 --face r1/Brom/atk1/dmg=6
    """
    from combatlog.rulesets.osric.commands import Attack

    cmd = Attack(who=who, target=target, weapon=weapon, offhand=offhand, mod=mod, reason=reason, segment=segment,
                 flags=_flags(rear, flank, higher, sees, cover, concealment))
    _run(ctx, stream, cmd, dice, face, as_json)


@app.command()
def shoot(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    target: str = typer.Argument(..., autocompletion=_combatants,
                                 help="The intended target; into a melee the target is random."),
    weapon: str = typer.Option("", "--weapon"), range_ft: int = typer.Option(0, "--range", help="Distance in feet (0-9999)."),
    rear: bool = REAR, flank: bool = FLANK, sees: bool = SEES, cover: int = COVER, concealment: str = CONCEAL,
    mod: int = MOD, reason: str = REASON, segment: int = SEGMENT,
    dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(), as_json: bool = json_option(),
) -> None:
    """Fire or throw a missile (one shot; the rate of fire limits shots a round).

    Example: combatlog osric shoot ford Ael orc2 --range 60 --dice manual --face r1/Ael/atk1=12
    """
    from combatlog.rulesets.osric.commands import Shoot

    cmd = Shoot(who=who, target=target, weapon=weapon, range=range_ft, mod=mod, reason=reason, segment=segment,
                flags=_flags(rear, flank, False, sees, cover, concealment))
    _run(ctx, stream, cmd, dice, face, as_json)


@app.command()
def cast(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    spell: str = typer.Option("", "--spell", help="In a surprise segment: the one-segment spell begun."),
    segments: int = typer.Option(0, "--segments", help="In a surprise segment: its casting time (1)."),
    segment: int = SEGMENT, as_json: bool = json_option(),
) -> None:
    """Begin casting the declared spell in the caster's initiative segment.

    Example: combatlog osric cast ford Halvaine
    """
    from combatlog.rulesets.osric.commands import Cast

    _run(ctx, stream, Cast(who=who, spell=spell, casting=segments, segment=segment), as_json=as_json)


@app.command()
def decline(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
            as_json: bool = json_option()) -> None:
    """A caster declines to cast (or to finish) the declared spell; no other action this round.

    Example: combatlog osric decline ford Halvaine
    """
    from combatlog.rulesets.osric.commands import Decline

    _run(ctx, stream, Decline(who=who), as_json=as_json)


@app.command()
def charge(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    target: str = TARGET, weapon: str = typer.Option("", "--weapon"),
    mounted_lance: bool = typer.Option(False, "--mounted-lance", help="Lance from a charging warhorse: double dice."),
    overbear: bool = typer.Option(False, "--overbear", help="Overbear at the end of the charge (target prone)."),
    as_grapple: bool = typer.Option(False, "--as-grapple", help="Referee: the overbear fails; resolve as a grapple."),
    defender_longer: bool = typer.Option(False, "--defender-longer", help="The defender's weapon is longer: "
                                                                         "it strikes first if it has not acted."),
    rear: bool = REAR, flank: bool = FLANK, higher: bool = HIGHER, mod: int = MOD, segment: int = SEGMENT,
    dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(), as_json: bool = json_option(),
) -> None:
    """Charge: move and attack at +2; a set weapon (double damage) or a longer one strikes first.

    Example: combatlog osric charge ford orc3 Brom --dice manual --face r1/Brom/atk1=15 --face r1/Brom/atk1/dmg=4 --face r1/orc3/atk1=9
    """
    from combatlog.rulesets.osric.commands import Charge

    cmd = Charge(who=who, target=target, weapon=weapon, mounted_lance=mounted_lance, overbear=overbear,
                 as_grapple=as_grapple, defender_longer=defender_longer, mod=mod, segment=segment,
                 flags=_flags(rear, flank, higher, False, 0, ""))
    _run(ctx, stream, cmd, dice, face, as_json)


@app.command("close")
def close_in(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
             target: str = TARGET, segment: int = SEGMENT, as_json: bool = json_option()) -> None:
    """Close into melee without attacking; the opponent cannot attack the closer until next round.

    Example: combatlog osric close ford Brom orc2
    """
    from combatlog.rulesets.osric.commands import Close

    _run(ctx, stream, Close(who=who, target=target, segment=segment), as_json=as_json)


@app.command()
def retreat(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
            segment: int = SEGMENT, as_json: bool = json_option()) -> None:
    """Fighting retreat out of melee (parrying, not attacking).

    Example: combatlog osric retreat ford Halvaine
    """
    from combatlog.rulesets.osric.commands import Retreat

    _run(ctx, stream, Retreat(who=who, segment=segment), as_json=as_json)


@app.command()
def flee(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    skip: list[str] = typer.Option([], "--skip", autocompletion=_combatants,
                                   help="An opponent who forgoes the free attack (repeatable)."),
    segment: int = SEGMENT, dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Flee from melee: each engaged opponent gets an immediate attack at +4.

    Example: combatlog osric flee ford orc2 --dice manual --face r2/Brom/atk2=11
    """
    from combatlog.rulesets.osric.commands import Flee

    _run(ctx, stream, Flee(who=who, skip=tuple(skip), segment=segment), dice, face, as_json)


@app.command()
def grapple(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    target: str = typer.Option("", "--target", autocompletion=_combatants),
    rear: bool = REAR, flank: bool = FLANK, mod: int = MOD,
    segment: int = SEGMENT, dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Grapple: 1d2-1 damage and the target is restrained.

    Example: combatlog osric grapple ford Brom --dice manual --face r1/Brom/atk1=13 --face r1/Brom/atk1/dmg=2
    """
    from combatlog.rulesets.osric.commands import Grapple

    cmd = Grapple(who=who, target=target, mod=mod, segment=segment, flags=_flags(rear, flank, False, False, 0, ""))
    _run(ctx, stream, cmd, dice, face, as_json)


@app.command()
def engage(ctx: typer.Context, stream: str = stream_argument(), a: str = WHO, b: str = TARGET,
           off: bool = typer.Option(False, "--off", help="They are no longer engaged."),
           reason: str = REASON, as_json: bool = json_option()) -> None:
    """Referee's ruling on positions: two opponents are (or are no longer) within 10 ft.

    Example: combatlog osric engage ford orc1 Brom --reason "the orcs reach the ford"
    """
    from combatlog.rulesets.osric.commands import Engage

    _run(ctx, stream, Engage(a=a, b=b, off=off, reason=reason), as_json=as_json)


def _hp(ctx: typer.Context, stream: str, who: str, amount: str, source: str, label: str, heal: bool,
        dice: Optional[str], face: list[str], as_json: bool) -> None:
    from combatlog.rulesets.osric.commands import Damage, Heal

    cls = Heal if heal else Damage
    _run(ctx, stream, cls(who=who, amount=amount, source=source, label=label), dice, face, as_json)


@app.command()
def damage(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    amount: str = typer.Argument(..., help="A number (1-99999) or dice, e.g. 1d4+1."),
    source: str = typer.Option("", "--source", help="What did it, e.g. 'magic missile (Halvaine)'."),
    label: str = typer.Option("", "--label", help="Dice label (default rN/damage/WHO; refused with joint dice)."),
    dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(), as_json: bool = json_option(),
) -> None:
    """Damage not from an attack roll (a spell's effect, a fall).

    Example: combatlog osric damage ford orc2 1d4+1 --source "magic missile" --dice manual --face r1/damage/orc2=3
    """
    _hp(ctx, stream, who, amount, source, label, False, dice, face, as_json)


@app.command()
def heal(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    amount: str = typer.Argument(..., help="A number (1-99999) or dice, e.g. 1d8."), source: str = typer.Option("", "--source"),
    label: str = typer.Option("", "--label", help="Dice label (default rN/heal/WHO; refused with joint dice)."),
    dice: Optional[str] = dice_scheme_option(),
    face: list[str] = faces_option(), as_json: bool = json_option(),
) -> None:
    """Restore hit points.

    Example: combatlog osric heal ford Brom 1d8 --source "cure light wounds"
    """
    _hp(ctx, stream, who, amount, source, label, True, dice, face, as_json)


@app.command()
def condition(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
              name: str = typer.Argument(..., help="prone, stunned, sleeping, invisible, hasted or held."),
              off: bool = typer.Option(False, "--off"), reason: str = REASON, as_json: bool = json_option()) -> None:
    """Give or remove a condition (prone and stunned +4 to hit them; invisible -4; sleeping, held cannot act).

    Example: combatlog osric condition ford orc3 sleeping --reason "sleep spell"
    """
    from combatlog.rulesets.osric.commands import SetCondition

    _run(ctx, stream, SetCondition(who=who, condition=name, present=not off, reason=reason), as_json=as_json)


@app.command()
def aid(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
        by: Optional[str] = typer.Option(None, "--by", autocompletion=_combatants), as_json: bool = json_option()) -> None:
    """Aid a combatant at 0 hp or below: the bleeding stops.

    Example: combatlog osric aid ford Brom --by Halvaine
    """
    from combatlog.cli.common import refuse_blank
    from combatlog.rulesets.osric.commands import Aid

    refuse_blank(by, "--by", "who gives the aid")
    _run(ctx, stream, Aid(who=who, by=by or ""), as_json=as_json)


@app.command()
def morale(
    ctx: typer.Context, stream: str = stream_argument(),
    who: list[str] = typer.Argument(..., autocompletion=_combatants, help="The combatants who check morale."),
    modifier: int = typer.Option(0, "--modifier", help="Percent from the morale modifier table (-100 to 100)."),
    reason: str = REASON, dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Monster morale: d100 (rN/morale/WHO) against 50% + 5% per HD, adjusted.

    Example: combatlog osric morale ford orc2 orc3 --modifier -10 --reason "leader slain"
    """
    from combatlog.rulesets.osric.commands import Morale

    _run(ctx, stream, Morale(who=tuple(who), modifier=modifier, reason=reason), dice, face, as_json)


@app.command()
def negotiate(ctx: typer.Context, stream: str = stream_argument(),
              by: str = typer.Option(..., "--by", autocompletion=_combatants, help="Who speaks."),
              outcome: str = typer.Option(..., "--outcome"),
              ends: bool = typer.Option(False, "--ends", help="The negotiation ends the combat."),
              as_json: bool = json_option()) -> None:
    """Log a negotiation and its outcome (it may end the combat).

    Example: combatlog osric negotiate ford --by Halvaine --outcome "the orcs take the toll and go" --ends
    """
    from combatlog.rulesets.osric.commands import Negotiate

    _run(ctx, stream, Negotiate(by=by, outcome=outcome, ends=ends), as_json=as_json)


@app.command()
def act(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
        text: str = typer.Argument(..., help="What is done, in words."), segment: int = SEGMENT,
        as_json: bool = json_option()) -> None:
    """Record a general action with no mechanics here (climbing, shouting, drinking a potion).

    Example: combatlog osric act ford Ael "climbs onto the cart"
    """
    from combatlog.rulesets.osric.commands import NoteAction

    _run(ctx, stream, NoteAction(who=who, text=text, segment=segment), as_json=as_json)


@app.command("break-free")
def break_free(ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
               reason: str = REASON, as_json: bool = json_option()) -> None:
    """Referee's ruling (comparing strengths) that a grappled combatant breaks free.

    Example: combatlog osric break-free ford orc1 --reason "the ogre lets go"
    """
    from combatlog.rulesets.osric.commands import BreakGrapple

    _run(ctx, stream, BreakGrapple(who=who, reason=reason), as_json=as_json)


@app.command()
def assassinate(
    ctx: typer.Context, stream: str = stream_argument(), who: str = WHO,
    target: str = TARGET, chance: int = typer.Option(..., "--chance", help="Percent from the "
                                                                  "assassination table."),
    segment: int = SEGMENT, dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(),
    as_json: bool = json_option(),
) -> None:
    """Strike a sleeping opponent with an assassin's chance to kill (d100 rN/WHO/assassinate).

    Example: combatlog osric assassinate ford Ael orc3 --chance 50 --dice manual --face r2/Ael/assassinate=31
    """
    from combatlog.rulesets.osric.commands import Assassinate

    _run(ctx, stream, Assassinate(who=who, target=target, chance=chance, segment=segment), dice, face, as_json)


add_resolve(app, 'combatlog seal link ford --step r1#2, then: combatlog osric resolve ford')


@app.command("end")
def end_combat(ctx: typer.Context, stream: str = stream_argument(), outcome: str = typer.Option("", "--outcome"),
               as_json: bool = json_option()) -> None:
    """End the combat.

    Example: combatlog osric end ford --outcome "the orcs are routed"
    """
    from combatlog.rulesets.osric.commands import EndCombat

    _run(ctx, stream, EndCombat(outcome=outcome), as_json=as_json)


@app.command()
def timeline(ctx: typer.Context, stream: str = stream_argument(),
             round_no: Optional[int] = typer.Option(None, "--round", help="Only this round (0: surprise)."),
             as_json: bool = json_option()) -> None:
    """The segment timeline of each round, with rules and dice.

    Example: combatlog osric timeline ford --round 1
    """
    from combatlog.cli.views import viewer_of
    from combatlog.rulesets.osric.views import render, timeline as tl

    _meta, folded = read_state(ctx, stream)
    viewer = viewer_of(app_state(ctx))
    if as_json:
        print_json({"stream": stream, "timeline": tl(folded.state, round_no, viewer)})
        return
    echo_view(render(folded.state, viewer, rules=True, round_no=round_no))


@app.command()
def table(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """The combatants: hp, AC, status, conditions, engagement, casting.

    Example: combatlog osric table ford
    """
    from combatlog.cli.views import viewer_of
    from combatlog.rulesets.osric.views import combatant_rows, render_table

    _meta, folded = read_state(ctx, stream)
    viewer = viewer_of(app_state(ctx))
    if as_json:
        print_json({"stream": stream, "combatants": combatant_rows(folded.state, viewer)})
        return
    echo_view(render_table(folded.state, viewer))


@app.command()
def weapons(as_json: bool = json_option()) -> None:
    """The weapons known to the ruleset (OSRIC Master and Missile Weapon Tables).

    Example: combatlog osric weapons
    """
    from combatlog.rulesets.osric.views import weapon_rows, weapons_text

    if as_json:
        print_json(weapon_rows())
        return
    echo_view(weapons_text())
