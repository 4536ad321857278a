"""Building a figure from a set-up entry: species defaults, then the entry's own values.

Argad: Humanoid creatures strength (strength, die, wounds, base),
Argad: Often encountered humanoid species (the species table), Argad: Class,
Argad: Armour 6 & armour 7.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from combatlog.errors import InvalidCommand
from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.state import Figure

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")

# Every key a set-up figure may carry.
KEYS = {
    "name", "side", "species", "strength", "class", "worn", "armour", "shooting_armour", "wounds",
    "melee_die", "shooting_die", "thrown_die", "base_mm", "mounted", "rider", "mount_charge", "weapon",
    "missile", "abilities", "metal", "refuse_recoil", "ground", "note",
}
RIDERS = ("good", "mounted_infantry")


def _int(entry: dict[str, Any], key: str, default: int, lo: int, hi: int, who: str) -> int:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidCommand(f"figure {who}: {key} must be a whole number from {lo} to {hi} (got {value!r})")
    return value


def build_figure(entry: dict[str, Any]) -> Figure:
    """Argad: Often encountered humanoid species: species data, overridden per figure."""
    if not isinstance(entry, dict):
        raise InvalidCommand("each figure is a JSON object with at least name and side")
    unknown = set(entry) - KEYS
    name = entry.get("name", "")
    if unknown:
        raise InvalidCommand(f"figure {name or '?'}: unknown field(s) {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(sorted(KEYS))}")
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidCommand(f"figure name {name!r}: 1-40 letters, digits, '_', '.', '-' (it is used in dice labels)")
    side = entry.get("side", "")
    if not isinstance(side, str) or not side.strip():
        raise InvalidCommand(f"figure {name}: give its side")
    species_id = entry.get("species", "")
    sp = None
    if species_id:
        sp = t.species_table().get(species_id)
        if sp is None:
            raise InvalidCommand(f"figure {name}: unknown species {species_id!r}; known: "
                                 f"{', '.join(t.species_table())}")
    strength = entry.get("strength", sp.strength if sp else None)
    if strength not in t.STRENGTHS:
        raise InvalidCommand(f"figure {name}: strength must be one of {', '.join(t.STRENGTHS)} "
                             "(or give a species)")
    worn = _int(entry, "worn", 3, 1, 5, name)
    # Argad: Class: class often equals the true armour.
    klass = _int(entry, "class", worn, 1, 5, name)
    # Argad: Armour 6 & armour 7: thick hide adds to the real armour or equals a fixed armour.
    hide_bonus = sp.hide_bonus if sp else 0
    hide_armour = sp.hide_armour if sp else 0
    armour = _int(entry, "armour", max(worn + hide_bonus, hide_armour), 1, 12, name)
    shoot_bonus = sp.shooting_armour_bonus if sp else 0
    shooting_armour = _int(entry, "shooting_armour", armour + shoot_bonus, 1, 12, name)
    wounds = entry.get("wounds", sp.wounds if sp else "1")
    if wounds not in t.WOUND_DICE:
        raise InvalidCommand(f"figure {name}: wounds must be one of {', '.join(t.WOUND_DICE)}")
    melee_die = _int(entry, "melee_die", sp.melee_die if sp else t.STRENGTH_DIE[strength], 4, 12, name)
    if melee_die not in t.DIE_SIDES:
        raise InvalidCommand(f"figure {name}: melee_die is 4, 6, 8, 10 or 12")
    shooting_die = _int(entry, "shooting_die", sp.shooting_die if sp else 6, 0, 12, name)
    thrown_die = _int(entry, "thrown_die", sp.thrown_die if sp else 0, 0, 12, name)
    base_mm = _int(entry, "base_mm", sp.base_mm if sp else (25 if strength in ("+H", "++H") else
                                                             40 if strength == "H2" else 20), 20, 40, name)
    if base_mm not in t.BASES_MM:
        raise InvalidCommand(f"figure {name}: base_mm is 20, 25 or 40 (2, 2.5 or 4 cm)")
    mounted = bool(entry.get("mounted", False))
    rider = entry.get("rider", "good")
    if rider not in RIDERS:
        raise InvalidCommand(f"figure {name}: rider is good or mounted_infantry")
    weapon = entry.get("weapon", "short")
    w = t.melee_weapons().get(weapon)
    if w is None:
        raise InvalidCommand(f"figure {name}: unknown weapon {weapon!r}; known: {', '.join(t.melee_weapons())}")
    if w.mounted_only and not mounted:
        raise InvalidCommand(f"figure {name}: a {w.name} is a mounted weapon")
    missile = entry.get("missile", "")
    if missile:
        _check_missile(name, missile, sp)
    abilities = tuple(entry.get("abilities", ()))
    for ability in abilities:
        if ability not in t.ABILITIES:
            raise InvalidCommand(f"figure {name}: unknown ability {ability!r}; known: {', '.join(t.ABILITIES)}")
    if "elite_shooter" in abilities and sp is not None and not sp.elite_shooter_allowed:
        # Argad: Ranged weapons: the rare elite shooter ability is restricted to some species.
        raise InvalidCommand(f"figure {name}: the elite shooter ability is restricted to some species "
                             f"(Humans, Dwarves, Ratmen...), not {sp.name} (Argad: Ranged weapons)")
    abilities = tuple(sorted(set(abilities) | set(sp.abilities if sp else ())))
    metal = entry.get("metal", "iron")
    if metal not in t.METALS:
        raise InvalidCommand(f"figure {name}: metal is iron, bronze or stone")
    ground = entry.get("ground", "")
    if ground not in ("", "mineral"):
        raise InvalidCommand(f"figure {name}: ground is 'mineral' or empty")
    return Figure(
        name=name, side=side.strip(), species=species_id, strength=strength, klass=klass, armour=armour,
        shooting_armour=shooting_armour, wounds_die=t.WOUND_DICE[wounds], melee_die=melee_die,
        shooting_die=shooting_die, thrown_die=thrown_die, base_mm=base_mm, mounted=mounted, rider=rider,
        mount_charge=bool(entry.get("mount_charge", mounted and rider == "good")), weapon=weapon, missile=missile,
        abilities=abilities, metal=metal,
        short_staff=(sp.short_staff if sp else False) or strength == "-H",
        mineral_species=sp.mineral_ground if sp else False,
        longbow_immobile=sp.longbow_immobile_on_foot if sp else False,
        idle_target_malus=sp.idle_target_malus if sp else False,
        refuse_recoil=bool(entry.get("refuse_recoil", True)), ground=ground, note=str(entry.get("note", "")),
    )


def _check_missile(name: str, missile: str, sp: t.Species | None) -> None:
    """Argad: Ranged weapons: which species may use which missile weapons."""
    if missile not in t.missile_weapons():
        raise InvalidCommand(f"figure {name}: unknown missile weapon {missile!r}; known: "
                             f"{', '.join(t.missile_weapons())}")
    if sp is None:
        return
    if missile in sp.missile_forbidden or (sp.missile_allowed and missile not in sp.missile_allowed):
        raise InvalidCommand(f"figure {name}: a {sp.name} cannot use a {t.missile_weapons()[missile].name} "
                             "(Argad: Ranged weapons)")


def figure_entry(fig: Figure) -> dict[str, Any]:
    """The profile part of a figure, as data."""
    data = msgspec.to_builtins(fig)
    for key in ("wounds", "dead", "dead_turn", "removed", "stunned_until", "strength_loss", "move_loss_cm",
                "locations"):
        data.pop(key, None)
    return data  # type: ignore[no-any-return]
