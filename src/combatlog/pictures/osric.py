"""OSRIC: the round's ten segments (who acts when, and what each did), the initiative, and the
combatants with hit points, armour class, status and morale."""

from __future__ import annotations

import re
from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import (
    MARGIN, WIDTH, canvas_for, heading, hp_bar, humane_text, legend, pending_list, sealed_strip, section,
)
from combatlog.pictures.svg import INK, MUTED, Canvas, wrap

CELL = (WIDTH - 2 * MARGIN) / 10
SIDE_FILL = ("#e3ecf7", "#f7e6e3", "#e6f2e3", "#f3ebf7")


# What happens TO a combatant (it does not act): "orc2 takes 4", "orc4 is now sleeping", "Tam falls ...".
_PASSIVE = re.compile(r" (takes|is|falls|dies|wakes|loses|recovers|fails|checks|has)\b")
# The timeline's initiative entry: "initiative: party 6, orcs 2: party acts in segment 2, orcs in segment 6"
_SIDE_SEGMENTS = re.compile(r"(\S+) acts in segment (\d+), (\S+) in segment (\d+)")


def actors(entries: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Who acts in a segment, in order, once each: the attacker of each attack roll, and the combatant an
    event's first entry begins with when it does something (not when something happens to it)."""
    out: list[str] = []
    seen: set[Any] = set()
    for e in entries:
        data = e.get("data") or {}
        first = e.get("seq") not in seen
        seen.add(e.get("seq"))
        if data.get("type") == "attack_roll":
            who = data.get("attacker")
            if who and who not in out:
                out.append(who)
            continue
        if not first:
            continue
        text = e.get("text", "")
        for name in names:
            if any(text.startswith(name + x) for x in " ,:") and not _PASSIVE.match(text[len(name):]) \
                    and name not in out:
                out.append(name)
    return out


def side_segments(segments: dict[int, list[dict[str, Any]]]) -> dict[int, list[str]]:
    """The segment each side acts in this round, as the timeline's initiative entry says."""
    out: dict[int, list[str]] = {}
    for e in segments.get(0, []):
        text = e.get("text", "")
        m = _SIDE_SEGMENTS.search(text)
        if m is not None and text.startswith("initiative:"):
            out.setdefault(int(m.group(2)), []).append(m.group(1))
            out.setdefault(int(m.group(4)), []).append(m.group(3))
    return out


def side_fill(side: str, sides: list[str]) -> str:
    return SIDE_FILL[sides.index(side) % len(SIDE_FILL)] if side in sides else "#eeeeee"


def ribbon(c: Canvas, y: float, rnd: int, segments: dict[int, list[dict[str, Any]]], schedule: list[dict[str, Any]],
           names: list[str], side_of: dict[str, str], sides: list[str], now: int) -> float:
    """Ten cells, one a segment: the side whose initiative segment it is, then who acts in it; a key."""
    planned: dict[int, list[str]] = {}
    for s in schedule:
        planned.setdefault(int(s["segment"]), []).append(s["who"])
    turns = side_segments(segments)
    rows = 1
    cells: dict[int, list[str]] = {}
    for seg in range(1, 11):
        who = actors(segments.get(seg, []), names)
        who += [w for w in planned.get(seg, []) if w not in who]
        cells[seg] = who
        rows = max(rows, len(who) + len(turns.get(seg, [])))
    h = 26 + rows * 20 + 8
    for seg in range(1, 11):
        x = MARGIN + (seg - 1) * CELL
        who = cells[seg]
        mine = turns.get(seg, [])
        title = f"round {rnd}, segment {seg}: " + "".join(f"{side}'s initiative segment; " for side in mine) + \
            (", ".join(who) + " act" if who else "nobody acts") + (" (the segment now)" if seg == now else "")
        with c.group(title, cls="segment", data_segment=seg, data_actors=" ".join(who),
                     data_sides=" ".join(mine) or None):
            c.rect(x, y, CELL - 4, h, fill="#fff8dc" if seg == now else "#ffffff", stroke=INK,
                   width=2 if seg == now else 1, rx=3)
            c.text(x + (CELL - 4) / 2, y + 17, f"segment {seg}", size=11, anchor="middle", weight="bold")
            k = 0
            for side in mine:
                with c.group(f"{side} acts in segment {seg} (initiative)", cls="side-turn", data_code="side turn"):
                    c.rect(x + 4, y + 24 + k * 20, CELL - 12, 17, fill=side_fill(side, sides), stroke=INK,
                           dash="3 2", rx=2)
                    whose = side + ("'" if side.endswith("s") else "'s")
                    c.text(x + (CELL - 4) / 2, y + 36 + k * 20, f"{whose} turn", size=10, anchor="middle",
                           weight="bold", width=CELL - 16)
                k += 1
            for name in who:
                side = side_of.get(name, "")
                with c.group(f"{name} ({side}) acts in segment {seg}", cls="actor", data_code=f"side {side}"):
                    c.rect(x + 4, y + 24 + k * 20, CELL - 12, 17, fill=side_fill(side, sides), stroke="#777777",
                           rx=8)
                    c.text(x + (CELL - 4) / 2, y + 36 + k * 20, name, size=10, anchor="middle", width=CELL - 16)
                k += 1
    y += h + 6
    entries = [(f"side {side}", side_fill(side, sides), side, f"a combatant of side {side}") for side in sides]
    if turns:
        entries.append(("side turn", "#ffffff", "side's turn", "the segment a side acts in by its initiative "
                        "(a missile bonus, surprise or a held action can move one combatant)"))
    return legend(c, y, "Key to the chart", entries) + 4


def timeline(c: Canvas, y: float, segments: dict[int, list[dict[str, Any]]], names: list[str]) -> float:
    """The round segment by segment: each event's first line in bold, what followed from it under it."""
    for seg in sorted(segments):
        entries = segments[seg]
        label = "before" if seg == 0 else f"seg {seg}"
        whole = "; ".join(humane_text(e["text"], names) for e in entries)
        with c.group(f"segment {seg}: {whole}", cls="timeline-segment", data_segment=seg):
            c.rect(MARGIN, y - 12, 54, 18, fill="#f1ede4", stroke=INK, rx=3)
            c.text(MARGIN + 27, y + 1, label, size=10, anchor="middle", weight="bold")
            seen: set[Any] = set()
            for e in entries:
                first = e.get("seq") not in seen
                if first and seen:
                    y += 4  # a little air between events
                seen.add(e.get("seq"))
                dice = f"  [dice: {', '.join(e['dice'])}]" if e.get("dice") else ""
                late = "after the segment's other actions: " if e.get("late") and first else ""
                text = late + humane_text(e["text"], names)
                with c.group(f"seq {e.get('seq')}: {humane_text(e['text'], names)} ({e.get('rule', '')}){dice}",
                             cls="timeline-entry"):
                    if first:
                        y = c.lines(MARGIN + 64, y, text, WIDTH - 2 * MARGIN - 64, size=12, weight="bold")
                    else:
                        y = c.lines(MARGIN + 80, y, text, WIDTH - 2 * MARGIN - 80, size=11, fill=MUTED)
        c.line(MARGIN, y + 2, WIDTH - MARGIN, y + 2, stroke="#dddddd")
        y += 20
    return y


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
    # no surprise segments (none checked, or nobody surprised): no chart of them
    if rnd or (d.get("surprise") or {}).get("segments"):
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
        # a dead combatant is not also sleeping or held: its conditions no longer apply
        conditions = [] if status == "dead" else list(cb.get("conditions") or [])
        title = f"{cb['name']} ({cb['side']}, {cb.get('what')}): {cb.get('hp')} of {cb.get('max_hp')} hp, AC " \
                f"{cb.get('ac')}, {status}" + (f", morale {cb['morale']}" if cb.get("morale") else "") + \
                (f", declared: {cb['declared']}" if cb.get("declared") else "") + \
                (f", conditions: {', '.join(conditions)}" if conditions else "")
        out = status not in ("ok", "")
        status_lines = wrap(status, 104, 11, "bold" if out else "normal")
        row = max(24, 8 + 14 * len(status_lines))
        with c.group(title, cls="combatant", data_name=cb["name"], data_side=cb["side"], data_status=status):
            c.rect(MARGIN - 4, y + 2, WIDTH - 2 * MARGIN + 8, row, fill="#f4f4f4" if out else "#ffffff",
                   stroke="#cccccc")
            c.text(cols[0], y + 19, cb["name"], size=12, weight="bold", width=106)
            c.text(cols[1], y + 19, cb["side"], size=11, width=86)
            c.text(cols[2], y + 19, cb.get("what", ""), size=11, width=96)
            hp_bar(c, cols[3], y + 5, 140, 18, int(cb.get("hp") or 0), int(cb.get("max_hp") or 0),
                   f"{cb['name']}: {cb.get('hp')} of {cb.get('max_hp')} hp")
            c.text(cols[4], y + 19, cb.get("ac", ""), size=12)
            c.lines(cols[5], y + 19, status, 104, size=11, leading=14 / 11, weight="bold" if out else "normal",
                    fill="#b00000" if out else INK)
            c.text(cols[6], y + 19, cb.get("morale") or "-", size=11, width=76)
            c.text(cols[7], y + 19, ", ".join(cb.get("engaged_with") or []) or "-", size=11,
                   width=WIDTH - MARGIN - cols[7])
        y += row + 4
        extra = "; ".join(x for x in ((f"declared: {cb['declared']}" if cb.get("declared") else ""),
                                      ", ".join(conditions)) if x)
        if extra:
            y = c.lines(cols[1], y + 8, extra, WIDTH - MARGIN - cols[1], size=10, fill=MUTED) - 6
            y += 8
    y += 8
    y = section(c, y, f"Round {rnd}, segment by segment" if rnd else "Surprise, segment by segment")
    y = timeline(c, y, segments, names)
    if d.get("sealed"):
        s = d["sealed"]
        text = f"sealed declarations {s.get('step')}: committed {', '.join(s.get('committed') or []) or 'none'}; " \
               f"revealed {', '.join(s.get('revealed') or []) or 'none'}"
        with c.group(text, cls="sealed-step"):
            y = c.lines(MARGIN, y + 6, text, WIDTH - 2 * MARGIN, size=11)
    y = pending_list(c, scene, y)
    y = sealed_strip(c, scene, y)
    return c.finish(y + 16)
