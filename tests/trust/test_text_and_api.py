"""The readable text export, hot-seat sealed orders, and the API rulesets use."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import create_combat, execute, fork_stream
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.core import OrdersCommitted, OrdersRevealed
from combatlog.wiring import verify_stream
from combatlog.rulesets.freeform import RULESET
from combatlog.rulesets.freeform import commands as ff
from combatlog.store import open_store
from combatlog.trust.api import SealedStep, commitment, decision_point, track_sealed
from combatlog.trust.commands import CommitOrders, RevealOrders
from combatlog.trust.text_export import WIDTH, render_text
from tests.trust.pbem import signed_duel


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return tmp_path


def test_the_text_is_deterministic_capped_and_shows_forks_as_variations(home: Path) -> None:
    store, signers, do = signed_duel(home)
    do("alice", ff.Act(who="Aldo", action="a very long description " * 8, roll=""))
    meta = resolve_stream(store, "duel")
    fork_stream(store, "duel", at_seq=8, name="duel-whatif", actor="alice", reason="Bo flees",
                signer=signers["alice"])
    text, count = render_text(store, meta)
    assert count == 14 + 1  # 14 main-line events and the fork's one
    assert text == render_text(store, meta)[0]
    lines = text.splitlines()
    assert lines[0] == "combatlog text v1" and all(len(line) <= WIDTH for line in lines)
    head = store.head(meta.id)
    assert f'[Head "#{head.seq} sha256:{head.hash[:32]}"]' in lines
    assert any(line.startswith('[Player1 "alice ed25519:') for line in lines)
    assert '[Signed "15 of 15 events shown"]' in lines
    start = lines.index("( variation duel-whatif forks after #8: Bo flees")
    assert lines[start + 2] == ")" and lines[start - 1].startswith("#8 R1 alice: round 1 begins")
    assert "#7 alice: alice reveals step r1: Aldo thrust" in lines  # words, not JSON
    assert text.endswith("first 32 hex digits.\n") and "The authority is the JSON Lines export" in " ".join(lines)
    since, _ = render_text(store, meta, since=12)
    assert "\n#12 " not in since and "\n#13 R1 alice: alice acknowledges" in since


def test_sealed_orders_at_a_hot_seat_name_who_must_commit() -> None:
    store = open_store("memory:")
    create_combat(store, "duel", "freeform", actor="gm", dice="joint")
    with pytest.raises(InvalidCommand, match="--require alice --require bob"):
        execute(store, "duel", CommitOrders(step="r1", orders={"a": 1}), actor="alice")
    execute(store, "duel", CommitOrders(step="r1", orders={"a": 1}, required=("alice", "bob")), actor="alice")
    execute(store, "duel", CommitOrders(step="r1", orders={"b": 2}), actor="bob")
    execute(store, "duel", RevealOrders(), actor="bob")
    execute(store, "duel", RevealOrders(), actor="alice")
    execute(store, "duel", ff.Join(name="Aldo", side="red"), actor="gm")
    execute(store, "duel", ff.StartRound(), actor="gm")
    execute(store, "duel", ff.Act(who="Aldo", action="swings", roll="2d6"), actor="gm")
    report = verify_stream(store, resolve_stream(store, "duel"))
    assert report.ok and report.dice.verified == 1 and report.signatures == 0


def test_floats_cannot_be_sealed() -> None:
    store = open_store("memory:")
    create_combat(store, "duel", "freeform", actor="gm")
    with pytest.raises(InvalidCommand, match="whole numbers"):
        execute(store, "duel", CommitOrders(step="r1", orders={"x": 1.5}, required=("gm",)), actor="gm")


def test_a_rulesets_hooks_choose_who_commits_and_refuse_impossible_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    def check_orders(state, step, player, orders):  # type: ignore[no-untyped-def]
        if orders.get("attack") == "fly":
            raise IllegalCommand("nobody flies here", rule="Test: no flying")

    monkeypatch.setattr(RULESET, "check_orders", check_orders, raising=False)
    monkeypatch.setattr(RULESET, "sealed_required", lambda state, step: ("amazon", "witch"), raising=False)
    store = open_store("memory:")
    create_combat(store, "duel", "freeform", actor="gm")
    with pytest.raises(IllegalCommand, match="nobody flies here"):
        execute(store, "duel", CommitOrders(step="r1/melee", orders={"attack": "fly"}), actor="amazon")
    out = execute(store, "duel", CommitOrders(step="r1/melee", orders={"attack": "thrust"}), actor="amazon")
    event = out.events[0].event
    assert isinstance(event, OrdersCommitted) and event.required == ("amazon", "witch")


def test_track_sealed_keeps_the_picture_a_ruleset_needs() -> None:
    steps: dict[str, SealedStep] = {}
    nonce_a, nonce_b = "a" * 64, "b" * 64
    steps = track_sealed(steps, OrdersCommitted(step="r1", player="a", commitment=commitment({}, nonce_a),
                                                required=("a", "b")))
    assert steps["r1"].waiting() == [("b", "commit")]
    steps = track_sealed(steps, OrdersCommitted(step="r1", player="b", commitment="0" * 64, required=("a", "b")))
    steps = track_sealed(steps, OrdersRevealed(step="r1", player="b", orders={"x": 1}, nonce=nonce_b))
    assert steps["r1"].all_committed and not steps["r1"].complete and steps["r1"].waiting() == [("a", "reveal")]
    assert track_sealed(steps, decision_point("a", "flees")) is steps


def test_commitment_is_the_documented_hash() -> None:
    """docs/trust.md gives this recipe; computed here with hashlib and the JCS bytes written out."""
    import hashlib

    nonce = "00" * 32
    jcs = b'{"nonce":"' + nonce.encode() + b'","orders":{"attack":"thrust","box":2}}'
    expected = hashlib.sha256(b"combatlog-orders/v1\n" + jcs).hexdigest()
    assert commitment({"box": 2, "attack": "thrust"}, nonce) == expected


def test_a_roll_before_any_joint_seed_names_the_commands_to_paste() -> None:
    # the hint said "combatlog seal commit STREAM --step r1": a placeholder where the combat's name belongs
    store = open_store("memory:")
    create_combat(store, "duel", "freeform", actor="gm", dice="joint")
    execute(store, "duel", ff.Join(name="Aldo", side="red"), actor="gm")
    execute(store, "duel", ff.StartRound(), actor="gm")
    with pytest.raises(IllegalCommand, match="combatlog seal commit duel --step r1, then: combatlog seal reveal duel"):
        execute(store, "duel", ff.Act(who="Aldo", action="swings", roll="2d6"), actor="gm")
