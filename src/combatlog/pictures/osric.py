"""OSRIC: the round's ten segments (who acts when, and what each did), the initiative, and the
combatants with hit points, armour class, status and morale."""

from __future__ import annotations

from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import (
    MARGIN, WIDTH, canvas_for, heading, hp_bar, pending_list, sealed_strip, section,
)
from combatlog.pictures.svg import INK, MUTED, Canvas

CELL = (WIDTH - 2 * MARGIN) / 10
SIDE_FILL = ("#e3ecf7", "#f7e6e3", "#e6f2e3", "#f3ebf7")


def actors(entries: list[dict[str, Any]], names: list[str]) -> list[str]:
    """The combatants an entry of a segment begins with (who acts there), in order, once each."""
    out: list[str] = []
    for e in entries:
        text = e.get("text", "")
        for name in names:
            if (text.startswith(name + " ") or text.startswith(name + ",") or text.startswith(name + ":")) \
                    and name not in out:
                out.append(name)
    return out


def ribbon(c: Canvas, y: float, rnd: int, segments: dict[int, list[dict[str, Any]]], schedule: list[dict[str, Any]],
           names: list[str], side_of: dict[str, str], sides: list[str], now: int) -> float:
    """Ten cells, one a segment, naming who acts in each."""
    planned: dict[int, list[str]] = {}
    for s in schedule:
        planned.setdefault(int(s["segment"]), []).append(s["who"])
    rows = 1
    cells: dict[int, list[str]] = {}
    for seg in range(1, 11):
        who = actors(segments.get(seg, []), names)
        who += [w for w in planned.get(seg, []) if w not in who]
        cells[seg] = who
        rows = max(rows, len(who))
    h = 26 + rows * 20 + 8
    for seg in range(1, 11):
        x = MARGIN + (seg - 1) * CELL
        who = cells[seg]
        title = f"round {rnd}, segment {seg}: " + (", ".join(who) + " act" if who else "nobody acts") + \
            (" (the segment now)" if seg == now else "")
        with c.group(title, cls="segment", data_segment=seg, data_actors=" ".join(who)):
            c.rect(x, y, CELL - 4, h, fill="#fff8dc" if seg == now else "#ffffff", stroke=INK,
                   width=2 if seg == now else 1, rx=3)
            c.text(x + (CELL - 4) / 2, y + 17, f"segment {seg}", size=11, anchor="middle", weight="bold")
            for k, name in enumerate(who):
                side = side_of.get(name, "")
                fill = SIDE_FILL[sides.index(side) % len(SIDE_FILL)] if side in sides else "#eeeeee"
                c.rect(x + 4, y + 24 + k * 20, CELL - 12, 17, fill=fill, stroke="#777777", rx=8)
                c.text(x + (CELL - 4) / 2, y + 36 + k * 20, name, size=10, anchor="middle", width=CELL - 16)
    return y + h + 10


def draw(scene: Scene, prefix: str = "p") -> str:
    d = scene.data
    c = canvas_for(scene, "the round's segments", prefix)
    rnd = d.get("round", 0)
    sub = ("combat over" + (f": {d['outcome']}" if d.get("outcome") else "")) if d.get("ended") else \
        (f"round {rnd}, {d.get('phase')}" + (f", segment {d['segment']}" if d.get("segment") else "")
         if rnd else f"{d.get('phase', '')}")
    y = heading(c, scene, sub)
    if d.get("title"):
        c.text(MARGIN, y, d["title"], size=14, weight="bold", width=WIDTH - 2 * MARGIN)
        y += 20
    combatants = list(d.get("combatants") or [])
    names = sorted((cb["name"] for cb in combatants), key=len, reverse=True)
    side_of = {cb["name"]: cb["side"] for cb in combatants}
    sides = list(d.get("sides") or [])
    shown = next((r for r in d.get("timeline") or [] if r.get("round") == rnd), None)
    segments = {int(s["segment"]): list(s["entries"]) for s in (shown or {}).get("segments", [])}
    init = d.get("initiative") or {}
    if init:
        text = "; ".join(f"{side} rolled {n}" for side, n in init.items())
        with c.group(f"initiative: {text}", cls="initiative"):
            c.text(MARGIN, y, f"Initiative: {text}", size=12, weight="bold", width=WIDTH - 2 * MARGIN)
        y += 18
    y = section(c, y, f"Round {rnd}: who acts when" if rnd else "Surprise segments: who acts when")
    y = ribbon(c, y, rnd, segments, list(d.get("schedule") or []), names, side_of, sides,
               int(d.get("segment") or 0) if d.get("phase") == "round" else 0)
    y = section(c, y, "Combatants")
    cols = [MARGIN, MARGIN + 110, MARGIN + 200, MARGIN + 300, MARGIN + 450, MARGIN + 500, MARGIN + 610, MARGIN + 690]
    for x, label in zip(cols, ("name", "side", "what", "hit points", "AC", "status", "morale", "engaged with")):
        c.text(x, y, label, size=11, weight="bold")
    y += 8
    for cb in combatants:
        status = cb.get("status", "")
        title = f"{cb['name']} ({cb['side']}, {cb.get('what')}): {cb.get('hp')} of {cb.get('max_hp')} hp, AC " \
                f"{cb.get('ac')}, {status}" + (f", morale {cb['morale']}" if cb.get("morale") else "") + \
                (f", declared: {cb['declared']}" if cb.get("declared") else "") + \
                (f", conditions: {', '.join(cb['conditions'])}" if cb.get("conditions") else "")
        with c.group(title, cls="combatant", data_name=cb["name"], data_side=cb["side"], data_status=status):
            out = status not in ("ok", "")
            c.rect(MARGIN - 4, y + 2, WIDTH - 2 * MARGIN + 8, 24, fill="#f4f4f4" if out else "#ffffff",
                   stroke="#cccccc")
            c.text(cols[0], y + 19, cb["name"], size=12, weight="bold", width=106)
            c.text(cols[1], y + 19, cb["side"], size=11, width=86)
            c.text(cols[2], y + 19, cb.get("what", ""), size=11, width=96)
            hp_bar(c, cols[3], y + 5, 140, 18, int(cb.get("hp") or 0), int(cb.get("max_hp") or 0),
                   f"{cb['name']}: {cb.get('hp')} of {cb.get('max_hp')} hp")
            c.text(cols[4], y + 19, cb.get("ac", ""), size=12)
            c.text(cols[5], y + 19, status, size=11, weight="bold" if out else "normal",
                   fill="#b00000" if out else INK, width=106)
            c.text(cols[6], y + 19, cb.get("morale") or "-", size=11, width=76)
            c.text(cols[7], y + 19, ", ".join(cb.get("engaged_with") or []) or "-", size=11,
                   width=WIDTH - MARGIN - cols[7])
        y += 28
        extra = "; ".join(x for x in ((f"declared: {cb['declared']}" if cb.get("declared") else ""),
                                      ", ".join(cb.get("conditions") or [])) if x)
        if extra:
            c.text(cols[1], y + 8, extra, size=10, fill=MUTED, width=WIDTH - MARGIN - cols[1])
            y += 16
    y += 8
    y = section(c, y, f"Round {rnd}, segment by segment" if rnd else "Surprise, segment by segment")
    for seg in sorted(segments):
        entries = segments[seg]
        label = "before" if seg == 0 else f"seg {seg}"
        with c.group(f"segment {seg}: " + "; ".join(e["text"] for e in entries), cls="timeline-segment",
                     data_segment=seg):
            c.rect(MARGIN, y - 12, 54, 18, fill="#f1ede4", stroke=INK, rx=3)
            c.text(MARGIN + 27, y + 1, label, size=10, anchor="middle", weight="bold")
            for e in entries:
                dice = f"  [dice: {', '.join(e['dice'])}]" if e.get("dice") else ""
                with c.group(f"seq {e.get('seq')}: {e['text']} ({e.get('rule', '')}){dice}", cls="timeline-entry"):
                    y = c.lines(MARGIN + 64, y, ("+ " if e.get("late") else "") + e["text"], WIDTH - 2 * MARGIN - 64,
                                size=11)
        y += 6
    if d.get("sealed"):
        s = d["sealed"]
        text = f"sealed declarations {s.get('step')}: committed {', '.join(s.get('committed') or []) or 'none'}; " \
               f"revealed {', '.join(s.get('revealed') or []) or 'none'}"
        with c.group(text, cls="sealed-step"):
            y = c.lines(MARGIN, y + 6, text, WIDTH - 2 * MARGIN, size=11)
    y = pending_list(c, scene, y)
    y = sealed_strip(c, scene, y)
    return c.finish(y + 16)
