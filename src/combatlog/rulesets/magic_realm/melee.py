"""The Melee Step after the plays are revealed: MR 8.4.6 (repositioning, change
tactics) and MR 8.4.8 (does each attack undercut, intercept or miss), then
hands the hits to ``harm.py`` (MR 8.4.9).
"""

from __future__ import annotations

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import BOXES, DIRS, MANEUVERS, letter
from combatlog.rulesets.magic_realm.hits import NO_MANEUVER, Attack
from combatlog.rulesets.magic_realm.magic import peaceful, protected
from combatlog.rulesets.magic_realm.state import AttackRec, Melee
from combatlog.rulesets.magic_realm.tables import REPOSITION_RULE, TACTICS_RULE, reposition, tactics_flip
from combatlog.rulesets.magic_realm.work import Work

AREA_NAMES = {"box": "red box", "circle": "attack circle", "square": "maneuver square"}


def horse_of(w: Work, pid: str) -> str:
    d = w.dens.get(pid)
    return d.horse.id if d is not None and d.horse is not None and d.horse.alive else ""


def _fill(members: list[str], chosen: dict[str, int], w: Work) -> dict[str, int]:
    """Positions the player chose; unplaced counters fill boxes 1, 2, 3 in turn."""
    out: dict[str, int] = {}
    k = 0
    for m in members:
        if m in chosen:
            out[m] = chosen[m]
        else:
            out[m] = k % 3 + 1
            k += 1
        h = horse_of(w, m)
        if h:
            out[h] = chosen.get(h, out[m])
    return out


def initial_positions(w: Work, where: dict[str, str]) -> dict[str, tuple[str, str, int]]:
    """Where every counter stands when the plays are revealed (MR 8.4.2, 8.4.5)."""
    st = w.view()
    pos: dict[str, tuple[str, str, int]] = {}
    owners = sorted(set(where.values()) | {c for c in q.in_clearing(st)})
    for owner in owners:
        members = q.on_sheet(st, owner, where)
        kind = q.sheet_kind(st, owner)
        if kind == "character":
            plays = st.plays.get(owner)
            placed = _fill(members, dict(plays.place) if plays else {}, w)
            pos.update({m: (owner, "box", b) for m, b in placed.items()})
            continue
        target = q.target_of(st, owner, where)
        if kind == "hireling":
            plays = st.plays.get(q.controller(st, owner))
            boxes = dict(plays.hirelings) if plays else {}
            pos[owner] = (owner, "box", boxes.get(owner, 1))
            h = horse_of(w, owner)
            if h:
                pos[h] = (owner, "box", boxes.get(h, pos[owner][2]))
            for part in [m for m in members if w.dens[m].parent == owner]:
                # a hired monster's head or club: its own box, never the monster's (MR 8.4.7)
                pos[part] = (owner, "box", boxes.get(part, pos[owner][2] % 3 + 1))
        else:
            pos[owner] = (owner, "box", 1)  # the defender in 'Charge and Thrust' (MR 8.4.2)
            extra = [x for x in [horse_of(w, owner)] if x] + [m for m in members if w.dens[m].parent == owner]
            for x in extra:
                pos[x] = (owner, "box", 2)  # its head, club or horse in 'Dodge and Swing'
        others = [m for m in members if m != target and w.dens[m].parent != owner]
        if target and target in members:
            sq = _fill([target], {target: st.positions.get(target, 1)} | {
                k: v for k, v in st.positions.items() if k == horse_of(w, target)}, w)
            pos.update({m: (owner, "square", b) for m, b in sq.items()})
        circ = _fill(others, {m: st.positions[m] for m in others if m in st.positions}
                     | {horse_of(w, m): st.positions[horse_of(w, m)] for m in others
                        if horse_of(w, m) and horse_of(w, m) in st.positions}, w)
        pos.update({m: (owner, "circle", b) for m, b in circ.items()})
    return pos


def _groups(w: Work, pos: dict[str, tuple[str, str, int]], where: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """Repositioning groups: (dice label suffix, sheet, counters) per MR 8.4.6."""
    st = w.view()
    by_sheet: dict[str, list[str]] = {}
    for pid, (sheet, _area, _i) in pos.items():
        by_sheet.setdefault(sheet, []).append(pid)
    out = []
    for sheet in sorted(by_sheet):
        kind = q.sheet_kind(st, sheet)
        pieces = sorted(by_sheet[sheet])
        if kind == "character":
            out.append((sheet, sheet, [p for p in pieces if p != sheet]))
            continue
        if kind == "denizen":
            out.append((f"{sheet}/defender", sheet, [p for p in pieces if pos[p][1] == "box"]))
        out.append((f"{sheet}/target", sheet, [p for p in pieces if pos[p][1] == "square"]))
        out.append((f"{sheet}/attackers", sheet, [p for p in pieces if pos[p][1] == "circle"]))
    return [g for g in out if g[2]]


def reposition_and_tactics(w: Work, pos: dict[str, tuple[str, str, int]], where: dict[str, str]) -> None:
    """Roll to reposition each group, then to change tactics per box (MR 8.4.6)."""
    st = w.view()
    rnd = st.round
    for suffix, sheet, members in _groups(w, pos, where):
        label = f"r{rnd}/reposition/{suffix}"
        by = st.characters[sheet].player if sheet in st.characters else ""
        die = w.roll(label, "1d6", f"reposition {suffix}", by)[0]
        moved = []
        for m in members:
            s, area, old = pos[m]
            new = reposition(die, old)
            pos[m] = (s, area, new)
            if new != old:
                moved.append(f"{q.name(st, m)} {old}->{new}")
        w.step(REPOSITION_RULE, f"{suffix}: die {die}: " + (", ".join(moved) if moved else "no counter moves"),
               (label,))
    boxes: dict[tuple[str, str, int], list[str]] = {}
    for pid, (sheet, area, i) in pos.items():
        d = w.dens.get(pid)
        if d is None:
            continue  # characters and horses never change tactics
        if d.stats.tremendous and not d.parent:
            continue  # Tremendous monsters do not change tactics (MR 8.4.7)
        body = d.parent or pid
        if q.is_hireling(w.dens[body]) and where.get(body) == body:
            continue  # a hireling defending his own section stays as placed (MR 8.4.6, MR 001)
        boxes.setdefault((sheet, area, i), []).append(pid)
    for (sheet, area, i), members in sorted(boxes.items()):
        label = f"r{rnd}/tactics/{sheet}/{area}{i}"
        by = st.characters[sheet].player if sheet in st.characters else ""
        faces = w.roll(label, "2d6", f"change tactics {sheet} {area} {i}", by)
        if tactics_flip(faces):
            for m in members:
                d = w.dens[m]
                w.den(m, side="dark" if d.side == "light" else "light")
            w.step(TACTICS_RULE, f"{sheet} {AREA_NAMES[area]} {i}: {list(faces)} has a 6: "
                   + ", ".join(f"{q.name(st, m)} turns {w.dens[m].side} side up" for m in members), (label,))
        else:
            w.step(TACTICS_RULE, f"{sheet} {AREA_NAMES[area]} {i}: {list(faces)}, no 6: no change", (label,))


def maneuver(w: Work, pid: str, pos: dict[str, tuple[str, str, int]]) -> tuple[int, int, str] | None:
    """(direction, time, horse id) of a piece's maneuver; None if it made none (MR 8.4.5, 8.4.9)."""
    st = w.view()
    if pid in w.chars:
        plays = st.plays.get(pid)
        c = w.chars[pid]
        if plays is None or not plays.maneuver or st.cancelled.get(f"{pid}/maneuver"):
            return None
        if plays.horse and c.horse is not None and c.horse.alive:
            return plays.maneuver, c.horse.move_time(plays.horse), c.horse.id
        face = c.form_face()
        if face is not None and not plays.move:  # transmorphized: the monster's move time (MR 8.4.7)
            return (plays.maneuver, face.move_time, "") if face.move_time is not None else None
        chit = c.chit(plays.move)
        return (plays.maneuver, chit.time, "") if chit else None
    d = w.dens[pid]
    h = horse_of(w, pid)
    if h and h in pos:
        return pos[h][2], d.horse.move_time() if d.horse else 0, h
    if pid not in pos or d.face.move_time is None:
        return None
    return pos[pid][2], d.face.move_time, ""


def build_attacks(w: Work, pos: dict[str, tuple[str, str, int]], where: dict[str, str]) -> list[Attack]:
    """Every attack of the round (MR 8.4.5, 8.4.7)."""
    st = w.view()
    out: list[Attack] = []
    for cid in q.in_clearing(st):
        c = w.chars[cid]
        plays = st.plays.get(cid)
        target = st.targets.get(cid, "")
        if c.form is not None:
            out.extend(form_attacks(w, cid, target))
            continue
        if plays is None or not plays.attack or not plays.fight or not target:
            continue
        if st.cancelled.get(f"{cid}/attack"):
            continue
        chit = c.chit(plays.fight)
        weapon = c.weapon
        if chit is None:
            continue
        if weapon is None:  # the dagger (MR 8.4.5, 8.4.9)
            out.append(Attack(cid, target, plays.attack, chit.time, 0, 0, 1, kind="dagger", bonus=True,
                              weapon="dagger"))
            continue
        face = weapon.alerted if weapon.alert else weapon.unalerted
        time = face.attack_time if face.attack_time is not None else chit.time
        # ARCHER (the Elf's and the Woods Girl's level-4 advantage): one die on the Missile Table with a
        # bow or crossbow (every missile weapon of the data), as the native Archers roll (MR 8.4.9 Bowmen;
        # data README, ARCHER). Attack spells are not shot from a bow: they keep two dice. Version 1 of these rules
        # rolled two dice for them too (its logs are read as played: docs/rules.md, "The state digest").
        out.append(Attack(cid, target, plays.attack, time, weapon.length, face.harm or 0, face.sharpness,
                          missile=weapon.missile,
                          archer=weapon.missile and "ARCHER" in c.advantages and st.revision != "1",
                          kind="weapon", weapon=weapon.name,
                          bonus=not weapon.missile and chit.strength > weapon.weight,
                          label=f"r{st.round}/missile/{cid}"))
    for did in sorted(w.dens):
        d = w.dens[did]
        if not d.alive or did not in pos:
            continue
        target = q.target_of(st, did, where)
        if not target or not q.alive(st, target):
            continue
        other = w.dens.get(target)
        if (d.rebel and other is not None and not q.is_hireling(other)) or \
                (other is not None and other.rebel and not q.is_hireling(d)):
            w.step("MR 8.4.2", f"{q.name(st, did)}'s attack on {q.name(st, target)} is cancelled: rebels and "
                   "monsters or unhired natives cannot attack each other")
            continue
        if peaceful(st, d.parent or did):
            w.step("MR 8.4.4 Preventing Attacks", f"{q.name(st, did)} is under Peace: it does not attack")
            continue
        face = d.face
        if face.spell and protected(st, target):
            w.step(f"MR spells: {protected(st, target)}", f"{q.name(st, did)}'s spell attack cannot affect "
                   f"{q.name(st, target)}, who has magic protection")
            continue
        if face.harm is None and not face.spell:
            rule = "MR 8.4.9 Bowmen" if d.stats.archer else "MR 8.4.7"
            w.step(rule, f"{q.name(st, did)} is light side up, the side with no attack values: it does not attack")
            continue
        if face.attack_time is None:
            continue
        out.append(Attack(did, target, pos[did][2], face.attack_time, face.length, face.harm or 0,
                          face.sharpness, missile=face.missile, archer=d.stats.archer,
                          kind="demon" if face.spell else "denizen", table=face.spell,
                          label=f"r{st.round}/missile/{did}"))
    return out


def form_attacks(w: Work, cid: str, target: str) -> list[Attack]:
    """A character transmorphized into a Tremendous monster attacks with the monster's values: its body
    with the side in play, and each head or club, which "makes a separate attack against the target,
    using its own weapon length, harm letter, and sharpness stars" (MR 8.4.7).

    Decision: the player chooses the circle of each attack (the body's with --attack, the head's or
    club's with --part-attack, default the body's) and the side of the head or club (--part-side, as
    "their head or club can be played either side up" for hired ones); no Fight chit is played.
    """
    st = w.view()
    c = w.chars[cid]
    plays = st.plays.get(cid)
    if plays is None or not plays.attack or not target or c.form is None:
        return []
    face = c.form_face()
    out: list[Attack] = []
    side = "red side up" if c.form_side == "dark" else "red side down"
    if face is not None and face.harm is not None and face.attack_time is not None:
        out.append(Attack(cid, target, plays.attack, face.attack_time, face.length, face.harm, face.sharpness,
                          missile=face.missile, kind="form", weapon=c.form.name,
                          label=f"r{st.round}/missile/{cid}"))
        w.step("MR 8.4.7", f"{c.name} (transmorphized into {c.form.name}, {side}) attacks {q.name(st, target)} "
               f"with {letter(face.harm)}{'*' * face.sharpness} at time {face.attack_time}")
    for k, part in enumerate(c.form.parts):
        pf = part.dark if plays.part_side == "dark" else part.light
        if pf.harm is None or pf.attack_time is None:
            continue
        out.append(Attack(cid, target, plays.part_attack or plays.attack, pf.attack_time, pf.length, pf.harm,
                          pf.sharpness, missile=pf.missile, kind="form", weapon=part.name,
                          label=f"r{st.round}/missile/{cid}-part{k + 1}"))
        w.step("MR 8.4.7", f"{c.name}'s {part.name} ({plays.part_side or 'light'} side) makes a separate attack: "
               f"{letter(pf.harm)}{'*' * pf.sharpness} at time {pf.attack_time}, length {pf.length}")
    return out


def decide_hits(w: Work, attacks: list[Attack], pos: dict[str, tuple[str, str, int]]) -> None:
    """Undercut or intercept, else miss (MR 8.4.8)."""
    st = w.view()
    for a in attacks:
        m = maneuver(w, a.target, pos)
        tname = q.name(st, a.target)
        what = f"{q.name(st, a.attacker)} {DIRS[a.direction]} at time {a.time} on {tname}"
        if m is None:
            a.hit = "intercept"
            a.why = NO_MANEUVER
            w.step("MR 8.4.8", f"{what}: intercepts and hits, {a.why}")
            continue
        mdir, mtime, horse = m
        a.vs_horse = horse if a.target in w.dens else ""
        against = f"{'horse ' + horse + ' ' if horse else ''}{MANEUVERS[mdir]} at time {mtime}"
        if a.time < mtime:
            a.hit = "undercut"
            a.why = f"undercuts {against}"
        elif a.direction == mdir:
            a.hit = "intercept"
            a.why = f"intercepts {against} ({BOXES[mdir]})"
        else:
            a.why = f"misses {against}"
        w.step("MR 8.4.8", f"{what}: {a.why}")


def order_key(st_round: int, first_of_day: bool, a: Attack) -> tuple[int, int]:
    """Round 1 of the day: longer first, then faster; later rounds: faster, then longer (MR 8.4.9)."""
    if st_round == 1 and first_of_day:
        return (-a.length, a.time)
    return (a.time, -a.length)


def record(pos: dict[str, tuple[str, str, int]], attacks: list[Attack], results: dict[int, str],
           tremendous: dict[str, str]) -> Melee:
    recs = tuple(AttackRec(attacker=a.attacker, target=a.target, direction=a.direction, time=a.time, length=a.length,
                           harm=letter(a.harm) + "*" * a.stars if a.kind != "demon" else a.table,
                           result=results.get(i, a.hit or "miss"), kind=a.kind, weapon=a.weapon, hit=a.hit,
                           why=a.why, order=a.order, group=a.group, cancelled=a.cancelled, applied=a.applied, armor=a.armor_piece,
                           armor_effect=a.armor_effect, kills=a.kills)
                 for i, a in enumerate(attacks))
    return Melee(positions=dict(pos), attacks=recs, hit_by_tremendous=dict(tremendous))
