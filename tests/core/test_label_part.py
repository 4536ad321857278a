"""A participant's name as part of a die's label (``rulesets/drawn.label_part``).

The defect (an exploratory test): freeform accepts "Aldo the Bold" as a name, but its dice were labelled
``r1/Aldo the Bold/act``, which no label may be (a space): every roll of his was refused, and with joint dice,
where the rules name each die and a chosen label is refused, he could never roll at all.
"""

from __future__ import annotations

import pytest

from combatlog.dice.port import LABEL_PATTERN
from combatlog.events.envelope import decode_envelope
from combatlog.rulesets.drawn import label_part
from combatlog.rulesets.freeform import commands as ff
from combatlog.store import open_store
from combatlog.trust.commands import CommitOrders, RevealOrders
from combatlog.projections.streams import resolve_stream
from combatlog.wiring import create_combat, execute, verify_stream

NAMES = ["Aldo", "Aldo the Bold", "Aldo+20+the+20+Bold", "a b", "a+20+b", "a/b", "a+2f+b", "Ælfric", "+", "++",
         "חייל 2", "x" * 60, "Ж" * 60, "Ж" * 59 + "Я", "orc.1_a:b#c@d-e"]


def test_a_label_safe_name_is_its_own_part() -> None:
    for name in ("Aldo", "orc.1_a:b#c@d-e", "x" * 60):
        assert label_part(name) == name  # the labels of every log made before stay as they were


@pytest.mark.parametrize("name", NAMES)
def test_every_name_makes_a_valid_label(name: str) -> None:
    for base in (f"r1/{label_part(name)}/act", f"r999999/{label_part(name)}/damage#12"):
        assert LABEL_PATTERN.match(base), base


def test_two_names_never_make_one_part() -> None:
    parts = [label_part(n) for n in NAMES]
    assert len(set(parts)) == len(NAMES)


def test_names_with_spaces_and_letters_beyond_ascii_roll_joint_dice_and_verify() -> None:
    # a hot seat with joint dice (the pattern of tests/trust/test_text_and_api.py): the rules name each die
    store = open_store("memory:")
    create_combat(store, "duel", "freeform", actor="gm", dice="joint")
    execute(store, "duel", CommitOrders(step="r1", orders={"a": 1}, required=("alice", "bob")), actor="alice")
    execute(store, "duel", CommitOrders(step="r1", orders={"b": 2}), actor="bob")
    execute(store, "duel", RevealOrders(), actor="bob")
    execute(store, "duel", RevealOrders(), actor="alice")
    execute(store, "duel", ff.Join(name="Aldo the Bold", side="red", hp=10), actor="gm")
    execute(store, "duel", ff.Join(name="Ælfric", side="blue", hp=8), actor="gm")
    execute(store, "duel", ff.StartRound(), actor="gm")
    execute(store, "duel", ff.Act(who="Aldo the Bold", action="swings", roll="1d20"), actor="gm")
    execute(store, "duel", ff.ChangeHp(who="Ælfric", amount="1d6"), actor="gm")
    execute(store, "duel", ff.ChangeHp(who="Ælfric", amount="1d6"), actor="gm")
    meta = resolve_stream(store, "duel")
    labels = [env.data for env in (decode_envelope(r.body) for r in store.read_stream(meta.id))
              if env.type == "core.dice_rolled"]
    assert [bytes(d).split(b'"label":"')[1].split(b'"')[0].decode() for d in labels] == [
        "r1/Aldo+20+the+20+Bold/act", "r1/+c6+lfric/damage", "r1/+c6+lfric/damage#2"]
    report = verify_stream(store, meta)
    assert report.ok and report.dice.verified == 3
