"""Demons and the Imp: their light-side attack makes the target roll on a spell
table instead of inflicting harm (MR 8.4.7). Table results from ``data/spells.json``
(``tables.power_of_the_pit`` and ``tables.curse``); rolled as two dice, higher die.
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.hits import Attack, Effects
from combatlog.rulesets.magic_realm.tables import high_die
from combatlog.rulesets.magic_realm.work import Work

PIT_RULE = "MR 8.4.7 / MR spells: Power of the Pit table"
CURSE_RULE = "MR 8.4.7 / MR spells: Curse table"
PIT = {1: "Fiery Chasm Opens", 2: "Carried Away", 3: "Terror", 4: "Blight", 5: "Forget", 6: "Rust"}
CURSES = {1: "Eyemist", 2: "Squeak", 3: "Wither", 4: "Ill Health", 5: "Ashes", 6: "Disgust"}


def demon_attack(w: Work, a: Attack, fx: Effects) -> str:
    st = w.view()
    by = q.player_of(st, a.target)
    if a.table == "curse":
        label = f"r{st.round}/curse/{a.attacker}"
        roll = high_die(w.roll(label, "2d6", f"Curse table for {a.target}", by))
        name = CURSES[roll]
        if a.target not in w.chars:
            w.step(CURSE_RULE, f"Curse {roll} ({name}) on {a.target}: natives are unaffected by curses", (label,))
            return f"curse {name}: no effect"
        c = w.chars[a.target]
        if name == "Wither":  # active chits with effort asterisks fatigue at once
            chits = tuple(msgspec.structs.replace(ch, status="fatigued") if ch.status == "active" and ch.asterisks
                          else ch for ch in c.chits)
            w.char(c.id, chits=chits)
        if name == "Squeak":
            w.char(c.id, hidden=False)
        w.set(active_round=True)
        w.step(CURSE_RULE, f"Curse {roll}: {c.name} is cursed with {name}", (label,))
        return f"curse {name}"
    label = f"r{st.round}/pit/{a.attacker}"
    roll = high_die(w.roll(label, "2d6", f"Power of the Pit for {a.target}", by))
    name = PIT[roll]
    w.step(PIT_RULE, f"Power of the Pit {roll}: {name}", (label,))
    w.set(active_round=True)
    if roll == 1:  # everyone unhidden in the clearing is killed
        for cid in q.in_clearing(st):
            if not w.chars[cid].hidden:
                fx.kills.append((cid, a.attacker))
        for d in w.dens.values():
            if d.alive and not d.parent:
                fx.kills.append((d.id, a.attacker))
        return name
    if roll == 2:
        fx.kills.append((a.target, a.attacker))
        return name
    if roll == 3:  # Light and Medium monsters, natives and horses die; characters wound L/M chits
        for d in w.dens.values():
            if d.alive and not d.parent and d.stats.vulnerability <= 2:
                fx.kills.append((d.id, a.attacker))
            elif d.alive and d.horse is not None and d.horse.alive and d.horse.vulnerability <= 2:
                fx.horse_kills.append((d.id, d.horse.id, a.attacker))
        for cid in q.in_clearing(st):
            c = w.chars[cid]
            chits = tuple(msgspec.structs.replace(ch, status="wounded")
                          if ch.action in ("MOVE", "FIGHT") and 1 <= ch.strength <= 2 else ch for ch in c.chits)
            w.char(cid, chits=chits)
            if all(ch.status == "wounded" for ch in chits):
                fx.kills.append((cid, a.attacker))
        return name
    if a.target not in w.chars:
        return f"{name}: no effect on a native"
    c = w.chars[a.target]
    if roll == 4:
        chits = tuple(msgspec.structs.replace(ch, status="wounded") if ch.status == "active" and ch.asterisks
                      else ch for ch in c.chits)
        w.char(c.id, chits=chits)
        if all(ch.status == "wounded" for ch in chits):
            fx.kills.append((c.id, a.attacker))
    elif roll == 5:
        w.char(c.id, chits=tuple(msgspec.structs.replace(ch, status="fatigued")
                                 if ch.status == "active" and ch.action == "MAGIC" else ch for ch in c.chits))
    else:
        for i, piece in enumerate(c.armor):
            if piece.active and piece.condition != "destroyed" and piece.kind != "card":
                fx.armor.append((c.id, i, "destroyed" if piece.condition == "damaged" else "damaged"))
    return name
