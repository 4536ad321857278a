"""Classic Fantasy Imperative tables and pure rule arithmetic.

Everything here is a function of numbers: success levels, difficulty grades,
the Differential Roll table, damage modifiers, hit points per location,
fatigue, weapon sizes. No state, no dice.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from combatlog.errors import InvalidCommand

# -- success levels (CFI Ch.5 Criticals and Fumbles; reference 1.2) -------------------
FUMBLE, FAILURE, SUCCESS, CRITICAL = 0, 1, 2, 3
LEVEL_NAMES = {FUMBLE: "fumble", FAILURE: "failure", SUCCESS: "success", CRITICAL: "critical"}


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def critical_range(skill: int) -> int:
    """CFI Ch.5 Criticals and Fumbles: one tenth of the (modified) skill, fractions up."""
    return ceil_div(skill, 10) if skill > 0 else 0


def success_level(roll: int, skill: int) -> int:
    """CFI Ch.5 How Skills Work: 01-05 always succeed, 96-00 always fail; 99-00 fumble
    (only 00 when the skill is over 100); a critical is a roll within a tenth of the skill.

    ``roll`` is the d100 face 1..100 (100 reads "00").
    """
    if roll == 100 or (roll == 99 and skill <= 100):
        return FUMBLE
    if roll >= 96:
        return FAILURE
    if roll > 5 and roll > skill:
        return FAILURE
    return CRITICAL if roll <= critical_range(skill) else SUCCESS


def differential(protagonist: int, antagonist: int) -> int:
    """CFI Ch.5 Differential Rolls (Differential Roll Results table).

    Positive: the protagonist wins that many levels (Special Effects); negative:
    the antagonist does; zero when the levels are equal or neither side succeeded
    (a Failure against a Fumble grants nothing).
    """
    if protagonist > antagonist and protagonist >= SUCCESS:
        return protagonist - antagonist
    if antagonist > protagonist and antagonist >= SUCCESS:
        return -(antagonist - protagonist)
    return 0


def opposed_winner(a_level: int, a_roll: int, b_level: int, b_roll: int) -> str:
    """CFI Ch.5 Opposed Rolls: the better level wins; at equal success levels the higher
    roll still within the skill wins. Returns "a", "b", or "" when both fail."""
    if a_level < SUCCESS and b_level < SUCCESS:
        return ""
    if a_level != b_level:
        return "a" if a_level > b_level else "b"
    if a_roll == b_roll:
        return ""  # identical rolls at the same level: nobody gains the upper hand
    return "a" if a_roll > b_roll else "b"


def over_hundred(*skills: int) -> int:
    """CFI Ch.5 Opposed Skills Over 100%: the excess of the highest skill over 100,
    subtracted from every participant (after all other modifiers)."""
    top = max(skills) if skills else 0
    return top - 100 if top > 100 else 0


# -- difficulty grades (CFI Ch.5 Difficulty Grade Table) ---------------------------------
GRADES = ("very_easy", "easy", "standard", "hard", "formidable", "herculean", "hopeless")
AUTOMATIC = "automatic"
GRADE_NAMES = {g: g.replace("_", " ").title() for g in GRADES} | {AUTOMATIC: "Automatic"}


def grade_index(grade: str) -> int:
    try:
        return GRADES.index(grade)
    except ValueError:
        raise InvalidCommand(f"unknown difficulty grade {grade!r}; one of {', '.join(GRADES + (AUTOMATIC,))}") from None


def hardest(grades: list[str] | tuple[str, ...]) -> str:
    """CFI Ch.5 / Ch.8 Situational Modifiers: where several apply, use the most severe."""
    real = [g for g in grades if g and g not in (AUTOMATIC, "standard")]
    if not real:
        return AUTOMATIC if AUTOMATIC in grades else "standard"
    return max(real, key=grade_index)


def shift_grade(grade: str, steps: int) -> str:
    """Move a grade ``steps`` harder (negative: easier), within Very Easy .. Hopeless."""
    if grade == AUTOMATIC:
        return grade
    return GRADES[max(0, min(len(GRADES) - 1, grade_index(grade) + steps))]


def apply_grade(skill: int, grade: str, method: str = "multiply") -> int:
    """CFI Ch.5 Difficulty Grade Table. ``multiply`` is the default method (Very Easy x2,
    Easy x1.5, Hard -1/3, Formidable x1/2, Herculean x1/5); ``simplified`` adds
    +40/+20/-20/-40/-80. Decision: fractions of the multiplied skill round up, as the
    critical range does. Hopeless and Automatic are handled by the caller."""
    if method == "simplified":
        delta = {"very_easy": 40, "easy": 20, "standard": 0, "hard": -20, "formidable": -40, "herculean": -80}
        return max(0, skill + delta.get(grade, 0))
    num, den = {"very_easy": (2, 1), "easy": (3, 2), "standard": (1, 1), "hard": (2, 3),
                "formidable": (1, 2), "herculean": (1, 5)}.get(grade, (1, 1))
    return max(0, ceil_div(skill * num, den))


# Situational modifiers: key -> (grade, what it applies to, citation).
# applies: "attack", "defence", "any" (both), for melee ("melee"), ranged ("ranged") or both ("all").
SITUATIONS: dict[str, tuple[str, str, str, str]] = {
    # CFI Ch.8 Close Combat Situational Modifiers
    "helpless": (AUTOMATIC, "attack", "melee", "Attacking a helpless target"),
    "confined": ("hard", "attack", "melee", "Attacking in a confined situation"),
    "lower_ground": ("hard", "defence", "melee", "Defending while on lower ground or against mounted foe"),
    "vs_mounted": ("hard", "defence", "melee", "Defending while on lower ground or against mounted foe"),
    "unstable": ("hard", "any", "melee", "Fighting while on unstable ground"),
    "crouching": ("hard", "any", "melee", "Fighting while crouching or from one knee"),
    "poor_visibility": ("hard", "any", "melee", "Fighting in poor visibility"),
    "from_behind": ("formidable", "defence", "melee", "Defending against an attack from behind"),
    "prone": ("formidable", "any", "melee", "Fighting while prone"),
    "partial_darkness": ("formidable", "any", "melee", "Fighting in partial darkness"),
    "pitch_black": ("herculean", "any", "melee", "Fighting in pitch black conditions"),
    "blinded": ("herculean", "any", "all", "Blinded or loss of primary perceptive sense"),
    # CFI Ch.8 Ranged Combat Situational Modifiers
    "light_wind": ("hard", "attack", "ranged", "Light Wind"),
    "moderate_wind": ("formidable", "attack", "ranged", "Moderate Wind"),
    "strong_wind": ("herculean", "attack", "ranged", "Strong Wind"),
    "gale": ("hopeless", "attack", "ranged", "Gale, Storm, or Worse"),
    "target_running": ("hard", "attack", "ranged", "Target is Running"),
    "target_sprinting": ("formidable", "attack", "ranged", "Target is Sprinting"),
    "target_mist": ("hard", "attack", "ranged", "Target obscured by mist or in partial darkness"),
    "target_smoke": ("formidable", "attack", "ranged", "Target obscured by thick smoke or in darkness"),
    "target_obscured": ("herculean", "attack", "ranged", "Target completely obscured"),
    "target_invisible": ("hopeless", "attack", "ranged", "Target completely invisible (Impossible)"),
    "target_invisible_located": ("herculean", "attack", "ranged", "Invisible target whose location is known"),
    "target_prone": ("formidable", "attack", "ranged", "Target prone"),
    "attacker_prone": ("herculean", "attack", "ranged", "Attacker prone"),
    "attacker_unstable": ("hard", "attack", "ranged", "Attacker is on unstable ground"),
    # CFI Ch.8 Firing into a Crowd (set through the attack's --crowd option)
    "crowd_edge": ("hard", "attack", "ranged", "Firing at a target at the edge of a crowd"),
    "crowd_through": ("formidable", "attack", "ranged", "Firing through a crowd"),
}

# -- weapon sizes (CFI Ch.8 Weapon Size) --------------------------------------------------
SIZES = ("S", "M", "L", "H", "E")
SIZE_NAMES = {"S": "Small", "M": "Medium", "L": "Large", "H": "Huge", "E": "Enormous"}


def size_index(size: str) -> int:
    key = size.strip().upper()[:1]
    if key not in SIZES:
        raise InvalidCommand(f"unknown weapon size {size!r}; one of S, M, L, H, E")
    return SIZES.index(key)


def parry_fraction(attack_size: int, parry_size: int) -> str:
    """CFI Ch.8 Damage Reduction: equal or greater Size blocks all damage, one Size less
    blocks half, two or more less blocks none. Returns "all", "half" or "none"."""
    gap = attack_size - parry_size
    if gap <= 0:
        return "all"
    return "half" if gap == 1 else "none"


def half_up(n: int) -> int:
    """Decision: halving keeps the odd point (7 -> 4), as fractions round up elsewhere."""
    return ceil_div(n, 2)


# -- damage modifier (reference 1.7, CFI Ch.1) --------------------------------------------
DM_ROWS: tuple[tuple[int, str], ...] = (
    (5, "-1d8"), (10, "-1d6"), (15, "-1d4"), (20, "-1d2"), (25, "+0"), (30, "+1d2"), (35, "+1d4"),
    (40, "+1d6"), (45, "+1d8"), (50, "+1d10"), (60, "+1d12"), (70, "+2d6"), (80, "+1d8+1d6"),
    (90, "+2d8"), (100, "+1d10+1d8"), (110, "+2d10"), (120, "+2d10+1d2"), (130, "+2d10+1d4"),
)
_DM = re.compile(r"^[+-]?(\d*d\d+)(\+\d*d\d+)*$|^[+-]?0$", re.ASCII)


def damage_modifier(str_plus_siz: int) -> str:
    for top, dm in DM_ROWS:
        if str_plus_siz <= top:
            return dm
    raise InvalidCommand("STR+SIZ over 130: give the damage modifier explicitly (damage_modifier)")


def normalise_dm(dm: str) -> str:
    text = dm.replace(" ", "").lower() or "+0"
    if text in ("0", "+0", "-0", "none"):
        return "+0"
    if not _DM.match(text):
        raise InvalidCommand(f"damage modifier {dm!r}: expected e.g. +1d4, -1d2, +1d8+1d6 or 0")
    return text if text[0] in "+-" else "+" + text


def dm_terms(dm: str) -> tuple[int, tuple[str, ...]]:
    """(+1 or -1, the dice terms) of a damage modifier such as ``+1d8+1d6``."""
    dm = normalise_dm(dm)
    if dm == "+0":
        return 1, ()
    sign = -1 if dm[0] == "-" else 1
    return sign, tuple(t if t[0].isdigit() else "1" + t for t in dm[1:].split("+"))


def dm_step(dm: str, steps: int) -> str:
    """CFI Ch.8 Charging: the Damage Modifier moves ``steps`` rows down the table."""
    rows = [r[1] for r in DM_ROWS]
    dm = normalise_dm(dm)
    if dm not in rows:
        raise InvalidCommand(f"damage modifier {dm} is not a row of the table; cannot step it")
    return rows[min(len(rows) - 1, rows.index(dm) + steps)]


# -- characteristics-derived values (reference 1.4, 1.6, 1.7) ----------------------------

def location_hp_band(con_plus_siz: int) -> int:
    """Index into the HP table: 1-5 -> 0, 6-10 -> 1, ... (36-40 -> 7, then +1 per 5)."""
    return max(0, ceil_div(con_plus_siz, 5) - 1)


def band_value(value: int) -> int:
    """Healing Rate / Luck Points band: <=6: 1, 7-12: 2, 13-18: 3, then +1 per 6."""
    return max(1, ceil_div(value, 6))


def action_points_for_rank(rank: int) -> int:
    """CFI Ch.3 class rank tables: 2 at Rank 0-1, +1 at Rank 2-3, +2 at Rank 4-5."""
    return 2 if rank <= 1 else (3 if rank <= 3 else 4)


def initiative_modifier(dex: int, int_: int) -> int:
    """Reference 1.4: the average of DEX and INT. Decision: rounded up."""
    return ceil_div(dex + int_, 2)


# -- fatigue (reference 1.9, CFI Ch.7 Fatigue) ---------------------------------------------
# (name, skill grade, initiative penalty, AP penalty, may act)
FATIGUE: tuple[tuple[str, str, int, int, bool], ...] = (
    ("Fresh", "standard", 0, 0, True),
    ("Winded", "hard", 0, 0, True),
    ("Tired", "hard", 0, 0, True),
    ("Wearied", "formidable", 2, 0, True),
    ("Exhausted", "formidable", 4, 1, True),
    ("Debilitated", "herculean", 6, 2, True),
    ("Incapacitated", "herculean", 8, 3, True),
    ("Semi-Conscious", "hopeless", 0, 0, False),
    ("Comatose", "hopeless", 0, 0, False),
    ("Dead", "hopeless", 0, 0, False),
)
DEAD_FATIGUE = len(FATIGUE) - 1


def fatigue_level(name: str) -> int:
    """The index in ``FATIGUE`` of a level named in any case, with ``-``, ``_`` or a space
    (``semi-conscious``, ``Semi_Conscious``); -1 for a name that is not a level."""
    key = re.sub(r"[-_ ]+", "-", name.strip().lower())
    return next((i for i, row in enumerate(FATIGUE) if row[0].lower() == key), -1)

# -- impale (CFI Ch.8 Impale Effects Table) ------------------------------------------------
_IMPALE_ROW = ("hard", "formidable", "herculean", "incapacitated", "incapacitated")


def impale_effect(siz: int, weapon_size: int) -> str:
    """CFI Ch.8 Impale Effects Table: the grade a weapon left in the wound imposes.

    SIZ 1-10 against a Small weapon is Formidable; each 10 SIZ band is one step milder;
    each Size step of the weapon one step harsher ("each +10: follow the progression")."""
    band = max(0, ceil_div(siz, 10) - 1)  # 1-10 -> 0, 11-20 -> 1 ...
    step = weapon_size - band + 1  # SIZ 1-10 / Small -> Formidable (index 1)
    if step < 0:
        return ""
    return _IMPALE_ROW[min(step, len(_IMPALE_ROW) - 1)]


# -- data files ----------------------------------------------------------------------------

@cache
def load_data(name: str) -> dict[str, Any]:
    text = resources.files("combatlog.rulesets.classic_fantasy").joinpath("data", name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
