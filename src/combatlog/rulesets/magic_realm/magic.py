"""Spells that are not Attack spells: what they do in combat, how long they last and
how they are broken (MR 8.4.2, 8.4.3, 8.4.4), plus the spell-target rules (MR 8.4.2).

Modelled (effects from ``data/spells.json``, cited ``MR spells: <name>``):

* Peace (prevents attacks, lasts for the combat): MR 8.4.4 "Preventing Attacks";
* Persuade, Deal with Goblins (pacification, last the day): MR 8.4.4 "Pacification spells",
  MR 8.4.2 "Breaking Pacification Spells";
* Protection from Magic (one round), Pentangle (the combat): magic protection;
* Control Bats, Guide Spider or Octopus (control, last the day): MR 8.4.4 "Controlling Monsters";
  a controlled monster is then played like a hireling.

A spell that lasts beyond the round keeps its Magic chit (or Spell card) committed
to its target until it ends; then the chit fatigues (MR 8.4.3 "bewitching").
"""

from __future__ import annotations

import msgspec

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import spell_def
from combatlog.rulesets.magic_realm.state import MRState, SpellCast
from combatlog.rulesets.magic_realm.work import Work

replace = msgspec.structs.replace

EFFECTS = {"Peace": "peace", "Persuade": "pacify", "Deal with Goblins": "pacify",
           "Protection from Magic": "protect", "Pentangle": "protect",
           "Control Bats": "control", "Guide Spider or Octopus": "control"}
# Durations (data: spells.json) that outlive the round they are cast in (MR 8.4.3).
PERSIST = ("combat", "day", "permanent")
PACIFY_RULE = "MR 8.4.4 Pacification spells"
BREAK_RULE = "MR 8.4.2 Breaking Pacification Spells"
PREVENT_RULE = "MR 8.4.4 Preventing Attacks"
CONTROL_RULE = "MR 8.4.4 Controlling Monsters"


def effect(spell: str) -> str:
    return EFFECTS.get(spell, "")


def _working(st: MRState, kind: str) -> list[SpellCast]:
    return [s for s in st.spells if s.status == "working" and effect(s.spell) == kind]


# -- queries -----------------------------------------------------------------------------


def protected(st: MRState, pid: str) -> str:
    """The spell giving ``pid`` magic protection, or '' (MR spells: Protection from Magic, Pentangle)."""
    return protection(st.spells, pid)


def protection(spells: tuple[SpellCast, ...], pid: str) -> str:
    """``protected`` given the spells (a fold that has just changed them need not make a view to ask)."""
    s = next((s for s in spells if s.status == "working" and effect(s.spell) == "protect" and pid in s.targets), None)
    return s.spell if s else ""


def peaceful(st: MRState, pid: str) -> bool:
    """Under Peace: may not attack nor be assigned (MR spells: Peace; MR 8.4.4 Preventing Attacks).
    Magic protection suspends spells already on the target (MR spells: Pentangle)."""
    return any(pid in s.targets for s in _working(st, "peace")) and not protected(st, pid)


def pacifiers(st: MRState, did: str) -> set[str]:
    """Casters whose pacification spell holds ``did`` (MR 8.4.4)."""
    if protected(st, did):
        return set()
    return {s.caster for s in _working(st, "pacify") if did in s.targets}


def not_attacking(st: MRState, did: str) -> set[str]:
    """Characters and hirelings a pacified denizen does not attack: each pacifier and his
    hirelings (MR 8.4.4: 'they stop attacking ... him and his hirelings')."""
    out: set[str] = set()
    for cid in pacifiers(st, did):
        out.add(cid)
        out.update(q.hirelings_of(st, cid))
    return out


def committed(st: MRState, cid: str) -> dict[str, str]:
    """Magic chits committed to a spell in effect: chit -> spell (MR 8.4.3)."""
    return {s.chit: s.spell for s in st.spells if s.caster == cid and s.status == "working" and s.chit}


def in_effect(st: MRState, cid: str, spell: str, item: str = "") -> int:
    """How many of his casts of ``spell`` are in effect (each duplicate is a separate spell, MR 8.4.3)."""
    return sum(1 for s in st.spells if s.caster == cid and s.spell == spell and s.item == item
               and s.status in ("working", "cast"))


# -- spell targets (MR 8.4.2) ---------------------------------------------------------------


def _uncontrolled(st: MRState, did: str) -> bool:
    d = st.denizens.get(did)
    return d is not None and d.alive and not d.parent and not q.is_hireling(d)


def human_groups(st: MRState) -> dict[str, tuple[str, ...]]:
    """'Human group': one native group, or all the Giants, or all the Ogres in the clearing (MR 8.4.2)."""
    groups: dict[str, list[str]] = {}
    for d in st.denizens.values():
        if not d.alive or d.parent:
            continue
        if d.stats.kind == "native" and d.stats.group:
            groups.setdefault(d.stats.group, []).append(d.id)
        elif d.stats.kind == "monster" and d.stats.name in ("Giant", "Ogre"):
            groups.setdefault(d.stats.name + "s", []).append(d.id)
    return {k: tuple(sorted(v)) for k, v in groups.items()}


def goblins(st: MRState) -> tuple[str, ...]:
    """A 'Goblins' target: all the uncontrolled Goblins in the clearing (MR 8.4.2)."""
    return tuple(sorted(d for d in st.denizens if _uncontrolled(st, d) and "Goblin" in st.denizens[d].stats.name))


def resolve_targets(st: MRState, cid: str, spell_name: str, target_kind: str,
                    named: tuple[str, ...]) -> tuple[str, ...]:
    """Check (and for 'Goblins' fill in) the targets of a spell (MR 8.4.2 sorts of targets)."""
    rule = "MR 8.4.2"
    if target_kind == "clearing":
        if named:
            raise InvalidCommand(f"{spell_name} targets the whole clearing; name no targets")
        return ()
    if target_kind == "bats":
        every = tuple(sorted(d for d in st.denizens if _uncontrolled(st, d) and "Bat" in st.denizens[d].stats.name))
        if named and tuple(sorted(named)) != every:
            raise IllegalCommand(f"a 'Bats' target must include all the uncontrolled Bats in the clearing: "
                                 f"{', '.join(every) or 'none'}", rule=rule)
        if not every:
            raise IllegalCommand("there are no uncontrolled Bats in the clearing", rule=rule)
        return every
    if target_kind == "spider, octopus":
        if len(named) != 1 or named[0] not in st.denizens or not st.denizens[named[0]].alive or \
                st.denizens[named[0]].parent or not any(k in st.denizens[named[0]].stats.name
                                                        for k in ("Spider", "Octopus")):
            raise IllegalCommand(f"{spell_name} needs one Spider or Octopus in the clearing (the 'monster' "
                                 "the spell specifies)", rule=rule)
        return tuple(named)
    if target_kind == "goblins":
        every = goblins(st)
        if named and tuple(sorted(named)) != every:
            raise IllegalCommand(f"a 'Goblins' target must include all the uncontrolled Goblins in the clearing: "
                                 f"{', '.join(every) or 'none'}", rule=rule)
        if not every:
            raise IllegalCommand("there are no uncontrolled Goblins in the clearing", rule=rule)
        return every
    if not named:
        raise IllegalCommand(f"{spell_name} needs its targets (--spell-target)", rule=rule)
    if target_kind == "human group":
        groups = human_groups(st)
        match = [g for g, members in groups.items() if tuple(sorted(named)) == members]
        if not match:
            listed = "; ".join(f"{g}: {', '.join(m)}" for g, m in sorted(groups.items())) or "none"
            raise IllegalCommand(f"a 'human group' is one native group, all the Giants or all the Ogres in the "
                                 f"clearing, named in full ({listed})", rule=rule)
        return tuple(sorted(named))
    if target_kind in ("attacker", "character", "individual") and len(named) > 1:
        raise IllegalCommand(f"{spell_name} has a single target", rule="MR spells")
    for t in named:
        if target_kind == "character" and t not in st.characters:
            raise IllegalCommand(f"{spell_name} needs a character target", rule=rule)
        self_ok = target_kind in ("character", "individual")  # 'a character target can be ... the spellcaster'
        if not q.alive(st, t) or (t in st.denizens and st.denizens[t].parent) or (t == cid and not self_ok):
            raise IllegalCommand(f"{t} is not a character, native or monster in the clearing the spell can "
                                 "target", rule=rule)
    return tuple(named)


def refuse_protected(st: MRState, targets: tuple[str, ...]) -> None:
    """New spells cannot be cast on a target with magic protection (MR spells: Protection from
    Magic, Pentangle)."""
    for t in targets:
        if protected(st, t):
            raise IllegalCommand(f"{t} has magic protection ({protected(st, t)}): new spells cannot be cast "
                                 "on him", rule=f"MR spells: {protected(st, t)}")


# -- taking effect (called by spells.energize) -----------------------------------------------


def before_effect(w: Work, s: SpellCast) -> str:
    """Why a spell is stopped from going into effect, or ''."""
    if effect(s.spell) in ("pacify", "control"):
        st = w.view()
        # MR 8.4.2 / 8.4.4: the caster's hirelings attacking a target stop the spell.
        for h in q.hirelings_of(st, s.caster):
            t = q.target_of(st, h)
            if t in s.targets:
                return f"{h}, a hireling of {s.caster}, is assigned to attack {t}"
    return ""


def take_effect(w: Work, s: SpellCast) -> SpellCast:
    """The immediate effect of a non-Attack spell that comes to life (MR 8.4.4)."""
    kind = effect(s.spell)
    if kind == "peace":
        return _peace(w, s)
    if kind == "pacify":
        _pacify(w, s)
    elif kind == "control":
        _control(w, s)
    elif kind == "protect":
        w.step(f"MR spells: {s.spell}", f"{', '.join(s.targets)}: magic protection: spells not yet working on "
               "him have no effect, and Demons and the Imp cannot harm him with their spells")
    return s


def _unassign(w: Work, did: str, why: str, rule: str) -> None:
    """A denizen stops attacking its target; a Tremendous monster turns red side down (MR 8.4.4)."""
    st = w.view()
    assigned = dict(w.get("assigned"))
    pinned = dict(w.get("pinned"))
    had = assigned.pop(did, None) or pinned.get(did)
    if did in pinned:
        pinned.pop(did)
        w.den(did, side="light")
        w.step(rule, f"{q.name(st, did)} lets go of {had}: it turns red side down")
    w.set(assigned=assigned, pinned=pinned)
    if had:
        w.step(rule, f"{q.name(st, did)} is no longer assigned to {had}: {why}")


def _peace(w: Work, s: SpellCast) -> SpellCast:
    """Peace: if nobody but the caster attacks the target, the target drops its target and may not
    attack or be assigned while the spell lasts (MR spells: Peace; MR 8.4.4 Preventing Attacks)."""
    st = w.view()
    t = s.targets[0]
    others = [p for p in list(st.characters) + list(st.denizens)
              if p != s.caster and p != t and q.alive(st, p) and q.target_of(st, p) == t]
    if others:
        w.step("MR spells: Peace", f"{', '.join(sorted(others))} already attack {t}: Peace has no effect")
        return replace(s, status="expired", why="the target was already attacked by others")
    w.step(PREVENT_RULE, f"{q.name(st, t)} is under Peace: it cannot attack and cannot be assigned while the "
           "spell lasts; naming it as a target breaks the spell")
    if t in w.dens:
        _unassign(w, t, "Peace forbids it to attack", PREVENT_RULE)
        d = w.dens[t]
        if q.is_hireling(d):
            deployed = {h: x for h, x in w.get("deployed").items() if h != t}
            targets = {k: v for k, v in w.get("targets").items() if k != t}
            w.set(deployed=deployed, targets=targets)
    else:
        targets = dict(w.get("targets"))
        charges = dict(w.get("charges"))
        if t in charges:
            w.step(PREVENT_RULE, f"{t}'s charge against {charges.pop(t)} is cancelled")
        if targets.pop(t, None):
            w.step(PREVENT_RULE, f"{t}'s target is cancelled: he cannot specify a new one while Peace lasts "
                   "(his hirelings are not affected)")
        w.set(targets=targets, charges=charges)
    return s


def _pacify(w: Work, s: SpellCast) -> None:
    """Targets assigned to the caster or his hirelings become unassigned (MR 8.4.4)."""
    st = w.view()
    mine = {s.caster, *q.hirelings_of(st, s.caster)}
    w.step(PACIFY_RULE, f"{s.caster}'s {s.spell} pacifies {', '.join(s.targets)}: they act like natives not "
           f"battling {s.caster} (no attacks on him or his hirelings; other characters are attacked normally)")
    for t in s.targets:
        holder = w.get("assigned").get(t) or w.get("pinned").get(t)
        if holder in mine:
            _unassign(w, t, f"pacified by {s.caster}", PACIFY_RULE)


def _control(w: Work, s: SpellCast) -> None:
    """Only monsters not already controlled come under control; their assignments are cancelled and
    they get no new target this round; a Tremendous one is played red side down (MR 8.4.4, 8.4.7).

    Decision: MR 8.4.4 lets the caster cancel "any or all" of the assignments; all are cancelled (a
    monster left on one of his hired natives would be treachery, MR 8.4.2g).
    """
    for t in s.targets:
        d = w.dens[t]
        if d.owner:
            w.step(CONTROL_RULE, f"{q.name(w.view(), t)} is already controlled by {d.owner}: it stays with him")
            continue
        _unassign(w, t, f"controlled by {s.caster}; no new target until the next round", CONTROL_RULE)
        w.den(t, owner=s.caster, side="light" if d.stats.tremendous else d.side)
        w.step(CONTROL_RULE, f"{q.name(w.view(), t)} is controlled by {s.caster}: from the next round it is "
               "deployed, targets and is placed like his hirelings")


def _release(w: Work, s: SpellCast) -> None:
    """A control spell ends: its monsters revert to uncontrolled denizens (MR 8.4.2 'all of the targets
    revert to normal behavior')."""
    for t in s.targets:
        d = w.dens.get(t)
        if d is None or d.owner != s.caster:
            continue
        w.den(t, owner="")
        w.set(deployed={h: x for h, x in w.get("deployed").items() if h != t},
              deploy_order=tuple(h for h in w.get("deploy_order") if h != t),
              targets={k: v for k, v in w.get("targets").items() if k != t})
        w.step(BREAK_RULE, f"{q.name(w.view(), t)} is no longer controlled by {s.caster}")


# -- ending and breaking (MR 8.4.2, 8.4.3) -----------------------------------------------------


def end_spell(w: Work, index: int, status: str, why: str, rule: str) -> None:
    """The spell ends: its Magic chit returns and fatigues, a Spell card returns to its item (MR 8.4.3)."""
    spells = list(w.get("spells"))
    s = spells[index]
    spells[index] = replace(s, status=status, why=why)
    w.set(spells=tuple(spells))
    if s.chit and s.caster in w.chars:
        c = w.chars[s.caster]
        w.char(s.caster, chits=tuple(replace(ch, status="fatigued", alerted=False) if ch.id == s.chit else ch
                                     for ch in c.chits))
        back = f"its Magic chit {s.chit} returns and fatigues"
    else:
        back = f"its Spell card returns to the {s.item}"
    w.step(rule, f"{s.caster}'s {s.spell} is {status} ({why}); {back}")
    if effect(s.spell) == "control" and s.since:
        _release(w, s)


def break_by_naming(w: Work, character: str, named: list[str] | set[str], how: str) -> None:
    """Naming a spell's target breaks it: pacification when its caster (or his hireling) targets,
    deploys against or lures one of its targets (MR 8.4.2, MR spells: Persuade / Deal with Goblins);
    Peace when anyone names its target for an attack or spell (MR spells: Peace)."""
    named = set(named)
    for i, s in enumerate(w.get("spells")):
        if s.status != "working" or not named & set(s.targets):
            continue
        kind = effect(s.spell)
        if kind in ("pacify", "control") and s.caster == character:
            end_spell(w, i, "broken", f"{character} {how} {', '.join(sorted(named & set(s.targets)))}", BREAK_RULE)
            w.step(BREAK_RULE, f"{', '.join(s.targets)} revert to normal behaviour")
        elif kind == "peace":
            end_spell(w, i, "broken", f"{character} {how} {', '.join(sorted(named & set(s.targets)))}",
                      "MR spells: Peace")


def end_of_round(w: Work) -> None:
    """Spells of the round that do not last expire; lasting ones stay on their targets unless every
    target is gone (MR 8.4.3, 8.4.4)."""
    st = w.view()
    for i, s in enumerate(st.spells):
        if s.status != "working":
            continue
        lasting = spell_def(s.spell).duration in PERSIST
        # Decision: a lasting spell whose targets are all dead or gone ends with the round.
        if lasting and any(q.alive(w.view(), t) for t in s.targets):
            w.step("MR 8.4.3", f"{s.caster}'s {s.spell} remains in effect on {', '.join(s.targets)}; "
                   + (f"its Magic chit {s.chit} stays committed" if s.chit else f"its Spell card stays out of the "
                      f"{s.item}"))
            continue
        end_spell(w, i, "expired", "it lasts no longer" if not lasting else "its targets are gone",
                  "MR 8.4.4" if spell_def(s.spell).attack else "MR 8.4.3")
    w.set(spells=tuple(s for s in w.get("spells") if s.status == "working"))
