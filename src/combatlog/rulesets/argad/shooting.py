"""Argad shooting: the shooting die by species, thresholds, modifiers, firing into a melee.

The generic shooting table is not in the seed: thresholds come from the seed's
worked examples (data/shooting.json) or from ``--need``, the value the players
read in their copy of the generic table.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.melee import DieSpec, moves
from combatlog.rulesets.argad.state import ArgadState, Figure, Mod

R_RANGED = "Argad: Ranged weapons"
R_ARMOUR = "Argad: Armour 6 & armour 7"
R_TABLE = "Argad: generic rules (table ruling)"
R_INTO = "Argad: Ranged weapons (shooting into a melee)"
# The needs a referee may read in the generic shooting table (``--need``), the natural result on the shooter's
# die (after the natural-maximum rule) for the armour 5 column. Decision: 2 to 8. A need of 1 would be no
# roll at all; the seed's hardest reading is a natural 8 ("Melee peculiarities", knight charging a Troll: a
# simple bow at armour 6 "should roll a natural 8 ... a triple 6 with only 1D6"); its others are 5, 6 and 7.
NEED_RANGE = (2, 8)


class ShotPlan(msgspec.Struct, frozen=True, kw_only=True):
    weapon: str
    need: int
    need_source: str
    armour_mod: int | None
    dice: tuple[DieSpec, ...]
    mods: dict[str, tuple[Mod, ...]]


def group_key(targets: tuple[str, ...]) -> str:
    return "+".join(targets)


def shooting_die(fig: Figure) -> int:
    """Argad: Ranged weapons: the species' shooting die; thrown missiles may use another die."""
    w = t.missile_weapons().get(fig.missile)
    if w is not None and w.thrown and fig.thrown_die:
        return fig.thrown_die
    return fig.shooting_die


def need_for(weapon: str, range_: str, armour: int, given: int) -> tuple[int, int | None, str]:
    """(need, table armour modifier or None, source) against one target.

    ``given`` is the generic table's value read by the players for this armour (armour 5 column
    for armour 6+): Argad: Armour 6 & armour 7 adds +1 to the need per armour step above 5.
    """
    if given:
        shift = max(armour - 5, 0)
        source = f"need {given} from the generic table (given)"
        if shift:
            source += f", +{shift} for armour {armour} ({R_ARMOUR})"
        return given + shift, None, source
    found = t.shooting_need(weapon, range_, armour)
    if found is None:
        raise IllegalCommand(
            f"the seed gives no threshold for a {t.missile_weapons()[weapon].name} at {range_} range against "
            f"armour {armour}, and the generic shooting table is not shipped: this shot needs the referee's "
            f"reading of the generic shooting table (its armour 5 column for armour 6 and more), given with "
            f"--need N (N from {NEED_RANGE[0]} to {NEED_RANGE[1]})",
            rule=R_RANGED)
    return found


def check_into_melee(shooter: Figure, target: Figure, range_cm: int) -> None:
    """Argad: Ranged weapons: at 0-10 cm small humanoids may shoot human-sized or taller foes in a
    melee, and human-sized or +H humanoids ++H or larger monsters standing in a human-sized crowd."""
    if not 0 < range_cm <= 10:
        raise IllegalCommand("shooting into a melee is only allowed at 0-10 cm (give --range-cm)", rule=R_INTO)
    small = shooter.strength == "-H" or shooter.species == "dwarf"
    step_t = t.STRENGTH_STEP[target.strength]
    if small and step_t >= 0:
        return
    if shooter.strength in ("=H", "+H") and step_t >= 2:
        return
    raise IllegalCommand(f"{shooter.name} ({shooter.strength}) may not shoot {target.name} "
                         f"({target.strength}) in a melee", rule=R_INTO)


def plan_shot(state: ArgadState, shooters: tuple[str, ...], targets: tuple[str, ...], *, range_: str, need: int,
              cover: int, idle: bool, mod: int, why: str, labels: tuple[str, ...]) -> ShotPlan:
    """Dice, modifiers and the threshold of one volley at a same target or group."""
    first = state.figures[shooters[0]]
    weapon = first.missile
    if not weapon:
        raise InvalidCommand(f"{first.name} has no missile weapon")
    # Decision: a group of targets with different protections is shot with the most protective one's need.
    found = [need_for(weapon, range_, state.figures[x].shooting_armour, need) for x in targets]
    value, armour_mod, source = max(found, key=lambda f: f[0])
    protected = max(targets, key=lambda x: state.figures[x].shooting_armour)
    extra_armour = max(state.figures[protected].shooting_armour - 5, 0)
    total_armour_mod = armour_mod if armour_mod is not None else -extra_armour
    dice: list[DieSpec] = []
    mods: dict[str, tuple[Mod, ...]] = {}
    for who, label in zip(shooters, labels):
        fig = state.figures[who]
        out: list[Mod] = []
        if fig.has("elite_shooter"):
            out.append(Mod(value=1, why="elite shooter", rule=R_RANGED))
        if all(state.figures[x].has("skeleton") or state.figures[x].has("zombie") for x in targets):
            out.append(Mod(value=1, why="skeletons and zombies have -1 protection from shots", rule=R_RANGED))
        if fig.idle_target_malus and idle:
            out.append(Mod(value=-1, why="reptilians shooting at idle enemies", rule=R_RANGED))
        if cover:
            if total_armour_mod < -2:
                pass  # Argad: Armour 6 & armour 7: beyond -2, terrain, shield wall and pavise do not apply
            else:
                out.append(Mod(value=cover, why="terrain, shield wall or pavise", rule=R_TABLE))
        if mod:
            out.append(Mod(value=mod, why=why or "tactical modifier", rule=R_TABLE))
        in_command = not (state.options.on("command_radius") and moves(state.turn, who).out_of_command)
        if not in_command:
            out = [m for m in out if m.value < 0]
        mods[who] = tuple(out)
        dice.append(DieSpec(who=who, count=1, sides=shooting_die(fig), label=label,
                            mods=sum(m.value for m in out), counts_max=in_command))
    if cover and total_armour_mod < -2:
        source += f"; cover ignored: armour modifiers total {total_armour_mod} ({R_ARMOUR})"
    return ShotPlan(weapon=weapon, need=value, need_source=source, armour_mod=armour_mod, dice=tuple(dice),
                    mods=mods)


def one_reroll_notation(plan: ShotPlan, faces: Mapping[str, tuple[int, ...]]) -> str:
    """The die that re-rolls a single natural 1 left over when shooting into a melee.

    Decision: the die that showed it; when the 1s came from dice of different sizes, the largest of
    them, so that the order the shooters are named in does not choose the die.
    """
    return f"1d{max(d.sides for d in plan.dice if faces[d.label] == (1,))}"


def friend_hits(ones: int, one_reroll: tuple[int, ...] | None) -> int:
    """Argad: Ranged weapons: every natural double 1 (more than one 1, or the re-roll of a single 1
    showing 1 again) hits a small friend of the shooter close to the target.

    Decision: each pair of 1s is one hit; an odd 1 left over is re-rolled like a single 1.
    """
    hits = ones // 2
    if ones % 2 and one_reroll is not None and one_reroll[0] == 1:
        hits += 1
    return hits
