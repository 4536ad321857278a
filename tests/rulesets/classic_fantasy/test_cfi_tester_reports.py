"""A tester's reports on the cfi command line: the dice asked for, self-attack, the sheet before round 1.

The duel (docs/examples/classic_fantasy/duel.json): Grak, great axe 2d6+2, Damage Modifier +1d4,
SIZ 15, chest 8 HP under 2 AP, Endurance 40%; Brom parries with his longsword.
"""

from __future__ import annotations

from combatlog.errors import ExitStatus
from tests.conftest import REPO, Cli

DUEL = str(REPO / "docs/examples/classic_fantasy/duel.json")
ACCIDENT = ("cfi", "effects", "d", "Brom", "accidental_injury", "scar_foe")


def grak_fumbles(cli: Cli) -> None:
    # Grak attacks moving and rolls 99, a Fumble; Brom's parry 40 succeeds: Success against Fumble wins
    # Brom two Special Effects (reference/classic_fantasy.md: the SE count is the rank difference, 2 - 0).
    cli("new", "d", "--ruleset", "cfi", "--setup", DUEL, "--dice", "manual")
    cli("cfi", "round", "d", "--face", "r1/init/Brom=6", "--face", "r1/init/Grak=8")
    cli("cfi", "attack", "d", "Grak", "Brom", "--moving", "--face", "r1/a1/attack=99")
    cli("cfi", "parry", "d", "Brom", "--face", "r1/a1/parry=40")


def test_missing_dice_are_asked_for_as_the_faces_given_call_for_them(cli: Cli) -> None:
    # CFI Ch.8 Accidental Injury: the attacker rolls his own weapon damage (2d6+2 +1d4 DM) on a random
    # location (1d20). Which further dice follow depends on those faces (CFI Ch.7 Wounds, Ch.8 Knockback),
    # so the first message names only those three, never the 1d3 of a Serious Wound.
    grak_fumbles(cli)
    first = cli(*ACCIDENT, ok=False)
    assert first.code == ExitStatus.INVALID
    assert ("no faces given for 3 labels, in the order rolled: 'r1/a1/accident-location' (1d20), "
            "'r1/a1/accident-damage' (2d6), 'r1/a1/accident-dm' (1d4);") in first.err
    assert "serious-turns" not in first.err and "endurance" not in first.err
    # By hand: location 11 = chest; 6+6 +2 +4 DM = 18 > SIZ 15: a knockback roll; 18 - 2 AP = 16 against
    # 8 HP: 8 - 16 = -8, at or below minus the location's HP: a Major Wound, one Endurance roll, no 1d3.
    faces = ("--face", "r1/a1/accident-location=11", "--face", "r1/a1/accident-damage=6,6",
             "--face", "r1/a1/accident-dm=4")
    second = cli(*ACCIDENT, *faces, ok=False)
    assert ("no faces given for 2 labels, in the order rolled: 'r1/a1/accident-knockback' (1d100), "
            "'r1/a1/accident-endurance' (1d100);") in second.err
    assert "serious-turns" not in second.err
    done = cli(*ACCIDENT, *faces, "--face", "r1/a1/accident-knockback=50", "--face", "r1/a1/accident-endurance=30")
    assert "a major wound" in done.out and "thrust back 5 ft" in done.out


def test_a_combatant_cannot_attack_himself(cli: Cli) -> None:
    cli("new", "d", "--ruleset", "cfi", "--setup", DUEL, "--dice", "manual")
    cli("cfi", "round", "d", "--face", "r1/init/Brom=6", "--face", "r1/init/Grak=8")
    bad = cli("cfi", "attack", "d", "Brom", "Brom", "--face", "r1/a2/attack=10", ok=False)
    assert bad.code == ExitStatus.INVALID and "Brom cannot attack himself" in bad.err


def test_the_sheet_before_round_1_says_initiative_is_not_rolled(cli: Cli) -> None:
    # CFI Ch.8 Initiative is rolled at the start of the first Combat Round: none before it.
    cli("new", "d", "--ruleset", "cfi", "--setup", DUEL, "--dice", "manual")
    before = cli("cfi", "sheet", "d", "Brom").out
    assert "Initiative not rolled yet" in before and "None" not in before
    cli("cfi", "round", "d", "--face", "r1/init/Brom=6", "--face", "r1/init/Grak=8")
    assert "Initiative not rolled yet" not in cli("cfi", "sheet", "d", "Brom").out
