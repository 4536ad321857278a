# Over 500 lines on purpose: one picture, the Melee Section as on the sheet, drawn from describe(); its pieces share the layout constants and the scene.
"""Magic Realm: each Melee Section as on the sheet, the owner's chits and armor beside it, the
attacks of a resolved round in the order they struck, and the fame/notoriety/gold ledger.

The Melee Section (MR 8.4.2, 8.4.6, 8.4.8): three Attack circles (Thrust, Swing, Smash) on top, the
three red boxes (Charge and Thrust, Dodge and Swing, Duck and Smash) in the middle, the armor ovals and
the three Maneuver squares (Charge, Dodge, Duck) below. Grey arrows lead from each circle to the red
box it intercepts, red arrows from each red box to the square it intercepts. Counters stand where
``describe`` puts them: light side pale, dark side dark, a Tremendous monster red side up in red, a
native's horse under its rider; dead ones crossed out. Plays another player may not see yet are face
down.

Everything comes from ``describe(state, viewer)``. The one exception: a ``describe`` without
``resolved_rounds`` (before the views of every resolved round were added) does not list the attacks
of a round that ended; they are then read from the state's record of the last Melee Step, and their
order from the rules' own ordering function (``melee.order_key``), not re-derived here.
"""

from __future__ import annotations

import re
from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import (
    MARGIN, WIDTH, canvas_for, face_down, heading, numbered, sealed_strip, section,
)
from combatlog.pictures.svg import INK, MUTED, Canvas, fitted_size, text_width

CIRCLES = {1: "Thrust", 2: "Swing", 3: "Smash"}
SQUARES = {1: "Charge", 2: "Dodge", 3: "Duck"}
BOXES = {1: "Charge and Thrust", 2: "Dodge and Swing", 3: "Duck and Smash"}
SIDES = ("light", "dark", "RED", "trot", "gallop")
FILL = {"light": "#f6e7bd", "dark": "#4e3b26", "RED": "#c0392b", "trot": "#efe3c8", "gallop": "#7b5a35"}
DARK_FACES = ("dark", "RED", "gallop")
DEAD_FILL = "#f2f2f2"
# A character with no active weapon attacks with a dagger (the rules' attack for it: melee.py), which is
# not a counter: it has no alerted side to show.
DAGGER = "none active: attacks with a dagger (no counter, no alerted side)"
SHEET_W = 600
PANEL_X = MARGIN + SHEET_W + 20
PANEL_W = WIDTH - PANEL_X - MARGIN
COUNTER = 52
_SIDE = re.compile(r", (light|dark|RED|trot|gallop): ")


# -- reading describe ----------------------------------------------------------------------------


def parse_counter(text: str) -> dict[str, Any] | None:
    """A counter as ``describe`` writes it (``giant [Giant, RED: T4 move 4, hired by bk, DEAD]``), or
    None for a line that is not a counter (a character's own play)."""
    ident, sep, rest = text.partition(" [")
    if not sep or not rest.endswith("]"):
        return None
    inner = rest[:-1]
    m = _SIDE.search(inner)
    if m is None:
        return {"id": ident, "name": inner, "side": "light", "values": "", "flags": [], "text": text}
    tail = inner[m.end():].split(", ")
    return {"id": ident, "name": inner[:m.start()], "side": m.group(1), "values": tail[0], "flags": tail[1:],
            "text": text}


def _attack_values(values: str) -> tuple[str, str]:
    """``M*4 move 3`` -> (``M*4``, ``move 3``); ``move 3, no attack`` -> (``-``, ``move 3``)."""
    if values.startswith("move"):
        return "-", values.split(",")[0]
    head, _, move = values.partition(" move ")
    return head, (f"move {move}" if move else "")


def resolved_attacks(scene: Scene) -> tuple[int, list[dict[str, Any]]] | None:
    """The round whose resolved Melee Step the sheets show, and its attacks, each with ``hit`` and
    (for hits) ``order``, the place in which it struck; None when the sheets show unresolved plays."""
    d = scene.data
    sheets = d.get("sheets") or []
    shown = sheets[0]["round"] if sheets else d.get("round", 0)
    if "resolved_rounds" in d:
        if sheets and sheets[0].get("resolved") is False:
            return None
        found = next((r for r in d["resolved_rounds"] if r.get("round") == shown), None)
        if found is None:
            return None
        attacks = [dict(a) for a in found["attacks"]]
        for a in attacks:
            a["hit"] = bool(a.get("hit"))
        return shown, attacks
    return _attacks_from_state(scene, shown)


def _attacks_from_state(scene: Scene, shown: int) -> tuple[int, list[dict[str, Any]]] | None:
    st = scene.state
    if st is None:
        return None
    melee, rnd = None, shown
    if st.melee is not None and st.round == shown:
        melee = st.melee
    elif st.last_melee is not None and st.last_melee.round == shown and not st.plays:
        melee = st.last_melee.melee
    if melee is None:
        return None
    from combatlog.rulesets.magic_realm.data import DIRS
    from combatlog.rulesets.magic_realm.melee import order_key

    attacks = [{"attacker": a.attacker, "target": a.target, "direction": DIRS.get(a.direction, str(a.direction)),
                "time": a.time, "length": a.length, "harm": a.harm, "result": a.result,
                "hit": a.result != "miss", "_key": order_key(rnd, st.first_round_of_day, a)}
               for a in melee.attacks]
    hits = sorted((a for a in attacks if a["hit"]), key=lambda a: a["_key"])  # stable, as the rules sort
    keys: list[Any] = []
    for n, a in enumerate(hits, 1):
        a["order"] = n
        if a["_key"] not in keys:
            keys.append(a["_key"])
        a["group"] = keys.index(a["_key"]) + 1
    for a in attacks:
        del a["_key"]
    return rnd, attacks


def striking_order(attacks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hits in the order they struck, then the misses."""
    hits = sorted((a for a in attacks if a["hit"]), key=lambda a: a.get("order") or 10**6)
    return hits + [a for a in attacks if not a["hit"]]


# -- drawing pieces ------------------------------------------------------------------------------


def draw_counter(c: Canvas, x: float, y: float, ctr: dict[str, Any], *, size: float = COUNTER,
                 under: str = "") -> None:
    side = ctr["side"]
    dead = "DEAD" in ctr["flags"]
    owner = next((f[len("hired by "):] for f in ctr["flags"] if f.startswith("hired by ")), "")
    horse = side in ("trot", "gallop")
    face = {"light": "light side up", "dark": "dark side up", "RED": "red side up (Tremendous, holding its target)",
            "trot": "trotting (light) side up", "gallop": "galloping (dark) side up"}[side]
    title = f"{ctr['id']}: {ctr['name']}, {face}: {ctr['values']}" + (f", hired by {owner}" if owner else "") \
        + (f", under its rider {under}" if under else "") + (", dead" if dead else "")
    # A dead counter is drawn pale with dark ink under the red cross, whatever its side (its side is
    # still written on it): white letters on a greyed dark face do not read.
    ink = "#ffffff" if side in DARK_FACES and not dead else INK
    fill = DEAD_FILL if dead else FILL[side]
    with c.group(title, cls="counter", data_counter=ctr["id"], data_side=side, data_dead="yes" if dead else None,
                 data_under=under or None):
        c.rect(x, y, size, size, fill=fill, stroke=INK, width=1.5 if side == "RED" else 1, rx=3,
               dash="" if not horse else "4 2")
        if dead:  # under its writing, so that the cross never hides what the counter says
            c.cross(x + 2, y + (size - 20 if under else 2), size - 4, 18 if under else size - 4, width=1.5)
        attack, move = _attack_values(ctr["values"])
        small = 9 if size >= 40 else 8
        if under:  # only its lower edge shows below the rider
            c.text(x + size / 2, y + size - 5, f"{side} {move.replace('move ', 'm')}".strip(), size=small - 1,
                   anchor="middle", fill=ink, weight="bold", width=size - 2)
            return
        c.text(x + size / 2, y + small + 2, ctr["id"], size=small - 1, anchor="middle", fill=ink, width=size - 4)
        if horse:
            c.text(x + size / 2, y + size / 2 + 4, "horse", size=small + 1, anchor="middle", fill=ink,
                   weight="bold")
        else:
            c.text(x + size / 2, y + size / 2 + 5, attack, size=13 if size >= 40 else 11, anchor="middle",
                   weight="bold", fill=ink, width=size - 4)
        word = {"light": "light", "dark": "dark", "RED": "RED", "trot": "trot", "gallop": "gallop"}[side]
        c.text(x + size / 2, y + size - 4, f"{word} {move.replace('move ', 'm')}".strip(), size=small - 1,
               anchor="middle", fill=ink, width=size - 4)
        if owner:
            c.path(f"M{x + size - 10:g},{y:g} L{x + size:g},{y:g} L{x + size:g},{y + 10:g} z", fill="#d4a017",
                   stroke=INK, width=0.5)


def _played_by(char: dict[str, Any], owner: str) -> str:
    """", played by alice" where a player plays the character, and nothing where the only name is its own (it
    read "Amazon (amazon, played by amazon)")."""
    player = char.get("player") or ""
    return f", played by {player}" if player and player != owner else ""


def parse_chit(entry: str) -> dict[str, Any]:
    """``F3 FIGHT M4* (alerted)`` -> id, action, value (``M4``), asterisks, note."""
    ident, _, rest = entry.partition(" ")
    note = ""
    if " (" in rest:
        rest, _, note = rest.partition(" (")
        note = "(" + note
    words = rest.split()
    action = " ".join(words[:-1]) if len(words) > 1 else rest
    value = words[-1] if words else ""
    stars = len(value) - len(value.rstrip("*"))
    return {"id": ident, "action": action, "value": value.rstrip("*"), "stars": stars, "label": rest, "note": note}


def draw_chit(c: Canvas, x: float, y: float, entry: str, *, size: float = 44, status: str = "active",
              where: str = "", cancelled: str = "") -> None:
    chit = parse_chit(entry)
    what = f"{chit['id']} {chit['label']}" + (f" {chit['note']}" if chit["note"] else "")
    title = f"action chit {what}: {status}" + (f", {where}" if where else "") + \
        (f"; CANCELLED: {cancelled}" if cancelled else "")
    fill = {"active": "#ffffff", "fatigued": "#c9c9c9", "wounded": "#f4c7c3", "played": "#fffbe6"}[status]
    with c.group(title, cls="chit", data_chit=chit["id"], data_status=status,
                 data_cancelled="yes" if cancelled else None):
        c.rect(x, y, size, size, fill=fill, stroke=INK, rx=4, dash="3 2" if status == "fatigued" else "")
        # the header: the chit's id at the left, its action at the right, each measured so that they
        # never run together ("X1 MAGIC", not "X1MAGIC")
        ident_size = fitted_size(chit["id"], size * 0.4, 8, "bold")
        room = size - 9 - text_width(chit["id"], ident_size, "bold")
        c.text(x + 3, y + 9, chit["id"], size=ident_size, weight="bold", fill=MUTED)
        c.text(x + size - 3, y + 9, chit["action"], size=7, anchor="end", fill=MUTED, width=room)
        c.text(x + size / 2, y + size / 2 + 5, chit["value"], size=14 if size >= 40 else 12, anchor="middle",
               weight="bold", width=size - 4)
        if chit["stars"]:
            c.text(x + size / 2, y + size - 3, "*" * chit["stars"], size=12, anchor="middle", weight="bold")
        if status == "fatigued":
            c.text(x + size - 3, y + size - 3, "F", size=8, anchor="end", weight="bold", fill=MUTED)
        if status == "wounded" or cancelled:
            c.cross(x + 3, y + 3, size - 6, size - 6)


def _layout(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Counters of one area, each native with its horse under it when the horse stands in the same area."""
    horses = {i["rider"]: i for i in items if i.get("rider")}
    out, used = [], set()
    for item in items:
        if item.get("rider"):
            continue
        horse = horses.get(item["id"])
        if horse is not None:
            used.add(horse["id"])
        out.append((item, horse))
    out += [(h, None) for h in items if h.get("rider") and h["id"] not in used]
    return out


def _place(c: Canvas, x: float, y: float, w: float, items: list[dict[str, Any]], size: float = COUNTER) -> float:
    """Counters in rows inside an area ``w`` wide from (x, y); returns the height used."""
    per_row = max(1, int((w + 6) // (size + 6)))
    pairs = _layout(items)
    row_h = size + (22 if any(h is not None for _, h in pairs) else 0) + 6
    for n, (item, horse) in enumerate(pairs):
        cx = x + (n % per_row) * (size + 6)
        cy = y + (n // per_row) * row_h
        if horse is not None:
            draw_counter(c, cx + 4, cy + 22, horse, size=size, under=item["id"])
        draw_counter(c, cx, cy, item, size=size)
    rows = (len(pairs) + per_row - 1) // per_row
    return rows * row_h


def _rows_needed(items: list[dict[str, Any]], w: float, size: float = COUNTER) -> float:
    per_row = max(1, int((w + 6) // (size + 6)))
    pairs = _layout(items)
    row_h = size + (22 if any(h is not None for _, h in pairs) else 0) + 6
    return ((len(pairs) + per_row - 1) // per_row) * row_h


# -- one Melee Section ---------------------------------------------------------------------------


def _counters(sheet: dict[str, Any], area: str, data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for index, entries in (sheet.get(area) or {}).items():
        for text in entries:
            ctr = parse_counter(text)
            if ctr is not None:
                out.setdefault(str(index), []).append(_with_rider(ctr, data))
    return out


def _with_rider(ctr: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """A horse counter names the native that rides it (from ``describe``'s denizens)."""
    if ctr["side"] in ("trot", "gallop"):
        for did, den in (data.get("denizens") or {}).items():
            horse = den.get("horse")
            if horse and (ctr["id"] == f"{did}-horse" or horse.get("name") == ctr["name"]):
                ctr["rider"] = did
                break
    return ctr


def _sheet_title(sheet: dict[str, Any], data: dict[str, Any]) -> str:
    owner = sheet["owner"]
    char = (data.get("characters") or {}).get(owner)
    if char is not None:
        return f"Melee Section of {char['character']} ({owner}{_played_by(char, owner)})"
    den = (data.get("denizens") or {}).get(owner, {})
    whose = f", hireling of {den['owner']}" if den.get("owner") else ""
    return f"Melee Section of {den.get('name', owner)} ({owner}{whose})"


def sheet_height(sheet: dict[str, Any], data: dict[str, Any], hidden: bool) -> float:
    boxes = _counters(sheet, "boxes", data)
    tallest = max([_rows_needed(v, 168) for v in boxes.values()] + [COUNTER + 6])
    unplaced = [x for x in (parse_counter(t) for t in sheet.get("unplaced") or []) if x is not None]
    top = (_rows_needed([_with_rider(u, data) for u in unplaced], SHEET_W - 24) + 22 if unplaced else 0) + \
        (66 if hidden else 0)
    return 30 + top + 150 + (tallest + 32) + 200


def melee_section(c: Canvas, scene: Scene, sheet: dict[str, Any], x: float, y: float) -> float:
    """One Melee Section; returns its height."""
    data = scene.data
    owner = sheet["owner"]
    secret = sheet.get("plays") == "secret until every side has played"
    char = (data.get("characters") or {}).get(owner)
    player = char["player"] if char else ""
    sealed = [s for s in scene.sealed if not s.revealed and s.player == player and s.step.endswith("/plays")
              and sheet.get("kind") == "character" and "attack" not in sheet]
    hidden = secret or bool(sealed)
    height = sheet_height(sheet, data, hidden)
    title = _sheet_title(sheet, data)
    with c.group(title, cls="melee-section", data_sheet=owner, data_kind=sheet.get("kind", ""),
                 data_round=sheet.get("round", "")):
        c.rect(x, y, SHEET_W, height, fill="#fbf8f0", stroke=INK, width=1.5, rx=6)
        c.text(x + 12, y + 20, title, size=14, weight="bold", width=SHEET_W - 24)
        top = y + 30
        unplaced = [x_ for x_ in (parse_counter(t) for t in sheet.get("unplaced") or []) if x_ is not None]
        if unplaced:
            with c.group("counters on this sheet whose positions are not fixed yet", cls="area",
                         data_area="unplaced", data_sheet=owner):
                c.text(x + 12, top + 12, "On this sheet, not yet placed:", size=11, fill=MUTED)
                used = _place(c, x + 12, top + 18, SHEET_W - 24, [_with_rider(u, data) for u in unplaced])
            top += used + 22
        if hidden:
            why = "secret until every side has played (MR 8.4.5)" if secret else \
                f"sealed by {player} (step {sealed[0].step}), face down until revealed"
            with c.group(f"{owner}'s plays: {why}", cls="plays-hidden", data_sheet=owner):
                for k, what in enumerate(("attack", "maneuver", "armor")):
                    face_down(c, x + 12 + k * 52, top + 4, 44, 44, f"{owner}'s {what}: {why}", kind="play")
                c.text(x + 172, top + 30, "plays face down: " + ("secret until every side has played" if secret
                                                                  else "sealed until revealed"),
                       size=11, fill=MUTED, width=SHEET_W - 190)
            top += 56
        col = [x + 100 + 200 * i for i in range(3)]
        circles = _counters(sheet, "circles", data)
        squares = _counters(sheet, "squares", data)
        boxes = _counters(sheet, "boxes", data)
        attack = sheet.get("attack") or {}
        maneuver = sheet.get("maneuver") or {}
        # -- Attack circles
        cy = top + 70
        for i in (1, 2, 3):
            items = circles.get(str(i), [])
            played = attack.get("circle") == i
            label = f"Attack circle {i}: {CIRCLES[i]}"
            if played:
                label += f", {owner}'s attack with {attack.get('fight') or 'no Fight chit'} and {attack.get('weapon')}"
            if items:
                label += ": " + ", ".join(t["id"] for t in items)
            with c.group(label, cls="area", data_area="circle", data_index=i, data_sheet=owner):
                c.text(col[i - 1], top + 16, CIRCLES[i].upper(), size=12, anchor="middle", weight="bold")
                c.circle(col[i - 1], cy, 44, fill="#ffffff", stroke=INK, width=1.5)
                if played:
                    _attack_play(c, scene, owner, attack, col[i - 1], cy)
                if items:
                    size = 40 if len(items) <= 2 else 26
                    w = len(items) * (size + 6) - 6
                    _place(c, col[i - 1] - w / 2, cy - size / 2, w + 1, items, size)
        # -- arrows to the red boxes
        box_top = cy + 44 + 34
        for i in (1, 2, 3):
            with c.group(f"grey arrow: the {CIRCLES[i]} circle intercepts the {BOXES[i]} box", cls="arrow"):
                c.line(col[i - 1], cy + 46, col[i - 1], box_top - 3, stroke="#8a8a8a", width=3, arrow="grey")
        tallest = max([_rows_needed(v, 168) for v in boxes.values()] + [COUNTER + 6])
        box_h = tallest + 32
        for i in (1, 2, 3):
            items = boxes.get(str(i), [])
            label = f"Red box {i}: {BOXES[i]}" + (": " + ", ".join(t["id"] for t in items) if items else ": empty")
            with c.group(label, cls="area", data_area="box", data_index=i, data_sheet=owner):
                bx = col[i - 1] - 90
                c.rect(bx, box_top, 180, box_h, fill="#fdecea", stroke="#c0392b", width=2.5, rx=4)
                c.text(col[i - 1], box_top + 15, BOXES[i].upper(), size=10, anchor="middle", weight="bold",
                       fill="#8e1b10")
                _place(c, bx + 6, box_top + 22, 168, items)
        # -- armor ovals and red arrows to the maneuver squares
        oval_y = box_top + box_h + 30
        square_top = oval_y + 44
        shield = sheet.get("shield") or 0
        for i in (1, 2, 3):
            with c.group(f"red arrow: the {BOXES[i]} box intercepts the {SQUARES[i]} square", cls="arrow"):
                c.line(col[i - 1], box_top + box_h + 2, col[i - 1], oval_y - 15, stroke="#c0392b", width=3)
                c.line(col[i - 1], oval_y + 15, col[i - 1], square_top - 3, stroke="#c0392b", width=3, arrow="red")
            has = shield == i
            with c.group(f"armor oval {i}" + (": shield played here, it protects against attacks from the "
                                              f"{BOXES[i]} box" if has else ": no shield"),
                         cls="armor-oval", data_index=i, data_shield="yes" if has else None):
                c.ellipse(col[i - 1], oval_y, 46, 15, fill="#cfd8dc" if has else "#ffffff",
                          stroke=INK if has else "#9a9a9a", dash="" if has else "3 3", width=1.5 if has else 1)
                if has:
                    c.text(col[i - 1], oval_y + 4, "SHIELD", size=10, anchor="middle", weight="bold")
        # -- Maneuver squares
        for i in (1, 2, 3):
            items = squares.get(str(i), [])
            played = maneuver.get("square") == i
            label = f"Maneuver square {i}: {SQUARES[i]}"
            if played:
                label += f", {owner}'s maneuver with {maneuver.get('move') or 'the horse ' + str(maneuver.get('horse'))}"
            if items:
                label += ": " + ", ".join(t["id"] for t in items)
            with c.group(label, cls="area", data_area="square", data_index=i, data_sheet=owner):
                sx = col[i - 1] - 50
                c.rect(sx, square_top, 100, 100, fill="#ffffff", stroke=INK, width=1.5)
                c.text(col[i - 1], square_top + 118, SQUARES[i].upper(), size=12, anchor="middle", weight="bold")
                if played:
                    _maneuver_play(c, scene, owner, maneuver, col[i - 1], square_top + 50)
                if items:
                    size = 40 if len(items) <= 2 else 28
                    w = len(items) * (size + 6) - 6
                    _place(c, col[i - 1] - w / 2, square_top + 50 - size / 2, w + 1, items, size)
    return height


def _chit_entry(scene: Scene, owner: str, chit_id: str) -> str:
    """The chit's ``ID LABEL`` from the owner's chit lists in ``describe``."""
    groups = (scene.data.get("fatigue") or {}).get(owner, {})
    for status in ("active", "fatigued", "wounded"):
        for entry in groups.get(status, []):
            if entry.split(" ", 1)[0] == chit_id:
                return entry
    for entry in groups.get("cards", []):
        if entry.split(" ", 1)[0] == chit_id:
            return entry
    return f"{chit_id} {chit_id}"


def _attack_play(c: Canvas, scene: Scene, owner: str, attack: dict[str, Any], cx: float, cy: float) -> None:
    cancelled = attack.get("cancelled") or ""
    weapon = attack.get("weapon") or ""
    side = attack.get("weapon_side") or ""
    where = f"played in the {CIRCLES.get(attack.get('circle', 0), '')} circle with {weapon}" + \
        (f" ({side})" if side else "") + f", target {attack.get('target') or 'none'}"
    if attack.get("fight"):
        draw_chit(c, cx - 22, cy - 30, _chit_entry(scene, owner, attack["fight"]), status="played", where=where,
                  cancelled=cancelled)
    else:
        with c.group(f"{owner} attacks without a Fight chit: {weapon}, {where}", cls="play"):
            c.text(cx, cy - 4, weapon or "attack", size=11, anchor="middle", weight="bold", width=80)
    # beside the circle, on the side with room (the last circle is by the sheet's right edge)
    left = attack.get("circle") == 3
    tx, anchor = (cx - 50, "end") if left else (cx + 50, "start")
    c.text(tx, cy - 8, weapon, size=10, weight="bold", width=98, anchor=anchor)
    if side or weapon == "dagger":
        c.text(tx, cy + 5, side or "no counter, no side", size=9, fill=MUTED, anchor=anchor, width=98)
    c.text(tx, cy + 18, f"\u2192 {attack.get('target') or 'no target'}", size=10, width=98, anchor=anchor)
    if cancelled:
        c.text(tx, cy + 31, "CANCELLED", size=10, weight="bold", fill="#b00000", anchor=anchor)


def _maneuver_play(c: Canvas, scene: Scene, owner: str, maneuver: dict[str, Any], cx: float, cy: float) -> None:
    cancelled = maneuver.get("cancelled") or ""
    where = f"played in the {SQUARES.get(maneuver.get('square', 0), '')} square"
    if maneuver.get("move"):
        draw_chit(c, cx - 22, cy - 26, _chit_entry(scene, owner, maneuver["move"]), status="played", where=where,
                  cancelled=cancelled)
    else:
        char = (scene.data.get("characters") or {}).get(owner) or {}
        horse = char.get("horse") or {}
        side = "gallop" if maneuver.get("horse") == "gallop" else "trot"
        draw_counter(c, cx - 22, cy - 26, {"id": f"{owner}-horse", "name": horse.get("name", "horse"),
                                           "side": side, "values": "", "flags": []}, size=44)
    if cancelled:
        c.text(cx, cy + 38, "CANCELLED", size=10, anchor="middle", weight="bold", fill="#b00000")


# -- the owner's panel ----------------------------------------------------------------------------


def character_panel(c: Canvas, scene: Scene, owner: str, x: float, y: float) -> float:
    data = scene.data
    char = (data.get("characters") or {}).get(owner)
    if char is None:
        den = (data.get("denizens") or {}).get(owner, {})
        with c.group(f"{owner}: {den.get('name', owner)}", cls="panel", data_owner=owner):
            c.text(x, y + 16, f"{den.get('name', owner)} ({owner})", size=13, weight="bold", width=PANEL_W)
            lines = [f"hired by {den['owner']}" if den.get("owner") else "uncontrolled denizen",
                     f"attacks {den['attacks']}" if den.get("attacks") else "no target now",
                     "alive" if den.get("alive", True) else "dead"]
            yy = y + 36
            for line in lines:
                c.text(x, yy, line, size=11, fill=MUTED, width=PANEL_W)
                yy += 16
        return yy - y
    fat = (data.get("fatigue") or {}).get(owner, {})
    totals = ((data.get("ledger") or {}).get("totals") or {}).get(owner, {})
    status = "dead" if not char.get("alive", True) else ("in the clearing" if char.get("in_clearing", True)
                                                          else "gone from the clearing")
    with c.group(f"{char['character']} ({owner}{_played_by(char, owner)}): {status}", cls="panel",
                 data_owner=owner):
        c.text(x, y + 16, f"{char['character']} ({owner})", size=14, weight="bold", width=PANEL_W)
        c.text(x, y + 32, f"{char['player']} \u00b7 level {char.get('level', '?')} \u00b7 vulnerability "
               f"{char.get('vulnerability', '?')}", size=11, fill=MUTED, width=PANEL_W)
        c.text(x, y + 46, status, size=11, fill=MUTED if status == "in the clearing" else "#b00000",
               weight="normal" if status == "in the clearing" else "bold", width=PANEL_W)
        yy = y + 62
        if fat.get("death"):
            c.text(x, yy, fat["death"], size=11, weight="bold", fill="#b00000", width=PANEL_W)
            yy += 16
        # weapon and armor
        weapon = char.get("weapon")
        wtext = f"{weapon['name']} ({weapon['side']} side up)" if weapon else DAGGER
        with c.group(f"weapon: {wtext}", cls="weapon", data_weapon=weapon["name"] if weapon else "dagger",
                     data_weapon_side=weapon["side"] if weapon else None):
            yy = c.lines(x, yy + 4, f"Weapon: {wtext}", PANEL_W, size=11) - 15
        yy += 14
        armor = char.get("armor") or []
        if armor:
            ax = x
            for piece in armor:
                cond = piece.get("condition", "intact")
                if ax + 80 > x + PANEL_W:
                    ax, yy = x, yy + 40
                with c.group(f"armor {piece['name']}: {cond}", cls="armor", data_armor=piece["name"],
                             data_condition=cond):
                    fill = {"intact": "#cfd8dc", "damaged": c.url("hatch"), "destroyed": "#ffffff"}.get(cond, "#ffffff")
                    c.rect(ax, yy, 78, 34, fill=fill, stroke=INK, rx=10, dash="4 3" if cond == "destroyed" else "")
                    c.text(ax + 39, yy + 14, piece["name"], size=10, anchor="middle", weight="bold", width=74)
                    c.text(ax + 39, yy + 28, cond, size=9, anchor="middle",
                           fill="#b00000" if cond != "intact" else INK)
                    if cond == "destroyed":
                        c.cross(ax + 4, yy + 4, 70, 26)
                ax += 84
            yy += 42
        # the chits, by status
        for status_name, heading_text in (("active", "Active chits"), ("fatigued", "Fatigued chits"),
                                          ("wounded", "Wounded chits")):
            entries = fat.get(status_name) or []
            if not entries:
                continue
            c.text(x, yy + 10, f"{heading_text} ({len(entries)})", size=11, weight="bold")
            yy += 16
            per_row = int((PANEL_W + 6) // 46)
            with c.group(f"{heading_text.lower()} of {owner}: {', '.join(entries)}", cls="chits",
                         data_status=status_name, data_owner=owner):
                for n, entry in enumerate(entries):
                    draw_chit(c, x + (n % per_row) * 46, yy + (n // per_row) * 46, entry, size=40,
                              status=status_name)
            yy += ((len(entries) + per_row - 1) // per_row) * 46 + 2
        for card in fat.get("cards") or []:
            c.text(x, yy + 10, f"Card: {card}", size=10, width=PANEL_W)
            yy += 14
        if fat.get("transmorphized"):
            c.text(x, yy + 10, f"Transmorphized: {fat['transmorphized']}", size=10, width=PANEL_W)
            yy += 14
        used = fat.get("used_this_round") or []
        owes = []
        if fat.get("asterisks_owed"):
            owes.append(f"owes {fat['asterisks_owed']} asterisk(s) of fatigue")
        if fat.get("wounds_this_round"):
            owes.append(f"{fat['wounds_this_round']} wound(s) to take")
        if used or owes:
            text = (f"Used this round: {', '.join(used)}" if used else "") + ("; " if used and owes else "") + \
                "; ".join(owes)
            with c.group(text, cls="fatigue-owed", data_owner=owner):
                yy = c.lines(x, yy + 12, text, PANEL_W, size=11, weight="bold" if owes else "normal")
        if totals:
            text = f"Fame {totals.get('fame')} \u00b7 Notoriety {totals.get('notoriety')} \u00b7 Gold {totals.get('gold')}"
            with c.group(f"{owner}'s totals: {text}", cls="totals", data_owner=owner):
                c.rect(x, yy + 2, PANEL_W, 22, fill="#fff8dc", stroke=INK, rx=3)
                c.text(x + PANEL_W / 2, yy + 17, text, size=11, anchor="middle", weight="bold", width=PANEL_W - 8)
            yy += 28
    return yy - y


# -- the picture ---------------------------------------------------------------------------------


def attack_text(a: dict[str, Any]) -> tuple[str, str]:
    head = f"{a['attacker']} \u2192 {a['target']}: {a['direction']} {a['harm']} at time {a['time']}, length {a['length']}"
    if not a["hit"]:
        why = a.get("why") or ""
        return head + (f": {why}" if why else ""), f"miss: {head}" + (f": {why}" if why else "")
    how = f" ({a['how']})" if a.get("how") else ""
    together = f", simultaneous group {a['group']}" if a.get("group") else ""
    result = a.get("result") or ""
    return (f"{head}{how}: {result}", f"hit number {a.get('order')}{together}: {head}{how}: {result}")


def draw(scene: Scene, prefix: str = "p") -> str:
    d = scene.data
    c = canvas_for(scene, "Melee Sections", prefix)
    sheets = d.get("sheets") or []
    shown = sheets[0]["round"] if sheets else d.get("round", 0)
    attacks = resolved_attacks(scene)
    step = d.get("step", "")
    if attacks is not None:
        subtitle = f"plays of round {attacks[0]}, resolved"
    elif sheets:
        subtitle = f"round {shown}, step {step}"
    else:
        subtitle = f"step {step}"
    if d.get("ended"):
        subtitle += " \u00b7 combat over"
    y = heading(c, scene, subtitle)
    if d.get("ended") and d.get("end_reason"):
        c.text(MARGIN, y, f"Combat over: {d['end_reason']}", size=12, weight="bold", width=WIDTH - 2 * MARGIN)
        y += 18
    if not sheets:
        c.text(MARGIN, y + 10, "No Melee Section in play at this point.", size=12, fill=MUTED)
        y += 30
    drawn_panels = set()
    for sheet in sheets:
        h = melee_section(c, scene, sheet, MARGIN, y)
        ph = 0.0
        if sheet["owner"] not in drawn_panels:
            ph = character_panel(c, scene, sheet["owner"], PANEL_X, y)
            drawn_panels.add(sheet["owner"])
        y += max(h, ph) + 18
    # characters without a sheet (gone, dead): their chits and ledger still matter
    for cid in (d.get("characters") or {}):
        if cid not in drawn_panels:
            ph = character_panel(c, scene, cid, PANEL_X, y)
            drawn_panels.add(cid)
            y += ph + 12
    if attacks is not None:
        rnd, items = attacks
        y = section(c, y, f"Attacks of round {rnd} in the order they struck (MR 8.4.9); misses after")
        if items:
            with c.group(f"the attacks of round {rnd}", cls="attacks", data_round=rnd):
                entries = []
                for a in striking_order(items):
                    text, title = attack_text(a)
                    entries.append((text, title, a))
                y0 = y
                for n, (text, title, a) in enumerate(entries, 1):
                    with c.group(title, cls="attack", data_n=n, data_attacker=a["attacker"],
                                 data_target=a["target"], data_hit="yes" if a["hit"] else "no",
                                 data_order=a.get("order") or None):
                        c.text(MARGIN, y0, f"{n}.", size=12, weight="bold")
                        c.text(MARGIN + 26, y0, "HIT" if a["hit"] else "miss", size=11, weight="bold",
                               fill="#b00000" if a["hit"] else MUTED)
                        y0 = c.lines(MARGIN + 60, y0, text, WIDTH - 2 * MARGIN - 60, size=12)
                    y0 += 2
                y = y0
        else:
            c.text(MARGIN, y, "No attacks.", size=12, fill=MUTED)
            y += 18
        y += 8
    y = ledger(c, d, y)
    y = spells(c, d, y)
    y = waiting(c, d, y)
    y = sealed_strip(c, scene, y)
    return c.finish(y + 16)


def ledger(c: Canvas, d: dict[str, Any], y: float) -> float:
    entries = (d.get("ledger") or {}).get("entries") or []
    totals = (d.get("ledger") or {}).get("totals") or {}
    if not entries and not totals:
        return y
    y = section(c, y, "Fame, notoriety and gold (MR tables: bounties)")
    cols = [MARGIN, MARGIN + 60, MARGIN + 160, MARGIN + 230, MARGIN + 320, MARGIN + 390]
    with c.group("the ledger of bounties", cls="ledger"):
        for x, label in zip(cols, ("round", "who", "fame", "notoriety", "gold", "why")):
            c.text(x, y, label, size=11, weight="bold")
        y += 16
        for e in entries:
            line = f"round {e['round']}: {e['who']} fame {e['fame']}, notoriety {e['notoriety']}, gold {e['gold']}: " \
                   f"{e['why']} ({e['rule']})"
            with c.group(line, cls="ledger-entry"):
                for x, value in zip(cols[:5], (e["round"], e["who"], e["fame"], e["notoriety"], e["gold"])):
                    c.text(x, y, value, size=11, width=95)
                y = c.lines(cols[5], y, e["why"], WIDTH - MARGIN - cols[5], size=11)
        for who, t in totals.items():
            line = f"{who}: fame {t['fame']}, notoriety {t['notoriety']}, gold {t['gold']}"
            with c.group(f"total of {line}", cls="ledger-total"):
                c.text(cols[0], y, "total", size=11, weight="bold")
                for x, value in zip(cols[1:5], (who, t["fame"], t["notoriety"], t["gold"])):
                    c.text(x, y, value, size=11, weight="bold", width=95)
            y += 15
    return y + 8


def spells(c: Canvas, d: dict[str, Any], y: float) -> float:
    items = d.get("spells") or []
    if not items:
        return y
    y = section(c, y, "Spells (MR 8.4.3)")
    for s in items:
        by = f"the {s['item']}" if s.get("item") else f"chit {s.get('chit')}"
        text = f"{s['caster']}'s {s['spell']} ({by}, time {s['time']}) on {', '.join(s['targets']) or 'the clearing'}: " \
               f"{s['status']}" + (f" ({s['why']})" if s.get("why") else "")
        with c.group(text, cls="spell"):
            y = c.lines(MARGIN, y, text, WIDTH - 2 * MARGIN, size=11)
    return y + 8


def waiting(c: Canvas, d: dict[str, Any], y: float) -> float:
    items = d.get("pending") or []
    if not items:
        return y
    y = section(c, y, "Waiting for")
    return numbered(c, y, [(f"{p['who']}: {p['what']}", f"waiting for {p['who']}: {p['what']}") for p in items],
                    cls="pending", size=11) + 6
