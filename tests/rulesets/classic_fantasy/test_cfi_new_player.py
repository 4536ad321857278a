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


def test_each_character_its_own_player(cli: Cli, tmp_path: Path) -> None:
    # docs/classic_fantasy.md, a combatant's `player`: alice plays Brom, bob plays Mira, both on the party's
    # side; Aldo, who has no player of his own, is the side's (either's). bob may not act for Mira's ally
    # Brom, nor alice for Mira; `status --mine` lists each one's own.
    import json

    setup = json.loads((EXAMPLES / "skirmish.json").read_text())
    setup["players"] = {"party": ["alice", "bob"], "goblins": []}
    setup["combatants"][0]["player"] = "alice"  # Brom
    setup["combatants"][1]["player"] = "bob"  # Mira
    (tmp_path / "sk.json").write_text(json.dumps(setup))
    cli("new", "sk", "--ruleset", "classic_fantasy", "--setup", str(tmp_path / "sk.json"), "--referee", "gm",
        "--dice", "manual", "--as", "gm")
    # Initiative (CFI Ch.8): Mira 10+14 = 24 first, then Brom 10+11 = 21, the goblins and Aldo after
    faces = {"Brom": 10, "Mira": 10, "Aldo": 1, "Gob1": 1, "Gob2": 2, "Gob3": 3}
    cli("cfi", "round", "sk", "--as", "gm", *(x for n, f in faces.items() for x in ("--face", f"r1/init/{n}={f}")))
    assert json.loads(cli("cfi", "initiative", "sk", "--json").out)["turn"] == "Mira"
    refused = cli("cfi", "act", "sk", "Mira", "dither", "--as", "alice", ok=False)
    assert refused.code != 0 and "Mira belongs to bob; alice may not act for it" in refused.err
    mine = json.loads(cli("status", "sk", "--mine", "--as", "bob", "--json").out)["pending"]
    assert [p["what"] for p in mine] == ["Mira: take a Turn (2 AP left) (57 legal moves)"]  # (listed by combatlog moves)
    assert json.loads(cli("status", "sk", "--mine", "--as", "alice", "--json").out)["pending"] == []
    cli("cfi", "act", "sk", "Mira", "dither", "--as", "bob")
    assert json.loads(cli("cfi", "initiative", "sk", "--json").out)["turn"] == "Brom"
    refused = cli("cfi", "act", "sk", "Brom", "dither", "--as", "bob", ok=False)
    assert "Brom belongs to alice; bob may not act for it" in refused.err
    assert json.loads(cli("status", "sk", "--mine", "--as", "bob", "--json").out)["pending"] == []
    cli("cfi", "act", "sk", "Brom", "dither", "--as", "alice")


def test_a_characters_player_plays_its_side() -> None:
    import pytest

    from combatlog.errors import InvalidCommand
    from combatlog.rulesets.classic_fantasy.setup import validate

    a, b = fighter("A", "a", player="alice"), fighter("B", "b", player="alice")
    with pytest.raises(InvalidCommand, match="plays side a"):
        validate({"combatants": [a, b]})
    with pytest.raises(InvalidCommand, match="not among the players of side a"):
        validate({"combatants": [a, fighter("B", "b")], "players": {"a": ["carol"], "b": []}})
    assert validate({"combatants": [a, fighter("B", "b")]})["combatants"][0]["player"] == "alice"
