"""Views: melee sheets, fatigue state, the fame ledger, status; all viewer-aware.

A side's plays stay hidden from other players until every side has played
(MR 8.4.5 'they reveal their plays simultaneously').
"""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import BOXES, DIRS, MANEUVERS, letter
from combatlog.rulesets.magic_realm.state import AttackRec, MRState, show_frac

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
            return f"{pid} [{x.horse.name}, {x.horse.side}: move {x.horse.move_time()}" + \
                ("]" if x.horse.alive else ", DEAD]")
    return pid


def shown_round(state: MRState) -> tuple[MRState, int, bool]:
    """The state whose Melee Sections the views draw, the round whose plays they show, and whether that
    round's Melee Step is resolved: the current round; after its resolution (Fatigue Step, or the round
    that ended the combat) with every counter where it fought, dead ones included; and until the next
    round has plays, the last resolved round."""
    last = state.last_melee
    if last is not None and (state.melee is None and not state.plays or state.ended and last.round == state.round):
        return msgspec.structs.replace(state, melee=last.melee, plays=last.plays, targets=last.targets,
                                       cancelled=last.cancelled), last.round, True
    return state, state.round, state.melee is not None


def _spell_attack(state: MRState, cid: str, resolved: bool) -> str:
    """The Attack spell a character attacks with when he played an attack without a Fight chit (MR 8.4.4)."""
    if resolved and state.melee is not None:
        return next((a.weapon for a in state.melee.attacks if a.attacker == cid and a.kind == "spell"), "")
    from combatlog.rulesets.magic_realm.spells import working_spell

    s = working_spell(state, cid)
    return s.spell if s is not None else ""


def sheets_view(state: MRState, viewer: str | None) -> list[dict[str, Any]]:
    """The Melee Sections of the round ``shown_round`` names; each says its round and whether it is resolved."""
    state, shown, resolved = shown_round(state)
    positions: dict[str, tuple[str, str, int]] = dict(state.melee.positions) if state.melee else {}
    if resolved:
        where = {p: s for p, (s, _a, _i) in positions.items()}
        owners = sorted(set(where.values()) | set(q.in_clearing(state)) | set(state.plays))
    else:
        where = q.sheets(state)
        owners = sorted(set(where.values()) | set(q.in_clearing(state)))
    out = []
    for owner in owners:
        kind = q.sheet_kind(state, owner)
        sheet: dict[str, Any] = {"owner": owner, "kind": kind, "round": shown, "resolved": resolved,
                                 "boxes": {}, "circles": {}, "squares": {}, "unplaced": []}
        members = sorted({owner, *q.on_sheet(state, owner, where)}) if kind != "character" else \
            q.on_sheet(state, owner, where)
        members = [m for m in members if m in state.denizens]
        # A horse killed in the round stays where it fought on the resolved sheet.
        horses = [state.denizens[m].horse for m in members]
        extra = [h.id for h in horses if h is not None and (h.alive or (resolved and h.id in positions))]
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
                form = c.form.name if c.form is not None else ""
                spell = _spell_attack(state, owner, resolved) if plays.attack and not plays.fight and not form \
                    else ""
                sheet["attack"] = {"circle": plays.attack, "direction": DIRS.get(plays.attack, ""),
                                   "fight": plays.fight, "spell": spell,
                                   "weapon": form or spell or (weapon.name if weapon else "dagger"),
                                   "weapon_side": ("alerted" if weapon.alert else "unalerted")
                                   if weapon and not spell and not form else "",
                                   "target": state.targets.get(owner, ""),
                                   "cancelled": state.cancelled.get(f"{owner}/attack", "")}
                sheet["maneuver"] = {"square": plays.maneuver, "direction": MANEUVERS.get(plays.maneuver, ""),
                                     "move": plays.move, "horse": plays.horse,
                                     "cancelled": state.cancelled.get(f"{owner}/maneuver", "")}
                sheet["shield"] = plays.shield
                if plays.attack:
                    chit = c.chit(plays.fight) if plays.fight else None
                    what = f"{chit.id} {chit.label} + {sheet['attack']['weapon']}" if chit else \
                        (f"as {form}" if form else spell or "no Fight chit")
                    sheet["circles"].setdefault(str(plays.attack), []).append(
                        f"{c.name}: {what} -> {sheet['attack']['target'] or '-'}")
                if plays.maneuver:
                    chit = c.chit(plays.move) if plays.move else None
                    sheet["squares"].setdefault(str(plays.maneuver), []).append(
                        f"{c.name}: {chit.id + ' ' + chit.label if chit else 'horse (' + plays.horse + ')'}")
        out.append(sheet)
    return out


def played_by(state: MRState, cid: str) -> str:
    """"played by alice", or "no player" where the set-up names none (its player is then its own id)."""
    from combatlog.rulesets.magic_realm.authority import player_of

    player = player_of(state, cid)
    return f"played by {player}" if player else "no player"


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
        # what a player needs to pick legal chits (MR 8.4.5 strength restrictions and the shield)
        weapon = c.weapon
        out[c.id]["weapon"] = None if weapon is None else {
            "name": weapon.name, "weight": letter(weapon.weight), "side": "alerted" if weapon.alert else "unalerted"}
        out[c.id]["armor"] = [{"name": a.name, "kind": a.kind, "weight": letter(a.weight), "condition": a.condition,
                               "active": a.active} for a in c.armor if a.condition != "destroyed"]
        out[c.id]["heaviest_item"] = letter(q.items_weight(c)) if q.items_weight(c) else ""
        shield = next((a for a in c.armor if a.kind == "shield" and a.active and a.condition != "destroyed"), None)
        out[c.id]["shield_must_be_played"] = shield.name if shield is not None and c.present else ""
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


def idle_reason(state: MRState, did: str) -> str:
    """Why a live hireling attacks nobody this round ("" when it attacks or is not a hireling)."""
    d = state.denizens[did]
    if state.ended or not d.alive or d.parent or not q.is_hireling(d) or did in q.sheets(state):
        return ""
    if state.step in ("lure", "deploy"):
        return "not deployed yet this round (MR 001 Deployment)"
    return "not deployed this round, so unassigned after Deployment (MR 001 Deployment)"


def attack_json(a: AttackRec) -> dict[str, Any]:
    """One attack of a Melee Step and what became of it, as data (``result`` is its prose summary)."""
    return {"attacker": a.attacker, "target": a.target, "kind": a.kind, "weapon": a.weapon,
            "direction": DIRS[a.direction], "time": a.time, "length": a.length, "harm": a.harm,
            "hit": bool(a.hit), "how": a.hit, "why": a.why, "order": a.order or None, "group": a.group or None,
            "cancelled": a.cancelled,
            "applied_harm": a.applied,
            "armor": {"piece": a.armor, "effect": a.armor_effect} if a.armor else None,
            "kills": list(a.kills), "result": a.result}


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
                   "attacks": q.target_of(state, d.id), "rebel": d.rebel, "idle": idle_reason(state, d.id),
                   "horse": None if d.horse is None else {"name": d.horse.name, "side": d.horse.side,
                                                          "alive": d.horse.alive}}
            for d in state.denizens.values()}
    melee = None
    if state.melee is not None:
        melee = [attack_json(a) for a in state.melee.attacks]
    return {
        "round": state.round, "step": state.step, "ended": state.ended, "end_reason": state.end_reason,
        "quiet_rounds": state.quiet_rounds, "attention": list(state.attention),
        "characters": chars, "denizens": dens, "sheets": sheets_view(state, viewer), "melee": melee,
        "resolved_rounds": [{"round": r.round, "attacks": [attack_json(a) for a in r.attacks]}
                            for r in state.resolved],
        "fatigue": fatigue_view(state), "ledger": ledger_view(state), "pinned": dict(state.pinned),
        "spells": [{"caster": s.caster, "spell": s.spell, "time": s.time, "targets": list(s.targets),
                    "status": s.status, "chit": s.chit, "item": s.item, "since_round": s.since, "why": s.why}
                   for s in state.spells],
        "pending": pending,
        # (version 3, pinned players: only while a pass is voted, or the round passed, so a fight without one shows
        # as it always did)
        **({"pass_votes": list(state.pass_votes), "round_passed": state.round_passed}
           if state.pass_votes or state.round_passed else {}),
    }


def sheets_heading(state: MRState, shown: int, resolved: bool) -> str:
    """Which round's plays the Melee Sections show."""
    if shown != state.round:
        return f"Melee Sections with the plays of round {shown}, resolved (round {state.round} has no plays yet)"
    if resolved:
        return f"Melee Sections with the plays of round {shown}, resolved"
    return f"Melee Sections of round {shown}, " + (
        "plays being made" if state.step == "plays" else "plays revealed" if state.step == "resolve" else
        "no plays yet")


def play_details(sheet: dict[str, Any]) -> list[str]:
    """What a character's sheet lines do not show of his plays: weapon side, cancellations, shield."""
    a, m = sheet["attack"], sheet["maneuver"]
    out = []
    if a["circle"] and a["weapon_side"]:
        # a resolved round: the side up now, after the flips of the round (MR 8.4.5)
        out.append(f"{a['weapon']} {a['weapon_side']} side up" + (" after the round" if sheet["resolved"] else ""))
    if a["cancelled"]:
        out.append(f"attack CANCELLED: {a['cancelled']}")
    if m["cancelled"]:
        out.append(f"maneuver CANCELLED: {m['cancelled']}")
    if sheet["shield"]:
        out.append(f"shield in box {sheet['shield']} ({BOXES[sheet['shield']]})")
    return ["; ".join(out)] if out else []


def render_sheets(state: MRState, viewer: str | None) -> str:
    """``mr sheets``: every box, circle and square of each Melee Section, one line each."""
    _view_state, shown, resolved = shown_round(state)
    sheets = sheets_view(state, viewer)
    lines = [sheets_heading(state, shown, resolved)] if sheets else []
    for sheet in sheets:
        lines.append(f"Melee Section of {sheet['owner']} ({sheet['kind']})")
        for area, label, names in (("boxes", "red box", BOXES), ("circles", "attack circle", DIRS),
                                   ("squares", "maneuver square", MANEUVERS)):
            for i in ("1", "2", "3"):
                lines.append(f"  {label + ' ' + i + ' ' + names[int(i)]:<35} {'; '.join(sheet[area].get(i, [])) or '-'}")
        if sheet["unplaced"]:
            lines.append(f"  not yet placed: {'; '.join(sheet['unplaced'])}")
        if isinstance(sheet.get("plays"), str):
            lines.append(f"  plays: {sheet['plays']}")
        elif "attack" in sheet:
            lines.extend(f"  {x}" for x in play_details(sheet))
    return "\n".join(lines)


def attack_line(a: dict[str, Any]) -> str:
    head = f"{a['attacker']} -> {a['target']}: {a['direction']} {a['harm']} time {a['time']} length {a['length']}"
    if not a["hit"]:
        return f"{head}: {a['why'] or 'misses'}"
    return f"{head}: hit #{a['order']} ({a['how']}): {a['result']}"


def render(state: MRState, viewer: str | None, pending: list[dict[str, Any]]) -> str:
    d = describe(state, viewer, pending)
    lines = [f"Magic Realm combat, round {state.round}, step: {state.step}"
             + (f" -- ENDED: {state.end_reason}" if state.ended else "")]
    _view_state, shown, resolved = shown_round(state)
    if d["sheets"]:
        lines.append(f"  {sheets_heading(state, shown, resolved)}:")
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
            # The attack and the maneuver are on the circle and square lines above; here what they do not say.
            lines.extend(f"    {x}" for x in play_details(sheet))
    attacks = next((r["attacks"] for r in d["resolved_rounds"] if r["round"] == shown), None) if resolved else None
    if attacks:
        lines.append(f"  attacks of round {shown} (MR 8.4.8, 8.4.9):")
        lines.extend(f"    {attack_line(a)}" for a in attacks)
    lines.append("  characters:")
    for cid, f in d["fatigue"].items():
        c = state.characters[cid]
        status = "dead" if not c.alive else ("in the clearing" if c.present else "gone")
        lines.append(f"    {c.name} ({cid}, {played_by(state, cid)}) {status}; fame {show_frac(c.fame)}, notoriety "
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
        lines.append(f"    {counter(state, did)}" + (f" attacks {x['attacks']}" if x["attacks"] else "")
                     + (f" does not attack: {x['idle']}" if x["idle"] else ""))
    if pending:
        lines.append("  waiting for:")
        lines.extend(f"    {p['who']}: {p['what']}" for p in pending)
    return "\n".join(lines)


def out_of_the_fight(state: MRState, player: str) -> str:
    """'' while one of ``player``'s characters is in the fight; else how they are out of it ("bk is dead",
    "bk is gone from the clearing"): ``trust/mine.out_of_the_fight`` words it for the views."""
    own = [c for c in state.characters.values() if c.player == player]
    if not own or any(c.alive and c.present for c in own):
        return ""
    return ", ".join(f"{c.id} is {'dead' if not c.alive else 'gone from the clearing'}" for c in own)
