"""Classic Fantasy Imperative (Mythras) combat: Chapter 8 of the seed, with the tables of
reference/classic_fantasy.md. Citation prefix ``CFI``; event tags ``cfi.*``."""

from combatlog.rulesets.classic_fantasy.ruleset import ClassicFantasy

RULESET = ClassicFantasy()
