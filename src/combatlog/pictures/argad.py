"""« Argad ! »: the figures by side with their wounds, recoils and status, and this turn's volleys and
strikes in the order they were resolved, and the figures held back (``argad hold``)."""

from __future__ import annotations

from typing import Any

from combatlog.pictures.scene import Scene
from combatlog.pictures.common import (
    MARGIN, WIDTH, canvas_for, heading, humane, legend, numbered, pending_list, sealed_strip, section,
    tag_row,
)
from combatlog.pictures.svg import INK, MUTED, Canvas

CARD_W, CARD_H = 232, 164
SIDE_FILL = ("#e3ecf7", "#f7e6e3", "#e6f2e3", "#f3ebf7")
RESULT = {"kill": "kills", "wound": "wounds", "recoil": "makes it recoil", "none": "no effect"}
# The strength categories (Argad seed 004, "Humanoid creatures strength"): the code and its melee die.
STRENGTH = {"-H": "weaker than a human, D4", "=H": "human strength, D6", "+H": "stronger than a human, D8",
            "++H": "much stronger (ogre), D10", "H2": "huge (large troll), D12"}
ABILITY = {"elite_shooter": "elite shooter", "strong": "strong", "strike_last": "strikes last",
           "skeleton": "skeleton", "zombie": "zombie", "hero": "hero"}


def species_name(ident: str) -> str:
    from combatlog.rulesets.argad.tables import species_table

    found = species_table().get(ident)
    return found.name if found is not None else humane(ident)


def weapon_name(ident: str, missile: bool = False) -> str:
    from combatlog.rulesets.argad.tables import melee_weapons, missile_weapons

    found = (missile_weapons() if missile else melee_weapons()).get(ident)
    return found.name if found is not None else humane(ident)


def figure(c: Canvas, x: float, y: float, f: dict[str, Any], fill: str, recoiled: bool) -> None:
    status = f.get("status", "standing")
    turn = f.get("this_turn") or {}
    marks = [m for m, on in (("killed this turn", turn.get("killed")),
                             (f"+{turn.get('new_wounds')} wound(s) this turn", turn.get("new_wounds")),
                             ("recoil refused", turn.get("recoil_refused")),
                             ("recoiled", turn.get("recoiled") or recoiled), ("struck", turn.get("struck")),
                             ("shot", turn.get("shot")), ("holds its blow", turn.get("held"))) if on]
    species = species_name(str(f.get("species")))
    weapon = weapon_name(f.get("weapon") or "") if f.get("weapon") else "no melee weapon"
    missile = weapon_name(f["missile"], missile=True) if f.get("missile") else ""
    armour = f"armour {f.get('armour')}"
    if f.get("shooting_armour") not in (None, f.get("armour")):
        armour += f" ({f.get('shooting_armour')} against shooting)"
    extras = (["mounted"] if f.get("mounted") else []) + [ABILITY.get(a, humane(a)) for a in f.get("abilities") or []] \
        + [f"base {f.get('base_mm')} mm"]
    title = f"{f['name']} ({f['side']}, {species}): {status}; strength {f.get('strength')}, class " \
            f"{f.get('class')}, {armour}, melee {f.get('melee_die')}; melee weapon {weapon}" + \
            (f"; shoots with {missile}" if missile else "") + f"; wounds {f.get('wounds')} " \
            f"(life points {f.get('life_points')})" + (f"; {', '.join(marks)}" if marks else "") + \
            (f"; {', '.join(f['effects'])}" if f.get("effects") else "")
    with c.group(title, cls="figure", data_name=f["name"], data_side=f["side"], data_status=status,
                 data_wounds=f.get("wounds", 0), data_recoiled="yes" if "recoiled" in marks else None,
                 data_held="yes" if turn.get("held") else None):
        out = status != "standing"
        c.rect(x, y, CARD_W, CARD_H, fill="#eeeeee" if out else fill, stroke=INK, rx=6, dash="5 3" if out else "")
        # the base, as on the table, its size in mm
        base = max(10, min(28, int(f.get("base_mm") or 20) * 0.6))
        c.circle(x + 8 + base / 2, y + 18, base / 2, fill="#ffffff" if out else "#6b6b6b", stroke=INK)
        c.text(x + 16 + base, y + 23, f["name"], size=14, weight="bold", width=CARD_W - 80 - base)
        c.text(x + CARD_W - 8, y + 22, status.upper() if out else "", size=11, anchor="end", weight="bold",
               fill="#b00000")
        # the strength code on a chip (the key under the figures says what it means)
        strength = str(f.get("strength"))
        with c.group(f"strength {strength}: {STRENGTH.get(strength, 'strength category')}", cls="code",
                     data_code=f"strength {strength}"):
            c.rect(x + 10, y + 32, 34, 16, fill="#ffffff", stroke=INK, rx=8)
            c.text(x + 27, y + 44, strength, size=10, anchor="middle", weight="bold", width=30)
        c.text(x + 50, y + 44, species, size=11, weight="bold", width=CARD_W - 60)
        c.text(x + 10, y + 62, f"class {f.get('class')} \u00b7 {armour} \u00b7 melee {f.get('melee_die')}", size=10,
               width=CARD_W - 20)
        yy = c.lines(x + 10, y + 78, f"melee: {weapon}", CARD_W - 20, size=10)
        if missile:
            yy = c.lines(x + 10, yy, f"shoots: {missile}", CARD_W - 20, size=10)
        yy = c.lines(x + 10, yy, " \u00b7 ".join(extras), CARD_W - 20, size=10, fill=MUTED)
        wounds = int(f.get("wounds") or 0)
        c.text(x + 10, yy + 4, f"wounds ({f.get('life_points')} life):", size=11)
        with c.group(f"{f['name']}: {wounds} wound(s)", cls="wounds", data_wounds=wounds):
            for k in range(min(wounds, 8)):
                c.circle(x + 142 + k * 13, yy, 5, fill="#b00000", stroke=INK)
            if not wounds:
                c.text(x + 140, yy + 4, "none", size=11, fill=MUTED)
        tags = tag_row(c, x + 10, yy + 12, CARD_W - 20, marks, "mark", size=9, fill="#fde0dc") if marks else yy + 12
        if f.get("effects"):
            tag_row(c, x + 10, tags, CARD_W - 20, list(f["effects"]), "effect", size=9)
        if out:
            c.line(x + 6, y + CARD_H - 6, x + CARD_W - 6, y + 6, stroke="#b00000", width=1.5)


def strength_key(c: Canvas, y: float, figures: list[dict[str, Any]]) -> float:
    """The key to the strength codes on the cards (those drawn only)."""
    shown = [s for s in STRENGTH if any(f.get("strength") == s for f in figures)]
    entries = [(f"strength {s}", "#ffffff", s, STRENGTH[s]) for s in shown]
    return legend(c, y, "Key: strength category (Argad seed 004, Humanoid creatures strength) and its melee die",
                  entries) + 8


def strike_text(s: dict[str, Any]) -> str:
    dice = ", ".join(f"{d['who']} {d['faces']}" + (f" = {d['total']}" if d.get("total") != d.get("natural") else "")
                     for d in s.get("dice") or [])
    verdict = "cancelled" if s.get("cancelled") else RESULT.get(s.get("result", ""), s.get("result", ""))
    extra = "; ".join(x for x in (s.get("priority"), s.get("recoil_refused"),
                                  "automatic hit" if s.get("auto_hit") else "") if x)
    return (f"{', '.join(s['attackers'])} strike {s['target']} ({humane(s.get('order', ''))}): "
            f"dice {dice or '-'}; best {s.get('best')} vs defence {s.get('defence')}: {verdict}"
            + (f" ({extra})" if extra else ""))


def shot_text(s: dict[str, Any]) -> str:
    dice = ", ".join(f"{d['who']} {d['faces']}" + (f" = {d['total']}" if d.get("total") else "")
                     for d in s.get("dice") or [])
    hits = ", ".join(s.get("hits") or []) or "no hit"
    friends = f"; friends hit: {', '.join(s['friend_hits'])}" if s.get("friend_hits") else ""
    return (f"{', '.join(s['shooters'])} shoot at {', '.join(s['targets'])}: need {s.get('need')}, dice "
            f"{dice or '-'}: {hits}{friends}")


def draw(scene: Scene, prefix: str = "p") -> str:
    d = scene.data
    c = canvas_for(scene, "figures", prefix)
    summary = d.get("turn_summary")
    turn_no = d.get("turn", 0)
    if summary is None and d.get("last_turn_summary"):
        summary = d["last_turn_summary"]
        turn_no = summary.get("turn", turn_no)
    sub = ("combat over" + (f": {d['outcome']}" if d.get("outcome") else "")) if d.get("ended") else \
        f"game turn {d.get('turn')}, {d.get('phase')}"
    y = heading(c, scene, sub)
    strikes = list((summary or {}).get("strikes") or [])
    recoiled = {s["target"] for s in strikes if s.get("result") == "recoil" and not s.get("cancelled")}
    sides: dict[str, list[dict[str, Any]]] = {}
    for f in d.get("figures") or []:
        sides.setdefault(f["side"], []).append(f)
    y = section(c, y, "Figures by side")
    for n, (side, figs) in enumerate(sides.items()):
        with c.group(f"side {side}: {', '.join(f['name'] for f in figs)}", cls="side", data_side=side):
            c.text(MARGIN, y + 12, f"Side {side}", size=13, weight="bold")
            y += 20
            for k, f in enumerate(figs):
                figure(c, MARGIN + (k % 4) * (CARD_W + 11), y + (k // 4) * (CARD_H + 10), f,
                       SIDE_FILL[n % len(SIDE_FILL)], f["name"] in recoiled)
            y += ((len(figs) + 3) // 4) * (CARD_H + 10) + 4
    if d.get("figures"):
        y = strength_key(c, y, d["figures"])
    if summary is not None:
        shots = list(summary.get("shots") or [])
        y = section(c, y, f"Turn {turn_no}: volleys")
        if shots:
            y = numbered(c, y, [(shot_text(s), f"seq {s.get('seq')}: {shot_text(s)}") for s in shots], cls="shot",
                         size=11)
        else:
            c.text(MARGIN, y, "no volley", size=11, fill=MUTED)
            y += 16
        y = section(c, y + 4, f"Turn {turn_no}: strikes, in the order they were resolved")
        if strikes:
            y = numbered(c, y, [(strike_text(s), f"seq {s.get('seq')}: {strike_text(s)}") for s in strikes],
                         cls="strike", size=11)
        else:
            c.text(MARGIN, y, "no strike", size=11, fill=MUTED)
            y += 16
        held = list(summary.get("held") or [])
        if held:  # argad hold: figures whose side gave up their blow this turn (docs/argad.md, "Holding")
            line = f"held back (no blow this turn): {', '.join(held)}"
            with c.group(line, cls="held", data_figures=" ".join(held)):
                y = c.lines(MARGIN, y + 4, line, WIDTH - 2 * MARGIN, size=11)
        survival = list(summary.get("survival") or [])
        if survival:
            y = section(c, y + 4, f"Turn {turn_no}: survival rolls")
            items = [(f"{s['figure']}: rolled {s['roll']}" + (f" ({s['read']})" if s.get("read") else "")
                      + f" against {s['wounds']} wound(s): " + ("dies" if s.get("died") else "survives"),
                      f"{s['label']}: {s['figure']} rolled {s['roll']}") for s in survival]
            y = numbered(c, y, items, cls="survival", size=11)
    if d.get("history"):
        y = section(c, y + 4, "Turns so far")
        for line in d["history"]:
            with c.group(line, cls="history"):
                y = c.lines(MARGIN, y, line, WIDTH - 2 * MARGIN, size=11)
    y = pending_list(c, scene, y + 4)
    y = sealed_strip(c, scene, y)
    return c.finish(y + 16)
