"""Inflicting harm (MR 8.4.9) and what it does to characters, armor, horses and denizens.

Character harm, armor and wounds follow ``data/tables.md`` ("Applying harm to
a character"), which the issue names as the source for what seed 000 leaves
out; they are cited as ``MR tables: ...``.
"""

from __future__ import annotations

from itertools import groupby

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import DIRS, RED, letter
from combatlog.rulesets.magic_realm.demons import demon_attack
from combatlog.rulesets.magic_realm.hits import NO_MANEUVER, Attack, Effects, worsen
from combatlog.rulesets.magic_realm.melee import order_key
from combatlog.rulesets.magic_realm.state import Armor, Character
from combatlog.rulesets.magic_realm.tables import MISSILE_RULE, Harm, high_die, missile_change
from combatlog.rulesets.magic_realm.work import Work

CHAR_RULE = "MR tables: Applying harm to a character"
ARMOR_RULE = "MR 8.4.9 / MR tables: Applying harm to a character (armor)"


def base_harm(w: Work, a: Attack) -> Harm:
    """Harm letter plus stars, the stronger-Fight-chit level and the Missile Table (MR 8.4.9)."""
    h = Harm(a.harm, a.stars)
    if a.bonus:
        h.raise_levels(1, "Fight chit stronger than the weapon: +1 level")
    if a.missile and not h.red:
        st = w.view()
        c = w.chars.get(a.attacker)
        notation = "1d6" if a.archer else "2d6"  # Archers, and characters with ARCHER, roll one die (MR 8.4.9)
        by = c.player if c else q.player_of(st, a.attacker)
        label = a.label or f"r{st.round}/missile/{a.attacker}"
        faces = w.roll(label, notation, f"Missile Table for {a.attacker}", by)
        result = high_die(faces)
        aim = c is not None and "AIM" in c.advantages
        if aim:
            result -= 1
        change = missile_change(result)
        h.raise_levels(change, f"Missile Table {list(faces)}{' -1 AIM' if aim else ''} -> {change:+d} levels")
        one = " (one die: ARCHER advantage)" if a.archer and c is not None else " (one die: Archer)" if a.archer else ""
        w.step(MISSILE_RULE, f"{a.attacker} rolls {list(faces)}{one}"
               f"{', AIM -1' if aim else ''}: harm changes {change:+d} -> {h.text()}", (label,))
    return h


def armor_for(c: Character, direction: int, shield_box: int) -> int | None:
    """Index of the armor piece that takes a hit from ``direction``: lowest layer first."""
    best: tuple[int, int] | None = None
    for i, a in enumerate(c.armor):
        if not a.active or a.condition == "destroyed":
            continue
        covers = (a.kind == "shield" and shield_box == direction) or (a.kind != "shield" and direction in a.protects)
        if covers and (best is None or a.layer < best[0]):
            best = (a.layer, i)
    return None if best is None else best[1]


def harm_character(w: Work, a: Attack, h: Harm, fx: Effects) -> str:
    st = w.view()
    c = w.chars[a.target]
    plays = st.plays.get(c.id)
    if h.red:
        fx.kills.append((c.id, a.attacker))
        w.step("MR 8.4.7", f"{q.name(st, a.attacker)} is red side up: {c.name} is killed outright, "
               "armor and horse untouched")
        return "kills (red side)"
    if plays is not None and plays.horse and plays.maneuver and c.horse is not None and c.horse.alive:
        horse = c.horse
        if horse.armored:
            h.armor()
        if h.applied >= horse.vulnerability:
            fx.horse_kills.append((c.id, horse.id, a.attacker))
            w.step("MR 8.4.9", f"the hit strikes {c.name}'s horse ({horse.name}): {h.applied_text()} >= "
                   f"{letter(horse.vulnerability)}: the horse is killed")
            return "kills horse"
        w.step("MR 8.4.9", f"the hit strikes {c.name}'s horse: {h.applied_text()} < {letter(horse.vulnerability)}: "
               "no effect")
        return "horse unharmed"
    through = a.missile and h.applied > 4
    idx = None if through else armor_for(c, a.direction, plays.shield if plays else 0)
    if through:
        w.step(MISSILE_RULE, f"missile harm {h.applied_text()} exceeds T: it ignores armor")
    if idx is not None:
        piece: Armor = c.armor[idx]
        h.armor()
        applied = h.applied
        if w.state.revision == "1":
            return _armor_version_1(w, a, h, fx, c, idx, piece)
        # Decision (issue 38): the piece is the one that protected before this group of simultaneous hits
        # ("Armor destroyed by a simultaneous attack still protects", MR tables point 3), and the group's
        # results on it accumulate (simultaneous attacks "inflict damage at the same time", MR 8.4.9 note):
        # two 'damaged' results destroy an intact piece, a 'destroyed' result stands whatever comes with it.
        earlier = fx.armor_condition(c.id, idx, piece.condition)
        if applied > piece.vulnerability:
            result = "destroyed"
        elif applied == piece.vulnerability:
            result = "damaged"
        else:
            result = "unharmed"
        if result != "unharmed":
            fx.armor.append((c.id, idx, result))
        after = worsen(earlier, result)
        effect = result if result == "unharmed" else after
        a.armor_piece, a.armor_effect = piece.name, effect
        text = f"{DIRS[a.direction]} hits {c.name}'s {piece.name}: {h.applied_text()} vs armor " \
               f"{letter(piece.vulnerability)}: {effect}"
        if result == "damaged" and piece.condition == "damaged" and earlier == "damaged":
            text += " (it was already damaged)"
        elif result != "unharmed" and earlier != piece.condition:
            text += f" (a simultaneous hit has {earlier} it; it still protects)"
        if applied >= 2:
            fx.wounds.append((c.id, a.attacker))
            text += "; harm of M or more wounds the character"
        w.step(ARMOR_RULE, text)
        return f"armor {effect}"
    applied = h.applied
    if applied >= c.vulnerability:
        fx.kills.append((c.id, a.attacker))
        w.step(CHAR_RULE, f"{h.applied_text()} >= {c.name}'s vulnerability {letter(c.vulnerability)} with no "
               "armor: killed")
        return "kills"
    if applied >= 1:
        fx.wounds.append((c.id, a.attacker))
        w.step(CHAR_RULE, f"{h.applied_text()} < vulnerability {letter(c.vulnerability)}: one wound")
        return "wound"
    w.step(CHAR_RULE, "negligible harm: no effect")
    return "no effect"


def harm_denizen(w: Work, a: Attack, h: Harm, fx: Effects, horse_dead: set[str]) -> str:
    d = w.dens[a.target]
    horse = d.horse if d.horse is not None and d.horse.alive and d.horse.id not in horse_dead else None
    if a.vs_horse and horse is not None:
        if h.red:
            fx.kills.append((d.id, a.attacker))
            w.step("MR 8.4.7", f"red-side-up {a.attacker} hits {d.id}'s horse: native and horse are both killed")
            return "kills (red side)"
        if horse.armored:
            h.armor()  # warhorses are armored (MR 8.4.9)
        if h.applied >= horse.vulnerability:
            fx.horse_kills.append((d.id, horse.id, a.attacker))
            w.step("MR 8.4.9", f"the hit goes to {d.id}'s horse ({horse.name}): {h.applied_text()} >= "
                   f"{letter(horse.vulnerability)}: the horse is killed")
            return "kills horse"
        w.step("MR 8.4.9", f"the hit goes to {d.id}'s horse: {h.applied_text()} < {letter(horse.vulnerability)}: "
               "no effect")
        return "horse unharmed"
    if a.vs_horse:
        w.step("MR 8.4.9", f"{d.id}'s horse is dead: the hit, decided by the horse's maneuver, harms the rider")
    if h.red:
        fx.kills.append((d.id, a.attacker))
        w.step("MR 8.4.7", f"red-side-up {a.attacker} kills {d.id} outright")
        return "kills (red side)"
    if d.stats.armored:
        h.armor()
    if h.applied >= d.stats.vulnerability:
        fx.kills.append((d.id, a.attacker))
        w.step("MR 8.4.9", f"{h.applied_text()}{' (armored)' if d.stats.armored else ''} >= {d.id}'s "
               f"vulnerability {letter(d.stats.vulnerability)}: killed")
        return "kills"
    w.step("MR 8.4.9", f"{h.applied_text()}{' (armored)' if d.stats.armored else ''} < {d.id}'s vulnerability "
           f"{letter(d.stats.vulnerability)}: no effect")
    return "no effect"


def flip_weapon(w: Work, cid: str, alert: bool, why: str) -> None:
    c = w.chars[cid]
    weapon = c.weapon
    if c.form is not None:  # a transmorphized character attacks with his monster form, not his weapon
        return
    if weapon is None or weapon.alert == alert:
        return
    w.char(cid, weapons=tuple(x if not x.active else _flip(x, alert) for x in c.weapons))
    w.step("MR 8.4.5", f"{c.name}'s {weapon.name} turns {'alerted' if alert else 'unalerted'} side up ({why})")


def _flip(weapon, alert):  # type: ignore[no-untyped-def]
    import msgspec

    return msgspec.structs.replace(weapon, alert=alert)


def inflict(w: Work, attacks: list[Attack]) -> tuple[dict[int, str], dict[str, str], list[tuple[str, str, int]]]:
    """Hits go into effect in order; kills cancel pending attacks (MR 8.4.9)."""
    st = w.view()
    first = st.round == 1 and st.first_round_of_day
    results: dict[int, str] = {}
    tremendous: dict[str, str] = {}
    kills: list[tuple[str, str, int]] = []
    dead: set[str] = set()
    horse_dead: set[str] = set()
    hits = [(i, a) for i, a in enumerate(attacks) if a.hit]
    hits.sort(key=lambda ia: order_key(st.round, st.first_round_of_day, ia[1]))
    w.step("MR 8.4.9", "order of hits: " + ("longest weapon first, then fastest" if first else
                                            "fastest first, then longest")
           + (": " + ", ".join(f"{a.attacker} (length {a.length}, time {a.time})" for _, a in hits) if hits else
              ": no hits"))
    for n, (_i, a) in enumerate(hits, 1):
        a.order = n
    for gno, (_key, group_iter) in enumerate(groupby(hits, key=lambda ia: order_key(st.round, st.first_round_of_day,
                                                                                       ia[1]))):
        group = list(group_iter)
        if len(group) > 1:
            w.step("MR 8.4.9", "simultaneous: " + ", ".join(a.attacker for _, a in group)
                   + " hit at the same time (same length and time)")
        fx = Effects()
        for i, a in group:
            a.group = gno + 1
            owner = w.dens[a.attacker].parent if a.attacker in w.dens and w.dens[a.attacker].parent else ""
            if a.attacker in dead or (owner and owner in dead):
                a.cancelled = "attacker killed first"
                results[i] = f"cancelled: {a.cancelled}"
                w.step("MR 8.4.9", f"{a.attacker}'s attack is cancelled: it was killed before it hit")
                if a.attacker in w.chars:
                    flip_weapon(w, a.attacker, True, "cancelled attack")
                continue
            if a.target in dead:
                a.cancelled = "target already killed"
                results[i] = f"cancelled: {a.cancelled}"
                w.step("MR 8.4.9", f"{a.attacker}'s attack on {a.target} is cancelled: the target is already dead")
                if a.attacker in w.chars:
                    flip_weapon(w, a.attacker, True, "cancelled attack")
                continue
            how = f"{a.hit}: {a.why}" if a.why == NO_MANEUVER else a.hit  # the reason MR 8.4.8 gave
            w.step("MR 8.4.9", f"{q.name(w.view(), a.attacker)} hits {q.name(w.view(), a.target)} ({how})")
            known = len(fx.kills), len(fx.horse_kills)
            if a.kind == "demon":
                results[i] = demon_attack(w, a, fx)
            else:
                h = base_harm(w, a)
                if a.target in w.chars:
                    results[i] = harm_character(w, a, h, fx)
                else:
                    results[i] = harm_denizen(w, a, h, fx, horse_dead)
                a.applied = h.applied_text()
                if a.attacker in w.chars:
                    flip_weapon(w, a.attacker, False, "it hit")
            a.kills = tuple(v for v, _k in fx.kills[known[0]:]) + \
                tuple(horse for _r, horse, _k in fx.horse_kills[known[1]:])
            mon = owner or a.attacker
            if mon in w.dens and w.dens[mon].stats.tremendous:  # hired ones too (MR 8.4.7)
                tremendous[mon] = a.target
            if a.kind == "form":  # transmorphized: "flip red-side-up if their body, head, or club hit" (MR 8.4.7)
                tremendous[a.attacker] = a.target
        for victim, killer in fx.kills:
            if victim not in dead:
                dead.add(victim)
                _kill(w, victim, killer)
            kills.append((victim, killer, gno))
        for rider, horse, killer in fx.horse_kills:
            horse_dead.add(horse)
            _kill_horse(w, rider, killer)
            kills.append((horse, killer, gno))
        version_1 = w.state.revision == "1"  # (its group's last result on a piece stood)
        for cid, idx, result in fx.armor:  # accumulated: the order of the group's results does not matter
            c = w.chars[cid]
            pieces = list(c.armor)
            pieces[idx] = _cond(pieces[idx], result if version_1 else worsen(pieces[idx].condition, result))
            w.char(cid, armor=tuple(pieces))
        for cid, by in fx.wounds:
            c = w.chars[cid]
            if c.alive:
                w.char(cid, wounds=c.wounds + 1, last_harmed_by=by)
        if fx.kills or fx.horse_kills or fx.armor or fx.wounds:
            w.set(active_round=True)
    for i, a in enumerate(attacks):
        if not a.hit and a.attacker in w.chars:
            flip_weapon(w, a.attacker, True, "it missed")
    return results, tremendous, kills


def _armor_version_1(w: Work, a: Attack, h: Harm, fx: Effects, c: Character, idx: int, piece: Armor) -> str:
    """A hit on an armor piece as version 1 of these rules judged it, for the logs played under it (docs/rules.md,
    "The state digest"): each result judged against the piece as it is, and in ``inflict`` the group's last
    result on a piece stands (version 2 adds them up: issue 38)."""
    applied = h.applied
    if applied > piece.vulnerability or (applied == piece.vulnerability and piece.condition == "damaged"):
        fx.armor.append((c.id, idx, "destroyed"))
        effect = "destroyed"
    elif applied == piece.vulnerability:
        fx.armor.append((c.id, idx, "damaged"))
        effect = "damaged"
    else:
        effect = "unharmed"
    a.armor_piece, a.armor_effect = piece.name, effect
    text = f"{DIRS[a.direction]} hits {c.name}'s {piece.name}: {h.applied_text()} vs armor " \
           f"{letter(piece.vulnerability)}: {effect}"
    if applied >= 2:
        fx.wounds.append((c.id, a.attacker))
        text += "; harm of M or more wounds the character"
    w.step(ARMOR_RULE, text)
    return f"armor {effect}"


def _cond(piece: Armor, cond: str) -> Armor:
    import msgspec

    return msgspec.structs.replace(piece, condition=cond, active=cond != "destroyed")


def _kill(w: Work, victim: str, killer: str) -> None:
    if victim in w.chars:
        # A dead character takes no wounds in the Fatigue Step: wounds from earlier hits lapse.
        w.char(victim, alive=False, death=f"killed by {killer} in round {w.get('round')}", last_harmed_by=killer,
               wounds=0)
        return
    d = w.dens[victim]
    horse = d.horse
    w.den(victim, alive=False, horse=None if horse is None else _dead_horse(horse))
    for part in [x for x in w.dens.values() if x.parent == victim]:
        w.den(part.id, alive=False)


def _dead_horse(horse):  # type: ignore[no-untyped-def]
    import msgspec

    return msgspec.structs.replace(horse, alive=False)


def _kill_horse(w: Work, rider: str, killer: str) -> None:
    if rider in w.chars:
        c = w.chars[rider]
        if c.horse is not None:
            w.char(rider, horse=_dead_horse(c.horse))
        return
    d = w.dens[rider]
    if d.horse is not None:
        w.den(rider, horse=_dead_horse(d.horse))


__all__ = ["inflict", "armor_for", "base_harm", "RED"]
