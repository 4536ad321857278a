"""Shared rule helpers: dice rollers, skill targets with grades, opposed rolls, Turn order.

``decide`` and ``evolve`` run the same apply functions; the only difference is
the roller: in ``decide`` it draws dice through the port, in ``evolve`` it reads
the faces recorded under the same labels.
"""

from __future__ import annotations

import re
from typing import Protocol

import msgspec

from combatlog.dice.notation import parse_dice
from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, Condition, add_condition, drop_condition

replace = msgspec.structs.replace


class Roller(Protocol):
    labels: list[str]

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]: ...

    def settle(self) -> None:
        """Called where the dice still to come depend on the faces drawn so far."""


class Drawing:
    """Draws dice through the port (``decide``)."""

    def __init__(self, port: DicePort) -> None:
        self.port = port
        self.labels: list[str] = []

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]:
        r = self.port.roll(label, notation, purpose=purpose, by=by or None)
        self.labels.append(label)
        return r.faces, r.total

    def settle(self) -> None:
        """Stop at a manual die given no face: past this point the port's placeholder face would
        choose which dice to ask for, naming dice the real face may not call for."""
        if self.port.missing:
            raise self.port.missing_error()


class Replaying:
    """Reads the faces recorded under each label (``evolve`` and ``explain``)."""

    def __init__(self, dice: dict[str, tuple[int, ...]]) -> None:
        self.dice = dice
        self.labels: list[str] = []

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]:
        faces = self.dice.get(label)
        spec = parse_dice(notation)
        if faces is None or len(faces) != spec.count:
            raise InvalidCommand(f"the log lacks the roll {label} ({notation}) this event needs")
        self.labels.append(label)
        return faces, spec.total(faces)

    def settle(self) -> None:
        """Recorded faces are all real: nothing to wait for."""


class Steps:
    """Derived steps with their citations (``explain``)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, tuple[str, ...]]] = []

    def add(self, rule: str, text: str, *dice: str) -> None:
        self.items.append((rule, text, tuple(d for d in dice if d)))


def cite(heading: str) -> str:
    return f"CFI Ch.8 {heading}"


def who(state: CFIState, name: str) -> Combatant:
    c = state.combatants.get(name)
    if c is None:
        raise InvalidCommand(f"no combatant {name!r} (known: {', '.join(state.combatants)})")
    return c


# The labels the rules draw: ``label`` below (``r<round>/a<action>/<kind>``), a free action's
# ``r<round>/f<n>/...`` (free_actions.py) and Initiative's ``r<round>/init/...`` (rounds.py); no player may
# name a die so (``Ruleset.owns_label``).
RULE_LABELS = re.compile(r"r[0-9]+/(?:a[0-9]+|f[0-9]+|init)/")


def label(state: CFIState, kind: str, n: int | None = None) -> str:
    """Dice labels: ``r<round>/a<action>/<kind>``."""
    return f"r{state.round}/a{state.action_no if n is None else n}/{kind}"


# -- skills and grades ------------------------------------------------------------------

# CFI Ch.7 Serious Wound (optional): "tasks requiring use of that Hit Location" are one grade harder.
# Decision: a leg serves Evade, Athletics and Acrobatics; an arm serves Brawn and the weapon it holds;
# the head, chest and abdomen serve every roll.
LEG_SKILLS = ("evade", "athletics", "acrobatics")


def serious_steps(c: Combatant, skill: str, weapon: str) -> tuple[int, list[str]]:
    """CFI Ch.7 Serious Wound, the Games Master's option ``serious_wound_grade``: one grade harder
    for tasks using a Seriously wounded location, until it is a Minor Wound again (HP above 0)."""
    arms = hand_of(c, weapon) if weapon and weapon in c.weapons and weapon != "unarmed" else ()
    for loc in c.locations:
        if loc.wound != "serious" or loc.hp > 0:
            continue
        if (loc.kind == "vital" or (loc.kind == "leg" and skill in LEG_SKILLS)
                or (loc.kind == "arm" and (skill == "brawn" or loc.name in arms))):
            return 1, [f"Seriously wounded {loc.name}: one grade harder"]
    return 0, []


def condition_grades(c: Combatant, options: dict[str, str] | None = None, skill: str = "",
                     weapon: str = "") -> tuple[list[str], int, list[str]]:
    """Grades and grade steps the combatant's own state imposes on every skill roll.

    CFI Ch.7 Fatigue (the level's grade); CFI Ch.8 Blind Opponent and Impale (a grade);
    CFI Ch.8 Entangle (head, chest or abdomen: one grade harder); optionally CFI Ch.7 Serious Wound."""
    grades, notes, steps = [], [], 0
    fat_name, fat_grade = t.FATIGUE[c.fatigue][0], t.FATIGUE[c.fatigue][1]
    if fat_grade != "standard":
        grades.append(fat_grade)
        notes.append(f"fatigue {fat_name}: {t.GRADE_NAMES[fat_grade]}")
    for cond in c.conditions:
        if cond.name in ("blinded", "impaled") and cond.grade:
            grades.append(cond.grade)
            notes.append(f"{cond.name}: {t.GRADE_NAMES[cond.grade]}")
        if cond.name == "entangled" and cond.location not in ("", "right arm", "left arm", "right leg", "left leg"):
            steps += 1
            notes.append(f"entangled {cond.location}: one grade harder")
    steps = min(steps, 1)
    if (options or {}).get("serious_wound_grade", "off") == "on":
        more, why = serious_steps(c, skill, weapon)
        steps += more
        notes += why
    return grades, steps, notes


def skill_target(state: CFIState, c: Combatant, skill: str, grades: list[str] | tuple[str, ...] = (),
                 steps: int = 0, cap: str = "", weapon: str = "") -> tuple[int, str, list[str]]:
    """The skill value a roll is made against, its final grade and the reasons.

    CFI Ch.5 Modifying Skills: the hardest grade applies; CFI Ch.8 Situational Modifiers:
    a Combat Skill may be capped by Ride or Swim."""
    base = c.skills.get(skill, 0)
    notes: list[str] = []
    if cap:
        if cap not in c.skills:
            raise InvalidCommand(f"{c.name} has no {cap} skill to cap the roll with")
        if c.skills[cap] < base:
            notes.append(f"capped by {cap} {c.skills[cap]}")
            base = c.skills[cap]
    own, own_steps, own_notes = condition_grades(c, state.options, skill, weapon)
    grade = t.hardest(list(grades) + own)
    grade = t.shift_grade(grade, steps + own_steps)
    notes += own_notes
    method = state.options.get("difficulty_grades", "multiply")
    value = base if grade in ("standard", t.AUTOMATIC, "hopeless") else t.apply_grade(base, grade, method)
    return value, grade, notes


def situation_grades(situations: tuple[str, ...], role: str, ranged: bool) -> list[str]:
    """CFI Ch.8 Close/Ranged Combat Situational Modifiers that fit this roll."""
    out = []
    for key in situations:
        spec = t.SITUATIONS.get(key)
        if spec is None:
            raise InvalidCommand(f"unknown situation {key!r}; known: {', '.join(sorted(t.SITUATIONS))}")
        grade, applies, scope, _text = spec
        if applies not in (role, "any"):
            raise InvalidCommand(f"situation {key} applies to {'attacks' if applies == 'attack' else 'defence'}, not here")
        if scope != "all" and (scope == "ranged") != ranged:
            raise InvalidCommand(f"situation {key} is for {scope} combat")
        out.append(grade)
    return out


def resist(state: CFIState, roller: Roller, c: Combatant, skills: tuple[str, ...], lbl: str,
           against_roll: int, against_skill: int, grade_steps: int = 0, forced_fail: bool = False,
           purpose: str = "") -> tuple[bool, str]:
    """An Opposed Roll of ``c``'s best listed skill against an original roll (CFI Ch.5 Opposed
    Rolls, with skills over 100%). True when ``c`` resists. Decision: the resister uses the
    highest of the skills the text allows."""
    winner, text = oppose(state, roller, c, skills, lbl, against_roll, against_skill, grade_steps, forced_fail,
                          purpose)
    return winner == "a", text


def oppose(state: CFIState, roller: Roller, c: Combatant, skills: tuple[str, ...], lbl: str,
           against_roll: int, against_skill: int, grade_steps: int = 0, forced_fail: bool = False,
           purpose: str = "") -> tuple[str, str]:
    """The Opposed Roll behind ``resist``: "a" when ``c`` wins, "b" when the original roll does,
    "" when both fail."""
    if forced_fail:
        return "b", f"{c.name} fails automatically (Force Failure)"
    usable = [s for s in skills if s in c.skills]
    if not usable:
        return "b", f"{c.name} has none of {', '.join(skills)} and cannot resist"
    skill = max(usable, key=lambda s: c.skills[s])
    value, grade, _notes = skill_target(state, c, skill, steps=grade_steps)
    if grade == "hopeless":
        return "b", f"{c.name}'s {skill} is Hopeless: no roll, the resistance fails"
    excess = t.over_hundred(value, against_skill)
    faces, total = roller.roll(lbl, "1d100", purpose or f"{c.name} resists with {skill}", c.name)
    mine = t.success_level(total, value - excess)
    theirs = t.success_level(against_roll, against_skill - excess) if against_roll else t.SUCCESS
    winner = t.opposed_winner(mine, total, theirs, against_roll or 0)
    verdict = {"a": "resists", "b": "fails", "": "both fail"}[winner]
    text = (f"{c.name} {skill} {value - excess}% ({t.GRADE_NAMES[grade]}) rolls {total:02d}: "
            f"{t.LEVEL_NAMES[mine]} against {against_roll:02d} ({t.LEVEL_NAMES[theirs]}) -> {verdict}")
    return winner, text


# -- limbs ----------------------------------------------------------------------------------

def limb_disabled(c: Combatant, location: str) -> str:
    """Why a limb cannot be used, or "" (CFI Ch.7 wounds; CFI Ch.8 Stun Location, Entangle)."""
    for cond in c.conditions:
        if cond.location == location and cond.name in ("useless", "maimed", "stunned", "entangled"):
            return f"{location} is {cond.name}"
    return ""


def hand_of(c: Combatant, weapon: str) -> tuple[str, ...]:
    """The arms a held weapon uses: the first held item is in the right hand."""
    w = c.weapons[weapon]
    if w.hands >= 2:
        return ("right arm", "left arm")
    if weapon in c.held:
        return ("right arm",) if c.held.index(weapon) == 0 else ("left arm",)
    return ("right arm",)


def weapon_problem(c: Combatant, weapon: str) -> str:
    w = c.weapons.get(weapon)
    if w is None:
        return f"{c.name} has no weapon {weapon!r} (has: {', '.join(c.weapons)})"
    if w.broken:
        return f"{c.name}'s {weapon} is broken"
    if w.stuck_in:
        return f"{c.name}'s {weapon} is stuck in {w.stuck_in}"
    if weapon != "unarmed" and (w.dropped or weapon not in c.held):
        return f"{c.name} does not hold the {weapon} ready (Ready it first; held: {', '.join(c.held) or 'nothing'})"
    if weapon != "unarmed" and c.locations and any(c.loc(a) for a in hand_of(c, weapon)):
        for arm in hand_of(c, weapon):
            why = limb_disabled(c, arm) if c.loc(arm) else ""
            if why:
                return f"{c.name} cannot use the {weapon}: {why}"
    return ""


def default_weapon(c: Combatant) -> str:
    for name in c.held:
        if not c.weapons[name].shield:
            return name
    return "unarmed"


def legs_problem(c: Combatant) -> str:
    if c.has("prone"):
        return f"{c.name} is prone (Regain Footing first)"
    for loc in c.locations:
        if loc.kind == "leg":
            why = limb_disabled(c, loc.name)
            if why:
                return f"{c.name} cannot move: {why}"
    if c.has("gripped"):
        return f"{c.name} is gripped and cannot disengage"
    return ""


def strain(c: Combatant, doing: str, steps: Steps) -> Combatant:
    """CFI Ch.8 Bleed: a staunched wound re-opens if the recipient performs any strenuous or violent
    action. Decision: attacking, parrying, evading, resisting a leap, hustling, outmaneuvering,
    struggling, an opposed Regain Footing and pulling an impaled weapon free are strenuous; walking,
    aiming, readying, casting and the Free Actions are not."""
    for cond in [x for x in c.conditions if x.name == "staunched"]:
        c = drop_condition(c, "staunched", cond.location)
        c = add_condition(c, Condition(name="bleeding", location=cond.location, by=cond.by, rule=cite("Bleed")))
        steps.add(cite("Bleed"), f"{c.name} {doing}: the staunched wound in the {cond.location or 'body'} re-opens "
                  "and bleeds again")
    return c


def illegal(message: str, heading: str) -> IllegalCommand:
    return IllegalCommand(message, rule=cite(heading))
