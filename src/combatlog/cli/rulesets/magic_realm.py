"""``combatlog mr ...``: a Magic Realm combat round by round (luring to fatigue).

The ruleset package is imported inside each command so start-up stays fast.
"""

from __future__ import annotations

from typing import Any, Optional

import typer

from combatlog.cli.common import (
    app_state, dice_scheme_option, echo_view, faces_option, json_option, print_json, read_state, run_command,
    state_completer, stream_argument,
)
from combatlog.cli.ride import after_decision, after_referee, before_referee
from combatlog.errors import InvalidCommand

app = typer.Typer(help="Magic Realm combat: lure, assign, deploy, act, target, play, resolve, fatigue.",
                  no_args_is_help=True)


# -- shell completion from the combat named on the line: characters, denizens and chits -----------


def _chit_choices(state: Any, typed: dict[str, Any], actions: tuple[str, ...] | None, statuses: tuple[str, ...] = ("active",),
                  asterisks: int | None = None) -> list[tuple[str, str]]:
    """The chits (and chit-like cards) of the character named on the line that may be played here
    (``actions`` None: any): (id, label) pairs, so that shells showing descriptions show the label."""
    char = state.characters.get(typed.get("character") or "")
    if char is None:
        return []
    return [(c.id, c.label) for c in (*char.chits, *char.extras)
            if (actions is None or c.action in actions) and c.status in statuses
            and (asterisks is None or c.asterisks == asterisks)]


_ACTION_CHITS = {"alert": ("FIGHT", "BERSERK", "GLOVES"), "run": ("MOVE", "BOOTS"), "fly": ("FLY",),
                 "cast": ("MAGIC",)}
_characters = state_completer(lambda state, _typed: state.characters)
_denizens = state_completer(lambda state, _typed: state.denizens)
_targets = state_completer(lambda state, _typed: [*state.characters, *state.denizens])
_move_chits = state_completer(lambda state, typed: _chit_choices(state, typed, ("MOVE", "DUCK")))
_action_chits = state_completer(  # what the kind of action plays, or any chit before the kind is typed
    lambda state, typed: _chit_choices(state, typed, _ACTION_CHITS.get(typed.get("kind") or "")))
_fight_chits = state_completer(lambda state, typed: _chit_choices(state, typed, ("FIGHT", "BERSERK")))
_maneuver_chits = state_completer(lambda state, typed: _chit_choices(state, typed, ("MOVE", "DUCK", "BOOTS")))
_fatigue_chits = state_completer(lambda state, typed: _chit_choices(state, typed, None))
_change_chits = state_completer(lambda state, typed: _chit_choices(state, typed, None, ("fatigued",), asterisks=1))
_wound_chits = state_completer(lambda state, typed: _chit_choices(state, typed, None, ("active", "fatigued")))

_DIRS = {"thrust": 1, "charge": 1, "swing": 2, "dodge": 2, "smash": 3, "duck": 3}


def _box(value: Optional[str], what: str) -> int:
    if not value:
        return 0
    v = value.strip().lower()
    if v in _DIRS:
        return _DIRS[v]
    if v in ("1", "2", "3"):
        return int(v)
    raise InvalidCommand(f"{what} {value!r}: use 1/2/3 or thrust|swing|smash (charge|dodge|duck)")


def _pairs(items: list[str], what: str, numeric: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise InvalidCommand(f"{what} {item!r}: expected KEY=VALUE")
        out[key] = _box(value, what) if numeric else value
    return out


@app.command()
def lure(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters, help="The character luring (or passing)."),
    denizens: list[str] = typer.Argument(None, autocompletion=_denizens,
                                         help="Denizens lured onto the character himself."),
    by: list[str] = typer.Option([], "--by", metavar="DENIZEN=HIRELING", help="A denizen lured by a hireling."),
    as_json: bool = json_option(),
) -> None:
    """Luring: assign unassigned denizens to yourself and one to each hireling (none = pass).

    Example: combatlog mr lure cave amazon giant --by goblin-1=lancer-1
    """
    from combatlog.rulesets.magic_realm.commands import Lure

    run_command(ctx, stream, Lure(character=character, denizens=tuple(denizens or ()),
                                  hirelings=_pairs(by, "--by")), as_json=as_json)
    after_decision(ctx, stream, as_json)


@app.command()
def assign(ctx: typer.Context, stream: str = stream_argument(), dice: Optional[str] = dice_scheme_option(),
           face: list[str] = faces_option(), as_json: bool = json_option()) -> None:
    """Random assignment of the denizens nobody lured (dice r<N>/assign/<denizen>).

    Example: combatlog mr assign cave --dice manual --face r1/assign/goblin-2=2
    """
    from combatlog.rulesets.magic_realm.commands import Assign

    if not dice and not face:
        before_referee(ctx, stream, Assign(), as_json)
    run_command(ctx, stream, Assign(), dice=dice, faces=face, as_json=as_json)


@app.command()
def deploy(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters, help="The character (a name in the combat)."),
    hireling: list[str] = typer.Option([], "--hireling", metavar="HIRELING=DENIZEN",
                                       help="Deploy an unassigned hireling against a denizen."),
    charge: str = typer.Option("", "--charge", autocompletion=_characters,
                               help="Charge another character in the clearing."),
    chit: str = typer.Option("", "--chit", autocompletion=_move_chits, help="The Move chit played to charge."),
    as_json: bool = json_option(),
) -> None:
    """Deployment: send unassigned hirelings against denizens, and/or charge (nothing = pass).

    Example: combatlog mr deploy cave amazon --hireling lancer-2=giant
    """
    from combatlog.rulesets.magic_realm.commands import Deploy

    run_command(ctx, stream, Deploy(character=character, hirelings=_pairs(hireling, "--hireling"), charge=charge,
                                    chit=chit), as_json=as_json)
    after_decision(ctx, stream, as_json)


@app.command()
def action(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters, help="The character (a name in the combat)."),
    kind: str = typer.Argument(..., help="none, alert, run, fly, cast, activate, deactivate or abandon."),
    chit: str = typer.Option("", "--chit", autocompletion=_action_chits,
                             help="The chit or card played (Fight chit or Gloves card to alert, Move "
                                                 "chit or Boots card to run, Fly chit to fly, Magic chit to cast)."),
    item: list[str] = typer.Option([], "--item", help="Item to activate, deactivate or abandon (repeatable); with cast: the Artifact or "
                                                       "Spell Book that casts the spell (completion time 0)."),
    spell: str = typer.Option("", "--spell", help="The spell cast."),
    horse: str = typer.Option("", "--horse", help="Run away on the horse: trot or gallop."),
    as_json: bool = json_option(),
) -> None:
    """Encounter Step action: alert a weapon, run or fly away, cast a spell, (de)activate or abandon items.

    Example: combatlog mr action cave bk alert --chit F2
    """
    from combatlog.rulesets.magic_realm.commands import Act

    run_command(ctx, stream, Act(character=character, kind=kind, chit=chit, items=tuple(item), spell=spell,
                                 horse=horse), as_json=as_json)
    after_decision(ctx, stream, as_json)


@app.command()
def melee(ctx: typer.Context, stream: str = stream_argument(), dice: Optional[str] = dice_scheme_option(),
          face: list[str] = faces_option(), as_json: bool = json_option()) -> None:
    """Start the Melee Step: native horses turn over, Attention chits are drawn (dice r<N>/attention/<k>).

    Example: combatlog mr melee cave --dice manual --face r1/attention/1=2
    """
    from combatlog.rulesets.magic_realm.commands import StartMelee

    if not dice and not face:
        before_referee(ctx, stream, StartMelee(), as_json)
    run_command(ctx, stream, StartMelee(), dice=dice, faces=face, as_json=as_json)
    after_referee(ctx, stream, as_json)


@app.command()
def target(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters, help="The character (a name in the combat)."),
    victim: str = typer.Argument("", autocompletion=_targets,
                                 help="His own target (omit to leave the Attention chit unplayed)."),
    hireling: list[str] = typer.Option([], "--hireling", metavar="HIRELING=TARGET",
                                       help="Target of a hireling defending its own sheet."),
    position: list[str] = typer.Option([], "--position", metavar="PIECE=1|2|3",
                                       help="Place a counter on a hireling's or denizen's sheet."),
    spell_target: list[str] = typer.Option([], "--spell-target", autocompletion=_targets,
                                           help="A target of his spell (repeatable; a Goblins or Bats target is "
                                                "filled in when omitted)."),
    as_json: bool = json_option(),
) -> None:
    """Target selection, in Attention-chit order, for the character and his hirelings.

    Example: combatlog mr target cave amazon giant --hireling lancer-1=goblin-1
    """
    from combatlog.rulesets.magic_realm.commands import Target

    run_command(ctx, stream, Target(character=character, target=victim, hirelings=_pairs(hireling, "--hireling"),
                                    positions=_pairs(position, "--position", numeric=True),
                                    spell_targets=tuple(spell_target)), as_json=as_json)
    after_decision(ctx, stream, as_json)


@app.command()
def play(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters, help="The character (a name in the combat)."),
    attack: str = typer.Option("", "--attack", help="Attack circle: thrust, swing or smash (or 1-3)."),
    fight: str = typer.Option("", "--fight", autocompletion=_fight_chits,
                              help="Fight chit (id like F3, or its label)."),
    alert_only: str = typer.Option("", "--alert-only", help="Fight chit without a target: alert or unalert."),
    maneuver: str = typer.Option("", "--maneuver", help="Maneuver square: charge, dodge or duck (or 1-3)."),
    move: str = typer.Option("", "--move", autocompletion=_maneuver_chits,
                             help="Move chit or Boots card (K1) for the maneuver."),
    horse: str = typer.Option("", "--horse", help="Maneuver with the horse: trot or gallop side."),
    shield: str = typer.Option("", "--shield", help="Red box the shield is played in (1-3 or a direction)."),
    place: list[str] = typer.Option([], "--place", metavar="COUNTER=BOX",
                                    help="Red box of a counter on his own sheet."),
    hireling_box: list[str] = typer.Option([], "--hireling-box", metavar="HIRELING=BOX",
                                           help="Red box of a hireling (or its horse) defending its own sheet."),
    part_attack: str = typer.Option("", "--part-attack", help="Transmorphized into a Tremendous monster: the "
                                                              "attack circle of its head or club (default: --attack)."),
    part_side: str = typer.Option("", "--part-side", help="Transmorphized: the side its head or club is played, "
                                                          "light (default) or dark."),
    seal: bool = typer.Option(False, "--seal", help="Combat with pinned players: commit these plays (only a "
                                                    "hash enters the log); reveal later with mr reveal."),
    anyway: bool = typer.Option(False, "--anyway", help="With --seal: seal even plays the reveal would cancel "
                                                        "(strength, effort limit...), as a deliberate choice."),
    as_json: bool = json_option(),
) -> None:
    """Secret plays: attack circle and Fight chit, maneuver square and Move chit or horse, shield, placement.

    With pinned players the plays are sealed (--seal) in step r<N>/plays and revealed with mr reveal once
    every side has sealed.

    Example: combatlog mr play cave bk --attack smash --fight F6 --maneuver dodge --move M3 --shield 1
    """
    from combatlog.rulesets.magic_realm.commands import Play

    command = Play(character=character, attack=_box(attack, "--attack"), fight=fight,
                   alert_only=alert_only, maneuver=_box(maneuver, "--maneuver"), move=move,
                   horse=horse, shield=_box(shield, "--shield"),
                   place=_pairs(place, "--place", numeric=True),
                   hirelings=_pairs(hireling_box, "--hireling-box", numeric=True),
                   part_attack=_box(part_attack, "--part-attack"), part_side=part_side)
    if not seal:
        if anyway:
            raise InvalidCommand("--anyway goes with --seal (a plain play is checked when it is made)")
        run_command(ctx, stream, command, as_json=as_json)
        return
    from combatlog.cli.seal import seal_orders
    from combatlog.rulesets.magic_realm.sealed import play_orders, step_name

    _meta, folded = read_state(ctx, stream)
    orders = {"plays": {character: play_orders(command)}}
    seal_orders(ctx, stream, step_name(folded.state), orders, anyway=anyway, as_json=as_json)
    after_decision(ctx, stream, as_json)


@app.command()
def reveal(ctx: typer.Context, stream: str = stream_argument(),
           step: str = typer.Option("", "--step", help="The sealed step (default: the only one awaiting you)."),
           as_json: bool = json_option()) -> None:
    """Reveal what you sealed (plays of step r<N>/plays, or a dice seed), once every required commit is in.

    Example: combatlog mr reveal cave --as alice
    """
    from combatlog.trust.commands import RevealOrders

    run_command(ctx, stream, RevealOrders(step=step), as_json=as_json)


@app.command()
def seed(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """Your contribution to the seed step the joint dice need next: r<N>/assign before the random
    assignment, r<N>/attention before the Attention chits (r<N>/assign#2 ... when needed again),
    r<N>/plays (empty plays) for a player with no character in the Melee Step.

    When every player has a nonce chain (docs/trust.md, "Nonce chains") this reveals your next link (or
    seals empty plays with it) in one message; otherwise it commits a nonce, revealed later with mr reveal.

    Example: combatlog mr seed cave --as bob
    """
    from combatlog.cli.ride import ensure_chain
    from combatlog.rulesets.magic_realm.sealed import seed_command

    ensure_chain(ctx, stream, as_json)
    _meta, folded = read_state(ctx, stream)
    run_command(ctx, stream, seed_command(folded.state), as_json=as_json)


@app.command()
def resolve(ctx: typer.Context, stream: str = stream_argument(), dice: Optional[str] = dice_scheme_option(),
            face: list[str] = faces_option(), as_json: bool = json_option()) -> None:
    """Reposition, change tactics, resolve attacks and harm (dice r<N>/reposition/..., r<N>/tactics/...,
    r<N>/missile/...).

    Example: combatlog mr resolve cave --dice manual --face r1/reposition/amazon=4 --face r1/tactics/amazon/box1=1,2
    """
    from combatlog.rulesets.magic_realm.commands import Resolve

    if not dice and not face:
        before_referee(ctx, stream, Resolve(), as_json)
    run_command(ctx, stream, Resolve(), dice=dice, faces=face, as_json=as_json)


@app.command()
def fatigue(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters, help="The character (a name in the combat)."),
    chit: list[str] = typer.Option([], "--chit", autocompletion=_fatigue_chits, help="A chit to fatigue (repeatable)."),
    change: str = typer.Option("", "--change", autocompletion=_change_chits,
                               help="A fatigued one-asterisk chit returned as change."),
    wound: list[str] = typer.Option([], "--wound", autocompletion=_wound_chits, help="A chit to wound (repeatable)."),
    as_json: bool = json_option(),
) -> None:
    """Fatigue Step: pay the asterisks owed (see `combatlog status` for the legal choices) and take wounds.

    Example: combatlog mr fatigue cave bk --chit F1
    """
    from combatlog.rulesets.magic_realm.commands import Fatigue

    run_command(ctx, stream, Fatigue(character=character, fatigue=tuple(chit), change=change, wounds=tuple(wound)),
                as_json=as_json)
    after_decision(ctx, stream, as_json)


@app.command("pass")
def pass_round(ctx: typer.Context, stream: str = stream_argument(),
               characters: list[str] = typer.Argument(None, autocompletion=_characters,
                                                      help="Where players are pinned: your characters who pass."),
               dice: Optional[str] = dice_scheme_option(), face: list[str] = faces_option(),
               as_json: bool = json_option()) -> None:
    """Every character passes the rest of the round when nobody uncontrolled is left to fight: deploy nobody,
    no action, the Attention chits, no target, no attack or maneuver, the resolution (each recorded as its own
    step). Where players are pinned, each player passes for his own characters, and the last of them passes
    the round; with joint dice, a seed step may come before the Attention chits, then mr pass (no character)
    takes the round's next steps.

    Example: combatlog mr pass cave (pinned players: combatlog mr pass cave bk --as alice)
    """
    from combatlog.rulesets.magic_realm.commands import Pass

    run_command(ctx, stream, Pass(characters=tuple(characters or ())), dice=dice, faces=face, as_json=as_json)


@app.command()
def concede(
    ctx: typer.Context,
    stream: str = stream_argument(),
    character: str = typer.Argument(..., autocompletion=_characters,
                                    help="The character held by a red-side-up Tremendous monster."),
    reason: str = typer.Option("no_chance", "--reason",
                               help="no_chance (nobody can kill the monster) or declined (the others decline to help)."),
    as_json: bool = json_option(),
) -> None:
    """Table ruling on the Elusive Cloak 'infinite loop' (MR 8.4.7): the held character is killed.

    Legal only while a red-side-up Tremendous monster holds the character and he has the Elusive Cloak.

    Example: combatlog mr concede cave bk --reason declined
    """
    from combatlog.rulesets.magic_realm.commands import Concede

    run_command(ctx, stream, Concede(character=character, reason=reason), as_json=as_json)


def _view(ctx: typer.Context, stream: str, round_no: Optional[int], key: str) -> dict[str, Any]:
    from combatlog.cli.views import viewer_of

    _meta, folded = read_state(ctx, stream, round_no=round_no)
    return folded.ruleset.describe(folded.state, viewer_of(app_state(ctx)))[key]  # type: ignore[no-any-return]


@app.command()
def sheets(ctx: typer.Context, stream: str = stream_argument(),
           round_no: Optional[int] = typer.Option(None, "--round", help="At the end of this round."),
           as_json: bool = json_option()) -> None:
    """The melee sheets: red boxes, attack circles, maneuver squares, who is where and which side is up.

    Example: combatlog mr sheets cave --round 2
    """
    if as_json:
        print_json(_view(ctx, stream, round_no, "sheets"))
        return
    from combatlog.cli.views import viewer_of
    from combatlog.rulesets.magic_realm.views import render_sheets

    _meta, folded = read_state(ctx, stream, round_no=round_no)
    echo_view(render_sheets(folded.state, viewer_of(app_state(ctx))))


@app.command()
def chits(ctx: typer.Context, stream: str = stream_argument(),
          round_no: Optional[int] = typer.Option(None, "--round", help="At the end of this round."),
          as_json: bool = json_option()) -> None:
    """Each character's fatigue state: active, fatigued and wounded chits, asterisks owed.

    Example: combatlog mr chits cave
    """
    data = _view(ctx, stream, round_no, "fatigue")
    if as_json:
        print_json(data)
        return
    for cid, f in data.items():
        echo_view(f"{cid}: {'alive' if f['alive'] else 'DEAD ' + f['death']}"
             f"{'' if f['in_clearing'] else ', not in the clearing'}")
        for k in ("active", "fatigued", "wounded"):
            echo_view(f"  {k:<9} {', '.join(f[k]) or '-'}")
        weapon = f.get("weapon")
        echo_view(f"  weapon    {weapon['name']}, weight {weapon['weight']}, {weapon['side']}: a Fight chit weaker than "
                  f"{weapon['weight']} is cancelled (MR 8.4.5)" if weapon else
                  "  weapon    none active (dagger): any Fight chit")
        if f.get("armor"):
            echo_view("  armor     " + ", ".join(f"{a['name']} ({a['kind']}, weight {a['weight']}, {a['condition']}"
                                                 f"{'' if a['active'] else ', inactive'})" for a in f["armor"]))
        if f.get("heaviest_item"):
            echo_view(f"  a Move chit (maneuver, run, charge) weaker than {f['heaviest_item']}, the heaviest item "
                      "carried, is cancelled (MR 8.4.5)")
        if f.get("shield_must_be_played"):
            echo_view(f"  the {f['shield_must_be_played']} is active: every play must put it in a box "
                      "(mr play ... --shield 1|2|3, MR 8.4.5)")
        if f.get("cards"):
            echo_view(f"  items     {', '.join(f['cards'])}")
        if f.get("transmorphized"):
            echo_view(f"  transmorphized into {f['transmorphized']}")
        echo_view(f"  asterisks owed {f['asterisks_owed']}, wounds to take {f['wounds_this_round']}")


@app.command()
def ledger(ctx: typer.Context, stream: str = stream_argument(), as_json: bool = json_option()) -> None:
    """The fame, notoriety and gold ledger: every bounty with its rule, and the totals.

    Example: combatlog mr ledger cave
    """
    data = _view(ctx, stream, None, "ledger")
    if as_json:
        print_json(data)
        return
    for e in data["entries"]:
        echo_view(f"round {e['round']}  {e['who']:<10} fame {e['fame']:>6}  notoriety {e['notoriety']:>6}  "
             f"gold {e['gold']:>6}  {e['why']} ({e['rule']})")
    echo_view("totals:")
    for cid, t in data["totals"].items():
        echo_view(f"  {cid:<10} fame {t['fame']}, notoriety {t['notoriety']}, gold {t['gold']}")
