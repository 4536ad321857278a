"""Set-up: the clearing, the characters at a development level, hirelings, denizens.

The genesis ``setup`` names pieces from the data (``data/*.json``); pieces
not in the data may be supplied under ``pieces`` in the same shape as the
data files. Validation resolves every name here so a bad set-up fails before
anything is recorded.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from combatlog.errors import InvalidCommand
from combatlog.rulesets.magic_realm.data import (
    Catalog, DataError, DenizenDef, HorseDef, armor_from, catalog, horse_from, monster_from, native_from,
    weapon_from,
)
from combatlog.rulesets.magic_realm.state import Armor, Artifact, Character, Chit, Denizen, Horse, MRState, Weapon

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
_PREFIX = {"MOVE": "M", "FIGHT": "F", "MAGIC": "X", "DUCK": "D", "BERSERK": "B"}
OPTIONS = {
    # Decision: the seeds do not print the random-assignment procedure; each unassigned
    # denizen is given to one of the eligible targets by one die over that list.
    "random_assignment": ("uniform",),
    # Decision: which of two plays exceeding the effort limit is cancelled (MR 8.4.5 example:
    # the White Knight's Move H4** forbids his Fight T5*, so the maneuver is counted first).
    "effort_order": ("maneuver_first", "attack_first"),
}
DEFAULT_OPTIONS = {"random_assignment": "uniform", "effort_order": "maneuver_first"}


def _merged_catalog(setup: dict[str, Any]) -> Catalog:
    """The data plus any pieces the set-up supplies (MR issue: pieces as data files)."""
    base = catalog()
    extra = setup.get("pieces") or {}
    if not isinstance(extra, dict):
        raise InvalidCommand("setup.pieces must be an object with monsters/natives/weapons/armor/horses lists")
    try:
        monsters = dict(base.monsters) | {m["name"]: monster_from(m, "setup.pieces") for m in extra.get("monsters", ())}
        natives = dict(base.natives) | {
            m["name"]: native_from(m, m.get("group", "custom"), "setup.pieces") for m in extra.get("natives", ())}
        weapons = dict(base.weapons) | {w["name"]: weapon_from(w, "setup.pieces") for w in extra.get("weapons", ())}
        armor = dict(base.armor) | {a["name"]: armor_from(a, "setup.pieces") for a in extra.get("armor", ())}
        horses = dict(base.horses) | {h["name"]: horse_from(h, "setup.pieces") for h in extra.get("horses", ())}
    except (KeyError, TypeError, DataError) as exc:
        raise InvalidCommand(f"setup.pieces: malformed piece ({exc})") from None
    return msgspec.structs.replace(base, monsters=monsters, natives=natives, weapons=weapons, armor=armor,
                                   horses=horses)


def _pick(table: dict[str, Any], name: Any, what: str) -> Any:
    if not isinstance(name, str) or name not in table:
        close = [k for k in table if isinstance(name, str) and name.lower() in k.lower()][:6]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise InvalidCommand(f"unknown {what} {name!r}{hint}")
    return table[name]


def _horse(defn: HorseDef, hid: str, side: str = "trot") -> Horse:
    return Horse(id=hid, name=defn.name, kind=defn.kind, vulnerability=defn.vulnerability, armored=defn.armored,
                 trot_time=defn.trot_time, trot_strength=defn.trot_strength, gallop_time=defn.gallop_time,
                 gallop_strength=defn.gallop_strength, price=defn.price, side=side)


def _check_id(value: Any, seen: set[str], where: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise InvalidCommand(f"{where}: id {value!r} must be 1-40 lowercase letters, digits or '-'")
    if value in seen:
        raise InvalidCommand(f"{where}: id {value!r} is used twice")
    seen.add(value)
    return value


def _int(entry: dict[str, Any], key: str, default: int, where: str, lo: int = -10_000) -> int:
    value = entry.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < lo:
        raise InvalidCommand(f"{where}.{key} must be a whole number (>= {lo})")
    return value


def _character(entry: dict[str, Any], cat: Catalog, seen: set[str], i: int) -> tuple[Character, list[Denizen]]:
    where = f"setup.characters[{i}]"
    cid = _check_id(entry.get("id"), seen, where)
    defn = _pick(cat.characters, entry.get("character"), "character")
    level = _int(entry, "level", 4, where, 1)
    if level > 4:
        raise InvalidCommand(f"{where}.level: development levels are 1 to 4")
    variant = entry.get("variant", "great")
    chits: list[Chit] = []
    counters: dict[str, int] = {}
    for c in defn.chits:
        if c.level > level or c.optional_rule == "add":
            continue  # Wizard: the optional extra chit is not in the standard set
        if c.restricted_to and not c.restricted_to.startswith(f"{variant} "):
            continue  # Elf: chits belonging to the other variant
        prefix = _PREFIX[c.action]
        counters[prefix] = counters.get(prefix, 0) + 1
        chits.append(Chit(id=f"{prefix}{counters[prefix]}", label=c.label, action=c.action, strength=c.strength,
                          magic_type=c.magic_type, time=c.time, asterisks=c.asterisks))
    status = entry.get("chits", {})
    if not isinstance(status, dict):
        raise InvalidCommand(f"{where}.chits maps chit ids to 'fatigued' or 'wounded'")
    for ref, st in status.items():
        idx = next((k for k, c in enumerate(chits) if c.id == ref), None)
        if idx is None or st not in ("active", "fatigued", "wounded", "alerted"):
            raise InvalidCommand(f"{where}.chits: {ref!r}={st!r} (chits: {', '.join(c.id for c in chits)}; "
                                 "states: active, fatigued, wounded, alerted)")
        if st == "alerted":
            # MR 8.4.3: alerted Magic chits cast with completion time 0; how a chit is alerted
            # (outside combat) is not in the seeds, so it comes with the set-up.
            if chits[idx].action != "MAGIC":
                raise InvalidCommand(f"{where}.chits: only MAGIC chits can be alerted ({ref} is {chits[idx].label})")
            chits[idx] = msgspec.structs.replace(chits[idx], alerted=True)
            continue
        chits[idx] = msgspec.structs.replace(chits[idx], status=st)
    stage = next(lv for lv in defn.levels if lv["level"] == level)
    weapon_name = entry.get("weapon", stage["weapon"])
    weapons: list[Weapon] = []
    names = ([weapon_name] if weapon_name else []) + list(entry.get("extra_weapons", ()))
    for k, name in enumerate(names):
        w = _pick(cat.weapons, name, "weapon")
        weapons.append(Weapon(name=w.name, weight=w.weight, length=w.length, missile=w.missile,
                              unalerted=w.unalerted, alerted=w.alerted,
                              alert=bool(entry.get("weapon_alerted", False)) if k == 0 else False, active=k == 0))
    armor = []
    for name in entry.get("armor", stage["armor"]):
        a = _pick(cat.armor, name, "armor")
        armor.append(Armor(name=a.name, kind=a.kind, protects=a.protects, weight=a.weight,
                           vulnerability=a.vulnerability, layer=a.layer, gold_destroyed=a.gold_destroyed))
    horse = None
    if entry.get("horse"):
        horse = _horse(_pick(cat.horses, entry["horse"], "horse"), f"{cid}-horse")
    advantages = tuple(a for lv in defn.levels if lv["level"] <= level for a in lv["advantage_names"])
    spells = tuple(entry.get("spells", ()))
    for s in spells:
        _pick(cat.spells, s, "spell")
    artifacts = _artifacts(entry.get("artifacts", ()), cat, where)
    extras, items = _items(entry, where)
    form = None
    if entry.get("transmorphized"):
        form = _pick(cat.monsters, entry["transmorphized"], "monster")
        if not form.tremendous:
            raise InvalidCommand(f"{where}.transmorphized: {form.name} is not a Tremendous monster (MR 8.4.7 "
                                 "describes characters transmorphized into Tremendous monsters)")
        if form.demon or form.light.spell:
            raise InvalidCommand(f"{where}.transmorphized: {form.name}'s spell attack (Roman numeral side) made by "
                                 "a character is not modelled")
    char = Character(
        id=cid, name=defn.name, player=str(entry.get("player") or cid), level=level,
        vulnerability=defn.vulnerability, chits=tuple(chits), weapons=tuple(weapons), armor=tuple(armor),
        horse=horse, advantages=advantages, spells=spells, artifacts=artifacts,
        fame=(_int(entry, "fame", 0, where), 1), notoriety=(_int(entry, "notoriety", 0, where), 1),
        gold=(_int(entry, "gold", 0, where, 0), 1), hidden=bool(entry.get("hidden", False)),
        found_hidden=bool(entry.get("found_hidden", False)), extras=extras, items=items, form=form,
    )
    hirelings = []
    for j, h in enumerate(entry.get("hirelings", ())):
        hirelings.extend(_denizen(h, cat, seen, f"{where}.hirelings[{j}]", owner=cid))
    return char, hirelings


STRENGTHS = {"L": 1, "M": 2, "H": 3, "T": 4}
ITEM_KINDS = {"boots": ("BOOTS", "K"), "gloves": ("GLOVES", "G")}
_FLY = re.compile(r"^FLY ([LMHT])(\d+)(\**)$", re.ASCII)


def _items(entry: dict[str, Any], where: str) -> tuple[tuple[Chit, ...], tuple[str, ...]]:
    """Boots and Gloves cards, Fly chits and the Elusive Cloak (MR 8.4.7, 8.4.8).

    Decision: the seeds name these (restrictions while a red-side-up Tremendous monster holds a
    character; a Boots card as a maneuver) without their values, so the set-up supplies each card's
    strength and time (and asterisks, default 0), and each Fly chit as a label "FLY L2" (strength,
    time, asterisks). They are kept apart from the action chits: they are never fatigued or wounded.
    """
    raw = entry.get("items", ())
    if not isinstance(raw, (list, tuple)):
        raise InvalidCommand(f"{where}.items is a list of {{kind: boots|gloves|elusive_cloak, strength, time}}")
    extras: list[Chit] = []
    named: list[str] = []
    count: dict[str, int] = {}
    for k, it in enumerate(raw):
        w = f"{where}.items[{k}]"
        kind = it.get("kind") if isinstance(it, dict) else None
        if kind == "elusive_cloak":
            named.append("Elusive Cloak")
            continue
        if kind not in ITEM_KINDS:
            raise InvalidCommand(f"{w}.kind is boots, gloves or elusive_cloak")
        if it.get("strength") not in STRENGTHS:
            raise InvalidCommand(f"{w}.strength is L, M, H or T")
        time = _int(it, "time", -1, w, 0)
        if time < 0 and "time" not in it:
            raise InvalidCommand(f"{w}.time is required (the card's time number)")
        stars = _int(it, "asterisks", 0, w, 0)
        action, prefix = ITEM_KINDS[kind]
        count[prefix] = count.get(prefix, 0) + 1
        label = str(it.get("name") or f"{action} {it['strength']}{time}{'*' * stars}")
        extras.append(Chit(id=f"{prefix}{count[prefix]}", label=label, action=action,
                           strength=STRENGTHS[it["strength"]], time=time, asterisks=stars))
    fly = entry.get("fly_chits", ())
    if not isinstance(fly, (list, tuple)):
        raise InvalidCommand(f'{where}.fly_chits is a list of labels such as "FLY L2"')
    for k, label in enumerate(fly):
        m = _FLY.match(label) if isinstance(label, str) else None
        if m is None:
            raise InvalidCommand(f'{where}.fly_chits[{k}]: {label!r} is not a Fly chit label such as "FLY L2"')
        extras.append(Chit(id=f"Y{k + 1}", label=label, action="FLY", strength=STRENGTHS[m.group(1)],
                           time=int(m.group(2)), asterisks=len(m.group(3))))
    return tuple(extras), tuple(named)


MAGIC_TYPES = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII")


def _artifacts(raw: Any, cat: Catalog, where: str) -> tuple[Artifact, ...]:
    """Artifacts and Spell Books owned and active (MR 8.4.3: their Spell cards cast at time 0).

    Decision: the seeds do not describe these treasures, so the set-up names each one with its
    magic type and the spells recorded in it; a spell must be of the item's type.
    """
    if not isinstance(raw, (list, tuple)):
        raise InvalidCommand(f"{where}.artifacts is a list of {{name, magic_type, spells}}")
    out = []
    for k, a in enumerate(raw):
        w = f"{where}.artifacts[{k}]"
        if not isinstance(a, dict) or not isinstance(a.get("name"), str) or not a["name"]:
            raise InvalidCommand(f"{w} needs a name")
        mtype = a.get("magic_type")
        if mtype not in MAGIC_TYPES:
            raise InvalidCommand(f"{w}.magic_type is one of {', '.join(MAGIC_TYPES)}")
        names = tuple(a.get("spells", ()))
        for s in names:
            d = _pick(cat.spells, s, "spell")
            if d.magic_type != mtype:
                raise InvalidCommand(f"{w}: {s} is a type {d.magic_type} spell, not {mtype}")
        out.append(Artifact(name=a["name"], magic_type=mtype, spells=names, active=bool(a.get("active", True))))
    return tuple(out)


def _denizen(entry: dict[str, Any], cat: Catalog, seen: set[str], where: str, owner: str = "") -> list[Denizen]:
    if not isinstance(entry, dict):
        raise InvalidCommand(f"{where} must be an object with id and monster or native")
    did = _check_id(entry.get("id"), seen, where)
    side = entry.get("side", "light")
    if side not in ("light", "dark"):
        raise InvalidCommand(f"{where}.side is light or dark")
    if "monster" in entry:
        defn: DenizenDef = _pick(cat.monsters, entry["monster"], "monster")
    elif "native" in entry:
        defn = _pick(cat.natives, entry["native"], "native")
    else:
        raise InvalidCommand(f"{where} needs 'monster' or 'native'")
    if defn.tremendous and side == "dark":
        raise InvalidCommand(f"{where}: a Tremendous monster starts red side down (MR 8.4.7: hired or "
                             "controlled ones must be played red side down)")
    # The side the monster's head or club starts (it changes tactics on its own, MR 8.4.6), so a fight can
    # begin with a Giant's club or a Dragon's head already turned; only for a monster that has one.
    part_side = entry.get("part_side", "light")
    if part_side not in ("light", "dark"):
        raise InvalidCommand(f"{where}.part_side is light or dark")
    if "part_side" in entry and not defn.parts:
        raise InvalidCommand(f"{where}.part_side: {defn.name} has no separate head or club counter")
    out = []
    horse = None
    if defn.horse is not None and entry.get("horse", True):
        horse = _horse(defn.horse, f"{did}-horse")
        seen.add(horse.id)
    out.append(Denizen(id=did, stats=defn, side=side, owner=owner, horse=horse))
    for part in defn.parts:
        suffix = "club" if "club" in part.name.lower() else "head"
        pid = _check_id(f"{did}-{suffix}", seen, where)
        out.append(Denizen(id=pid, stats=part, parent=did, side=part_side))
    return out


# The keys a set-up and its entries may hold: a misspelt key would otherwise be ignored in silence (a
# "weapon_alert": true that never alerts a weapon), and a log is what players settle arguments with.
SETUP_KEYS = ("characters", "denizens", "clearing", "first_round_of_day", "assigned", "options", "pieces", "title",
              "notes")
CHARACTER_KEYS = ("id", "character", "player", "level", "variant", "chits", "weapon", "weapon_alerted",
                  "extra_weapons", "armor", "horse", "hirelings", "items", "fly_chits", "transmorphized", "hidden",
                  "found_hidden", "spells", "artifacts", "fame", "notoriety", "gold")
DENIZEN_KEYS = ("id", "monster", "native", "side", "horse", "part_side")


def _known_keys(entry: Any, known: tuple[str, ...], where: str) -> None:
    if not isinstance(entry, dict):
        return  # build says what it must be
    unknown = sorted(k for k in entry if k not in known)
    if unknown:
        raise InvalidCommand(f"{where}: unknown key{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(repr(k) for k in unknown)} (known: {', '.join(known)})")


def _check_keys(setup: dict[str, Any]) -> None:
    _known_keys(setup, SETUP_KEYS, "setup")
    for i, entry in enumerate(setup.get("characters") or []):
        _known_keys(entry, CHARACTER_KEYS, f"setup.characters[{i}]")
        hirelings = entry.get("hirelings") if isinstance(entry, dict) else None
        for k, hireling in enumerate(hirelings if isinstance(hirelings, list) else []):
            _known_keys(hireling, DENIZEN_KEYS, f"setup.characters[{i}].hirelings[{k}]")
    for i, entry in enumerate(setup.get("denizens") or []):
        _known_keys(entry, DENIZEN_KEYS, f"setup.denizens[{i}]")


def _check_assigned(setup: dict[str, Any], state: MRState) -> None:
    """``assigned`` (denizen -> whom it attacks, MR 001 random assignment given by the set-up): an uncontrolled
    denizen of the set-up onto a character or a hireling of it."""
    assigned = setup.get("assigned")
    if assigned is None:
        return
    if not isinstance(assigned, dict):
        raise InvalidCommand("setup.assigned is an object: denizen id -> the character or hireling it attacks")
    for did, target in assigned.items():
        d = state.denizens.get(did)
        if d is None or d.parent:
            free = ", ".join(sorted(x.id for x in state.denizens.values() if not x.owner and not x.parent)) or "none"
            raise InvalidCommand(f"setup.assigned.{did}: no denizen {did!r} in the set-up (uncontrolled denizens: "
                                 f"{free})")
        if d.owner:
            raise InvalidCommand(f"setup.assigned.{did}: {did} is {d.owner}'s hireling; a hireling is deployed by "
                                 "its player (mr deploy), not assigned")
        t = state.denizens.get(target) if isinstance(target, str) else None
        if not isinstance(target, str) or (target not in state.characters and (t is None or not t.owner or t.parent)):
            raise InvalidCommand(f"setup.assigned.{did}: {target!r} is not a character or a hireling of the set-up "
                                 f"(characters: {', '.join(sorted(state.characters))})")


def validate(setup: dict[str, Any]) -> dict[str, Any]:
    """Check the set-up by building the state once; return it with defaults filled in."""
    _check_keys(setup)
    opts = dict(DEFAULT_OPTIONS)
    opts.update(setup.get("options") or {})
    for k, v in opts.items():
        if k not in OPTIONS or v not in OPTIONS[k]:
            choices = "; ".join(f"{n}: {', '.join(c)}" for n, c in OPTIONS.items())
            raise InvalidCommand(f"setup.options.{k}={v!r} is not an option ({choices})")
    out = dict(setup)
    out["options"] = opts
    state = build(out)
    if not state.characters:
        raise InvalidCommand("setup.characters: at least one character takes part in a combat")
    _check_assigned(setup, state)
    return out


def build(setup: dict[str, Any]) -> MRState:
    cat = _merged_catalog(setup)
    seen: set[str] = set()
    chars: dict[str, Character] = {}
    dens: dict[str, Denizen] = {}
    raw_chars = setup.get("characters") or []
    raw_dens = setup.get("denizens") or []
    if not isinstance(raw_chars, list) or not isinstance(raw_dens, list):
        raise InvalidCommand("setup.characters and setup.denizens are lists")
    for i, entry in enumerate(raw_chars):
        if not isinstance(entry, dict):
            raise InvalidCommand(f"setup.characters[{i}] must be an object")
        char, hirelings = _character(entry, cat, seen, i)
        chars[char.id] = char
        dens.update({d.id: d for d in hirelings})
    for i, entry in enumerate(raw_dens):
        dens.update({d.id: d for d in _denizen(entry, cat, seen, f"setup.denizens[{i}]")})
    clearing = setup.get("clearing") or {}
    return MRState(
        options=dict(setup.get("options") or DEFAULT_OPTIONS),
        clearing={k: str(v) for k, v in clearing.items()},
        first_round_of_day=bool(setup.get("first_round_of_day", True)),
        characters=chars, denizens=dens, round=1, step="lure",
    )
