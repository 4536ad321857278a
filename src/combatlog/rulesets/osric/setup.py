"""Combatants and options: the genesis ``setup`` of an OSRIC combat.

``validate_setup`` checks and normalises the JSON a referee writes;
``build_roster`` turns it into the static combatant records the fold uses,
deriving to-hit bases, armour class and ability adjustments from the tables
(so the derivation is part of the fold and shows in ``explain``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from combatlog.commands.authority import side_players
from combatlog.errors import InvalidCommand
from combatlog.rulesets.osric import tables as t

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,39}$")
MAX_HP = 9999  # the most hit points a combatant may have (docs/osric.md, "Every set-up key")
MAX_HD = 99  # beyond any monster's Hit Dice; keeps the numbers derived from them (morale: +5% per HD) sane

# option -> allowed values, the first being the default. Every one is a Decision
# documented in docs/osric.md.
OPTIONS: dict[str, tuple[str, ...]] = {
    # Decision: the seed states that the starting segment is the first casting
    # segment, and its Halvaine example counts start + casting time. Default: the rule.
    "spell_timing": ("first_segment", "halvaine"),
    # Decision (reference 2.4): the half attack of 3/2 falls on odd rounds.
    "half_attack_round": ("odd", "even"),
    # Decision: the seed makes the target random among several opponents; a table may let
    # the attacker choose.
    "melee_target": ("random", "declared"),
    # Decision: 0 hp and bleeding to -10 is the characters' rule; monsters die at 0 by default.
    "monster_death": ("zero", "bleed"),
    # Decision: the missile bonus to initiative is the Dex missile adjustment, penalties included.
    "missile_initiative": ("signed", "bonus_only"),
}

CHARACTER_KEYS = {"name", "side", "class", "level", "hp", "max_hp", "str", "dex", "armour", "armour_magic",
                  "shield", "shield_magic", "ac_magic", "weapons", "specialised", "size", "pc", "note", "surprises_on"}
MONSTER_KEYS = {"name", "side", "hd", "hp", "max_hp", "ac", "shield", "attacks", "weapons", "attack_level",
                "str", "size", "surprises_on", "never_surprised", "morale", "note"}


class WeaponRef(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    magic: int = 0


class AttackForm(msgspec.Struct, frozen=True, kw_only=True):
    """One attack of a monster's routine (claw, claw, bite), or a weapon it wields."""

    name: str
    damage: str = ""  # vs S/M
    damage_large: str = ""  # vs L (defaults to damage)
    weapon: str = ""  # a weapon of the tables instead of fixed damage
    magic: int = 0


class Combatant(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    side: str
    kind: str  # character | monster
    cls: str = ""
    level: int = 0
    hd: str = ""
    matrix_level: int = 0  # fighter-matrix level of a monster
    b: int = 20  # roll needed against AC 0
    max_hp: int = 1
    hp: int = 1
    size: str = "M"  # S, M or L
    str_hit: int = 0
    str_dmg: int = 0
    str_text: str = ""
    dex: int = 10
    dex_surprise: int = 0
    dex_missile: int = 0
    dex_ac: int = 0
    ac: int = 10  # the normal armour class, all adjustments included
    shield: str = ""  # "", small, medium, large
    shield_ac: int = 0  # what the shield (and its magic) takes off the AC
    armour: str = ""
    weapons: tuple[WeaponRef, ...] = ()
    attacks: tuple[AttackForm, ...] = ()
    specialised: str = ""
    surprises_on: int = 2
    never_surprised: bool = False
    pc: bool = True
    morale_mod: int = 0
    note: str = ""

    @property
    def is_fighter(self) -> bool:
        return self.kind == "character" and self.cls in t.FIGHTER_CLASSES


def _int(d: dict[str, Any], key: str, default: int, lo: int, hi: int, who: str, why: str = "") -> int:
    """``d[key]`` (or ``default``), a whole number from ``lo`` to ``hi``; the message names the field
    as written and shows the value in JSON (true, not True): a JSON boolean is not a number."""
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidCommand(f"{who}: {key} must be a whole number from {lo} to {hi}{why} (got {_json(value)}, "
                             "not a number)")
    if not lo <= value <= hi:
        raise InvalidCommand(f"{who}: {key} must be a whole number from {lo} to {hi}{why} (got {_json(value)})")
    return value


def _json(value: Any) -> str:
    """A value as the set-up file spells it (short: a long one is cut)."""
    text = msgspec.json.encode(value).decode() if _encodable(value) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _encodable(value: Any) -> bool:
    try:
        msgspec.json.encode(value)
    except (TypeError, OverflowError, msgspec.EncodeError):
        return False
    return True


def _flag(d: dict[str, Any], key: str, default: bool, who: str) -> bool:
    """A yes/no field: JSON true or false (a string such as "no" would otherwise count as yes)."""
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise InvalidCommand(f"{who}: {key} must be true or false (got {_json(value)})")
    return value


def _hit_points(raw: dict[str, Any], name: str) -> tuple[int, int]:
    """(max_hp, hp). ``hp`` alone is full hit points (1-9999); with ``max_hp`` it may be lower, down
    to -10 (OSRIC Combat: Damage and Death: dead at -10)."""
    if "max_hp" in raw:
        max_hp = _int(raw, "max_hp", 0, 1, MAX_HP, name)
        return max_hp, _int(raw, "hp", max_hp, -10, max_hp, name, f" (its max_hp {max_hp})")
    if "hp" not in raw:
        raise InvalidCommand(f"{name}: give hp (its hit points), and max_hp if it is wounded")
    hp = _int(raw, "hp", 0, 1, MAX_HP, name, "; a wounded combatant's hp below 1 needs max_hp too")
    return hp, hp


def _hit_dice(raw: dict[str, Any], name: str) -> str:
    """A monster's Hit Dice, checked here so that the message names the combatant."""
    hd = raw["hd"]
    if isinstance(hd, bool) or not isinstance(hd, (str, int)):
        raise InvalidCommand(f"{name}: hd is Hit Dice such as \"4+1\" (got {_json(hd)})")
    try:
        dice, plus = t.parse_hd(str(hd))
    except InvalidCommand:
        raise InvalidCommand(f"{name}: hd {_json(hd)}: write Hit Dice as N, N+k, N-k, 1/2 or 1d4hp") from None
    if dice > MAX_HD or abs(plus) > MAX_HD:
        raise InvalidCommand(f"{name}: hd {_json(hd)}: Hit Dice up to {MAX_HD}, and a plus or minus up to {MAX_HD}")
    return str(hd)


def _weapons(raw: Any, who: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise InvalidCommand(f"{who}: weapons is a list of names or {{name, magic}} objects")
    out = []
    for item in raw:
        entry = {"name": item} if isinstance(item, str) else item
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise InvalidCommand(f"{who}: weapon {item!r} needs a name")
        extra = set(entry) - {"name", "magic"}
        if extra:
            raise InvalidCommand(f"{who}: unknown weapon field(s) {sorted(extra)}")
        out.append({"name": t.canonical_weapon(entry["name"]),
                     "magic": _int(entry, "magic", 0, -5, 5, f"{who} {entry['name']}")})
    return out


def _attacks(raw: Any, who: str) -> list[dict[str, Any]]:
    from combatlog.dice.notation import parse_dice

    if not isinstance(raw, list) or not raw:
        raise InvalidCommand(f"{who}: attacks is a non-empty list of {{name, damage[, damage_large]}}")
    out = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InvalidCommand(f"{who}: attack {item!r} needs a name")
        extra = set(item) - {"name", "damage", "damage_large", "weapon", "magic"}
        if extra:
            raise InvalidCommand(f"{who}: unknown attack field(s) {sorted(extra)}")
        form = {"name": item["name"]}
        if "weapon" in item:
            form["weapon"] = t.canonical_weapon(item["weapon"])
            form["magic"] = _int(item, "magic", 0, -5, 5, who)
        else:
            if not isinstance(item.get("damage"), str):
                raise InvalidCommand(f"{who}: attack {item['name']} needs damage dice or a weapon")
            parse_dice(item["damage"])
            form["damage"] = item["damage"]
            if "damage_large" in item:
                if not isinstance(item["damage_large"], str):
                    raise InvalidCommand(f"{who}: attack {item['name']}: damage_large is dice against large foes "
                                         "(e.g. 1d8)")
                parse_dice(item["damage_large"])
                form["damage_large"] = item["damage_large"]
        out.append(form)
    return out


def _combatant(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InvalidCommand("each combatant is a JSON object")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise InvalidCommand(f"combatant name {name!r}: a letter then up to 39 letters, digits, _ . - (no spaces; "
                             "names appear in dice labels)")
    if not isinstance(raw.get("side"), str) or not NAME.match(raw["side"]):
        raise InvalidCommand(f"{name}: side must be a name without spaces")
    monster = "hd" in raw
    keys = MONSTER_KEYS if monster else CHARACTER_KEYS
    unknown = set(raw) - keys - {"kind"}  # kind: what this function records, so verify can check a set-up again
    if unknown:
        kind = "monster (has hd)" if monster else "character (has class)"
        raise InvalidCommand(f"{name}: unknown field(s) {sorted(unknown)} for a {kind}; allowed: {sorted(keys)}")
    kind = "monster" if monster else "character"
    if raw.get("kind", kind) != kind:
        raise InvalidCommand(f"{name}: kind {raw['kind']!r}, but a combatant {'with' if monster else 'without'} hd "
                             f"is a {kind}")
    out: dict[str, Any] = {"name": name, "side": raw["side"], "kind": kind}
    out["max_hp"], out["hp"] = _hit_points(raw, name)
    size = raw.get("size", "M")
    if size not in ("S", "M", "L"):
        raise InvalidCommand(f"{name}: size is S, M or L")
    out["size"] = size
    if "note" in raw:
        out["note"] = str(raw["note"])
    shield = raw.get("shield", "")
    if shield not in ("", "small", "medium", "large"):
        raise InvalidCommand(f"{name}: shield is small, medium or large (OSRIC Combat: Armour Class)")
    if shield:
        out["shield"] = shield
    if "str" in raw:
        out["str"] = str(raw["str"])
        score, pct = t.parse_strength(out["str"])
    if monster:
        out["hd"] = _hit_dice(raw, name)
        out["ac"] = _int(raw, "ac", 10, -10, 10, name)
        if "attack_level" in raw:
            out["attack_level"] = _int(raw, "attack_level", 0, 0, 21, name)
        if "attacks" in raw:
            out["attacks"] = _attacks(raw["attacks"], name)
        if "weapons" in raw:
            out["weapons"] = _weapons(raw["weapons"], name)
        if "attacks" not in raw and "weapons" not in raw:
            raise InvalidCommand(f"{name}: a monster needs attacks (name, damage) or weapons")
        out["surprises_on"] = _int(raw, "surprises_on", 2, 0, 6, name)
        out["never_surprised"] = _flag(raw, "never_surprised", False, name)
        out["morale"] = _int(raw, "morale", 0, -100, 100, name)
        if "str" in raw and pct:
            raise InvalidCommand(f"{name}: percentile strength is for fighters, paladins and rangers")
        return out
    cls = str(raw.get("class", "")).strip().lower()
    cls = t.CLASS_ALIASES.get(cls, cls)
    if cls not in t.CLASSES:
        raise InvalidCommand(f"{name}: class must be one of {', '.join(t.CLASSES)} (or give hd for a monster)")
    out["class"] = cls
    out["level"] = _int(raw, "level", 1, 0 if cls == "fighter" else 1, t.MAX_LEVEL.get(cls, 30), name)
    t.class_b(cls, out["level"])
    if "str" in raw and pct and cls not in t.FIGHTER_CLASSES:
        raise InvalidCommand(f"{name}: only fighters, paladins and rangers roll percentile strength "
                             f"({t.STRENGTH})")
    out["dex"] = _int(raw, "dex", 10, 3, 19, name)
    armour = str(raw.get("armour", "none")).strip().lower()
    if armour not in t.ARMOUR_AC:
        raise InvalidCommand(f"{name}: armour must be one of {', '.join(t.ARMOUR_AC)}")
    out["armour"] = armour
    for key in ("armour_magic", "shield_magic", "ac_magic"):
        if key in raw:
            out[key] = _int(raw, key, 0, -5, 5, name)
    if raw.get("shield_magic") and not shield:
        raise InvalidCommand(f"{name}: shield_magic without a shield")
    out["weapons"] = _weapons(raw.get("weapons", []), name)
    if "specialised" in raw:
        if cls != "fighter":
            raise InvalidCommand(f"{name}: only fighters specialise (optional rule)")
        spec = t.canonical_weapon(str(raw["specialised"]))
        if spec not in [w["name"] for w in out["weapons"]]:
            raise InvalidCommand(f"{name}: specialised in {spec}, which is not among the weapons")
        out["specialised"] = spec
    out["pc"] = _flag(raw, "pc", True, name)
    if "surprises_on" in raw:
        out["surprises_on"] = _int(raw, "surprises_on", 2, 0, 6, name)
    return out


def validate_setup(setup: dict[str, Any]) -> dict[str, Any]:
    """Check the referee's set-up: combatants on exactly two sides, options, engagements."""
    unknown = set(setup) - {"combatants", "options", "engaged", "title", "players"}
    if unknown:
        raise InvalidCommand(f"osric setup: unknown key(s) {sorted(unknown)}; allowed: combatants, options, "
                             "engaged, title, players")
    raw = setup.get("combatants")
    if not isinstance(raw, list) or not raw:
        raise InvalidCommand("osric setup needs a non-empty 'combatants' list")
    combatants = [_combatant(c) for c in raw]
    names = [c["name"] for c in combatants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InvalidCommand(f"duplicate combatant names: {', '.join(dupes)}")
    sides = list(dict.fromkeys(c["side"] for c in combatants))
    if len(sides) != 2:
        raise InvalidCommand(f"an OSRIC combat has exactly two sides (each side's initiative die sets the other "
                             f"side's segment); got {sides} (OSRIC Combat: Initiative)")
    options = normalise_options(setup.get("options", {}))
    engaged = []
    for pair in setup.get("engaged", []):
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in names for p in pair)):
            raise InvalidCommand(f"engaged: {pair!r} must be a pair of combatant names")
        a, b = pair
        side = {c["name"]: c["side"] for c in combatants}
        if side[a] == side[b]:
            raise InvalidCommand(f"engaged: {a} and {b} are on the same side")
        engaged.append(sorted(pair))
    out: dict[str, Any] = {"combatants": combatants, "options": options}
    if engaged:
        out["engaged"] = engaged
    if "title" in setup:
        out["title"] = str(setup["title"])
    if "players" in setup:
        out["players"] = _players(setup["players"], sides)
    return out


def _players(raw: Any, sides: list[str]) -> dict[str, list[str]]:
    """Who plays each side (docs/osric.md, "Players and sides"): the first named is the side's caller."""
    return side_players(raw, sides)


def normalise_options(raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise InvalidCommand("options is an object of name: value")
    unknown = set(raw) - set(OPTIONS)
    if unknown:
        raise InvalidCommand(f"unknown option(s) {sorted(unknown)}; known: {', '.join(OPTIONS)}")
    out = {}
    for key, allowed in OPTIONS.items():
        value = str(raw.get(key, allowed[0]))
        if value not in allowed:
            raise InvalidCommand(f"option {key}={value!r}: choose one of {', '.join(allowed)}")
        out[key] = value
    return out


def build_combatant(d: dict[str, Any]) -> Combatant:
    """Derive the static record: to-hit base, strength and dexterity adjustments, armour class.

    OSRIC Combat: To Hit / Monster To Hit / Strength / Dexterity / Armour Class.
    """
    str_hit = str_dmg = 0
    if "str" in d:
        str_hit, str_dmg = t.strength_adjustments(*t.parse_strength(d["str"]))
    shield = d.get("shield", "")
    common: dict[str, Any] = dict(
        name=d["name"], side=d["side"], kind=d["kind"], max_hp=d["max_hp"], hp=d["hp"], size=d.get("size", "M"),
        str_hit=str_hit, str_dmg=str_dmg, str_text=d.get("str", ""), shield=shield, note=d.get("note", ""),
        weapons=tuple(WeaponRef(**w) for w in d.get("weapons", [])),
    )
    if d["kind"] == "monster":
        level = d.get("attack_level", t.monster_level(d["hd"]))
        return Combatant(
            **common, hd=d["hd"], matrix_level=level, b=t.fighter_b(level), ac=d["ac"],
            shield_ac=1 if shield else 0, attacks=tuple(AttackForm(**a) for a in d.get("attacks", [])),
            surprises_on=d.get("surprises_on", 2), never_surprised=d.get("never_surprised", False),
            pc=False, morale_mod=d.get("morale", 0),
        )
    surprise, missile, dex_ac = t.dexterity_adjustments(d.get("dex", 10))
    shield_ac = (1 + d.get("shield_magic", 0)) if shield else 0
    ac = t.ARMOUR_AC[d.get("armour", "none")] - d.get("armour_magic", 0) - shield_ac - d.get("ac_magic", 0) + dex_ac
    return Combatant(
        **common, cls=d["class"], level=d["level"], b=t.class_b(d["class"], d["level"]), dex=d.get("dex", 10),
        dex_surprise=surprise, dex_missile=missile, dex_ac=dex_ac, ac=ac, shield_ac=shield_ac,
        armour=d.get("armour", "none"), specialised=d.get("specialised", ""), pc=d.get("pc", True),
        surprises_on=d.get("surprises_on", 2),
    )
