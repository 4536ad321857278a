"""Classic Fantasy Imperative: each combatant's hit locations with their hit points (serious and major
wounds marked), Action Points, initiative, fatigue, luck and conditions; the initiative order and the
last exchange."""

from __future__ import annotations

import re
from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import (
    MARGIN, WIDTH, canvas_for, heading, humane, legend, pending_list, sealed_strip, section, tag_row,
)
from combatlog.pictures.svg import INK, MUTED, Canvas, text_width

CARD_W, CARD_H = 470, 300
# A humanoid's seven locations on a figure 228 wide (its right arm on the viewer's left).
# Every box is at least 54 high, so that each shows its armour (the head, chest and abdomen too).
BODY = {
    "head": (86, 0, 56, 54), "right arm": (0, 60, 64, 116), "chest": (70, 60, 88, 56),
    "left arm": (164, 60, 64, 116), "abdomen": (70, 120, 88, 56), "right leg": (70, 180, 42, 82),
    "left leg": (116, 180, 42, 82),
}
BODY_H = 262
WOUND_FILL = {"": "#ffffff", "minor": "#fff3c4", "serious": "hatch", "major": "#f4c7c3"}
SHORT = {"right arm": "R arm", "left arm": "L arm", "right leg": "R leg", "left leg": "L leg"}
# A Combat Round is five seconds (CFI Ch.8 Running Combat): 12 to the minute.
ROUNDS_PER_MINUTE = 12
_LEFT = re.compile(r" (\d+) (Round|Turn)\(s\) left")


def effect_title(key: str) -> str:
    """A Special Effect by its name in the rules (``scar_foe`` -> ``Scar Foe``)."""
    from combatlog.rulesets.classic_fantasy.effects import EFFECTS

    found = EFFECTS.get(key)
    return found.title if found is not None else humane(key)


def condition_words(text: str) -> str:
    """``unconscious 71 Round(s) left`` -> ``unconscious, 71 more Rounds (about 6 min)``."""
    def spell(m: re.Match[str]) -> str:
        n, unit = int(m.group(1)), m.group(2)
        out = f", {n} more {unit}{'s' if n != 1 else ''}"
        if unit == "Round" and n >= ROUNDS_PER_MINUTE:
            out += f" (about {round(n / ROUNDS_PER_MINUTE)} min)"
        return out
    return humane(_LEFT.sub(spell, text))


def location(c: Canvas, x: float, y: float, w: float, h: float, loc: dict[str, Any], who: str) -> None:
    wound = loc.get("wound") or ""
    armor = loc.get("worn", 0) + loc.get("natural", 0)
    title = f"{who}'s {loc['name']} (d20 {loc.get('d20', '?')}): {loc['hp']} of {loc['max_hp']} hp, armor {armor}" \
        + (f", {wound} wound" if wound else ", unhurt")
    fill = WOUND_FILL.get(wound, "#ffffff")
    with c.group(title, cls="location", data_location=loc["name"], data_hp=loc["hp"], data_wound=wound or "none",
                 data_code=f"wound {wound}" if wound else None):
        c.rect(x, y, w, h, fill=c.url("hatch") if fill == "hatch" else fill, stroke=INK,
               width=2 if wound in ("serious", "major") else 1, rx=4)
        size = 9 if w < 60 else 10
        c.text(x + w / 2, y + 12, SHORT.get(loc["name"], loc["name"]), size=size, anchor="middle", width=w - 4)
        c.text(x + w / 2, y + 27, f"{loc['hp']}/{loc['max_hp']}", size=12, anchor="middle", weight="bold",
               fill="#b00000" if loc["hp"] <= 0 else INK)
        if h >= 54:
            c.text(x + w / 2, y + 40, f"armour {armor}", size=8, anchor="middle", fill=MUTED, width=w - 4)
        if wound in ("serious", "major"):
            c.text(x + w / 2, y + h - 5, wound.upper(), size=8, anchor="middle", weight="bold", fill="#b00000")
        if wound == "major":
            c.cross(x + 3, y + 3, w - 6, h - 6, width=1.5)


def body_height(locs: list[dict[str, Any]]) -> float:
    return BODY_H if {loc["name"] for loc in locs} == set(BODY) else ((len(locs) + 2) // 3) * 58


def card_height(cb: dict[str, Any]) -> float:
    return max(CARD_H, 50 + body_height(list(cb.get("locations") or [])) + 16,
               62 + 16 * 8 + 21 * len(cb.get("conditions") or []) + 12)


def body(c: Canvas, x: float, y: float, locs: list[dict[str, Any]], who: str) -> float:
    """The locations on a figure when they are a humanoid's seven, else in a grid; returns the height."""
    names = {loc["name"] for loc in locs}
    if names == set(BODY):
        for loc in locs:
            bx, by, bw, bh = BODY[loc["name"]]
            location(c, x + bx, y + by, bw, bh, loc, who)
        return BODY_H
    for n, loc in enumerate(locs):
        location(c, x + (n % 3) * 76, y + (n // 3) * 58, 72, 54, loc, who)
    return ((len(locs) + 2) // 3) * 58


def pips(c: Canvas, x: float, y: float, have: int, most: int, title: str) -> None:
    with c.group(title, cls="action-points", data_ap=have, data_max=most):
        for i in range(max(most, have)):
            c.circle(x + 8 + i * 20, y, 7, fill=INK if i < have else "#ffffff", stroke=INK, width=1.5)


def card(c: Canvas, x: float, y: float, cb: dict[str, Any], turn: str, h: float) -> None:
    conditions = [condition_words(x) for x in cb.get("conditions") or []]
    down = next((w for w in ("dead", "unconscious", "incapacitated") if any(k.startswith(w) for k in conditions)), "")
    title = f"{cb['name']} (side {cb['side']}): initiative {cb.get('initiative')}, {cb.get('ap')} of " \
            f"{cb.get('ap_max')} Action Points, fatigue {cb.get('fatigue')}" + (f", {down}" if down else "") \
            + (f"; conditions: {', '.join(conditions)}" if conditions else "")
    with c.group(title, cls="combatant", data_name=cb["name"], data_side=cb["side"]):
        c.rect(x, y, CARD_W, h, fill="#fbf8f0" if not down else "#eeeeee", stroke=INK,
               width=2.5 if turn == cb["name"] else 1, rx=6)
        c.text(x + 12, y + 22, cb["name"], size=16, weight="bold", width=200)
        c.text(x + 12, y + 38, f"side {cb['side']}" + (" \u00b7 acting now" if turn == cb["name"] else ""),
               size=11, fill=MUTED, width=220)
        if down:
            c.text(x + CARD_W - 12, y + 22, down.upper(), size=13, anchor="end", weight="bold", fill="#b00000")
        body(c, x + 12, y + 50, list(cb.get("locations") or []), cb["name"])
        rx = x + 252
        ry = y + 62
        facts = [("Initiative", cb.get("initiative")), ("Fatigue", cb.get("fatigue")), ("Luck", cb.get("luck")),
                 ("Damage mod.", cb.get("damage_modifier") or "-")]
        c.text(rx, ry, "Action Points", size=11, weight="bold")
        pips(c, rx + 92, ry - 4, int(cb.get("ap") or 0), int(cb.get("ap_max") or 0),
             f"{cb['name']}: {cb.get('ap')} of {cb.get('ap_max')} Action Points left")
        ry += 20
        for label, value in facts:
            with c.group(f"{cb['name']}: {label} {value}", cls="fact", data_fact=label.lower()):
                c.text(rx, ry, label, size=11, weight="bold")
                c.text(rx + 92, ry, value, size=11, width=120)
            ry += 16
        held = cb.get("held") or []
        with c.group(f"{cb['name']} holds {', '.join(held) or 'nothing'}", cls="fact", data_fact="held"):
            c.text(rx, ry, "Holds", size=11, weight="bold")
            c.text(rx + 92, ry, ", ".join(held) or "nothing", size=11, width=120)
        ry += 16
        lost: dict[str, list[str]] = {}
        for w in cb.get("weapons") or []:
            stuck = w.get("stuck_in")
            if stuck:  # "Stuck: spear in Hilda's chest" (the label alone in the label column)
                lost.setdefault("stuck", []).append(f"{w['name']} in {stuck['combatant']}'s {stuck['location']}")
            elif w.get("state"):
                lost.setdefault(humane(w["state"]), []).append(w["name"])
        for state, names in lost.items():  # "Dropped: great axe"
            with c.group(f"{cb['name']}'s weapons {state}: {', '.join(names)}", cls="fact", data_fact="weapons"):
                c.text(rx, ry, state.capitalize(), size=11, weight="bold", fill="#b00000", width=88)
                c.text(rx + 92, ry, ", ".join(names), size=11, fill="#b00000", width=120)
            ry += 16
        if cb.get("engaged"):
            c.text(rx, ry, f"Engaged with {', '.join(cb['engaged'])}", size=10, width=210)
            ry += 16
        flags = [f for f, on in (("delaying", cb.get("delaying")), ("surprised", cb.get("surprised")),
                                 ("flat-footed", cb.get("flat_footed"))) if on]
        if flags:
            c.text(rx, ry, ", ".join(flags), size=10, weight="bold", width=210)
            ry += 16
        if conditions:
            c.text(rx, ry + 2, "Conditions", size=11, weight="bold")
            ry += 8
            for n, cond in enumerate(conditions):  # one tag a line, as many as the card holds
                if ry > y + h - 22:
                    c.text(rx, ry + 4, f"and {len(conditions) - n} more", size=9, fill=MUTED)
                    break
                tag_row(c, rx, ry, 205, [cond], "condition", size=9)
                ry += 21


def wound_key(c: Canvas, y: float, people: list[dict[str, Any]]) -> float:
    """The key to the wound fills drawn on the locations (CFI Ch.7: minor, serious, major wounds)."""
    drawn = {loc.get("wound") for cb in people for loc in cb.get("locations") or []}
    entries = [(f"wound {w}", fill, w, meaning) for w, fill, meaning in (
        ("minor", "#fff3c4", "a minor wound: hit points lost, above 0"),
        ("serious", c.url("hatch"), "a serious wound (hatched): at 0 or below"),
        ("major", "#f4c7c3", "a major wound (crossed): at minus its full hit points or below"),
    ) if w in drawn]
    return legend(c, y, "Key to the locations", entries) + 10 if entries else y


def draw(scene: Scene, prefix: str = "p") -> str:
    d = scene.data
    c = canvas_for(scene, "combatants", prefix)
    rnd = d.get("round", 0)
    sub = ("combat over" + (f": {d['outcome']}" if d.get("outcome") else "")) if d.get("ended") else \
        (f"combat round {rnd}" + (", in progress" if d.get("in_round") else ", between rounds") if rnd else
         "not started")
    y = heading(c, scene, sub)
    order = d.get("initiative") or []
    if order:
        y = section(c, y, "Initiative order") + 14
        x = MARGIN
        with c.group("initiative order: " + ", ".join(f"{o['name']} {o['initiative']}" for o in order),
                     cls="initiative"):
            for n, o in enumerate(order, 1):
                ap = int(o.get("ap", 0))
                label = f"{n}. {o['name']} {o['initiative']} ({ap} Action Point{'s' if ap != 1 else ''})"
                w = text_width(label, 11, "bold") + 16
                if x + w > WIDTH - MARGIN:
                    x, y = MARGIN, y + 28
                now = d.get("turn") == o["name"]
                c.rect(x, y - 14, w, 22, fill="#fff8dc" if now else "#ffffff", stroke=INK, width=2 if now else 1,
                       rx=11)
                c.text(x + 8, y + 1, label, size=11, weight="bold" if now else "normal")
                x += w + 6
        y += 22
    y = section(c, y, "Combatants")
    people = list(d.get("combatants") or [])
    for row in range(0, len(people), 2):
        pair = people[row:row + 2]
        h = max(card_height(cb) for cb in pair)
        for n, cb in enumerate(pair):
            card(c, MARGIN + n * (CARD_W + 20), y, cb, d.get("turn") or "", h)
        y += h + 14
    y = wound_key(c, y, people)
    ex = d.get("exchange") or d.get("last_exchange")
    if ex:
        label = "Exchange in progress" if d.get("exchange") else "Last exchange"
        y = section(c, y, label)
        text = (f"#{ex.get('n')}: {ex.get('attacker')} attacks {ex.get('target')} with {ex.get('weapon')}: attack "
                f"{ex.get('attack')}, defence {ex.get('defence')} ({ex.get('defence_level')})"
                + (f"; the {ex['winner']} wins" if ex.get("winner") else "")
                + (f"; Special Effects: {', '.join(effect_title(e) for e in ex['effects'])}" if ex.get("effects")
                   else ""))
        with c.group(f"{label}: {text}", cls="exchange"):
            y = c.lines(MARGIN, y, text, WIDTH - 2 * MARGIN, size=12)
        y += 6
    y = pending_list(c, scene, y)
    y = sealed_strip(c, scene, y)
    return c.finish(y + 16)
