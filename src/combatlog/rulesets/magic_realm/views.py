"""Views: melee sheets, fatigue state, the fame ledger, status; all viewer-aware.

A side's plays stay hidden from other players until every side has played
(MR 8.4.5 'they reveal their plays simultaneously').
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import BOXES, DIRS, MANEUVERS, letter
from combatlog.rulesets.magic_realm.state import MRState, show_frac

AREAS = {"box": "red boxes", "circle": "attack circles", "square": "maneuver squares"}


def plays_words(plays: dict[str, Any]) -> str:
    """Revealed sealed plays (``{CHAR: {mr play fields}}``) in words, as ``mr play`` would be said."""
    from combatlog.rulesets.base import words

    out = []
    for cid, p in plays.items():
        if not isinstance(p, dict):
            out.append(f"{cid}: {words(p, 1)}")
            continue
        p, parts = dict(p), []
        attack, fight = p.pop("attack", 0), p.pop("fight", "")
        alert_only = p.pop("alert_only", "")
        if attack:
            parts.append(f"attack {DIRS.get(attack, attack)}" + (f" with {fight}" if fight else ""))
        elif fight:
            parts.append(f"Fight chit {fight} to {alert_only or 'alert'} the weapon")
        maneuver, move, horse = p.pop("maneuver", 0), p.pop("move", ""), p.pop("horse", "")
        if maneuver:
            parts.append(f"maneuver {MANEUVERS.get(maneuver, maneuver)}" + (
                f" with {move}" if move else f" with the horse ({horse})" if horse else ""))
        if p.get("shield"):
            parts.append(f"shield in box {p.pop('shield')}")
        for key in ("place", "hirelings"):
            boxes = p.pop(key, {})
            if isinstance(boxes, dict):
                parts += [f"{what} in box {box}" for what, box in boxes.items()]
        part_attack, part_side = p.pop("part_attack", 0), p.pop("part_side", "")
        if part_attack or part_side:
            parts.append("head or club" + (f" {DIRS.get(part_attack, part_attack)}" if part_attack else "")
                         + (f", {part_side} side" if part_side else ""))
        parts += [f"{k} {words(v, 2)}" for k, v in p.items() if v not in (0, "", {}, [], None)]
        out.append(f"{cid}: " + (", ".join(parts) or "no attack, no maneuver"))
    return "; ".join(out) or "no plays"


def plays_hidden(state: MRState, cid: str, viewer: str | None) -> bool:
    """Plays of ``cid`` are secret from ``viewer`` while the sides are still playing."""
    if viewer is None or state.step != "plays":
        return False
    return state.characters[cid].player != viewer and cid in state.plays


def counter(state: MRState, pid: str) -> str:
    d = state.denizens.get(pid)
    if d is not None:
        face = d.face
        side = "RED" if d.stats.tremendous and not d.parent and d.side == "dark" else d.side
        if face.harm is None and not face.spell:
            values = f"move {face.move_time}, no attack"
        else:
            harm = face.spell or (letter(face.harm) + "*" * face.sharpness)
            values = f"{harm}{face.attack_time}" + (f" move {face.move_time}" if face.move_time is not None else "")
        owner = f", hired by {d.owner}" if d.owner else (", rebel" if d.rebel else "")
        owner += "" if d.alive else ", DEAD"
        return f"{pid} [{d.stats.name}, {side}: {values}{owner}]"
    for x in state.denizens.values():
        if x.horse is not None and x.horse.id == pid:
            return f"{pid} [{x.horse.name}, {x.horse.side}: move {x.horse.move_time()}]"
    return pid


def sheets_view(state: MRState, viewer: str | None) -> list[dict[str, Any]]:
    """The Melee Sections of the current round, or of the last resolved round until new plays exist."""
    if state.melee is None and state.last_melee is not None and not state.plays:
        last = state.last_melee
        state = msgspec.structs.replace(state, melee=last.melee, plays=last.plays, targets=last.targets,
                                        cancelled=last.cancelled, step="resolved")
        shown = last.round
    else:
        shown = state.round
    where = q.sheets(state)
    positions: dict[str, tuple[str, str, int]] = dict(state.melee.positions) if state.melee else {}
    if state.step == "resolved":
        where = {p: s for p, (s, _a, _i) in positions.items()}
    owners = sorted(set(where.values()) | set(q.in_clearing(state)))
    out = []
    for owner in owners:
        kind = q.sheet_kind(state, owner)
        sheet: dict[str, Any] = {"owner": owner, "kind": kind, "round": shown, "boxes": {}, "circles": {},
                                 "squares": {}, "unplaced": []}
        members = sorted({owner, *q.on_sheet(state, owner, where)}) if kind != "character" else \
            q.on_sheet(state, owner, where)
        members = [m for m in members if m in state.denizens]
        extra = [state.denizens[m].horse.id for m in members  # type: ignore[union-attr]
                 if m in state.denizens and state.denizens[m].horse is not None and state.denizens[m].horse.alive]
        for m in members + extra:
            p = positions.get(m)
            if p is None or p[0] != owner:
                sheet["unplaced"].append(counter(state, m))
            else:
                area = {"box": "boxes", "circle": "circles", "square": "squares"}[p[1]]
                sheet[area].setdefault(str(p[2]), []).append(counter(state, m))
        if kind == "character":
            c = state.characters[owner]
            plays = state.plays.get(owner)
            if plays is not None and plays_hidden(state, owner, viewer):
                sheet["plays"] = "secret until every side has played"
            elif plays is not None:
                weapon = c.weapon
                sheet["attack"] = {"circle": plays.attack, "direction": DIRS.get(plays.attack, ""),
                                   "fight": plays.fight, "weapon": weapon.name if weapon else "dagger",
                                   "weapon_side": ("alerted" if weapon.alert else "unalerted") if weapon else "",
                                   "target": state.targets.get(owner, ""),
                                   "cancelled": state.cancelled.get(f"{owner}/attack", "")}
                sheet["maneuver"] = {"square": plays.maneuver, "direction": MANEUVERS.get(plays.maneuver, ""),
                                     "move": plays.move, "horse": plays.horse,
                                     "cancelled": state.cancelled.get(f"{owner}/maneuver", "")}
                sheet["shield"] = plays.shield
                if plays.attack:
                    chit = c.chit(plays.fight) if plays.fight else None
                    sheet["circles"].setdefault(str(plays.attack), []).append(
                        f"{c.name}: {chit.id + ' ' + chit.label if chit else 'spell'} + "
                        f"{sheet['attack']['weapon']} -> {sheet['attack']['target'] or '-'}")
                if plays.maneuver:
                    chit = c.chit(plays.move) if plays.move else None
                    sheet["squares"].setdefault(str(plays.maneuver), []).append(
                        f"{c.name}: {chit.id + ' ' + chit.label if chit else 'horse (' + plays.horse + ')'}")
        out.append(sheet)
    return out


def fatigue_view(state: MRState) -> dict[str, Any]:
    from combatlog.rulesets.magic_realm.fatigue import owed

    out = {}
    for c in state.characters.values():
        groups: dict[str, list[str]] = {"active": [], "fatigued": [], "wounded": []}
        bound = {s.chit: s.spell for s in state.spells if s.caster == c.id and s.status == "working" and s.chit}
        for ch in c.chits:
            note = " (alerted)" if ch.alerted else ""
            if ch.id in bound:
                note += f" (committed to {bound[ch.id]})"  # MR 8.4.3
            groups[ch.status].append(f"{ch.id} {ch.label}{note}")
        need = state.owed.get(c.id)
        if need is None:
            need = owed(c, state.used.get(c.id, ()))[0]
        out[c.id] = {**groups, "used_this_round": list(state.used.get(c.id, ())), "asterisks_owed": need,
                     "wounds_this_round": c.wounds, "alive": c.alive, "in_clearing": c.present,
                     "death": c.death}
        if c.extras or c.items or c.form is not None:  # only when present, so older views keep their shape
            out[c.id]["cards"] = [f"{ch.id} {ch.label}" for ch in c.extras] + list(c.items)
        if c.form is not None:
            out[c.id]["transmorphized"] = f"{c.form.name}, {'red side up' if c.form_side == 'dark' else 'red side down'}"
    return out


def ledger_view(state: MRState) -> dict[str, Any]:
    return {
        "totals": {c.id: {"fame": show_frac(c.fame), "notoriety": show_frac(c.notoriety), "gold": show_frac(c.gold)}
                   for c in state.characters.values()},
        "entries": [{"round": x.round, "who": x.who, "fame": show_frac(x.fame), "notoriety": show_frac(x.notoriety),
                     "gold": show_frac(x.gold), "why": x.why, "rule": x.rule} for x in state.ledger],
    }


def describe(state: MRState, viewer: str | None, pending: list[dict[str, Any]]) -> dict[str, Any]:
    chars = {}
    for c in state.characters.values():
        weapon = c.weapon
        chars[c.id] = {
            "character": c.name, "player": c.player, "level": c.level, "vulnerability": letter(c.vulnerability),
            "weapon": None if weapon is None else {"name": weapon.name,
                                                   "side": "alerted" if weapon.alert else "unalerted"},
            "armor": [{"name": a.name, "condition": a.condition, "active": a.active} for a in c.armor],
            "horse": None if c.horse is None else {"name": c.horse.name, "alive": c.horse.alive},
            "hidden": c.hidden, "alive": c.alive, "in_clearing": c.present,
            "target": state.targets.get(c.id, ""),
        }
    dens = {d.id: {"name": d.stats.name, "side": d.side, "alive": d.alive, "owner": d.owner,
                   "attacks": q.target_of(state, d.id), "rebel": d.rebel,
                   "horse": None if d.horse is None else {"name": d.horse.name, "side": d.horse.side,
                                                          "alive": d.horse.alive}}
            for d in state.denizens.values()}
    melee = None
    if state.melee is not None:
        melee = [{"attacker": a.attacker, "target": a.target, "direction": DIRS[a.direction], "time": a.time,
                  "length": a.length, "harm": a.harm, "result": a.result} for a in state.melee.attacks]
    return {
        "round": state.round, "step": state.step, "ended": state.ended, "end_reason": state.end_reason,
        "quiet_rounds": state.quiet_rounds, "attention": list(state.attention),
        "characters": chars, "denizens": dens, "sheets": sheets_view(state, viewer), "melee": melee,
        "fatigue": fatigue_view(state), "ledger": ledger_view(state), "pinned": dict(state.pinned),
        "spells": [{"caster": s.caster, "spell": s.spell, "time": s.time, "targets": list(s.targets),
                    "status": s.status, "chit": s.chit, "item": s.item, "since_round": s.since, "why": s.why}
                   for s in state.spells],
        "pending": pending,
    }


def render(state: MRState, viewer: str | None, pending: list[dict[str, Any]]) -> str:
    d = describe(state, viewer, pending)
    lines = [f"Magic Realm combat, round {state.round}, step: {state.step}"
             + (f" -- ENDED: {state.end_reason}" if state.ended else "")]
    for sheet in d["sheets"]:
        lines.append(f"  Melee Section of {sheet['owner']} ({sheet['kind']})")
        for area, label in (("boxes", "red box"), ("circles", "attack circle"), ("squares", "maneuver square")):
            for i in ("1", "2", "3"):
                names = {"boxes": BOXES, "circles": DIRS, "squares": MANEUVERS}[area]
                if sheet[area].get(i):
                    lines.append(f"    {label} {i} ({names[int(i)]}): {'; '.join(sheet[area][i])}")
        if sheet["unplaced"]:
            lines.append(f"    on this sheet (positions not yet fixed): {'; '.join(sheet['unplaced'])}")
        if sheet.get("plays") == "secret until every side has played":
            lines.append("    plays: secret until every side has played")
        elif "attack" in sheet:
            a, m = sheet["attack"], sheet["maneuver"]
            if a["circle"]:
                lines.append(f"    attack circle {a['circle']} ({a['direction']}): {a['fight']} with {a['weapon']}"
                             f" {a['weapon_side']} -> {a['target']}" + (f" CANCELLED: {a['cancelled']}"
                                                                         if a["cancelled"] else ""))
            if m["square"]:
                lines.append(f"    maneuver square {m['square']} ({m['direction']}): "
                             f"{m['move'] or 'horse ' + m['horse']}"
                             + (f" CANCELLED: {m['cancelled']}" if m["cancelled"] else ""))
            if sheet["shield"]:
                lines.append(f"    shield in box {sheet['shield']}")
    if d["melee"]:
        lines.append("  attacks this round:")
        for a in d["melee"]:
            lines.append(f"    {a['attacker']} -> {a['target']}: {a['direction']} {a['harm']} time {a['time']} "
                         f"length {a['length']}: {a['result']}")
    lines.append("  characters:")
    for cid, f in d["fatigue"].items():
        c = state.characters[cid]
        status = "dead" if not c.alive else ("in the clearing" if c.present else "gone")
        lines.append(f"    {c.name} ({cid}, {c.player}) {status}; fame {show_frac(c.fame)}, notoriety "
                     f"{show_frac(c.notoriety)}, gold {show_frac(c.gold)}")
        lines.append(f"      active: {', '.join(f['active']) or '-'}")
        if f["fatigued"]:
            lines.append(f"      fatigued: {', '.join(f['fatigued'])}")
        if f["wounded"]:
            lines.append(f"      wounded: {', '.join(f['wounded'])}")
        if f["asterisks_owed"] or f["wounds_this_round"]:
            lines.append(f"      owes {f['asterisks_owed']} asterisk(s), {f['wounds_this_round']} wound(s) to take")
        armor = ", ".join(f"{a['name']} ({a['condition']})" for a in d["characters"][cid]["armor"])
        weapon = d["characters"][cid]["weapon"]
        lines.append(f"      weapon: {weapon['name'] + ' ' + weapon['side'] if weapon else 'dagger'}; "
                     f"armor: {armor or '-'}")
    if d["spells"]:
        lines.append("  spells (MR 8.4.3):")
        for x in d["spells"]:
            by = f"the {x['item']}" if x["item"] else f"chit {x['chit']}"
            lines.append(f"    {x['caster']}'s {x['spell']} ({by}, time {x['time']}) on "
                         f"{', '.join(x['targets']) or 'the clearing'}: {x['status']}"
                         + (f" ({x['why']})" if x["why"] else ""))
    lines.append("  denizens:")
    for did, x in d["denizens"].items():
        if not x["alive"]:
            lines.append(f"    {did} ({x['name']}): dead")
            continue
        lines.append(f"    {counter(state, did)}" + (f" attacks {x['attacks']}" if x["attacks"] else ""))
    if pending:
        lines.append("  waiting for:")
        lines.extend(f"    {p['who']}: {p['what']}" for p in pending)
    return "\n".join(lines)
