"""OSRIC views found wanting by a review, each with the test that would have caught it.

- an attack's to-hit need and result were only prose in the timeline: ``show --json`` now lists every
  attack roll as data (``attacks``: roll, bonus, total, need, hit, damage, target and its hit points),
  the timeline line carries it under ``data``, and so does the ``explain --json`` step;
- after a simultaneous kill (a tie of initiative) the slain combatant's blow is still due, and
  ``status`` (pending) must say so.
"""

from __future__ import annotations

from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.views import pending
from tests.conftest import Cli
from tests.rulesets.osric.osric_helpers import FIGHTER, Fight
from tests.rulesets.osric.test_osric_timing import OGRE, _round


def test_attack_rolls_are_data_in_show_and_explain(cli: Cli) -> None:
    # ford, round 1 (hand-checked in test_osric_golden): Ael (B 19, Dex +2) vs orc2 AC 6 needs 13:
    # d20 11 + 2 = 13 hits, 1d6 3: orc2 4 -> 1. Brom (B 18, Str +1) vs orc1 AC 6 needs 12: 13 + 1
    # hits, 6 + 1 = 7: orc1 6 -> -1, slain. Ael's second arrow: 10 + 2 = 12 vs 13 misses.
    cli("run", "docs/examples/osric/ford.cmds", "--quiet")
    state = cli("show", "ford", "--round", "1", "--json").json()["state"]  # type: ignore[index]
    r1 = [a for a in state["attacks"] if a["round"] == 1]
    assert [(a["seq"], a["attacker"], a["target"], a["weapon"], a["roll"], a["bonus"], a["total"], a["need"],
             a["hit"], a["damage"], a["target_hp_before"], a["target_hp_after"], a["target_dead"])
            for a in r1] == [
        (37, "Ael", "orc2", "long bow", 11, 2, 13, 13, True, 3, 4, 1, False),
        (41, "Brom", "orc1", "long sword", 13, 1, 14, 12, True, 7, 6, -1, True),
        (46, "Ael", "orc4", "long bow", 10, 2, 12, 13, False, 0, 7, 7, False),
    ]
    assert r1[0]["ac"] == 6 and r1[0]["kind"] == "missile" and r1[0]["segment"] == 1
    lines = [e for rnd in state["timeline"] if rnd["round"] == 1 for sg in rnd["segments"] for e in sg["entries"]]
    roll_line = next(e for e in lines if e["seq"] == 41 and "data" in e)
    assert roll_line["text"] == "d20 13 +1 = 14 vs 12: hit" and roll_line["data"]["need"] == 12
    steps = cli("explain", "ford", "--round", "1", "--json").json()["steps"]  # type: ignore[index]
    # every step has data (citation, reference, dice: issue #21); the attack rolls add the ruleset's own
    with_data = [s for s in steps if "type" in s["data"]]
    assert [s["seq"] for s in with_data] == [37, 41, 46]
    generic = {"citation", "reference", "dice"}
    assert {k: v for k, v in with_data[1]["data"].items() if k not in generic} == \
        {"type": "attack_roll", **{k: v for k, v in r1[1].items() if k not in ("seq", "round", "segment", "late")}}
    assert all(set(s["data"]) == generic for s in steps if s not in with_data)


def test_a_slain_combatants_simultaneous_blow_is_still_pending() -> None:
    # Seed "tieResolution" (test_osric_timing): both sides roll 3, so Brom and the ogre act together in
    # segment 3; Brom's blow slays the ogre, whose own blow still lands: status must still ask for it.
    f = Fight([{**FIGHTER, "hp": 1, "max_hp": 10}, OGRE], engaged=[["Brom", "ogre"]])
    _round(f, 3, 3)
    f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 5})
    assert f.state.live["ogre"].dead
    due = [p for p in pending(f.state) if p.who == "ogre"]
    assert len(due) == 1 and due[0].what.startswith("melee in segment 3 (next attack die r1/ogre/atk1)")
    assert "simultaneous blow still lands" in due[0].what
    f.dice(c.Attack(who="ogre", target="Brom"), {"r1/ogre/atk1": 12, "r1/ogre/atk1/dmg": (3, 4, 4)})
    assert [p.who for p in pending(f.state)] == ["gm"]


def test_a_combatant_slain_before_its_segment_is_not_pending() -> None:
    # Control (no tie): party 3, orcs 2 -> Brom in segment 2 slays the ogre, which would act in 3: nothing due.
    f = Fight([FIGHTER, OGRE], engaged=[["Brom", "ogre"]])
    _round(f, 3, 2)
    f.dice(c.Attack(who="Brom"), {"r1/Brom/atk1": 15, "r1/Brom/atk1/dmg": 5})
    assert [p.who for p in pending(f.state)] == ["gm"]
