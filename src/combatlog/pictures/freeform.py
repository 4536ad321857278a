"""Freeform: the participants by side with hit-point bars and conditions, and the round so far."""

from __future__ import annotations

from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import (
    MARGIN, canvas_for, heading, hp_bar, numbered, pending_list, sealed_strip, section, tag_row,
)
from combatlog.pictures.svg import INK, MUTED, Canvas

CARD_W, CARD_H = 300, 96
SIDE_COLOURS = ("#e3ecf7", "#f7e6e3", "#e6f2e3", "#f3ebf7", "#f7f3de")


def card(c: Canvas, x: float, y: float, p: dict[str, Any], colour: str) -> None:
    state = "left the fight" if not p.get("present", True) else "down" if p.get("down") else "standing"
    hp = "no hit points tracked" if p.get("hp") is None else f"{p['hp']} of {p.get('max_hp')} hp"
    conditions = list(p.get("conditions") or [])
    title = f"{p['name']} (side {p['side']}): {hp}, {state}" + (f"; conditions: {', '.join(conditions)}"
                                                                  if conditions else "")
    with c.group(title, cls="participant", data_name=p["name"], data_side=p["side"], data_state=state):
        c.rect(x, y, CARD_W, CARD_H, fill=colour if p.get("present", True) else "#eeeeee", stroke=INK, rx=6,
               dash="" if p.get("present", True) else "5 3")
        c.text(x + 12, y + 22, p["name"], size=15, weight="bold", width=CARD_W - 110)
        c.text(x + CARD_W - 12, y + 22, state.upper() if state != "standing" else "standing", size=11,
               anchor="end", weight="bold", fill="#b00000" if state != "standing" else MUTED)
        if p.get("hp") is not None and p.get("max_hp"):
            hp_bar(c, x + 12, y + 32, CARD_W - 24, 18, p["hp"], p["max_hp"], f"{p['name']}: {hp}")
        else:
            c.text(x + 12, y + 46, hp, size=11, fill=MUTED)
        tag_row(c, x + 12, y + 60, CARD_W - 24, conditions, "condition")
        if p.get("down") or not p.get("present", True):
            c.line(x + 8, y + CARD_H - 8, x + CARD_W - 8, y + 8, stroke="#b00000", width=1.5)


def draw(scene: Scene, prefix: str = "p") -> str:
    d = scene.data
    c = canvas_for(scene, "participants", prefix)
    rnd = d.get("round", 0)
    sub = ("combat over" + (f": {d['outcome']}" if d.get("outcome") else "")) if d.get("ended") else \
        (f"round {rnd} " + ("open" if d.get("in_round") else "closed") if rnd else "not started")
    y = heading(c, scene, sub)
    sides: dict[str, list[dict[str, Any]]] = {}
    for p in d.get("participants") or []:
        sides.setdefault(p["side"], []).append(p)
    y = section(c, y, "Participants by side")
    for n, (side, people) in enumerate(sides.items()):
        colour = SIDE_COLOURS[n % len(SIDE_COLOURS)]
        with c.group(f"side {side}: {', '.join(p['name'] for p in people)}", cls="side", data_side=side):
            c.text(MARGIN, y + 12, f"Side {side}", size=13, weight="bold")
            y += 20
            for k, p in enumerate(people):
                col, row = k % 3, k // 3
                card(c, MARGIN + col * (CARD_W + 10), y + row * (CARD_H + 10), p, colour)
            y += ((len(people) + 2) // 3) * (CARD_H + 10) + 6
    if scene.steps:
        y = section(c, y, f"Round {rnd} so far" if rnd else "Before the first round")
        y = numbered(c, y, [(f"{s.text}  ({s.rule})" + (f"  [dice: {', '.join(s.dice)}]" if s.dice else ""),
                             f"seq {s.seq}: {s.text} ({s.rule})") for s in scene.steps], cls="step", size=11)
        y += 6
    y = pending_list(c, scene, y)
    y = sealed_strip(c, scene, y)
    return c.finish(y + 16)
