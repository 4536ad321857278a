"""Issue #21, pictures that mislead: one test per defect found by opening every picture in Chromium.
Each draws the example combat the defect was seen in (docs/examples) at the point it was seen."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from combatlog.pictures import sheet_svg
from combatlog.pictures.svg import Canvas, text_width
from combatlog.projections.fold import round_end, state_at
from tests.pictures.legibility import problems
from tests.pictures.svgcheck import NS, groups, parse_svg, texts, title


def picture(open_example, stem: str, rnd: int | None = None) -> ET.Element:  # type: ignore[no-untyped-def]
    store, meta = open_example(stem)
    head = state_at(store, meta)
    folded = head if rnd is None else state_at(store, meta, round_end(head, rnd))
    return parse_svg(sheet_svg(store, meta, folded, None))


def drawn(build) -> ET.Element:  # type: ignore[no-untyped-def]
    """A piece drawn alone on a canvas."""
    c = Canvas(200, "test")
    build(c)
    return parse_svg(c.finish(100))


def extent(el: ET.Element) -> tuple[float, float]:
    """Left and right edge of a <text> as laid out (its textLength when squeezed)."""
    content = "".join(el.itertext())
    width = float(el.get("textLength") or text_width(content, float(el.get("font-size") or 12),
                                                     el.get("font-weight") or "normal"))
    x = float(el.get("x") or 0)
    anchor = el.get("text-anchor")
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return left, left + width


def luminance(colour: str) -> float:
    rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# -- the checks themselves catch what a count of elements missed ------------------------------------


def test_the_legibility_checks_catch_each_old_defect() -> None:
    # the old pictures' own strings (issue #21): a cut chit, a leaked effect id, a chip with no key
    svg = ('<svg xmlns="http://www.w3.org/2000/svg"><title>t</title><text>VII\u2026</text><text>special effects: '
           'scar_foe</text><title>osric.condition_changed</title>'
           '<g data-code="side orcs"><title>orc2</title></g></svg>')
    found = problems(svg)
    assert found["cut"] == ["VII\u2026"]
    assert found["internal ids"] == ["scar_foe", "osric.condition_changed"]
    assert found["no legend"] == ["side orcs"]
    keyed = svg.replace("</svg>", '<g data-legend="side orcs"><title>k</title></g></svg>')
    assert "no legend" not in problems(keyed)


# -- Magic Realm --------------------------------------------------------------------------------------


def test_the_witchs_magic_chits_keep_their_whole_type(open_example) -> None:  # type: ignore[no-untyped-def]
    # peace-and-goblins.cmds: the Witch holds X1 MAGIC VIII4* and X8 MAGIC VIII2*; "VII…" read as type VII
    root = picture(open_example, "peace-and-goblins", 1)
    panel = groups(root, "chits", data_owner="witch", data_status="active")[0]
    for chit, value in (("X1", "VIII4"), ("X8", "VIII2")):
        (g,) = groups(panel, "chit", data_chit=chit)
        (text,) = [t for t in g.iter(f"{NS}text") if "".join(t.itertext()) == value]
        left, right = extent(text)
        assert right - left <= 40 - 2, (chit, right - left)  # inside the 40 px chit


def test_the_giant_club_counter_is_named_whole(open_example) -> None:  # type: ignore[no-untyped-def]
    # giant-and-goblins.cmds round 1: the Giant's club "giant-club" was drawn "giant-cl…"
    root = picture(open_example, "giant-and-goblins", 1)
    (club,) = [g for g in groups(root, "counter") if g.get("data-counter") == "giant-club"]
    assert "giant-club" in texts(club)


def test_chit_headers_keep_a_gap_between_id_and_action() -> None:
    # "X1MAGIC": the id at the left and the action at the right ran together in a 40 px chit
    from combatlog.pictures.magic_realm import draw_chit

    for entry in ("X1 MAGIC VIII4*", "F7 FIGHT M3**", "M5 MOVE M3*", "X12 MAGIC VIII2*"):
        root = drawn(lambda c: draw_chit(c, 0, 0, entry, size=40))  # noqa: B023
        heads = [t for t in root.iter(f"{NS}text") if float(t.get("y") or 0) == 9]
        (ident,) = [t for t in heads if t.get("text-anchor") == "start"]
        (action,) = [t for t in heads if t.get("text-anchor") == "end"]
        assert extent(ident)[1] + 2 <= extent(action)[0], entry
        assert extent(ident)[0] >= 0 and extent(action)[1] <= 40


def test_a_dead_dark_counter_is_dark_ink_on_a_light_face() -> None:
    # a dead dark-side goblin was white letters on a greyed dark face under the red cross
    from combatlog.pictures.magic_realm import draw_counter

    ctr = {"id": "goblin-2", "name": "Axe Goblin", "side": "dark", "values": "M*4 move 4", "flags": ["DEAD"]}
    root = drawn(lambda c: draw_counter(c, 0, 0, ctr))
    faces = [r for r in root.iter(f"{NS}rect") if r.get("width") == "52"]
    assert len(faces) == 1, "no veil drawn over the face (it greyed the letters)"
    face = faces[0]
    assert luminance(face.get("fill") or "") > 0.6
    for t in root.iter(f"{NS}text"):
        assert contrast(t.get("fill") or "#000000", face.get("fill") or "") >= 7, "".join(t.itertext())
    assert "dark m4" in texts(root)  # the side still says which side is up


def test_the_witchs_weapon_is_a_dagger_without_an_alerted_side(open_example) -> None:  # type: ignore[no-untyped-def]
    # the Witch has no weapon counter: "Weapon: dagger" looked like a counter whose side was forgotten
    root = picture(open_example, "peace-and-goblins", 1)
    (weapon,) = [g for g in groups(root, "weapon") if g.get("data-weapon") == "dagger"]
    words = " ".join(texts(weapon))
    assert "dagger" in words and "no alerted side" in words and "no counter" in words


# -- Classic Fantasy ------------------------------------------------------------------------------------


def test_classic_fantasy_names_special_effects_as_the_rules_do(open_example) -> None:  # type: ignore[no-untyped-def]
    # skirmish.cmds: the last exchange's Special Effect was "scar_foe"; CFI Ch.8 calls it Scar Foe
    root = picture(open_example, "skirmish")
    (ex,) = groups(root, "exchange")
    assert "Scar Foe" in " ".join(texts(ex)) and "scar_foe" not in title(ex)


def test_classic_fantasy_dropped_weapon_reads_as_a_fact(open_example) -> None:  # type: ignore[no-untyped-def]
    # duel.cmds: Grak drops his great axe; "Weapons great axe dropped" ran label, name and state together
    root = picture(open_example, "duel")
    (fact,) = groups(root, "fact", data_fact="weapons")
    assert texts(fact) == ["Dropped", "great axe"]


def test_classic_fantasy_condition_durations_read_as_time() -> None:
    # skirmish.cmds: Gob2 knocked out for 6 minutes (CFI Ch.7 Serious Wounds) showed "unconscious 71 Round(s)
    # left"; a Round is five seconds (CFI Ch.8 Running Combat): 71 Rounds are about 6 minutes
    from combatlog.pictures.classic_fantasy import condition_words

    assert condition_words("unconscious 71 Round(s) left") == "unconscious, 71 more Rounds (about 6 min)"
    assert condition_words("blinded 1 Turn(s) left by Ara") == "blinded, 1 more Turn by Ara"
    assert condition_words("in_cover") == "in cover"


def test_classic_fantasy_armour_is_never_called_ap(open_example) -> None:  # type: ignore[no-untyped-def]
    # "AP" meant Armour Points on the locations and Action Points in the initiative order
    root = picture(open_example, "skirmish")
    words = texts(root)
    assert not [w for w in words if "AP" in w.split()]
    assert any(w.startswith("armour ") for w in words)
    assert all("Action Point" in " ".join(texts(g)) for g in groups(root, "initiative"))


def test_classic_fantasy_heading_is_whole(open_example) -> None:  # type: ignore[no-untyped-def]
    # skirmish.cmds: "combat over: Gob1 dead, Gob2 unconscious, Gob3…" cut the last combatant
    root = picture(open_example, "skirmish")
    (head,) = groups(root, "heading")
    assert any(w.endswith("Gob3 yields; the ford is clear") for w in texts(head))


# -- OSRIC --------------------------------------------------------------------------------------------


def test_osric_chart_agrees_with_the_initiative(open_example) -> None:  # type: ignore[no-untyped-def]
    # ford.cmds round 2: "initiative: party 6, orcs 2: party acts in segment 2, orcs in segment 6" (seed 003,
    # Determine Initiative: a side's d6 is the segment the other side acts in). orc4 and orc2 were drawn
    # acting in segment 2 because "orc4 takes 6" and "orc2 takes 4" begin with their names: they were hit
    root = picture(open_example, "ford", 2)
    seg = {int(g.get("data-segment") or 0): g for g in groups(root, "segment")}
    assert seg[2].get("data-actors") == "Ael Brom Halvaine"
    assert seg[2].get("data-sides") == "party" and seg[6].get("data-sides") == "orcs"
    assert not any(n in (g.get("data-actors") or "").split() for g in seg.values() for n in ("orc2", "orc4"))


def test_osric_a_dead_combatant_is_not_also_sleeping(open_example) -> None:  # type: ignore[no-untyped-def]
    # ford.cmds: orc2 falls asleep in round 1 (Halvaine's sleep) and is slain in round 2
    root = picture(open_example, "ford", 2)
    (orc2,) = groups(root, "combatant", data_name="orc2")
    assert orc2.get("data-status") == "dead" and "sleeping" not in title(orc2)


def test_osric_status_is_whole(open_example) -> None:  # type: ignore[no-untyped-def]
    # bridge.cmds round 1: Tam is "unconscious, bleeding" (seed 003, Damage and Death), drawn "unconscious, b…"
    root = picture(open_example, "bridge", 1)
    (tam,) = groups(root, "combatant", data_name="Tam")
    assert "unconscious, bleeding" == " ".join(w for w in texts(tam) if w.startswith(("unconscious", "bleeding")))


def test_osric_chips_have_a_key(open_example) -> None:  # type: ignore[no-untyped-def]
    root = picture(open_example, "bridge", 1)
    (key,) = groups(root, "legend")
    assert {g.get("data-legend") for g in groups(key, "legend-entry")} == {"side party", "side raiders", "side turn"}


def test_osric_segment_log_is_grouped_by_event(open_example) -> None:  # type: ignore[no-untyped-def]
    # each event's first line bold, what followed from it indented under it: not one wall of small text
    root = picture(open_example, "bridge", 1)
    (seg3,) = groups(root, "timeline-segment", data_segment=3)
    entries = groups(seg3, "timeline-entry")
    heads = [e for e in entries if next(e.iter(f"{NS}text")).get("font-weight") == "bold"]
    seqs = {title(e).split(":")[0] for e in entries}
    assert len(heads) == len(seqs) > 1
    assert all(float(next(e.iter(f"{NS}text")).get("x") or 0) > float(next(heads[0].iter(f"{NS}text")).get("x") or 0)
               for e in entries if e not in heads)


# -- Argad --------------------------------------------------------------------------------------------


def test_argad_cards_say_what_a_player_needs_in_words(open_example) -> None:  # type: ignore[no-untyped-def]
    # band-vs-ogre-and-troll.cmds: the troll showed "troll_large", the ogre "two_handed_axe"; the species and
    # weapon names are the data tables' (rulesets/argad/data, from seed 004)
    root = picture(open_example, "band-vs-ogre-and-troll", 2)
    (troll,) = groups(root, "figure", data_name="troll")
    (ogre,) = groups(root, "figure", data_name="ogre")
    troll_words, ogre_words = " ".join(texts(troll)), " ".join(texts(ogre))
    assert "Troll (large)" in troll_words and "class 3" in troll_words and "armour 7" in troll_words
    assert "two-handed heavy weapon" in ogre_words and "wounds (1D3 life)" in ogre_words
    assert "strikes last" in troll_words
    assert "_" not in troll_words + ogre_words


def test_argad_strength_codes_have_a_key(open_example) -> None:  # type: ignore[no-untyped-def]
    # "=H · C4 A4" had no legend: the strength categories of seed 004 (-H ... H2) are keyed under the figures
    root = picture(open_example, "band-vs-ogre-and-troll", 2)
    codes = {g.get("data-code") for g in groups(root, "code")}
    assert codes == {"strength =H", "strength ++H", "strength H2"}
    keyed = {g.get("data-legend") for g in groups(root, "legend-entry")}
    assert codes <= keyed
