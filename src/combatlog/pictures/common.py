"""Drawing shared by the ruleset pictures: the heading, hit-point bars, face-down orders, lists."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.svg import INK, MUTED, Canvas

WIDTH = 1000
MARGIN = 20


def spectator(viewer: str | None) -> bool:
    """A viewer that is no player (the live page's ``(a spectator)``): it sees what every player may see."""
    return viewer is not None and viewer.startswith("(")


def canvas_for(scene: Scene, what: str, prefix: str) -> Canvas:
    who = "everything (gm view)" if scene.viewer is None else "what every player may see" \
        if spectator(scene.viewer) else f"what {scene.viewer} may see"
    title = f"{scene.stream}: {what}, round {scene.round}, after seq {scene.seq}"
    desc = (f"{scene.title}. Combat {scene.stream} after event {scene.seq} (round {scene.round}"
            + (", finished" if scene.finished else "") + f"), showing {who}. Drawn by combatlog sheet "
            "from the log's projections.")
    return Canvas(WIDTH, title, desc, prefix=prefix)


def heading(c: Canvas, scene: Scene, subtitle: str = "") -> float:
    """The band at the top: combat, game, round, seq and whose view; returns the next free y."""
    with c.group(f"{scene.stream}: {scene.title}, round {scene.round}, seq {scene.seq}", cls="heading"):
        c.rect(0, 0, WIDTH, 58, fill="#f1ede4", stroke="none")
        c.line(0, 58, WIDTH, 58, stroke=INK)
        c.text(MARGIN, 26, scene.stream, size=20, weight="bold", width=420)
        c.text(MARGIN, 47, scene.title, size=12, fill=MUTED, width=480)
        state = "finished" if scene.finished else f"round {scene.round}"
        c.text(WIDTH - MARGIN, 26, f"{state} \u00b7 after seq {scene.seq}", size=14, anchor="end", width=440)
        view = "gm view: everything" if scene.viewer is None else "spectator view: what every player may see" \
            if spectator(scene.viewer) else f"as {scene.viewer}: only what {scene.viewer} may see"
        c.text(WIDTH - MARGIN, 47, view + (f" \u00b7 {subtitle}" if subtitle else ""), size=12, anchor="end",
               fill=MUTED, width=520)
    return 78


def section(c: Canvas, y: float, label: str) -> float:
    """A section title with a rule under it; returns the y to draw from."""
    c.text(MARGIN, y + 14, label, size=15, weight="bold")
    c.line(MARGIN, y + 20, WIDTH - MARGIN, y + 20, stroke="#999999")
    return y + 32


def face_down(c: Canvas, x: float, y: float, w: float, h: float, title: str, *, label: str = "?",
              kind: str = "hidden") -> None:
    """A counter or order lying face down: its back, a question mark, what it is in the title."""
    with c.group(title, cls="face-down", data_kind=kind):
        c.rect(x, y, w, h, fill=c.url("back"), stroke=INK, rx=4)
        c.text(x + w / 2, y + h / 2 + 6, label, size=16, anchor="middle", weight="bold", fill="#ffffff")


def sealed_strip(c: Canvas, scene: Scene, y: float) -> float:
    """The sealed orders not yet revealed, face down (their content is not in the log until then)."""
    waiting = [s for s in scene.sealed if not s.revealed]
    if not waiting:
        return y
    y = section(c, y, "Sealed orders, face down until revealed")
    x = MARGIN
    for s in waiting:
        if x + 150 > WIDTH - MARGIN:
            x, y = MARGIN, y + 74
        face_down(c, x, y, 44, 56, f"{s.player} sealed orders for step {s.step} at seq {s.seq}: face down until "
                  "revealed", kind="sealed")
        c.text(x + 52, y + 22, s.player, size=12, weight="bold", width=96)
        c.text(x + 52, y + 40, s.step, size=11, fill=MUTED, width=96)
        x += 160
    return y + 74


def hp_bar(c: Canvas, x: float, y: float, w: float, h: float, hp: int, most: int, title: str) -> None:
    """Hit points as a bar: the part left filled, the number written on it."""
    share = 0.0 if most <= 0 else max(0.0, min(1.0, hp / most))
    colour = "#2e7d32" if share > 0.5 else "#c77c02" if share > 0.25 else "#b00000"
    with c.group(title, cls="hp-bar", data_hp=hp, data_max=most):
        c.rect(x, y, w, h, fill="#ffffff", stroke=INK)
        if share > 0:
            c.rect(x, y, w * share, h, fill=colour, stroke="none")
        c.text(x + w / 2, y + h - 4, f"{hp} / {most}", size=min(12, h - 3), anchor="middle", weight="bold",
               fill=INK if share < 0.55 else "#ffffff")


def numbered(c: Canvas, y: float, items: list[tuple[str, str]], *, x: float = MARGIN, width: float = 0,
             cls: str = "entry", size: float = 12) -> float:
    """A numbered list: each item (text, title) on its own wrapped lines; returns the y after it."""
    width = width or WIDTH - x - MARGIN
    for i, (text, title) in enumerate(items, 1):
        with c.group(title, cls=cls, data_n=i):
            c.text(x, y, f"{i}.", size=size, weight="bold")
            y = c.lines(x + 28, y, text, width - 28, size=size)
        y += 2
    return y


def words_of(value: Any) -> str:
    from combatlog.rulesets.base import words

    return words(value)


def tag_row(c: Canvas, x: float, y: float, width: float, tags: list[str], kind: str, *, size: float = 10,
            fill: str = "#fff3c4") -> float:
    """Small labelled tags (conditions, effects), in rows that wrap inside ``width``; a tag wider than the
    row shrinks (cut only where it could not be read whole: ``Canvas.text``). Returns the y under the last row."""
    from combatlog.pictures.svg import fitted_size, text_width

    left, right = x, x + width
    for tag in tags:
        label_size = fitted_size(tag, width - 12, size)
        w = min(width, text_width(tag, label_size) + 12)
        if x > left and x + w > right:
            x, y = left, y + 22
        with c.group(f"{kind}: {tag}", cls=kind):
            c.rect(x, y, w, 18, fill=fill, stroke=INK, rx=9)
            c.text(x + 6, y + 13, tag, size=size, width=w - 12)  # fitted there again (or cut, readable)
        x += w + 5
    return y + 22


def pending_list(c: Canvas, scene: Scene, y: float) -> float:
    if not scene.pending:
        return y
    y = section(c, y, "Waiting for")
    return numbered(c, y, [(f"{who}: {what}", f"waiting for {who}: {what}") for who, what in scene.pending],
                    cls="pending", size=11) + 6


def humane(value: Any) -> str:
    """A ruleset's identifier (``two_handed_axe``, ``circumvent_parry``) as words for a person."""
    return str(value).replace("_", " ")


def legend(c: Canvas, y: float, title: str, entries: list[tuple[str, str, str, str]], *, x: float = MARGIN,
           width: float = WIDTH - 2 * MARGIN) -> float:
    """A key to the codes and colour chips drawn: ``(code, chip fill or "", chip label, meaning)`` each.
    Every element drawn with ``data_code=CODE`` has its entry here (tests/pictures/legibility.py checks
    it). Returns the y under the key."""
    with c.group(title, cls="legend"):
        c.text(x, y + 12, title, size=11, weight="bold")
        y += 20
        cx = x
        for code, fill, label, meaning in entries:
            from combatlog.pictures.svg import text_width

            chip = max(22.0, text_width(label, 10, "bold") + 12) if label else 0.0
            need = chip + 6 + text_width(meaning, 10) + 16
            if cx > x and cx + need > x + width:
                cx, y = x, y + 20
            with c.group(f"key: {label or code}: {meaning}", cls="legend-entry", data_legend=code):
                if label:
                    c.rect(cx, y, chip, 16, fill=fill or "#ffffff", stroke=INK, rx=8)
                    c.text(cx + chip / 2, y + 12, label, size=10, anchor="middle", weight="bold")
                c.text(cx + chip + (6 if label else 0), y + 12, meaning, size=10, fill=MUTED,
                       width=min(width, x + width - cx - chip - 6))
            cx += min(need, width)
        return y + 24


_SNAKE = re.compile(r"(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/])")


def humane_text(text: str, keep: Iterable[str] = ()) -> str:
    """Rules prose with the ruleset's identifiers in it (``option monster_death=zero``) as words; the
    names in ``keep`` (chosen by players, ``orc_1``) stay as written."""
    kept = set(keep)
    return _SNAKE.sub(lambda m: m.group(0) if m.group(0) in kept else humane(m.group(0)), text)
