"""Magic Realm with nonce chains: the foreknowledge attack on the random assignment, and its honest
counterpart (docs/trust.md, "Nonce chains", "Foreknowledge"; docs/magic_realm.md, "Playing by email").

MR 001 Luring: the random assignment that follows depends on the lures. With chains, bob knows his own
next link; once alice's link to ``r1/assign`` is public he can compute that step's seed before revealing
his, try his possible lures offline against it, and lure the way that makes the dice fall for him. His
lure is then a decision point on ``r1/assign``: strict mode refuses its dice (a fresh step
``r1/assign#2`` first), friendly mode draws them with the decision point recorded and ``verify`` flags it.

In process, two players (alice: Black Knight, bob: Amazon) as in tests/trust/test_mr_sealed.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from combatlog.errors import IllegalCommand
from combatlog.events.core import DecisionMarked, DiceRolled
from combatlog.rulesets import available
from tests.trust.test_mr_sealed import _Game

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")


@pytest.fixture
def chained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))

    def make(**kw: Any) -> _Game:
        from combatlog.trust.commands import CommitChain

        g = _Game(tmp_path, **kw)
        g.do("alice", CommitChain(length=16))
        g.do("bob", CommitChain(length=16))
        return g

    return make


def _link(g: _Game, actor: str, step: str) -> None:
    from combatlog.trust.commands import RevealLink

    g.do(actor, RevealLink(step=step))


@pytest.mark.parametrize("mode", ["strict", "friendly"])
def test_a_lure_made_with_every_other_link_public_is_a_decision_point(chained, mode: str) -> None:  # type: ignore[no-untyped-def]
    from combatlog.rulesets.magic_realm import commands as c

    g = chained(mode=mode)
    g.do("alice", c.Lure(character="bk", denizens=("giant",)))
    _link(g, "alice", "r1/assign")  # alice's link rides along with her lure
    # bob now holds everything he needs to compute r1/assign's seed: he lures, then reveals.
    g.do("bob", c.Lure(character="amazon", denizens=("goblin-1",)))
    assert g.folded.state.foreknown == (("r1/assign", "lure", "bob", "amazon lures goblin-1 in round 1"),)
    _link(g, "bob", "r1/assign")
    assert g.folded.state.seed == "r1/assign"
    if mode == "strict":
        head = g.folded.core.head_seq
        with pytest.raises(IllegalCommand, match=r"fresh seed.*r1/assign#2"):
            g.do("alice", c.Assign())
        assert g.folded.core.head_seq == head
        _link(g, "alice", "r1/assign#2")
        _link(g, "bob", "r1/assign#2")
        g.do("alice", c.Assign())
        dice = [e for e in g.events() if isinstance(e, DiceRolled) and e.label.startswith("r1/assign/")]
        assert dice  # drawn from r1/assign#2, whose links were revealed after every lure
        # the faces bob could compute when he lured (r1/assign's seed) are not the faces used (issue 37 item 5)
        from combatlog.dice.derive import derive_faces
        from combatlog.trust.sealed import scanned

        steps = scanned(g.store, g.folded.core).steps
        foreknown, fresh = steps["r1/assign"].seed, steps["r1/assign#2"].seed
        for die in dice:
            assert die.seed_ref == steps["r1/assign#2"].completed_at
            assert die.faces == derive_faces(fresh, die.label, die.count, die.sides)
            assert derive_faces(foreknown, die.label, 16, die.sides) != derive_faces(fresh, die.label, 16, die.sides)
    else:
        g.do("alice", c.Assign())
        marks = [e for e in g.events() if isinstance(e, DecisionMarked)]
        assert [m.player for m in marks] == ["bob"]
        from combatlog.commands.handler import resolve_stream
        from combatlog.wiring import verify_stream

        assert any("friendly mode" in n for n in verify_stream(g.store, resolve_stream(g.store, "g")).notes)


def test_lures_made_before_the_last_link_need_no_fresh_seed(chained) -> None:  # type: ignore[no-untyped-def]
    # The honest order ("the first mover reveals last"): alice lures first and keeps her link; bob lures
    # and reveals his (alice's is still secret); alice, with nothing left to decide, reveals hers.
    from combatlog.rulesets.magic_realm import commands as c

    g = chained()
    g.do("alice", c.Lure(character="bk", denizens=("giant",)))
    g.do("bob", c.Lure(character="amazon", denizens=("goblin-1",)))
    _link(g, "bob", "r1/assign")
    _link(g, "alice", "r1/assign")
    assert g.folded.state.seed_choices == ()
    g.do("alice", c.Assign())
    assert "goblin-2" in g.folded.state.assigned


def test_a_forged_assignment_from_a_foreknown_seed_fails_verify_in_strict_mode(chained, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The attack of the first test, by a modified client: in strict mode its ``mr assign`` draws the dice
    from r1/assign although bob lured with that seed known (its client skips the check). Every other
    machine's verify re-decides the assignment from the folded state, where the foreknown lure stands, and
    refuses it (docs/trust.md, "Foreknowledge")."""
    from combatlog.commands.handler import resolve_stream
    from combatlog.errors import VerificationFailed
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.rulesets.magic_realm import decide as mr_decide
    from combatlog.wiring import verify_stream

    g = chained(mode="strict")
    g.do("alice", c.Lure(character="bk", denizens=("giant",)))
    _link(g, "alice", "r1/assign")
    g.do("bob", c.Lure(character="amazon", denizens=("goblin-1",)))
    _link(g, "bob", "r1/assign")
    with monkeypatch.context() as forged:  # the modified client: no foreknowledge check when deciding
        forged.setattr(mr_decide, "fresh_seed_events", lambda *args, **kw: [])
        g.do("alice", c.Assign())
    assert any(isinstance(e, DiceRolled) and e.label.startswith("r1/assign/") for e in g.events())
    with pytest.raises(VerificationFailed, match=r"refused by the rules on re-deciding: .*fresh seed"):
        verify_stream(g.store, resolve_stream(g.store, "g"))


def test_an_assignment_with_nothing_left_to_assign_reveals_nothing(chained, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """Every denizen lured (MR 001 Luring: the random assignment has nobody left to place), the combat moves
    on to deployment. ``mr assign`` by the one player whose link to r1/assign is still missing is then
    refused as too late, and must be refused before it reveals that link (cli/ride.py ``before_referee``
    reveals it when it completes the step): a refused command records nothing. Through the CLI, in this
    process, on the game's own log and key home."""
    from combatlog.cli.app import main
    from combatlog.rulesets.magic_realm import commands as c

    g = chained()
    g.do("bob", c.Lure(character="amazon", denizens=("goblin-1", "goblin-2")))
    g.do("alice", c.Lure(character="bk", denizens=("giant",)))
    _link(g, "bob", "r1/assign")
    assert g.folded.state.step == "deploy"
    head = g.folded.core.head_seq
    monkeypatch.setenv("COMBATLOG_DB", str(g.tmp / "log.db"))
    monkeypatch.delenv("COMBATLOG_ACTOR", raising=False)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["mr", "assign", "g", "--as", "alice"])
    err = capsys.readouterr().err
    assert exit_.value.code != 0 and "too late" in err, err
    assert g.folded.core.head_seq == head  # no link, nothing
