"""Any other ruleset: the heading and its ``describe`` data in words."""

from __future__ import annotations

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import MARGIN, WIDTH, canvas_for, heading, sealed_strip, section, words_of


def draw(scene: Scene, prefix: str = "p") -> str:
    c = canvas_for(scene, "state", prefix)
    y = heading(c, scene)
    y = section(c, y, "State")
    for key, value in scene.data.items():
        with c.group(f"{key}: {words_of(value)}", cls="field"):
            c.text(MARGIN, y, key, size=12, weight="bold")
            y = c.lines(MARGIN + 160, y, words_of(value), WIDTH - 2 * MARGIN - 160, size=12)
    y = sealed_strip(c, scene, y + 10)
    return c.finish(y + 10)
