"""Defects a new player hit in the Classic Fantasy sheet and picture."""

from __future__ import annotations

from pathlib import Path

from combatlog.pictures import draw, scene_of
from combatlog.projections.fold import state_at
from tests.conftest import Cli
from tests.pictures.svgcheck import groups, parse_svg, texts
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples" / "classic_fantasy"


def test_sheet_says_action_points_and_armour_in_words(cli: Cli) -> None:
    # "AP" is both Action Points and Armor Points in the rules (CFI Ch.8 Actions in Combat; Ch.7 armour):
    # the sheet printed "AP 2/2" beside "AP 3". Each now has its own word.
    cli("new", "duel", "--ruleset", "classic_fantasy", "--setup", str(EXAMPLES / "duel.json"))
    cli("cfi", "round", "duel")
    out = cli("cfi", "sheet", "duel", "Brom").out
    head, *rows = out.splitlines()
    assert "Action Points 2/2" in head and " AP " not in out
    chest = next(r for r in rows if "chest" in r)
    assert "armour 3" in chest


def test_picture_names_the_stuck_weapon_in_words_and_shows_armour_on_every_location() -> None:
    # CFI Ch.8 Impale: the weapon stays in the wound. The card said "Stuck in hilda/chest" (the log's
    # own id), overlapping the weapon's name; the head, chest and abdomen boxes showed no armour.
    fight = Combat(fighter("A", "a", weapons=["shortspear"]), fighter("hilda", "b", worn=2))
    fight.round({"r1/init/A": 9, "r1/init/hilda": 1})
    fight.attack("A", "hilda", {"r1/a1/attack": 30}, moving=True)
    fight.none("hilda")
    fight.effects("A", ("impale",), {"r1/a1/location": 11, "r1/a1/damage": 1, "r1/a1/damage-2": 1, "r1/a1/dm": 1})
    assert fight.who("A").weapons["shortspear"].stuck_in == "hilda/chest"
    root = parse_svg(draw(scene_of(fight.store, fight.meta, state_at(fight.store, fight.meta), None)))
    words = texts(root)
    assert "Stuck" in words and "shortspear in hilda's chest" in words
    assert not any("hilda/chest" in w for w in words)
    card = next(g for g in groups(root, "combatant") if g.get("data-name") == "hilda")
    for loc in groups(card, "location"):
        assert "armour 2" in texts(loc), loc.get("data-location")
