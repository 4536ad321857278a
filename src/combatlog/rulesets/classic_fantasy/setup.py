"""The genesis ``setup``: combatants as data, checked and normalised once.

The normalised setup (every derived value written out) is what the genesis
event keeps, so a replay never depends on how this module derives values.
"""

from __future__ import annotations

import re
from typing import Any

from combatlog.dice.notation import parse_dice
from combatlog.commands.authority import PLAYER_NAME, side_players
from combatlog.errors import InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.state import Combatant, Location, Weapon

CHARS = ("STR", "CON", "SIZ", "DEX", "INT", "POW", "CHA")
# CFI Ch.5 Standard Skills: base values (reference 1.1). Acrobatics is a Professional skill:
# a combatant without it given in the setup cannot use it.
SKILL_BASES: dict[str, tuple[str, ...]] = {
    "combat": ("STR", "DEX"), "unarmed": ("STR", "DEX"), "evade": ("DEX", "DEX"),
    "endurance": ("CON", "CON"), "brawn": ("STR", "SIZ"), "athletics": ("STR", "DEX"),
    "perception": ("INT", "POW"), "ride": ("DEX", "POW"), "swim": ("STR", "CON"),
    "first_aid": ("INT", "DEX"), "willpower": ("POW", "POW"),
}
SKILL_ALIASES = {
    "evasão": "evade", "evasao": "evade", "tolerância": "endurance", "tolerancia": "endurance",
    "musculatura": "brawn", "atletismo": "athletics", "percepção": "perception", "percepcao": "perception",
    "natação": "swim", "natacao": "swim", "montaria": "ride", "primeiros socorros": "first_aid",
    "first aid": "first_aid", "combat skill": "combat", "combat style": "combat", "acrobatismo": "acrobatics",
    "desarmado": "unarmed",
}
KNOWN_SKILLS = set(SKILL_BASES) | {"acrobatics"}
OPTIONS = {
    # CFI Ch.5 Difficulty Grade Table: "choose which method best fits the game".
    "difficulty_grades": ("multiply", "simplified"),
    # CFI Ch.8 Knockback: "by default" an attack over the recipient's SIZ knocks back.
    "knockback": ("on", "off"),
    # CFI Ch.7 Serious Wound: "At the Games Master's discretion", tasks using a Seriously wounded
    # location are one grade harder until it is a Minor Wound again. Off unless chosen.
    "serious_wound_grade": ("off", "on"),
    # CFI Ch.5 First Aid "may be applied only once per specific injury": success (default) counts a
    # successful treatment; attempt counts any attempt, failed or not.
    "first_aid_once": ("success", "attempt"),
}
DEFAULT_OPTIONS = {"difficulty_grades": "multiply", "knockback": "on", "serious_wound_grade": "off",
                   "first_aid_once": "success"}
# Decision: unarmed strikes are 1d3, Size Small (the usual Mythras value; the notes give none).
UNARMED = {"damage": "1d3", "size": "S", "types": ["unarmed", "bludgeoning"], "hands": 1}
WEAPON_TYPES = {"cutting", "impaling", "bludgeoning", "entangling", "unarmed", "shield", "ranged", "two_handed"}
# The keys a set-up may give a combatant, a weapon (or shield) and a location: any other is a mistake (a
# misspelt "damage_modifer" would otherwise be dropped without a word and the table's value used).
COMBATANT_KEYS = frozenset({
    "name", "side", "characteristics", "rank", "skills", "race", "damage_modifier", "luck_points", "action_points",
    "initiative_modifier", "healing_rate", "movement", "legs", "abilities", "locations", "armour", "fatigue",
    "weapons", "shield", "held", "player",
})
WEAPON_KEYS = frozenset({
    "name", "base", "damage", "size", "types", "hands", "covers", "ap", "hp", "set", "barbed", "range", "force",
    "load", "dm", "thrown", "impale_size",
})
LOCATION_KEYS = frozenset({"name", "lo", "hi", "kind", "hp", "adjacent", "natural", "worn"})
ARMOUR_KEYS = frozenset({"worn", "natural"})
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.'-]{0,39}$")


def _int(value: Any, where: str, lo: int = 0, hi: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidCommand(f"{where}: expected a whole number from {lo} to {hi}, got {value!r}")
    return value


def validate(setup: dict[str, Any], genesis_options: dict[str, str] | None = None) -> dict[str, Any]:
    """Check and normalise a setup: ``{"options": {...}, "combatants": [...]}``."""
    unknown = set(setup) - {"options", "combatants", "title", "notes", "players"}
    if unknown:
        raise InvalidCommand(f"setup: unknown keys {sorted(unknown)} (expected options, combatants)")
    options = dict(DEFAULT_OPTIONS)
    for key, value in {**(setup.get("options") or {}), **(genesis_options or {})}.items():
        if key not in OPTIONS:
            raise InvalidCommand(f"setup option {key!r} unknown; known: {', '.join(OPTIONS)}")
        if value not in OPTIONS[key]:
            raise InvalidCommand(f"setup option {key}={value!r}: one of {', '.join(OPTIONS[key])}")
        options[key] = value
    raw = setup.get("combatants") or []
    if not isinstance(raw, list) or not raw:
        raise InvalidCommand("setup: give a list of combatants (see docs/classic_fantasy.md)")
    out = []
    for i, spec in enumerate(raw):
        out.append(normalise_combatant(spec, f"combatants[{i}]"))
    names = [c["name"] for c in out]
    if len(set(names)) != len(names):
        raise InvalidCommand("setup: combatant names must be unique")
    if len({c["side"] for c in out}) < 2:
        raise InvalidCommand("setup: a combat needs at least two sides")
    result: dict[str, Any] = {"options": options, "combatants": out}
    if "players" in setup:  # who plays each side (commands/authority.py)
        result["players"] = side_players(setup["players"], sorted({c["side"] for c in out}))
    _check_own_players(out, result.get("players", {}))
    for key in ("title", "notes"):
        if key in setup:
            result[key] = setup[key]
    return result


def _check_own_players(combatants: list[dict[str, Any]], sides: dict[str, list[str]]) -> None:
    """A combatant's own ``player`` plays that combatant alone (the side's players the others). He is one of
    the side's players where the side names them, and plays on one side only (commands/authority.py)."""
    side_of = {p: side for side, names in sides.items() for p in names}
    for spec in combatants:
        player = spec.get("player")
        if player is None:
            continue
        named = sides.get(spec["side"]) or []
        if named and player not in named:
            raise InvalidCommand(f"combatant {spec['name']}: player {player!r} is not among the players of side "
                                 f"{spec['side']} ({', '.join(named)})")
        if side_of.setdefault(player, spec["side"]) != spec["side"]:
            raise InvalidCommand(f"combatant {spec['name']}: player {player!r} plays side {side_of[player]} "
                                 "(a player plays one side)")


def normalise_combatant(spec: Any, where: str) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise InvalidCommand(f"{where}: a combatant is an object")
    name = str(spec.get("name", ""))
    if not _NAME.match(name):
        raise InvalidCommand(f"{where}: name {name!r} must be 1-40 letters, digits or _.'- (no spaces)")
    where = f"combatant {name}"
    _known_keys(spec, COMBATANT_KEYS, where)
    side = str(spec.get("side", "")).strip()
    if not side:
        raise InvalidCommand(f"{where}: give a side")
    chars_in = spec.get("characteristics") or {}
    chars = {}
    for key in CHARS:
        if key not in chars_in:
            raise InvalidCommand(f"{where}: characteristic {key} missing (need {', '.join(CHARS)})")
        chars[key] = _int(chars_in[key], f"{where}.{key}", 0, 500)
    rank = _int(spec.get("rank", 1), f"{where}.rank", 0, 10)
    skills: dict[str, int] = {k: chars[a] + chars[b] for k, (a, b) in SKILL_BASES.items()}
    for key, value in (spec.get("skills") or {}).items():
        k = SKILL_ALIASES.get(key.strip().lower(), key.strip().lower().replace(" ", "_"))
        if k not in KNOWN_SKILLS and not k.startswith("combat_"):
            raise InvalidCommand(f"{where}: unknown skill {key!r}; known: {', '.join(sorted(KNOWN_SKILLS))}")
        skills[k] = _int(value, f"{where}.skills.{key}", 0, 500)
    race = str(spec.get("race", "human")).lower()
    dm = t.normalise_dm(str(spec["damage_modifier"])) if "damage_modifier" in spec else t.damage_modifier(
        chars["STR"] + chars["SIZ"])
    luck = spec.get("luck_points")
    if luck is None:  # reference 1.7: POW band, +1 for humans, +1 per Rank above 1
        luck = t.band_value(chars["POW"]) + (1 if race == "human" else 0) + max(0, rank - 1)
    out: dict[str, Any] = {
        "name": name, "side": side, "rank": rank, "race": race, "characteristics": chars, "skills": skills,
        "action_points": _int(spec.get("action_points", t.action_points_for_rank(rank)), f"{where}.action_points", 1, 10),
        "initiative_modifier": _int(spec.get("initiative_modifier", t.initiative_modifier(chars["DEX"], chars["INT"])),
                                    f"{where}.initiative_modifier", -50, 100),
        "damage_modifier": dm,
        "luck_points": _int(luck, f"{where}.luck_points", 0, 50),
        "healing_rate": _int(spec.get("healing_rate", t.band_value(chars["CON"])), f"{where}.healing_rate", 0, 50),
        "movement": _int(spec.get("movement", 15 if race in ("dwarf", "gnome", "halfling") else 20),
                         f"{where}.movement", 0, 500),
        "legs": _int(spec.get("legs", 2), f"{where}.legs", 0, 100),
        "abilities": [str(a) for a in spec.get("abilities", [])],
        "locations": _locations(spec, chars, rank, where),
    }
    if "player" in spec:  # written out only when given, so set-ups without it keep their genesis bytes
        player = spec["player"]
        if not isinstance(player, str) or not PLAYER_NAME.match(player):
            raise InvalidCommand(f"{where}: player: a player name (letters, digits, _ . -)")
        out["player"] = player
    if "fatigue" in spec:  # written out only when given, so set-ups without it keep their genesis bytes
        out["fatigue"] = _fatigue(spec["fatigue"], where)
    weapons = _weapons(spec, where)
    out["weapons"] = weapons
    held = spec.get("held")
    if held is None:  # Decision: the first weapon in hand, plus the shield when that weapon is one-handed
        first = next((w for w in weapons if "shield" not in w["types"] and w["name"] != "unarmed"), None)
        shield = next((w for w in weapons if "shield" in w["types"]), None)
        held = [first["name"]] if first else []
        if shield and (not first or first["hands"] == 1):
            held.append(shield["name"])
    names = {w["name"] for w in weapons}
    for h in held:
        if h not in names:
            raise InvalidCommand(f"{where}: held weapon {h!r} is not among its weapons ({', '.join(sorted(names))})")
    if sum(next(w["hands"] for w in weapons if w["name"] == h) for h in held) > 2:
        raise InvalidCommand(f"{where}: holds more than two hands' worth of weapons: {held}")
    out["held"] = list(held)
    return out


def _fatigue(value: Any, where: str) -> str:
    """A starting Fatigue level, by name (reference 1.9, the CFI Fatigue table; CFI Ch.7 Fatigue).
    Decision: any level but Dead (a dead combatant is not set up)."""
    level = t.fatigue_level(value) if isinstance(value, str) else -1
    if not 0 <= level < t.DEAD_FATIGUE:
        names = ", ".join(row[0] for row in t.FATIGUE[: t.DEAD_FATIGUE])
        raise InvalidCommand(f"{where}.fatigue: {value!r} is not a Fatigue level ({names})")
    return t.FATIGUE[level][0]


def _known_keys(spec: dict[str, Any], known: frozenset[str], where: str) -> None:
    unknown = sorted(str(key) for key in set(spec) - known)
    if unknown:
        raise InvalidCommand(f"{where}: unknown keys {unknown}; known: {', '.join(sorted(known))}")


def _locations(spec: dict[str, Any], chars: dict[str, int], rank: int, where: str) -> list[dict[str, Any]]:
    table = spec.get("locations", "humanoid")
    armour = spec.get("armour") or {}
    if not isinstance(armour, dict):
        raise InvalidCommand(f"{where}.armour: an object with worn and natural armour points")
    _known_keys(armour, ARMOUR_KEYS, f"{where}.armour")
    if isinstance(table, str):
        data = t.load_data("locations.json").get(table)
        if data is None:
            raise InvalidCommand(f"{where}: unknown location table {table!r}; give a list of locations instead")
        band = t.location_hp_band(chars["CON"] + chars["SIZ"])
        bonus = (1 if rank >= 2 else 0) + (1 if rank >= 4 else 0)  # reference 1.6: +1 HP at Rank 2 and 4
        locs = [{"name": d["name"], "lo": d["lo"], "hi": d["hi"], "kind": d["kind"], "adjacent": d["adjacent"],
                 "hp": (d["hp"][min(band, 7)] + max(0, band - 7)) + bonus} for d in data]
    elif isinstance(table, list):
        locs = []
        for i, d in enumerate(table):
            w = f"{where}.locations[{i}]"
            if not isinstance(d, dict) or "name" not in d:
                raise InvalidCommand(f"{w}: a location needs name, lo, hi and hp")
            _known_keys(d, LOCATION_KEYS, w)
            locs.append({"name": str(d["name"]).lower(), "lo": _int(d.get("lo"), f"{w}.lo", 1, 20),
                         "hi": _int(d.get("hi"), f"{w}.hi", 1, 20), "kind": d.get("kind", "other"),
                         "hp": _int(d.get("hp"), f"{w}.hp", 1, 500), "adjacent": [str(a).lower() for a in d.get("adjacent", [])],
                         "natural": _int(d.get("natural", 0), f"{w}.natural", 0, 100),
                         "worn": _int(d.get("worn", 0), f"{w}.worn", 0, 100)})
        covered = sorted(n for d in locs for n in range(d["lo"], d["hi"] + 1))
        if covered != list(range(1, 21)):
            raise InvalidCommand(f"{where}: the locations' 1d20 ranges must cover 1-20 exactly once")
    else:
        raise InvalidCommand(f"{where}: locations is a table name or a list")
    for key in ("worn", "natural"):
        value = armour.get(key, None)
        if value is None:
            continue
        _known_armour_locations(value, locs, f"{where}.armour.{key}")
        for loc in locs:
            ap = value.get(loc["name"], value.get("all", 0)) if isinstance(value, dict) else value
            loc[key] = _int(ap, f"{where}.armour.{key}", 0, 100)
    for loc in locs:
        loc.setdefault("worn", 0)
        loc.setdefault("natural", 0)
    return locs


def _known_armour_locations(value: Any, locs: list[dict[str, Any]], where: str) -> None:
    """Armour given per location names this combatant's own locations (or "all"): a misspelt
    "chset" would otherwise leave the chest at the "all" value without a word."""
    if not isinstance(value, dict):
        return
    names = [loc["name"] for loc in locs]
    unknown = sorted(str(k) for k in value if k not in names and k != "all")
    if unknown:
        raise InvalidCommand(f"{where}: no location {', '.join(map(repr, unknown))} in this combatant's hit "
                             f"locations ({', '.join(names)}, or all)")


def _weapon(spec: Any, where: str, shield: bool = False) -> dict[str, Any]:
    data = t.load_data("equipment.json")
    table = data["shields"] if shield else data["weapons"]
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, dict) or "name" not in spec:
        raise InvalidCommand(f"{where}: a weapon is a name from the tables or an object with a name")
    _known_keys(spec, WEAPON_KEYS, where)
    name = str(spec["name"]).lower()
    base_name = str(spec.get("base", name)).lower()
    base = dict(table.get(base_name, {})) if base_name != "unarmed" else dict(UNARMED)
    if not base and "size" not in spec:
        known = ", ".join(sorted(table))
        raise InvalidCommand(f"{where}: {name!r} is not in the {'shield' if shield else 'weapon'} table ({known}); "
                             "give its damage, size and types")
    w = {**base, **{k: v for k, v in spec.items() if k != "base"}, "name": name}
    types = set(w.get("types", []))
    if shield:
        types.add("shield")
    if w.get("range") or w.get("force"):
        types.add("ranged")
    if int(w.get("hands", 1)) >= 2:
        types.add("two_handed")
    bad = types - WEAPON_TYPES
    if bad:
        raise InvalidCommand(f"{where}: unknown weapon types {sorted(bad)}; known: {', '.join(sorted(WEAPON_TYPES))}")
    damage = str(w.get("damage", ""))
    if damage:
        parse_dice(damage)
    elif not shield:
        raise InvalidCommand(f"{where}: weapon {name} needs its damage dice")
    out = {"name": name, "damage": damage, "size": t.SIZES[t.size_index(str(w.get("size", "M")))],
           "types": sorted(types), "hands": _int(w.get("hands", 1), f"{where}.hands", 1, 2),
           "covers": _int(w.get("covers", 1 if not shield else 2), f"{where}.covers", 0, 20),
           "ap": _int(w.get("ap", 0), f"{where}.ap", 0, 100), "hp": _int(w.get("hp", 0), f"{where}.hp", 0, 500)}
    # CFI Ch.6 weapon traits: Set (may be set to receive a charge), Barbed (full damage when yanked free).
    for trait in ("set", "barbed"):
        if w.get(trait):
            out[trait] = bool(w[trait])
    if "ranged" in types:
        rng = w.get("range") or []
        if not isinstance(rng, list) or len(rng) != 3 or not all(isinstance(x, int) and x > 0 for x in rng):
            raise InvalidCommand(f"{where}: ranged weapon {name} needs range [close, effective, long] in feet")
        out.update(range=rng, force=t.SIZES[t.size_index(str(w.get("force", w.get("size", "M"))))],
                   load=_int(w.get("load", 0), f"{where}.load", 0, 20), dm=bool(w.get("dm", False)),
                   thrown=bool(w.get("thrown", False)),
                   impale_size=t.SIZES[t.size_index(str(w.get("impale_size", w.get("size", "S"))))])
    return out


def _weapons(spec: dict[str, Any], where: str) -> list[dict[str, Any]]:
    out = [_weapon(w, f"{where}.weapons[{i}]", shield=isinstance(w, dict) and "shield" in w.get("types", []))
           for i, w in enumerate(spec.get("weapons") or [])]
    if spec.get("shield"):
        out.append(_weapon(spec["shield"], f"{where}.shield", shield=True))
    if not any(w["name"] == "unarmed" for w in out):
        out.append(_weapon("unarmed", f"{where}.unarmed"))
    names = [w["name"] for w in out]
    if len(set(names)) != len(names):
        raise InvalidCommand(f"{where}: weapon names must be unique")
    return out


def build(spec: dict[str, Any]) -> Combatant:
    """A Combatant from a normalised setup entry."""
    locs = tuple(Location(name=d["name"], lo=d["lo"], hi=d["hi"], kind=d["kind"], max_hp=d["hp"], hp=d["hp"],
                          natural=d["natural"], worn=d["worn"], adjacent=tuple(d["adjacent"]))
                 for d in spec["locations"])
    weapons = {}
    for w in spec["weapons"]:
        weapons[w["name"]] = Weapon(
            name=w["name"], damage=w["damage"], size=w["size"], types=tuple(w["types"]), hands=w["hands"],
            covers=w["covers"], force=w.get("force", ""), ranges=tuple(w.get("range", ())), load=w.get("load", 0),
            uses_dm=w.get("dm", True) if "ranged" in w["types"] else True, thrown=w.get("thrown", False),
            impale_size=w.get("impale_size", ""), ap=w["ap"], max_hp=w["hp"], hp=w["hp"],
            can_set=w.get("set", False), barbed=w.get("barbed", False))
    return Combatant(
        name=spec["name"], side=spec["side"], chars=dict(spec["characteristics"]), skills=dict(spec["skills"]),
        ap_max=spec["action_points"], init_mod=spec["initiative_modifier"], dm=spec["damage_modifier"],
        luck=spec["luck_points"], healing_rate=spec["healing_rate"], movement=spec["movement"], legs=spec["legs"],
        abilities=tuple(spec["abilities"]), locations=locs, weapons=weapons, held=tuple(spec["held"]),
        fatigue=t.fatigue_level(spec.get("fatigue", "Fresh")),
    )
