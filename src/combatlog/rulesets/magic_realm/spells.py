"""Spells in combat: completion times and cancellation (MR 8.4.3) and Attack
spells that attack like weapons (MR 8.4.4).

Modelled spells: the four Attack spells of the data (Fiery Blast, Lightning
Bolt, Stones Fly, Roof Collapses) and, in ``magic.py``, Peace, Persuade, Deal
with Goblins, Protection from Magic and Pentangle. Any spell aimed at a
character cancels that character's slower spell (MR 8.4.3). Other spells are
refused with a clear error rather than cast without their effect.
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import level_of, spell_def
from combatlog.rulesets.magic_realm.magic import (
    before_effect, effect, end_spell, peaceful, protected, protection, take_effect,
)
from combatlog.rulesets.magic_realm.magic import end_of_round as spells_end
from combatlog.rulesets.magic_realm.hits import Attack
from combatlog.rulesets.magic_realm.work import Work

replace = msgspec.structs.replace
MODELLED = ("Fiery Blast", "Lightning Bolt", "Stones Fly", "Roof Collapses",
            "Peace", "Persuade", "Deal with Goblins", "Protection from Magic", "Pentangle",
            "Control Bats", "Guide Spider or Octopus")
ACTIVATION = "MR 8.4.3"


def energize(w: Work) -> None:
    """Spells come to life in order of completion time; faster ones cancel slower spells
    of the characters they target; equal times do not cancel (MR 8.4.3)."""
    st = w.view()
    if not any(s.status == "cast" for s in st.spells):
        return
    order = sorted(range(len(st.spells)), key=lambda i: st.spells[i].time)
    for i in order:
        spells = list(w.get("spells"))
        s = spells[i]
        if s.status != "cast":
            continue
        if not s.targets and spell_def(s.spell).target != "clearing":
            _end(w, i, "broken", "no target specified", "MR 8.4.2")
            continue
        stop = before_effect(w, s)
        if stop:
            _end(w, i, "cancelled", stop, "MR 8.4.2 / MR 8.4.4")
            continue
        # (protection read from the spells as they stand: a view after the last spell's change would be a copy)
        shielded = [t for t in s.targets if protection(spells, t) and effect(s.spell) != "protect"]
        if shielded:
            w.step(f"MR spells: {protection(spells, shielded[0])}",
                   f"{', '.join(shielded)} has magic protection: {s.spell} has no effect on him")
        reach = tuple(t for t in s.targets if t not in shielded)
        s = replace(s, status="working", since=st.round)
        w.step(ACTIVATION, f"{s.caster}'s {s.spell} (time {s.time}) comes to life against "
               f"{', '.join(s.targets) or 'the clearing'}")
        for j, other in enumerate(spells):
            if other.caster in reach and other.status == "cast" and other.time > s.time:
                w.set(spells=tuple(spells[:i] + [s] + spells[i + 1:]))
                _end(w, j, "cancelled", f"interrupted by {s.caster}'s faster {s.spell} (time {s.time})", ACTIVATION,
                     "; its asterisks still count")
                spells = list(w.get("spells"))
            elif other.caster in reach and other.status == "cast" and j != i:
                w.step(ACTIVATION, f"{other.caster}'s {other.spell} (time {other.time}) is not slower than "
                       f"{s.spell} (time {s.time}): not cancelled")
        if effect(s.spell) and reach:
            s = take_effect(w, replace(s, targets=reach))
            s = replace(s, targets=st.spells[i].targets)
            targets = dict(w.get("targets"))
            if targets.get(s.caster) in s.targets:
                targets.pop(s.caster)  # he takes back his Attention chit (MR 8.4.3)
                w.set(targets=targets)
        spells = list(w.get("spells"))
        spells[i] = s
        w.set(spells=tuple(spells))
        if s.status == "expired":
            end_spell(w, i, "expired", s.why, ACTIVATION)
    w.set(active_round=True)


def _end(w: Work, i: int, status: str, why: str, rule: str, extra: str = "") -> None:
    """A spell stopped before it goes into effect: its Magic chit fatigues (MR 8.4.3)."""
    end_spell(w, i, status, why + extra, rule)


def working_spell(st, cid: str):  # type: ignore[no-untyped-def]
    """The spell he successfully cast this round, if any (MR 8.4.5: then no weapon attack)."""
    return next((s for s in st.spells if s.caster == cid and s.since == st.round and s.status != "cancelled"), None)


def attack_spells(w: Work, pos: dict[str, tuple[str, str, int]]) -> list[Attack]:
    """Attack spells attack like weapons, once per target (Stones Fly: four attacks spread) (MR 8.4.4)."""
    st = w.view()
    out: list[Attack] = []
    for s in st.spells:
        if s.status != "working" or s.since != st.round:
            continue
        d = spell_def(s.spell)
        if d.attack is None or not q.alive(st, s.caster):
            continue
        if peaceful(st, s.caster):
            w.step("MR 8.4.4 Preventing Attacks", f"{s.caster} is under Peace: his {s.spell} does not attack")
            continue
        atk = d.attack
        plays = st.plays.get(s.caster)
        direction = atk["direction"].get("fixed_box") or (plays.attack if plays else 0)
        if not direction:
            w.step("MR 8.4.4", f"{s.caster} placed no attack for {s.spell}: it expires unused")
            continue
        time = atk["attack_time"].get("fixed") or s.time
        targets = [t for t in s.targets if q.alive(st, t)]
        if d.target == "clearing":
            targets = sorted(p for p in q.in_clearing(st) + [x for x in st.denizens if not st.denizens[x].parent]
                             if q.alive(st, p))
        for t in [t for t in targets if protected(st, t)]:
            targets.remove(t)
            w.step(f"MR spells: {protected(st, t)}", f"{t} has magic protection: {s.spell} does not attack him")
        counts = _distribution(s.spell, targets)
        for t in targets:
            for k in range(counts.get(t, 1)):
                out.append(Attack(s.caster, t, direction, time, int(atk["length"]), level_of(atk["harm"], s.spell),
                                  int(atk["sharpness"]), missile=bool(atk["missile"]), kind="spell",
                                  weapon=s.spell, label=f"r{st.round}/missile/{s.caster}/{t}"
                                  + (f"#{k + 1}" if counts.get(t, 1) > 1 else "")))
    return out


def _distribution(spell: str, targets: list[str]) -> dict[str, int]:
    """Stones Fly: at least four attacks spread over its targets (data: spells.json)."""
    if spell != "Stones Fly" or not targets:
        return {t: 1 for t in targets}
    n = len(targets)
    if n == 1:
        return {targets[0]: 4}
    if n == 2:
        return {t: 2 for t in targets}
    if n == 3:
        return {targets[0]: 2, targets[1]: 1, targets[2]: 1}
    return {t: 1 for t in targets}


def end_of_round(w: Work) -> None:
    """Attack spells expire at the end of the round (MR 8.4.4); lasting spells stay (MR 8.4.3)."""
    spells_end(w)
