"""The freeform ruleset: the smallest real one, usable for any game."""

from combatlog.rulesets.freeform.ruleset import Freeform

RULESET = Freeform()
