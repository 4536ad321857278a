"""`combatlog sheet` for every example combat at every round (and at the head): the file parses, every
drawn element is named, and each ruleset's pieces are where its projection puts them."""

from __future__ import annotations

import pytest

from combatlog.pictures import draw, scene_of
from combatlog.projections.fold import round_end, state_at
from tests.pictures.conftest import EXAMPLES
from tests.conftest import Cli
from tests.pictures.svgcheck import every_element_titled, groups, parse_svg, texts, title
from tests.views_helpers import run_upto

STEMS = [p.stem for p in EXAMPLES]


def every_point(store, meta):  # type: ignore[no-untyped-def]
    """(label, folded) at the end of round 0 (set-up), of every round, and at the head."""
    head = state_at(store, meta)
    for rnd in sorted(head.core.round_last):
        yield f"round {rnd}", state_at(store, meta, round_end(head, rnd))
    yield "head", head


@pytest.mark.parametrize("stem", STEMS)
def test_every_round_parses_and_shows_the_projection(stem: str, examples, open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example(stem)
    ruleset = examples[stem].ruleset
    for label, folded in every_point(store, meta):
        scene = scene_of(store, meta, folded, None)
        root = parse_svg(draw(scene))
        where = f"{stem} {label}"
        assert not every_element_titled(root), where
        assert root.find("{http://www.w3.org/2000/svg}title").text.startswith(meta.name)  # type: ignore[union-attr]
        assert groups(root, "heading")
        check = CHECKS.get(ruleset)
        if check is not None:
            check(scene.data, root, where)
        assert [g.get("class") for g in groups(root, "pending")] == ["pending"] * len(scene.pending), where


def check_freeform(d, root, where):  # type: ignore[no-untyped-def]
    cards = groups(root, "participant")
    assert [c.get("data-name") for c in cards] == [p["name"] for p in d["participants"]], where
    for card, p in zip(cards, d["participants"]):
        assert card.get("data-side") == p["side"]
        bars = groups(card, "hp-bar")
        if p["hp"] is not None and p["max_hp"]:
            assert bars[0].get("data-hp") == str(p["hp"]) and bars[0].get("data-max") == str(p["max_hp"])
        assert sorted(title(t).split(": ", 1)[1] for t in groups(card, "condition")) == sorted(p["conditions"])
        state = "left the fight" if not p["present"] else "down" if p["down"] else "standing"
        assert card.get("data-state") == state, where


def check_cfi(d, root, where):  # type: ignore[no-untyped-def]
    cards = groups(root, "combatant")
    assert [c.get("data-name") for c in cards] == [cb["name"] for cb in d["combatants"]], where
    for card, cb in zip(cards, d["combatants"]):
        locs = groups(card, "location")
        assert [(g.get("data-location"), g.get("data-hp"), g.get("data-wound")) for g in locs] == [
            (loc["name"], str(loc["hp"]), loc["wound"] or "none") for loc in cb["locations"]], where
        for g in locs:
            if g.get("data-wound") in ("serious", "major"):
                assert g.get("data-wound").upper() in texts(g)  # type: ignore[union-attr]
        ap = groups(card, "action-points")[0]
        assert (ap.get("data-ap"), ap.get("data-max")) == (str(cb["ap"]), str(cb["ap_max"]))
        facts = {g.get("data-fact"): title(g) for g in groups(card, "fact")}
        assert facts["initiative"].endswith(f"Initiative {cb['initiative']}")
        assert facts["fatigue"].endswith(f"Fatigue {cb['fatigue']}")
        assert len(groups(card, "condition")) <= len(cb["conditions"])


def check_osric(d, root, where):  # type: ignore[no-untyped-def]
    segments = groups(root, "segment")
    # the set-up with no surprise checked draws no segment chart (it drew an empty surprise chart)
    drawn = [g.get("data-segment") for g in segments]
    assert drawn == [str(n) for n in range(1, 11)] or (drawn == [] and where.endswith("round 0")), where
    rows = groups(root, "combatant")
    assert [(g.get("data-name"), g.get("data-status")) for g in rows] == [
        (cb["name"], cb["status"]) for cb in d["combatants"]], where
    for g, cb in zip(rows, d["combatants"]):
        bar = groups(g, "hp-bar")[0]
        assert bar.get("data-hp") == str(cb["hp"]) and bar.get("data-max") == str(cb["max_hp"])
    shown = next((r for r in d["timeline"] if r["round"] == d["round"]), {"segments": []})
    drawn = groups(root, "timeline-segment")
    assert [g.get("data-segment") for g in drawn] == [str(s["segment"]) for s in sorted(
        shown["segments"], key=lambda s: s["segment"])], where
    assert sum(len(groups(g, "timeline-entry")) for g in drawn) == sum(len(s["entries"]) for s in shown["segments"])


def check_argad(d, root, where):  # type: ignore[no-untyped-def]
    figs = groups(root, "figure")
    assert [(g.get("data-name"), g.get("data-status"), g.get("data-wounds")) for g in figs] == [
        (f["name"], f["status"], str(f["wounds"])) for f in d["figures"]], where
    summary = d.get("turn_summary") or d.get("last_turn_summary") or {}
    assert len(groups(root, "strike")) == len(summary.get("strikes") or []), where
    assert len(groups(root, "shot")) == len(summary.get("shots") or []), where
    recoils = {s["target"] for s in summary.get("strikes") or [] if s["result"] == "recoil" and not s["cancelled"]}
    for g in figs:
        if g.get("data-name") in recoils:
            assert g.get("data-recoiled") == "yes", where
    held = [f["name"] for f in d["figures"] if (f.get("this_turn") or {}).get("held")]
    assert [g.get("data-name") for g in figs if g.get("data-held") == "yes"] == held, where
    assert [g.get("data-figures") for g in groups(root, "held")] == (
        [" ".join(summary["held"])] if summary.get("held") else []), where


def check_mr(d, root, where):  # type: ignore[no-untyped-def]
    assert [g.get("data-sheet") for g in groups(root, "melee-section")] == [s["owner"] for s in d["sheets"]]
    for section in groups(root, "melee-section"):
        assert len(groups(section, "area", data_area="box")) == 3
        assert len(groups(section, "area", data_area="circle")) == 3
        assert len(groups(section, "area", data_area="square")) == 3


CHECKS = {"freeform": check_freeform, "classic_fantasy": check_cfi, "osric": check_osric, "argad": check_argad,
          "magic_realm": check_mr}


def test_argad_recoils_and_strikes_of_the_turn(open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example("band-vs-ogre-and-troll")
    root = parse_svg(draw(scene_of(store, meta, state_at(store, meta, 31), None)))
    strikes = groups(root, "strike")
    assert [s.get("data-n") for s in strikes] == ["1", "2", "3"]
    assert "knight strike troll" in " ".join(texts(strikes[0])) and "kills" in " ".join(texts(strikes[2]))


def test_argad_figures_held_this_turn_are_marked(cli: Cli) -> None:
    """``argad hold``: a side says which of its figures will not strike this turn (docs/argad.md, "Holding";
    seed 004 'Wounds': a blow comes at its step or not at all). The sheet marks them on their cards while the
    turn is open, and lists them with the turn's strikes, as ``argad turn-summary`` does (``held``)."""
    # The seed's example, turn 1: the warrior's axe kills Gob D; Gob A and Gob B are out of contact: held
    run_upto(cli, "argad/warrior-vs-goblins.cmds", "argad strike goblins warrior --at gob-d")
    cli("argad", "hold", "goblins", "gob-a", "gob-b")
    root = parse_svg(cli("sheet", "goblins", "-o", "-").out)
    held = {g.get("data-name"): g for g in groups(root, "figure") if g.get("data-held") == "yes"}
    assert list(held) == ["gob-a", "gob-b"]
    assert "holds its blow" in texts(held["gob-a"]) and "holds its blow" in title(held["gob-b"])
    assert "holds its blow" not in " ".join(texts(groups(root, "figure", data_name="gob-c")[0]))
    (line,) = groups(root, "held")
    assert line.get("data-figures") == "gob-a gob-b" and "held back (no blow this turn): gob-a, gob-b" in texts(line)
    cli("argad", "end-turn", "goblins")  # anyone's in a hot seat; the turn's summary keeps the holds
    root = parse_svg(cli("sheet", "goblins", "--round", "1", "-o", "-").out)
    assert [g.get("data-figures") for g in groups(root, "held")] == ["gob-a gob-b"]
    assert "Turn 1: strikes" in " ".join(texts(root))


def test_cfi_serious_and_major_wounds_are_marked(open_example) -> None:  # type: ignore[no-untyped-def]
    store, meta = open_example("skirmish")
    root = parse_svg(draw(scene_of(store, meta, state_at(store, meta), None)))
    gob1 = groups(root, "combatant", data_name="Gob1")[0]
    head = groups(gob1, "location", data_location="head")[0]
    assert head.get("data-wound") == "major" and "MAJOR" in texts(head)
    gob2 = groups(root, "combatant", data_name="Gob2")[0]
    assert groups(gob2, "location", data_location="chest")[0].get("data-wound") == "serious"


def test_a_spectator_sheet_says_spectator_not_a_name_in_parentheses(open_example) -> None:  # type: ignore[no-untyped-def]
    """The live page draws for ``(a spectator)``: its heading read "as (a spectator): only what (a spectator) may
    see"; it says what a spectator sees instead."""
    from combatlog.server.page import SPECTATOR

    store, meta = open_example(STEMS[0])
    words = " ".join(texts(parse_svg(draw(scene_of(store, meta, state_at(store, meta), SPECTATOR)))))
    assert "spectator view: what every player may see" in words
    assert "(a spectator) may see" not in words
