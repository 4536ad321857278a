"""Magic Realm combat (3rd edition): a whole round in a clearing, rule-cited.

Sources: seed 000 (MR 8.4 Melee Step), seed 001 (A Round of Combat) and the
data in ``data/`` (see ``data/SOURCES.md``).
"""

from combatlog.rulesets.magic_realm.ruleset import MagicRealm

RULESET = MagicRealm()
