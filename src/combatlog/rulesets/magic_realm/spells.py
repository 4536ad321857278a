"""Spells in combat: completion times and cancellation (MR 8.4.3) and Attack
spells that attack like weapons (MR 8.4.4).

Modelled spells: the four Attack spells of the data (Fiery Blast, Lightning
Bolt, Stones Fly, Roof Collapses). Any of them aimed at a character also
cancels that character's slower spell (MR 8.4.3). Other spells are refused
with a clear error rather than cast without their effect.
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import catalog, level_of
from combatlog.rulesets.magic_realm.melee import Attack
from combatlog.rulesets.magic_realm.work import Work

replace = msgspec.structs.replace
MODELLED = ("Fiery Blast", "Lightning Bolt", "Stones Fly", "Roof Collapses")
ACTIVATION = "MR 8.4.3"


def spell_def(name: str):  # type: ignore[no-untyped-def]
    return catalog().spells[name]


def energize(w: Work) -> None:
    """Spells come to life in order of completion time; faster ones cancel slower spells
    of the characters they target; equal times do not cancel (MR 8.4.3)."""
    st = w.view()
    spells = list(st.spells)
    if not spells:
        return
    order = sorted(range(len(spells)), key=lambda i: spells[i].time)
    for i in order:
        s = spells[i]
        if s.status != "cast":
            continue
        if not s.targets:
            spells[i] = replace(s, status="broken", why="no target specified")
            w.step("MR 8.4.2", f"{s.caster}'s {s.spell} has no target: it is broken before it goes into effect")
            _fatigue_chit(w, s.caster, s.chit)
            continue
        spells[i] = replace(s, status="working")
        w.step(ACTIVATION, f"{s.caster}'s {s.spell} (time {s.time}) comes to life against {', '.join(s.targets)}")
        for j, other in enumerate(spells):
            if other.caster in s.targets and other.status == "cast" and other.time > s.time:
                spells[j] = replace(other, status="cancelled", why=f"interrupted by {s.caster}'s faster {s.spell}")
                w.step(ACTIVATION, f"{other.caster}'s {other.spell} (time {other.time}) is cancelled by the faster "
                       f"{s.spell} (time {s.time}); its Magic chit fatigues, its asterisks still count")
                _fatigue_chit(w, other.caster, other.chit)
            elif other.caster in s.targets and other.status == "cast" and j != i:
                w.step(ACTIVATION, f"{other.caster}'s {other.spell} (time {other.time}) is not slower than "
                       f"{s.spell} (time {s.time}): not cancelled")
    w.set(spells=tuple(spells), active_round=True)


def _fatigue_chit(w: Work, cid: str, chit: str) -> None:
    c = w.chars[cid]
    w.char(cid, chits=tuple(replace(ch, status="fatigued") if ch.id == chit else ch for ch in c.chits))


def working_spell(st, cid: str):  # type: ignore[no-untyped-def]
    return next((s for s in st.spells if s.caster == cid and s.status == "working"), None)


def attack_spells(w: Work, pos: dict[str, tuple[str, str, int]]) -> list[Attack]:
    """Attack spells attack like weapons, once per target (Stones Fly: four attacks spread) (MR 8.4.4)."""
    st = w.view()
    out: list[Attack] = []
    for s in st.spells:
        if s.status != "working":
            continue
        d = spell_def(s.spell)
        if d.attack is None or not q.alive(st, s.caster):
            continue
        atk = d.attack
        plays = st.plays.get(s.caster)
        direction = atk["direction"].get("fixed_box") or (plays.attack if plays else 0)
        if not direction:
            w.step("MR 8.4.4", f"{s.caster} placed no attack for {s.spell}: it expires unused")
            continue
        time = atk["attack_time"].get("fixed") or s.time
        targets = [t for t in s.targets if q.alive(st, t)]
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
    """Attack spells expire at the end of the round; their Magic chits fatigue (MR 8.4.4)."""
    st = w.view()
    for s in st.spells:
        if s.status == "working":
            _fatigue_chit(w, s.caster, s.chit) if s.caster in w.chars else None
            w.step("MR 8.4.4", f"{s.caster}'s {s.spell} expires; its Magic chit fatigues")
    w.set(spells=())
