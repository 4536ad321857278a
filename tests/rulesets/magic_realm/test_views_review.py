"""Views found wanting by a review, each with the test that would have caught it.

- every resolved round's attacks are data in ``show --json`` (``resolved_rounds``), at any later
  moment, not only while the round waits in the Fatigue Step; nobody parses ``result``;
- ``mr sheets --round N`` keeps a native horse killed in round N, and the last round of a combat that
  ended in a death; ``show`` and ``mr sheets`` say which round's plays they show;
- an un-redeployed hireling is marked as not attacking, and ``explain`` says why (MR 001 Deployment);
- ``show`` prints each attack and maneuver once;
- an Attack spell's reveal says what was cast (MR 8.4.5, 8.4.4).
"""

from __future__ import annotations

from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.views import render_sheets
from tests.conftest import Cli
from tests.rulesets.magic_realm.mr_helpers import Game, char
from tests.views_helpers import run_upto

GIANT = "magic_realm/giant-and-goblins.cmds"


def test_resolved_rounds_are_data_at_every_later_moment(cli: Cli, play_example) -> None:  # type: ignore[no-untyped-def]
    # Hand-checked in test_golden: round 1 (first of the day: longest first) Lancer HQ (length 10,
    # time 5) hits first and kills the Giant; Lancer 1's hit on it is cancelled; the Giant's own hit
    # on the Black Knight is cancelled (killed first); the Amazon's L* Short Sword with a stronger
    # Fight chit (+1 level) and its star kills the M Goblin with H.
    play_example(cli, GIANT)
    for view in (cli("show", "giant-goblins", "--round", "1", "--json").json(),
                 cli("show", "giant-goblins", "--at", "30", "--json").json(),
                 cli("show", "giant-goblins", "--json").json()):
        rounds = view["state"]["resolved_rounds"]  # type: ignore[index]
        first = next(r for r in rounds if r["round"] == 1)
        by = {a["attacker"]: a for a in first["attacks"]}
        assert (by["lancer-hq"]["order"], by["lancer-hq"]["hit"], by["lancer-hq"]["kills"]) == (1, True, ["giant"])
        assert by["lancer-1"]["cancelled"] == "target already killed" and by["lancer-1"]["kills"] == []
        assert by["giant"]["how"] == "undercut" and by["giant"]["cancelled"] == "attacker killed first"
        assert by["goblin-1"]["hit"] is False and by["goblin-1"]["order"] is None
        assert by["goblin-1"]["why"] == "misses dodge at time 4"
        assert (by["amazon"]["harm"], by["amazon"]["applied_harm"], by["amazon"]["kills"]) == ("L*", "H", ["goblin-1"])
        assert by["amazon"]["weapon"] == "Short Sword" and by["amazon"]["time"] == 4 and by["amazon"]["length"] == 3
    # Round 2: the Goblin's swing damages the Amazon's Breastplate (M against M).
    r2 = next(r for r in cli("show", "giant-goblins", "--json").json()["state"]["resolved_rounds"]  # type: ignore[index]
              if r["round"] == 2)
    goblin = next(a for a in r2["attacks"] if a["attacker"] == "goblin-2")
    assert goblin["armor"] == {"piece": "Breastplate", "effect": "damaged"}


def test_sheets_keep_a_native_horse_killed_in_the_round(cli: Cli, play_example) -> None:  # type: ignore[no-untyped-def]
    # Bashkar ambush, round 2: the Woods Girl's arrow kills bashkar-1's pony, then the White Knight
    # kills bashkar-1; both stay in the red box where they fought on the round's sheet.
    play_example(cli, "magic_realm/bashkar-ambush.cmds")
    sheets = cli("mr", "sheets", "bashkars", "--round", "2", "--json").json()
    wk = next(s for s in sheets if s["owner"] == "wk")  # type: ignore[union-attr]
    box = " ".join(wk["boxes"]["1"])
    assert "bashkar-1 [" in box and "bashkar-1-horse [Bashkar Pony 1" in box and box.count("DEAD") == 2
    assert wk["round"] == 2 and wk["resolved"] is True
    text = cli("mr", "sheets", "bashkars", "--round", "2").out
    assert text.splitlines()[0] == ("Melee Sections with the plays of round 2, resolved (round 3 has no plays yet)")
    assert "bashkar-1-horse [Bashkar Pony 1, gallop: move 3, DEAD]" in text


def _killed_swordsman() -> Game:
    # A level-1 Swordsman (vulnerability L, no armor) lures the Giant and plays no maneuver: the
    # Giant's H thrust hits him (no maneuver, MR 8.4.8) and kills him; nobody is left (MR 001).
    g = Game({"first_round_of_day": False, "characters": [char("sw", "Swordsman", level=1)],
              "denizens": [{"id": "giant", "monster": "Giant"}]})
    g.do(c.Lure(character="sw", denizens=("giant",)))
    g.encounter(["sw"])
    g.do(c.Target(character="sw"))
    g.do(c.Play(character="sw"))
    faces: dict[str, tuple[int, ...]] = {"r1/reposition/sw": (1,)}
    faces["r1/tactics/sw/box3"] = (1, 1)  # the one box whose tactics are rolled after that repositioning
    g.do(c.Resolve(), faces)
    return g


def test_sheets_of_the_last_round_of_a_combat_that_ended_in_a_death() -> None:
    g = _killed_swordsman()
    assert g.state.ended and not g.state.characters["sw"].alive
    view = g.view()
    sheet = next(s for s in view["sheets"] if s["owner"] == "sw")
    assert sheet["resolved"] is True and sheet["round"] == 1
    assert sheet["boxes"]["1"] == ["giant [Giant, light: H5 move 5]"]
    assert view["resolved_rounds"][0]["attacks"][0]["kills"] == ["sw"]
    text = render_sheets(g.state, None)
    assert text.startswith("Melee Sections with the plays of round 1, resolved\nMelee Section of sw")
    shown = g.folded.ruleset.render(g.state)
    assert "giant -> sw: thrust H time 5 length 0: hit #1 (intercept): kills" in shown


def test_show_says_which_rounds_plays_it_shows(cli: Cli) -> None:
    run_upto(cli, GIANT, "mr target giant-goblins bk goblin-2")  # round 2, target selection
    out = cli("show", "giant-goblins").out
    assert "Melee Sections with the plays of round 1, resolved (round 2 has no plays yet):" in out
    assert "attacks of round 1 (MR 8.4.8, 8.4.9):" in out
    assert cli("mr", "sheets", "giant-goblins").out.startswith("Melee Sections with the plays of round 1")


def test_show_prints_each_attack_and_maneuver_once(cli: Cli) -> None:
    run_upto(cli, GIANT, "mr play giant-goblins bk")  # round 1, plays revealed, not yet resolved
    out = cli("show", "giant-goblins").out
    assert "Melee Sections of round 1, plays revealed:" in out
    # each character's attack (-> its target) and maneuver square once; before, a second line repeated them
    assert out.count("-> goblin-1") == 1 and out.count("maneuver square 2 (dodge)") == 1  # the Amazon
    assert out.count("-> goblin-3") == 1 and out.count("maneuver square 1 (charge)") == 1  # the Black Knight
    assert "Short Sword unalerted side up; shield in box 3 (Duck and Smash)" in out
    sheets = cli("mr", "sheets", "giant-goblins").out
    assert sheets.count("-> goblin-1") == 1 and sheets.count("M1 MOVE M4") == 1


def test_an_undeployed_hireling_is_marked_and_explained(cli: Cli) -> None:
    # Round 2: the Amazon deploys Lancer HQ only; Lancer 1 stays unassigned after Deployment, so it
    # does not attack (MR 001 Deployment: "Denizens who are unassigned after Deployment do not attack
    # this round").
    run_upto(cli, GIANT, "mr deploy giant-goblins bk", nth=2)
    dens = cli("show", "giant-goblins", "--json").json()["state"]["denizens"]  # type: ignore[index]
    assert dens["lancer-1"]["attacks"] == "" and "not deployed this round" in dens["lancer-1"]["idle"]
    assert dens["lancer-hq"]["attacks"] == "goblin-2" and dens["lancer-hq"]["idle"] == ""
    assert "lancer-1 [Lancer 1, light: H*6 move 2, hired by amazon] does not attack: not deployed this round" \
        in cli("show", "giant-goblins").out
    steps = cli("explain", "giant-goblins", "--round", "2", "--json").json()["steps"]  # type: ignore[index]
    assert {"seq": 26, "rule": "MR 001 Deployment", "dice": [],
            "data": {"citation": "MR", "reference": "001 Deployment", "dice": []},
            "text": "unassigned after Deployment, so they do not attack this round: lancer-1 (Lancer 1), hired by "
                    "amazon"} in steps


def test_an_attack_spell_reveal_says_what_was_cast() -> None:
    setup = {"clearing": {"color_magic": "purple"}, "first_round_of_day": False,
             "characters": [char("sorc", "Sorceror", spells=["Fiery Blast"])],
             "denizens": [{"id": "goblin", "monster": "Axe Goblin"}], "assigned": {"goblin": "sorc"}}
    g = Game(setup)
    fast = next(ch.id for ch in g.state.characters["sorc"].chits if ch.label == "MAGIC IV3*")
    g.do(c.Act(character="sorc", kind="cast", spell="Fiery Blast", chit=fast))
    g.do(c.StartMelee())
    g.do(c.Target(character="sorc", spell_targets=("goblin",)))
    g.do(c.Play(character="sorc", attack=1, place={"goblin": 1}))
    assert f"MR 8.4.5 | Sorceror reveals: thrust with the Fiery Blast (cast with {fast})" in g.text()
    sheet = next(s for s in g.view()["sheets"] if s["owner"] == "sorc")
    assert sheet["attack"]["spell"] == "Fiery Blast" and sheet["circles"]["1"] == ["Sorceror: Fiery Blast -> goblin"]
    g.do(c.Resolve(), {"r1/reposition/sorc": (4,), "r1/tactics/sorc/box1": (1, 1),
                       "r1/missile/sorc/goblin": (3, 1)})
    blast = next(a for a in g.view()["resolved_rounds"][0]["attacks"] if a["attacker"] == "sorc")
    assert (blast["kind"], blast["weapon"], blast["kills"]) == ("spell", "Fiery Blast", ["goblin"])
    # after the round the resolved sheet still names the spell, not a dagger
    sheet = next(s for s in g.view()["sheets"] if s["owner"] == "sorc")
    assert sheet["round"] == 1 and sheet["circles"]["1"] == ["Sorceror: Fiery Blast -> goblin"]
