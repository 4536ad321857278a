"""OSRIC combat (AD&D 1st-edition retro-clone): surprise, declarations, side initiative in
segments, the to-hit matrices, weapon damage by size, spells on the segment timeline."""

from combatlog.rulesets.osric.ruleset import Osric

RULESET = Osric()
