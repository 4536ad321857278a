"""Argad melee: strike order, dice, modifiers, the result against class and armour.

The resolution (reference notes 3.2, fitting every seed example): the best total
of a pool against one opponent is compared with D = max(class, armour):
total > D kills (or wounds a creature with more than one life point), total = D
makes it recoil, less does nothing.
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.options import Options
from combatlog.rulesets.argad.state import ArgadState, Figure, Mod, Move, Turn

R_STRENGTH = "Argad: Humanoid creatures strength"
R_MELEE = "Argad: Melee peculiarities"
R_MOUNTED = "Argad: Mounted creatures"
R_WALL = "Argad: Ranged weapons (Dwarves and Ogres at a low wall)"
R_KNIGHT = "Argad: Melee peculiarities (knight charging a Troll)"
R_CLASS = "Argad: Class"
R_RESULT = "Argad: Melee result (kill, recoil, nothing; reference 3.2)"
R_LOCAL = "Argad: Wound localisation"
R_TABLE = "Argad: generic rules (table ruling)"
R_COMMAND = "Argad: Natural dice maximum rule (optional command radius)"


class DieSpec(msgspec.Struct, frozen=True, kw_only=True):
    who: str
    count: int
    sides: int
    label: str
    mods: int
    counts_max: bool = True  # False when the optional command radius rule removes the maximum rule

    @property
    def notation(self) -> str:
        return f"{self.count}d{self.sides}"


class StrikePlan(msgspec.Struct, frozen=True, kw_only=True):
    tier: int
    tier_why: str
    dice: tuple[DieSpec, ...]
    mods: dict[str, tuple[Mod, ...]]
    defence: int
    low: int
    charging_cavalry: bool


def moves(turn: Turn | None, name: str) -> Move:
    return (turn.moves.get(name) if turn else None) or Move()


def is_last_striker(fig: Figure) -> bool:
    """Argad: Melee peculiarities: H2 creatures and zombies always strike last."""
    return fig.strength == "H2" or fig.has("strike_last") or fig.has("zombie")


def is_cavalry(fig: Figure) -> bool:
    """Argad: Mounted creatures: good riders follow the cavalry rules; others are mounted infantry."""
    return fig.mounted and fig.rider == "good"


def charging(state: ArgadState, fig: Figure) -> bool:
    return is_cavalry(fig) and fig.mount_charge and moves(state.turn, fig.name).charge


def weapon_length(fig: Figure) -> str:
    """Argad: Melee peculiarities, Mounted creatures: the length a weapon counts as.

    Dwarves' and -H creatures' spears and staff weapons are semi-long, their pikes long.
    Mounted, staff weapons are no better than a thrusting spear and two-handed heavy weapons
    lose their length and weight advantage.
    """
    w = t.melee_weapons()[fig.weapon]
    key = fig.weapon
    if fig.mounted and w.heavy:
        return "short"
    if fig.mounted and (w.staff or w.couched):
        key = "spear"
    sw = t.melee_weapons()[key]
    return sw.short_staff_length if fig.short_staff and sw.short_staff_length else sw.length


def tier_of(state: ArgadState, fig: Figure) -> tuple[int, str]:
    """Strike order: couched lance in a charge first, then by weapon length; H2 and zombies last."""
    if is_last_striker(fig):
        return t.TIER_INDEX["last"], f"{fig.name} always strikes last ({R_MELEE})"
    w = t.melee_weapons()[fig.weapon]
    if w.couched and charging(state, fig):
        return t.TIER_INDEX["first"], f"{fig.name}'s couched lance in a charge strikes first ({R_KNIGHT})"
    length = weapon_length(fig)
    return t.TIER_INDEX[length], f"{fig.name} strikes with a {length.replace('_', '-')} weapon (longer weapons first)"


def defence(target: Figure, options: Options) -> tuple[int, int]:
    """(D, lowest total that makes it recoil). Argad: Class; Argad: Armour 6 & armour 7.

    Decision: recoil band option: 'at_defence' recoils only at total = max(class, armour);
    'between' recoils from min(class, armour) to max(class, armour).
    """
    armour = target.armour
    if options.strength == "modifier":
        armour -= hide_bonus(target)  # Decision: the old +-1 rule replaces the hide bonus
    high = max(target.klass, armour)
    low = min(target.klass, armour) if options.recoil_band == "between" else high
    return high, low


def hide_bonus(fig: Figure) -> int:
    sp = t.species_table().get(fig.species) if fig.species else None
    return sp.hide_bonus if sp else 0


def strike_die(fig: Figure, options: Options, *, split: bool) -> tuple[int, int, list[Mod]]:
    """(count, sides, die modifiers) for a figure's melee strike.

    Argad: Humanoid creatures strength: -H 1D4, =H 1D6, +H 1D8, ++H 1D10, H2 1D12 or 2D6.
    Argad: Melee peculiarities: H2 split their 2D6 as 1D6 against each of two enemies.
    Argad: Wound localisation: each trunk/arm wound lowers the die (or -1 with 1D6/1D4).
    """
    mods: list[Mod] = []
    if split:
        return 1, 6, mods
    count, sides = 1, fig.melee_die
    if options.strength == "modifier":
        step = t.STRENGTH_STEP[fig.strength]
        sides = 6
        if step:
            mods.append(Mod(value=step, why=f"{fig.strength} strength ({step:+d}, strength option 'modifier')",
                            rule=R_STRENGTH))
    elif fig.strength == "H2" and options.h2_single_die == "2d6":
        count, sides = 2, 6
    if fig.strength_loss:
        start = 12 if count == 2 else sides
        new_sides, malus = t.die_step_down(start, fig.strength_loss)
        count, sides = 1, new_sides
        if malus:
            mods.append(Mod(value=malus, why=f"{fig.strength_loss} trunk/arm wound(s) below 1D6", rule=R_LOCAL))
    return count, sides, mods


def strike_mods(state: ArgadState, fig: Figure, target: Figure, *, mod: int, why: str) -> list[Mod]:
    """Every modifier the seed names for a melee strike, computed from the figures and the turn."""
    out: list[Mod] = []
    opts = state.options
    w = t.melee_weapons()[fig.weapon]
    h2 = fig.strength == "H2"  # Argad: Melee peculiarities: ignore H2 weapon length and strength modifiers
    if fig.has("strong"):
        out.append(Mod(value=1, why="strong individual adds +1 to its die", rule=R_MELEE))
    if w.heavy and not h2 and not fig.mounted and not fig.strength_loss:
        out.append(Mod(value=1, why="two-handed heavy weapon", rule=R_MELEE))
    if w.anti_large and not h2 and not fig.mounted and (
            target.mounted or (target.strength in ("++H", "H2")
                               and t.STRENGTH_STEP[fig.strength] < t.STRENGTH_STEP[target.strength])):
        out.append(Mod(value=1, why="halberd or bill against a ++H/H2 creature or a mounted foe", rule=R_MELEE))
    if moves(state.turn, target.name).crossing:
        out.append(Mod(value=1, why=f"{target.name} crosses an obstacle", rule=R_WALL))
    if is_cavalry(fig) and not target.mounted:
        out.append(Mod(value=1, why="cavalry against foot", rule=R_KNIGHT))
    if charging(state, fig):
        out.append(Mod(value=1, why="charge of a mount with the charge ability", rule=R_MOUNTED))
        if w.couched:
            out.append(Mod(value=1, why="charging with a heavy couched lance", rule=R_KNIGHT))
    if target.stunned_until >= state.number:
        out.append(Mod(value=1, why=f"{target.name} is half-stunned (head wound)", rule=R_LOCAL))
    if opts.strength == "modifier":
        step = t.STRENGTH_STEP[target.strength]
        if step > 0:
            out.append(Mod(value=-step, why=f"{target.name} is {target.strength}: struck at {-step}",
                           rule=R_STRENGTH))
    if mod:
        out.append(Mod(value=mod, why=why or "tactical modifier", rule=R_TABLE))
    if opts.on("command_radius") and moves(state.turn, fig.name).out_of_command:
        out = [m for m in out if m.value < 0]
    return out


def plan_strike(state: ArgadState, attackers: tuple[str, ...], target_name: str, *, mod: int, why: str,
                split: bool, labels: tuple[str, ...]) -> StrikePlan:
    """Dice, modifiers and thresholds of one pool's strike (shared by decide and evolve)."""
    target = state.figures[target_name]
    dice: list[DieSpec] = []
    mods: dict[str, tuple[Mod, ...]] = {}
    tier, tier_why = tier_of(state, state.figures[attackers[0]])
    cavalry = False
    for who, label in zip(attackers, labels):
        fig = state.figures[who]
        count, sides, die_mods = strike_die(fig, state.options, split=split)
        all_mods = tuple(die_mods + strike_mods(state, fig, target, mod=mod, why=why))
        mods[who] = all_mods
        in_command = not (state.options.on("command_radius") and moves(state.turn, who).out_of_command)
        dice.append(DieSpec(who=who, count=count, sides=sides, label=label, mods=sum(m.value for m in all_mods),
                            counts_max=in_command))
        cavalry = cavalry or charging(state, fig)
    high, low = defence(target, state.options)
    return StrikePlan(tier=tier, tier_why=tier_why, dice=tuple(dice), mods=mods, defence=high, low=low,
                      charging_cavalry=cavalry)


def result_of(best2: int, auto: bool, high: int, low: int, target: Figure) -> str:
    """Argad: melee result: above D a kill (a wound if more than one life point), at D a recoil."""
    if auto or best2 > 2 * high:
        return "wound" if target.wounds_die > 1 else "kill"
    if 2 * low <= best2:
        return "recoil"
    return "none"


def recoil_refusal(state: ArgadState, attackers: tuple[str, ...], target: Figure) -> str:
    """Why a recoil does not move the target, or ''.

    Argad: Melee peculiarities (Recoil in melee): H2 may refuse a recoil caused by +H or weaker
    foes on foot, ++H by =H or weaker, +H by -H; Dwarves may ignore recoils on solid mineral ground.
    """
    if not target.refuse_recoil:
        return ""
    foes = [state.figures[a] for a in attackers]
    gap = min(t.STRENGTH_STEP[target.strength] - t.STRENGTH_STEP[f.strength] for f in foes)
    if t.STRENGTH_STEP[target.strength] >= 1 and gap >= 2 and not any(f.mounted for f in foes):
        return f"{target.name} ({target.strength}) refuses a recoil caused by much weaker foes on foot"
    if target.mineral_species and target.ground == "mineral":
        return f"{target.name} ignores the recoil on solid mineral ground"
    return ""


PRIORITY_RULE = "Argad: Melee peculiarities (priority when both roll a kill or recoil)"
METAL_RANK = {"iron": 3, "bronze": 2, "stone": 1}


def priority(a: Figure, b: Figure, a_nat2: int, b_nat2: int, a_mods: int, b_mods: int) -> tuple[int, str]:
    """+1 when a wins, -1 when b wins, 0 when all is equal; with the deciding criterion.

    Argad: Melee peculiarities: the higher class; if equal the highest armour; then iron over
    bronze over stone; then the highest natural die; then the highest tactical modifiers.
    """
    for label, x, y in (("class", a.klass, b.klass), ("armour", a.armour, b.armour),
                        ("metal", METAL_RANK[a.metal], METAL_RANK[b.metal]),
                        ("natural die", a_nat2, b_nat2), ("tactical modifiers", a_mods, b_mods)):
        if x != y:
            return (1 if x > y else -1), label
    return 0, "all equal"


def contact_limit(target: Figure, smallest_base: int) -> int:
    """Argad: Bases of different sizes in melee: how many first-rank foes can reach one figure.

    Four around a foe on foot (six around a mounted foe) of similar size; two 2 cm bases per side
    of a 4 cm base (eight); up to seven 2.5 cm bases around a 4 cm base.
    Decision: with foes of mixed sizes the smallest base sets the limit.
    """
    if smallest_base >= target.base_mm:
        return 6 if target.mounted else 4
    if target.base_mm == 40:
        return 8 if smallest_base == 20 else 7
    return 4
