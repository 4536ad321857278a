"""`combatlog sheet` for Magic Realm: every Melee Section of every round of the examples, as the
projection puts it (boxes, circles, squares, counters, horses under riders, plays), and the attacks
of a resolved round in the order they struck."""

from __future__ import annotations

import re

import pytest

from combatlog.pictures import draw, scene_of
from combatlog.projections.fold import round_end, state_at
from combatlog.projections.views import walk
from tests.pictures.svgcheck import counter_ids, every_element_titled, groups, parse_svg, texts, title

MR = ["bashkar-ambush", "giant-and-goblins", "peace-and-goblins"]
AREAS = (("box", "boxes"), ("circle", "circles"), ("square", "squares"))
SIDE = re.compile(r", (light|dark|RED|trot|gallop): ")


def rounds(store, meta):  # type: ignore[no-untyped-def]
    head = state_at(store, meta)
    return head, sorted(r for r in head.core.round_last if r > 0)


def counters_of(entries: list[str]) -> dict[str, str]:
    """Counter id -> side, read from describe's lines (a character's own play has no [...])."""
    out = {}
    for text in entries:
        if " [" in text and text.endswith("]"):
            m = SIDE.search(text)
            out[text.split(" [", 1)[0]] = m.group(1) if m else "light"
    return out


@pytest.mark.parametrize("stem", MR)
def test_every_round_every_section_as_the_projection_puts_it(stem: str, open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example(stem)
    head, numbers = rounds(store, meta)
    assert numbers
    for rnd in numbers:
        folded = state_at(store, meta, round_end(head, rnd))
        scene = scene_of(store, meta, folded, None)
        root = parse_svg(draw(scene))
        assert not every_element_titled(root), f"round {rnd}: groups without a title"
        sheets = scene.data["sheets"]
        sections = groups(root, "melee-section")
        assert [s.get("data-sheet") for s in sections] == [s["owner"] for s in sheets]
        for sheet, section in zip(sheets, sections):
            for area, key in AREAS:
                found = [g for g in groups(section, "area") if g.get("data-area") == area]
                assert [g.get("data-index") for g in found] == ["1", "2", "3"], (rnd, sheet["owner"], area)
                for g in found:
                    expected = counters_of(sheet[key].get(g.get("data-index"), []))
                    assert counter_ids(g) == sorted(expected), (rnd, sheet["owner"], area, g.get("data-index"))
                    for ctr in groups(g, "counter"):
                        assert ctr.get("data-side") == expected[ctr.get("data-counter")]
            # the character's own plays: the Fight chit in its circle, the Move chit in its square
            attack, maneuver = sheet.get("attack") or {}, sheet.get("maneuver") or {}
            if attack.get("circle") and attack.get("fight"):
                circle = groups(section, "area", data_area="circle", data_index=attack["circle"])[0]
                assert [c.get("data-chit") for c in groups(circle, "chit")] == [attack["fight"]]
            if maneuver.get("square") and maneuver.get("move"):
                square = groups(section, "area", data_area="square", data_index=maneuver["square"])[0]
                assert [c.get("data-chit") for c in groups(square, "chit")] == [maneuver["move"]]
            shield = groups(section, "armor-oval", data_shield="yes")
            assert [o.get("data-index") for o in shield] == ([str(sheet["shield"])] if sheet.get("shield") else [])


def test_horses_under_their_riders_and_dead_counters_crossed(open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example("giant-and-goblins")
    head, _ = rounds(store, meta)
    scene = scene_of(store, meta, state_at(store, meta, round_end(head, 1)), None)
    root = parse_svg(draw(scene))
    box = groups(root, "area", data_sheet="bk", data_area="box", data_index=1)[0]
    under = {g.get("data-counter"): g.get("data-under") for g in groups(box, "counter")}
    assert under["lancer-1-horse"] == "lancer-1" and under["lancer-hq-horse"] == "lancer-hq"
    giant = groups(box, "counter", data_counter="giant")[0]
    assert giant.get("data-dead") == "yes" and "dead" in title(giant)
    # the red cross is drawn under the counter's writing (it covered its id, values and side)
    kinds = [el.tag.rsplit("}", 1)[-1] for el in giant if el.tag.rsplit("}", 1)[-1] in ("line", "text")]
    assert kinds[:2] == ["line", "line"] and "text" in kinds[2:] and "line" not in kinds[2:], kinds


def test_a_character_played_by_nobody_else_is_not_played_by_itself(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The Melee Section read "Amazon (amazon, played by amazon)" in a combat whose set-up names no players (the
    character's player is then its own id); it says whose character it is only where a player plays it."""
    import json

    from tests.conftest import REPO

    setup = json.loads((REPO / "docs/examples/magic_realm/giant-and-goblins.json").read_text())
    for char in setup["characters"]:
        char.pop("player", None)
    (tmp_path / "setup.json").write_text(json.dumps(setup))
    cli("new", "cave", "--ruleset", "magic_realm", "--setup", str(tmp_path / "setup.json"), "--dice", "local")
    drawn = cli("sheet", "cave", "-o", "-").out
    pairs = re.findall(r"\(([\w-]+), played by ([\w-]+)\)", drawn)
    assert all(owner != player for owner, player in pairs), pairs
    assert "Melee Section of Amazon (amazon)" in drawn


def order_of_hits(store, meta, rnd: int) -> list[str]:  # type: ignore[no-untyped-def]
    """The attackers in the order they hit, as the explain view of the round says it (MR 8.4.9)."""
    from combatlog.projections.views import round_range

    lo, hi = round_range(store, meta, rnd)
    for row in walk(store, meta, lo, hi):
        for step in row.steps:
            if step.text.startswith("order of hits:"):
                listed = step.text.split(": ", 2)[2]  # "order of hits: <how>: a (length 10, time 5), ..."
                if listed == "no hits":
                    return []
                return [part.split(" (length")[0] for part in listed.split("), ")]
    return []


@pytest.mark.parametrize("stem", MR)
def test_a_resolved_round_lists_the_hits_in_the_order_they_struck(stem: str, open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example(stem)
    head, numbers = rounds(store, meta)
    checked = 0
    for rnd in numbers:
        scene = scene_of(store, meta, state_at(store, meta, round_end(head, rnd)), None)
        root = parse_svg(draw(scene))
        lists = groups(root, "attacks", data_round=rnd)
        expected = order_of_hits(store, meta, rnd)
        if not lists:
            assert not expected, f"round {rnd}: hits but no list"
            continue
        attacks = groups(lists[0], "attack")
        assert [a.get("data-n") for a in attacks] == [str(n) for n in range(1, len(attacks) + 1)]
        hits = [a.get("data-attacker") for a in attacks if a.get("data-hit") == "yes"]
        assert hits == expected, f"round {rnd}"
        # hits first, then the misses
        flags = [a.get("data-hit") for a in attacks]
        assert flags == sorted(flags, key=lambda f: f != "yes")
        checked += 1
    assert checked


def test_round_one_of_giant_and_goblins(open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example("giant-and-goblins")
    head, _ = rounds(store, meta)
    root = parse_svg(draw(scene_of(store, meta, state_at(store, meta, round_end(head, 1)), None)))
    attacks = groups(groups(root, "attacks")[0], "attack")
    assert [(a.get("data-attacker"), a.get("data-hit")) for a in attacks] == [
        ("lancer-hq", "yes"), ("lancer-1", "yes"), ("amazon", "yes"), ("bk", "yes"), ("giant", "yes"),
        ("giant-club", "no"), ("goblin-1", "no"), ("goblin-2", "no")]
    first = " ".join(texts(attacks[0]))
    assert "lancer-hq" in first and "giant" in first and "kills" in first
    # the ledger and the chits beside the sheets
    assert groups(root, "totals", data_owner="amazon") and groups(root, "ledger-entry")
    assert groups(root, "chits", data_status="active", data_owner="bk")


def test_plays_stay_face_down_for_the_other_player(open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example("giant-and-goblins")
    folded = state_at(store, meta, 15)  # the Amazon (bob) has played, the Black Knight (alice) not yet
    as_alice = parse_svg(draw(scene_of(store, meta, folded, "alice")))
    as_bob = parse_svg(draw(scene_of(store, meta, folded, "bob")))
    gm = parse_svg(draw(scene_of(store, meta, folded, None)))
    amazon = lambda root: groups(root, "melee-section", data_sheet="amazon")[0]  # noqa: E731
    assert groups(amazon(as_alice), "plays-hidden") and groups(amazon(as_alice), "face-down")
    assert not any(groups(g, "chit") for g in groups(amazon(as_alice), "area"))
    for root in (as_bob, gm):
        assert not groups(amazon(root), "plays-hidden")
        circle = groups(amazon(root), "area", data_area="circle", data_index=1)[0]
        assert [c.get("data-chit") for c in groups(circle, "chit")] == ["F6"]


HIRELING_SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "amazon", "character": "Amazon", "player": "bob", "level": 4,
                    "hirelings": [{"id": "lancer-hq", "native": "Lancer HQ"}]}],
    "denizens": [{"id": "goblin-1", "monster": "Axe Goblin"}, {"id": "goblin-2", "monster": "Axe Goblin"}],
    "assigned": {"goblin-1": "amazon"},
}
HIRELING_ROUND = """
new den --ruleset magic_realm --setup {setup} --dice manual
mr lure den amazon
mr assign den --face r1/assign/goblin-2=2
mr action den amazon none
mr melee den
mr target den amazon goblin-1 --hireling lancer-hq=goblin-2
mr play den amazon --attack thrust --fight F6 --maneuver dodge --move M1 --shield smash --hireling-box lancer-hq=2
mr resolve den --face r1/reposition/amazon=4 --face r1/reposition/lancer-hq/target=3 --face r1/tactics/amazon/box1=1,1 --face r1/tactics/lancer-hq/square2=1,1
"""


def test_a_hirelings_own_section(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from combatlog.projections.streams import resolve_stream
    from combatlog.store import open_store
    from tests.pictures.conftest import run_cli

    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(HIRELING_SETUP))
    cmds = tmp_path / "round.cmds"
    cmds.write_text(HIRELING_ROUND.format(setup=setup))
    db = tmp_path / "log.db"
    proc = run_cli(db, "run", "--quiet", str(cmds))
    assert proc.returncode == 0, proc.stderr
    store = open_store(str(db))
    try:
        meta = resolve_stream(store, "den")
        scene = scene_of(store, meta, state_at(store, meta), None)
        root = parse_svg(draw(scene))
    finally:
        store.close()
    section = groups(root, "melee-section", data_sheet="lancer-hq")[0]
    assert section.get("data-kind") == "hireling"
    sheet = next(s for s in scene.data["sheets"] if s["owner"] == "lancer-hq")
    for area, key in AREAS:
        for g in groups(section, "area", data_area=area):
            assert counter_ids(g) == sorted(counters_of(sheet[key].get(g.get("data-index"), [])))
    assert counter_ids(groups(section, "area", data_area="box", data_index=2)[0])[0] == "lancer-hq"
    assert "hireling of amazon" in title(section)


def test_damaged_armor_and_fatigue_owed_beside_the_sheet(open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example("giant-and-goblins")
    # seq 38: round 2 resolved, the Amazon's Breastplate damaged, the Fatigue Step waits for her
    scene = scene_of(store, meta, state_at(store, meta, 38), None)
    assert scene.data["step"] == "fatigue"
    root = parse_svg(draw(scene))
    panel = groups(root, "panel", data_owner="amazon")[0]
    conditions = {g.get("data-armor"): g.get("data-condition") for g in groups(panel, "armor")}
    assert conditions == {a["name"]: a["condition"] for a in scene.data["characters"]["amazon"]["armor"]}
    assert conditions["Breastplate"] == "damaged"
    owed = groups(panel, "fatigue-owed", data_owner="amazon")[0]
    assert "owes 1 asterisk" in title(owed) and "1 wound" in title(owed)
