"""Pure rule derivations shared by ``decide`` (to know which dice to ask for) and ``evolve``.

Timing (segments from initiative, missile bonus, held actions, extra routines)
and one attack's arithmetic (matrix, modifiers, armour class, damage).
"""

from __future__ import annotations

import msgspec

from combatlog.dice.notation import parse_dice
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.osric import tables as t
from combatlog.rulesets.osric.events import AttackRolled
from combatlog.rulesets.osric.setup import Combatant
from combatlog.rulesets.osric.state import END, LATE, NORMAL, OsricState, segment_of, tick

INITIATIVE = "OSRIC Combat: Determine Initiative"
MISSILE_INIT = "OSRIC Combat: Determine Initiative (missile bonus)"
ROUTINES = "OSRIC Combat: Determine Initiative (multiple attack routines)"
HOLD = "OSRIC Combat: Hold Initiative"
FIRST_ACTS = "OSRIC Combat: First Party Acts"
SPELLS = "OSRIC Combat: Spells"
MELEE = "OSRIC Combat: Melee Attack"
MISSILES = "OSRIC Combat: Missile Attacks"
DEATH = "OSRIC Combat: Damage and Death"
MORALE = "OSRIC Combat: Morale"
CHARGE = "OSRIC Combat: Charge"
SET = "OSRIC Combat: Set Weapon Against Charge"
# The seed says a set weapon "deals double damage" without saying what is doubled; its mounted lance rule
# doubles "only the weapon damage" (Strength, magic etc. not doubled). Decision: the set weapon is read the
# same way, and the citation of the damage step says so, with the arithmetic.
SET_DOUBLED = (SET + " (read as for a mounted lance: only the weapon dice are doubled, then Strength, magic "
               "and specialisation are added undoubled: 6 doubled to 12 +1 = 13)")
LANCE_DOUBLED = (CHARGE + " (mounted lance: only the weapon dice are doubled, then Strength, magic and "
                 "specialisation are added undoubled: 6 doubled to 12 +1 = 13)")
FLEE = "OSRIC Combat: Fleeing from Combat"
PARRY = "OSRIC Combat: Parrying"
TWO = "OSRIC Combat: Two-Weapon Fighting"
UNARMED = "OSRIC Combat: Unarmed Combat"
GRAPPLE = "OSRIC Combat: Grappling Attack"
OVERBEAR = "OSRIC Combat: Overbearing Attack"
CONCEAL = "OSRIC Combat: Concealment"
COVER = "OSRIC Combat: Cover"
FLANK = "OSRIC Combat: Flank Attack (Unshielded Flank)"
INVISIBLE = "OSRIC Combat: Invisible Opponent"
PRONE = "OSRIC Combat: Prone Opponent"
REAR = "OSRIC Combat: Rear Attack"
STUNNED = "OSRIC Combat: Stunned Opponent"
SHIELD = "OSRIC Combat: Armour Class (shield against 1/2/3 attackers)"
SPECIALISED = "OSRIC Combat: Attacks per Round (specialisation)"
REFEREE = "OSRIC Combat: referee's adjustment"

MELEE_KINDS = ("melee", "charge", "counter", "free", "grapple", "overbear")
COVER_AC = {"25": 2, "50": 4, "75": 7, "90": 10}
CONCEALMENT_AC = {"quarter": 1, "half": 2, "three-quarters": 3, "nine-tenths": 4}
_WHY = {"rear": REAR, "flank": FLANK, "prone": PRONE, "stunned": STUNNED, "casting": SPELLS}
FLAGS = ("rear", "flank", "higher", "sees-invisible", "set", "double", "two-weapon", "as-grapple")


# -- timing -------------------------------------------------------------------------------


def missile_bonus(state: OsricState, c: Combatant) -> int:
    """OSRIC Combat: Determine Initiative: a missile user adds the missile bonus to initiative.

    Decision: the bonus is the Dex missile adjustment (option missile_initiative:
    signed keeps penalties, bonus_only ignores them).
    """
    bonus = c.dex_missile
    return max(0, bonus) if state.options.get("missile_initiative") == "bonus_only" else bonus


def own_segment(state: OsricState, name: str) -> int:
    """OSRIC Combat: Determine Initiative: a side acts in the segment the other side rolled.

    A declared missile user's initiative is raised by the missile bonus, so he acts
    earlier by that many segments (1..10): with the higher effective roll he beats the
    other side, with an equal one he acts with it. Decision: documented in docs/osric.md.
    """
    c = state.roster[name]
    seg = state.initiative[state.other_side(c.side)]
    decl = state.declaration(name)
    if decl is not None and decl.action == "missile":
        seg = min(10, max(1, seg - missile_bonus(state, c)))
    return seg


def other_segment(state: OsricState, name: str) -> int:
    """The segment the opposing side acts in (the roll of ``name``'s own side)."""
    return state.initiative[state.roster[name].side]


def earliest_tick(state: OsricState, name: str, routine: int) -> int:
    """When ``name`` may act with its ``routine``-th routine this round.

    OSRIC Combat: Hold Initiative: a held action waits for the other side's segment.
    OSRIC Combat: Determine Initiative: extra routines only after the other side's segment.
    In the surprise segments every unsurprised combatant acts in the current segment.
    """
    if state.round == 0:
        return state.cursor
    t0 = tick(state.round, own_segment(state, name))
    decl = state.declaration(name)
    if (decl is not None and decl.action == "hold") or routine >= 2:
        t0 = max(t0, tick(state.round, other_segment(state, name), LATE))
    if routine >= 2:
        t0 = max(t0, state.live[name].first_routine_tick)
    return t0


# Declared actions that take place in the declarer's initiative segment (parry, set, none, hold,
# continue and negotiate do not: they wait, react, or happen outside the segment timeline).
SEGMENT_ACTIONS = ("melee", "missile", "charge", "close", "retreat", "flee", "unarmed", "grapple", "overbear",
                   "spell", "other")


def still_due(state: OsricState, name: str) -> bool:
    """Has ``name`` still to take its declared action in its own initiative segment this round?

    Due: a declared action that takes place in the segment (SEGMENT_ACTIONS), not yet taken (an
    attack, a move, a spell begun or declined), by a member who can still act there: on its feet,
    not restrained, asleep or held, not making a morale withdrawal, or struck down in that very
    segment (a tie: its simultaneous blow still lands). Decision: members who hold, parry, set a
    weapon, negotiate, continue a spell or do nothing are not waited for.
    """
    d = state.declaration(name)
    if d is None or d.action not in SEGMENT_ACTIONS:
        return False
    live = state.live[name]
    own = tick(state.round, own_segment(state, name))
    able = (state.standing(name) and not live.restrained_by and live.morale != "withdraw"
            and not any(x in live.conditions for x in ("sleeping", "held")))
    # Struck down in its own segment, it still acts then; but a flight cut down (OSRIC Combat: Fleeing
    # from Combat, the free attacks strike as it turns to run) has been tried, and ends there.
    simultaneous = not live.out and live.disabled_at == own and d.action != "flee"
    cast = live.casting
    done = (live.acted_tick >= tick(state.round, 1) or live.routines > 0
            or (cast is not None and cast.round == state.round))  # begun or declined this round
    return (able or simultaneous) and not done


def unresolved_segment(state: OsricState, name: str) -> tuple[int, list[str]]:
    """OSRIC Combat: Determine Initiative: an extra attack routine "cannot be used until after the
    opposing side's initiative segment has been resolved". Returns that segment and the members of
    the opposing side still due to act in it (empty once it is resolved).

    The segment is resolved when the timeline has moved past its simultaneous actions, or when
    every opposing member whose declared action falls in it has acted (or can no longer act:
    ``still_due``).
    """
    if state.round == 0 or state.phase != "round" or not state.initiative:
        return 0, []
    seg = other_segment(state, name)
    if state.cursor >= tick(state.round, seg, LATE):
        return seg, []
    other = state.other_side(state.roster[name].side)
    due = [d.who for d in state.declared.get(other, ())
           if own_segment(state, d.who) == seg and still_due(state, d.who)]
    return seg, sorted(due)


def due_before(state: OsricState, at: int, but: str = "") -> tuple[int, list[str]]:
    """OSRIC Combat: First Party Acts / Second Party Acts: the earliest segment before tick ``at``
    whose declared actions are still due (those members), or (0, []) when none is.

    The side that won initiative acts first, then the other: an action in a later segment waits
    until every earlier segment's actions are taken, or the timeline is moved past them. Only
    actions the timeline has not passed count (a passed one can no longer be taken).
    """
    if state.round == 0 or state.phase != "round" or not state.initiative:
        return 0, []
    waiting: dict[int, list[str]] = {}
    for side in state.sides:
        for d in state.declared.get(side, ()):
            when = tick(state.round, own_segment(state, d.who))
            if d.who != but and state.cursor <= when < at and still_due(state, d.who):
                waiting.setdefault(own_segment(state, d.who), []).append(d.who)
    if not waiting:
        return 0, []
    first = min(waiting)
    return first, sorted(waiting[first])


def passed_by(state: OsricState, until: int | None) -> list[str]:
    """Who would lose an action still open to them if the timeline moved to tick ``until`` (None: the end of the
    round): in a round, those whose declared action is due before it (``still_due``); in a surprise segment,
    the unsurprised who have not acted in it yet ("every unsurprised combatant acts in the current segment").
    commands/authority: only their players, or the referee, may move the timeline past them."""
    if state.phase == "surprise":
        seg = segment_of(state.cursor, 0)
        return sorted(n for n in state.roster if state.surprised.get(n, 0) < seg and state.standing(n)
                      and state.live[n].routines == 0)
    if state.phase != "round" or not state.initiative:
        return []
    return sorted(d.who for side in state.sides for d in state.declared.get(side, ())
                  if state.cursor <= tick(state.round, own_segment(state, d.who)) < (until or 2**62)
                  and still_due(state, d.who))


def spell_ticks(state: OsricState, start: int, casting: int) -> int:
    """OSRIC Combat: Spells: the tick a spell begun at ``start`` goes off.

    first_segment: the starting segment is the first casting segment, so a spell
    of T segments goes off at the end of segment start+T-1. halvaine: the seed's
    worked example, start + T (begun in 4, a 2-segment spell goes off in 6),
    simultaneously with that segment's other actions. In both readings damage
    taken before that tick loses the spell.
    """
    if state.options.get("spell_timing") == "halvaine":
        return start + casting * 4 + NORMAL
    return start + (casting - 1) * 4 + END


# -- one attack ------------------------------------------------------------------------------


class Form(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    dice_sm: str
    dice_l: str
    magic: int = 0
    missile: bool = False
    hurled: bool = False
    weapon: t.WeaponData | None = None


def attack_form(c: Combatant, form: str, kind: str) -> Form:
    """The damage dice of a weapon or attack form (OSRIC Combat: Weapon Damage)."""
    if kind in ("grapple", "overbear"):
        return Form(name=form, dice_sm="1d2-1", dice_l="1d2-1")
    for a in c.attacks:
        if a.name == form:
            if a.weapon:
                w = t.weapon(a.weapon)
                if w.melee is None:
                    raise InvalidCommand(f"{c.name}'s {form} ({a.weapon}) is not a melee weapon")
                return Form(name=form, dice_sm=w.melee[0], dice_l=w.melee[1], magic=a.magic, weapon=w)
            return Form(name=form, dice_sm=a.damage, dice_l=a.damage_large or a.damage)
    if form == "unarmed":
        return Form(name="unarmed", dice_sm="1d2", dice_l="1d2", weapon=t.UNARMED)
    ref = next((w for w in c.weapons if w.name == form), None)
    if ref is None:
        carried = ", ".join([w.name for w in c.weapons] + [a.name for a in c.attacks]) or "nothing"
        raise InvalidCommand(f"{c.name} has no weapon or attack {form!r} (has: {carried}; or unarmed)")
    w = t.weapon(ref.name)
    if kind == "missile":
        m = w.missile or w.thrown
        if m is None:
            raise IllegalCommand(f"{form} is not a missile or throwing weapon", rule=MISSILES)
        return Form(name=form, dice_sm=m.damage[0], dice_l=m.damage[1], magic=ref.magic, missile=True,
                    hurled=m.hurled, weapon=w)
    if w.melee is None:
        raise IllegalCommand(f"{form} is a missile weapon; shoot with it", rule=MELEE)
    return Form(name=form, dice_sm=w.melee[0], dice_l=w.melee[1], magic=ref.magic, weapon=w)


class Calc(msgspec.Struct, kw_only=True):
    b: int
    ac: int
    needed: int
    bonus: int
    total: int
    hit: bool
    notation: str
    damage: int = 0
    parts: list[tuple[str, str]] = []  # (text, rule)
    shield_counts: bool = False  # the shield was used against this (front) attacker


def flag_value(flags: tuple[str, ...], key: str) -> str:
    for f in flags:
        if f.startswith(key + ":"):
            return f.split(":", 1)[1]
    return ""


def parrying(state: OsricState, name: str) -> bool:
    """OSRIC Combat: Parrying / Fighting Retreat: declared parry or retreat, or a morale withdrawal."""
    decl = state.declaration(name) if state.round else None
    return (decl is not None and decl.action in ("parry", "retreat")) or state.live[name].morale == "withdraw"


def attack_tick(state: OsricState, ev: AttackRolled) -> int:
    return tick(state.round, ev.segment, LATE if ev.late else NORMAL)


def calc_attack(state: OsricState, ev: AttackRolled) -> Calc:
    """One attack roll: matrix, modifiers, the target's armour class and, on a hit, damage."""
    att, tgt = state.roster[ev.attacker], state.roster[ev.target]
    tl = state.live[ev.target]
    flags = ev.flags
    form = attack_form(att, ev.form, ev.kind)
    parts: list[tuple[str, str]] = []
    melee_like = ev.kind in MELEE_KINDS

    # the matrix (OSRIC Combat: To Hit / Monster To Hit)
    b = att.b
    if att.kind == "monster":
        level = att.matrix_level + (1 if "higher" in flags else 0)
        b = t.fighter_b(level)
        parts.append((f"{att.name} attacks as a level {level} fighter (HD {att.hd}): needs {b} vs AC 0",
                      t.MONSTER_HIT))
    else:
        parts.append((f"{att.name}, {att.cls} {att.level}: needs {b} vs AC 0", t.TO_HIT))

    # the target's armour class (OSRIC Combat: Armour Class and the modifiers)
    ac = tgt.ac
    no_shield: list[str] = []
    no_dex: list[str] = []
    conds = tl.conditions
    if "rear" in flags:
        no_shield.append("rear")
        no_dex.append("rear")
    if "flank" in flags:
        no_shield.append("flank")
    if "prone" in conds:
        no_shield.append("prone")
        no_dex.append("prone")
    if "stunned" in conds:
        no_shield.append("stunned")
        no_dex.append("stunned")
    t_now = attack_tick(state, ev)
    cast = tl.casting
    if cast is not None and cast.status == "casting" and cast.start <= t_now < cast.complete:
        no_dex.append("casting")
    shield_counts = False
    if tgt.shield and not no_shield:
        limit = t.SHIELD_ATTACKERS[tgt.shield]
        if ev.attacker in tl.shield_vs or len(tl.shield_vs) < limit:
            shield_counts = True
        else:
            no_shield.append(f"its {tgt.shield} shield already faces {limit} attacker(s) this round")
    if tgt.shield_ac and no_shield:
        ac += tgt.shield_ac
        parts.append((f"{tgt.name} gets no shield ({', '.join(no_shield)}): AC +{tgt.shield_ac}",
                      _WHY.get(no_shield[0], SHIELD)))
    if no_dex and tgt.dex_ac < 0:
        ac -= tgt.dex_ac
        parts.append((f"{tgt.name} loses its Dex AC bonus ({', '.join(no_dex)}): AC +{-tgt.dex_ac}",
                      _WHY[no_dex[0]]))
    if tl.charged_round == state.round and state.round > 0:
        if tgt.dex_ac < 0 and not no_dex:
            ac -= tgt.dex_ac
            parts.append((f"{tgt.name} charged this round: no Dex AC bonus (AC +{-tgt.dex_ac})", CHARGE))
        elif tgt.dex_ac >= 0:
            ac += 1
            parts.append((f"{tgt.name} charged this round without a Dex AC bonus: AC 1 worse", CHARGE))
    cover = flag_value(flags, "cover")
    if cover:
        ac -= COVER_AC[cover]
        parts.append((f"{cover}% cover: AC -{COVER_AC[cover]}", COVER))
    conc = flag_value(flags, "concealment")
    if conc:
        ac -= CONCEALMENT_AC[conc]
        parts.append((f"{conc} concealment: AC -{CONCEALMENT_AC[conc]}", CONCEAL))
    need = t.needed(b, ac)
    parts.append((f"against AC {ac} {att.name} needs {need}", t.TO_HIT))

    # modifiers to the roll
    bonus = 0

    def add(value: int, text: str, rule: str) -> None:
        nonlocal bonus
        if value:
            bonus += value
            parts.append((f"{value:+d} {text}", rule))

    if melee_like:
        add(att.str_hit, f"strength {att.str_text}", t.STRENGTH)
    if form.missile:
        add(att.dex_missile, f"dexterity {att.dex} (missile)", t.DEXTERITY)
        rng = flag_value(flags, "range")
        if rng and form.weapon is not None:
            m = form.weapon.missile or form.weapon.thrown
            assert m is not None
            steps = max(0, -(-int(rng) // m.increment) - 1)
            add(-2 * steps, f"range {rng} ft ({m.increment} ft increments)", MISSILES)
    add(form.magic, "magic weapon", t.WEAPONS)
    if att.specialised and att.specialised == form.name:
        add(1, "specialisation", SPECIALISED)
    if ev.kind in ("charge", "overbear"):  # overbearing is the attack at the end of a charge
        add(2, "charging", CHARGE)
    if ev.kind == "free":
        add(4, "free attack on a fleeing opponent", FLEE)
    if "rear" in flags:
        add(2, "rear attack", REAR)
    if "prone" in conds:
        add(4, "prone target", PRONE)
    if "stunned" in conds:
        add(4, "stunned target", STUNNED)
    if "invisible" in conds and "sees-invisible" not in flags:
        add(-4, "invisible target", INVISIBLE)
    if "two-weapon" in flags:
        base = -4 if ev.offhand else -2
        add(min(0, base + att.dex_missile), f"{'off' if ev.offhand else 'main'} hand, two weapons "
            f"({base} with Dex missile {att.dex_missile:+d}, never a bonus)", TWO)
    if melee_like and parrying(state, ev.target):
        add(-max(0, tgt.str_hit + (1 if tgt.specialised else 0)), f"{tgt.name} parries", PARRY)
    add(ev.mod, "referee's adjustment" + (f" ({ev.reason})" if ev.reason else ""), REFEREE)
    total = ev.roll + bonus
    hit = total >= need
    parts.append((f"d20 {ev.roll} {bonus:+d} = {total} vs {need}: {'hit' if hit else 'miss'}", t.TO_HIT))
    notation = form.dice_l if tgt.size == "L" else form.dice_sm
    calc = Calc(b=b, ac=ac, needed=need, bonus=bonus, total=total, hit=hit, notation=notation, parts=parts,
                shield_counts=shield_counts)
    if hit:
        calc.damage = damage_of(att, tgt, form, ev, parts)
    return calc


def damage_of(att: Combatant, tgt: Combatant, form: Form, ev: AttackRolled, parts: list[tuple[str, str]]) -> int:
    """OSRIC Combat: Weapon Damage: dice by target size, doubled for a set weapon or a lance charge.

    Strength adds to melee and hurled weapons; magic and specialisation (+2) add;
    doubling applies to the weapon dice only. Decision: damage never goes below 0.
    """
    size = "L" if tgt.size == "L" else "S/M"
    dice = ev.damage
    rule = GRAPPLE if ev.kind in ("grapple", "overbear") else UNARMED if form.name == "unarmed" else t.WEAPONS
    text = f"damage {form.dice_l if size == 'L' else form.dice_sm} vs {size}: {dice}"
    if "double" in ev.flags or "set" in ev.flags:
        dice *= 2
        text += f", doubled to {dice}"
        rule = SET_DOUBLED if "set" in ev.flags else LANCE_DOUBLED
    extra = 0
    if ev.kind not in ("grapple", "overbear"):
        if ev.kind in MELEE_KINDS or form.hurled:
            extra += att.str_dmg
        extra += form.magic
        if att.specialised and att.specialised == form.name:
            extra += 2
    total = max(0, dice + extra)
    parts.append((text + (f" {extra:+d} (strength/magic/specialisation)" if extra else "") + f" = {total}", rule))
    return total


def damage_notation(state: OsricState, attacker: str, target: str, form: str, kind: str) -> str:
    c = attack_form(state.roster[attacker], form, kind)
    notation = c.dice_l if state.roster[target].size == "L" else c.dice_sm
    parse_dice(notation)
    return notation
