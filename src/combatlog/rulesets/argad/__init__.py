"""« Argad ! » skirmish melee for humanoid creatures (seed 004)."""

from combatlog.rulesets.argad.ruleset import Argad

RULESET = Argad()
