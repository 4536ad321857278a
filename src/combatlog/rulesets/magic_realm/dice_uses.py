"""The dice each Magic Realm event depends on (``Ruleset.dice_uses``; docs/trust.md, threats).

No Magic Realm event names or copies a die: ``evolve`` finds each die by the rules' label
(docs/magic_realm.md, "Dice labels"): ``rN/assign/<denizen>`` when ``mr.denizens_assigned`` is
folded, ``rN/attention/<k>`` for ``mr.melee_started``, and for ``mr.melee_resolved`` the
repositioning (``rN/reposition/...``), change tactics (``rN/tactics/<sheet>/<box>``), Missile Table
(``rN/missile/...``) and Demon or Imp (``rN/pit/...``, ``rN/curse/...``) dice. Which of them are read
depends on the state and on the dice read before them in the same event (the boxes that change
tactics follow the repositioning die; a missile die is read only for a hit that goes into effect).

So the uses are found by folding the event on the state before it with ``work.OBSERVER`` set: every
``Work.roll`` the fold makes (whatever rule function, step or future change makes it) is recorded
with the label and the notation the rules roll there, and answered with the recorded faces; a die
that is missing or whose faces do not fit that notation is answered with ones, so the dry run goes on
and ``verify`` names the die (not drawn before the event, or the wrong notation) instead of the fold
failing on an index.

The expected label is the label read: ``decide`` draws each die by calling the same rule function
(``assign_randomly``, ``start_melee``, ``resolve``) on the same state, so the label it draws at each
point is the one ``evolve`` reads there; no command takes a label from a player (``--face LABEL=...``
only gives the faces of a rules' label), so ``DicePort.rule_label`` is not needed.

No die is ``reuse``: labels carry the round and the purpose, each is drawn once, and each kind is read
by the one event that closes its step (a second ``mr.melee_resolved`` in the same round, re-reading
the repositioning dice to fight the round again, is refused as a reuse).

*When* a die was drawn is the core's check: a joint die a rule reads must be drawn by the same
command as the event that reads it, so a die under the rules' label drawn at an earlier step (before
the plays are sealed, its faces then known) is refused
(tests/security/test_dice_uses_magic_realm.py, the last test).
"""

from __future__ import annotations

from collections.abc import Sequence

from combatlog.dice.notation import parse_dice
from combatlog.events.base import Event
from combatlog.rulesets.base import DiceUse
from combatlog.rulesets.magic_realm.evolve import evolve
from combatlog.rulesets.magic_realm.rehearsal import reads_of
from combatlog.rulesets.magic_realm.state import MRState
from combatlog.rulesets.magic_realm.work import OBSERVER


def dice_uses(state: MRState, event: Event) -> Sequence[DiceUse]:
    """Every die the fold of ``event`` reads, in the order it reads them."""
    reads: dict[str, DiceUse] = {}
    folded = reads_of(state, event)
    if folded is not None:  # the fold the verifier just made of this event (rehearsal.py)
        for label, notation, purpose, _by, _faces in folded:
            if label not in reads:
                reads[label] = DiceUse(label=label, field=f"({purpose})", expected_label=label, notation=notation)
        return tuple(reads.values())

    def observe(label: str, notation: str, purpose: str, faces: tuple[int, ...] | None) -> tuple[int, ...]:
        dice = parse_dice(notation)
        if label not in reads:
            reads[label] = DiceUse(label=label, field=f"({purpose})", expected_label=label, notation=notation)
        if faces is not None and len(faces) == dice.count and all(1 <= f <= dice.sides for f in faces):
            return faces
        return (1,) * dice.count  # missing or not this notation: verify refuses the die; the dry run goes on

    token = OBSERVER.set(observe)
    try:
        evolve(state, event, 0)
    except Exception:  # a forged event the rules cannot fold: verify says so when it applies it
        pass
    finally:
        OBSERVER.reset(token)
    return tuple(reads.values())
