"""Checks before sealing (docs/trust.md, "Checks before sealing"): a play that the reveal would cancel
or void is refused on the player's own machine with the rule, before anything is sealed; ``--anyway``
seals it regardless and says so. The cases are the seeds' own examples.

Each refusal is checked to change nothing: no event, and no orders kept in the secrets.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets import available
from combatlog.trust.api import RefusedAtReveal
from tests.trust.test_my_move import OSRIC_SETUP, _pair, mail

needs_mr = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

# alice's Black Knight (level 4: Mace M, Armor H, Shield; chits M1 MOVE M5, M4 MOVE M4*, M3 MOVE H6,
# F3 FIGHT M4*) and bob's White Knight (level 4: Great Sword H, Armor H; chits M3 MOVE H4**, F7 FIGHT T5*,
# M4 MOVE T6*, F6 FIGHT T4**) against the Giant and an Axe Goblin.
MR_SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "wk", "character": "White Knight", "player": "bob", "level": 4}],
    "denizens": [{"id": "giant", "monster": "Giant"}, {"id": "goblin-1", "monster": "Axe Goblin"}],
}
OWNER = {"bk": "alice", "wk": "bob"}


class Game:
    """One log holding both keys (in process, fast), brought to the Melee Step's plays."""

    def __init__(self, tmp: Path, setup: dict[str, Any], ruleset: str = "magic_realm") -> None:
        from combatlog.wiring import create_combat
        from combatlog.store import open_store
        from combatlog.trust.keys import new_key
        from combatlog.trust.players import make_signer, pin_players

        for name in ("alice", "bob"):
            new_key(name)
        self.path = tmp / "log.db"
        self.store = open_store(str(self.path))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        self.signers = {"alice": sign_a, "bob": make_signer("bob")}
        create_combat(self.store, "g", ruleset, actor="alice", setup=setup, dice="manual", players=players,
                      signer=sign_a)

    def do(self, actor: str, command: Any, **kw: Any) -> Any:
        from combatlog.wiring import execute

        return execute(self.store, "g", command, actor=actor, signer=self.signers[actor], **kw)

    @property
    def folded(self):  # type: ignore[no-untyped-def]
        from combatlog.projections.fold import state_at

        return state_at(self.store, self.store.list_streams()[0])

    def secrets(self) -> int:
        with sqlite3.connect(self.path) as db:
            return int(db.execute("SELECT count(*) FROM secrets").fetchone()[0])

    def to_plays(self) -> None:
        from combatlog.rulesets.magic_realm import commands as c

        self.do("alice", c.Lure(character="bk", denizens=("giant",)))
        self.do("bob", c.Lure(character="wk", denizens=("goblin-1",)))
        self.do("alice", c.Deploy(character="bk"))
        self.do("bob", c.Deploy(character="wk"))
        self.do("alice", c.Act(character="bk", kind="none"))
        self.do("bob", c.Act(character="wk", kind="none"))
        self.do("alice", c.StartMelee(), manual_faces={"r1/attention/1": (1,)})
        for cid in self.folded.state.attention:
            self.do(OWNER[cid], c.Target(character=cid, target={"bk": "giant", "wk": "goblin-1"}[cid]))
        assert self.folded.state.step == "plays"

    def refused(self, actor: str, plays: dict[str, Any]) -> RefusedAtReveal:
        """Commit ``plays``: it must be refused before the rules' reveal, changing nothing."""
        from combatlog.trust.commands import CommitOrders

        head, kept = self.folded.core.head_seq, self.secrets()
        with pytest.raises(RefusedAtReveal) as err:
            self.do(actor, CommitOrders(step="r1/plays", orders={"plays": plays}))
        assert self.folded.core.head_seq == head and self.secrets() == kept
        assert "--anyway" in err.value.message
        return err.value


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))

    def make(setup: dict[str, Any] = MR_SETUP, ruleset: str = "magic_realm") -> Game:
        return Game(tmp_path, setup, ruleset)

    return make


BK = {"attack": 3, "fight": "F3", "maneuver": 1, "move": "M3", "shield": 1}  # legal: M3 MOVE H6, F3 FIGHT M4*


@needs_mr
def test_a_move_chit_weaker_than_heavy_armor_is_refused_before_sealing(game) -> None:  # type: ignore[no-untyped-def]
    # MR 8.4.5 Strength Restrictions: "The Black Knight cannot use his Move M4 chit to maneuver as long as
    # he has his Heavy armor (even if inactive)"; the reveal would cancel the maneuver (and with it his
    # only defence). His MOVE M5 (M1) the same.
    g = game()
    g.to_plays()
    for chit in ("M4", "M1"):
        err = g.refused("alice", {"bk": {**BK, "move": chit}})
        assert err.rule == "MR 8.4.5 strength restrictions"
        assert f"bk's maneuver with {chit} MOVE M" in err.message and "heaviest item carried (H)" in err.message


@needs_mr
def test_plays_beyond_the_effort_limit_are_refused_before_sealing(game) -> None:  # type: ignore[no-untyped-def]
    # MR 8.4.5 Effort Limit: "If the White Knight plays his Move H4** chit to maneuver, he cannot play his
    # Fight T5* chit to attack." (maneuver first, the default effort_order: the attack is cancelled)
    g = game()
    g.to_plays()
    err = g.refused("bob", {"wk": {"attack": 1, "fight": "F7", "maneuver": 2, "move": "M3"}})
    assert err.rule == "MR 8.4.5 effort limit"
    assert "wk's attack with F7 FIGHT T5* would be cancelled at the reveal: effort limit: 3 asterisks" in err.message


@needs_mr
def test_a_wrong_chit_or_a_counter_not_on_the_sheet_is_refused_before_sealing(game) -> None:  # type: ignore[no-untyped-def]
    g = game()
    g.to_plays()
    # MR 8.4.5: an attack is played with a Fight chit; M3 is a Move chit: the reveal would void his plays.
    err = g.refused("alice", {"bk": {**BK, "fight": "M3", "move": "M2"}})
    assert err.rule == "MR 8.4.5" and "not a FIGHT/BERSERK chit" in err.message and "play nothing" in err.message
    # MR 8.4.5 / 001: he places the counters on his own sheet; goblin-1 attacks the White Knight.
    err = g.refused("alice", {"bk": {**BK, "place": {"goblin-1": 2}}})
    assert "goblin-1 is not on bk's sheet" in err.message
    # what can never be sealed is refused as before, --anyway or not
    from combatlog.trust.commands import CommitOrders

    with pytest.raises(InvalidCommand, match="has no chit"):
        g.do("alice", CommitOrders(step="r1/plays", orders={"plays": {"bk": {**BK, "fight": "F99"}}}, anyway=True))
    with pytest.raises(IllegalCommand, match="exactly his characters"):
        g.do("alice", CommitOrders(step="r1/plays", orders={"plays": {"wk": BK}}, anyway=True))


@needs_mr
def test_sealed_anyway_the_reveal_cancels_exactly_what_the_check_named(game) -> None:  # type: ignore[no-untyped-def]
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = game()
    g.to_plays()
    weak = {**BK, "move": "M1"}
    g.do("alice", CommitOrders(step="r1/plays", orders={"plays": {"bk": weak}}, anyway=True))
    g.do("bob", CommitOrders(step="r1/plays", orders={"plays": {"wk": {"attack": 1, "fight": "F7", "maneuver": 2,
                                                                       "move": "M3"}}}, anyway=True))
    g.do("bob", RevealOrders(step="r1/plays"))
    g.do("alice", RevealOrders(step="r1/plays"))
    st = g.folded.state
    assert st.cancelled == {"bk/maneuver": "MOVE M5 is weaker than the heaviest item carried (H)",
                            "wk/attack": "effort limit: 3 asterisks this round (more than two)"}


# -- through the CLI: the rule in the error, --anyway said in the output --------------------------------


def test_osric_declarations_the_round_would_refuse_are_refused_before_sealing(tmp_path: Path) -> None:
    S = "skirmish"
    setup = json.loads(json.dumps(OSRIC_SETUP))
    setup["combatants"][3]["weapons"] = ["scimitar"]  # orc2: no missile or throwing weapon
    alice, bob = _pair(tmp_path, S, "osric", setup, "joint")
    alice("osric", "round", S)
    mail(alice, bob, S, tmp_path)
    head = json.loads(alice("list", "--json").out)[0]["head_seq"]
    # OSRIC Combat: Melee Attack: an attack's target is an opponent; Brom's is his own side's Halvaine.
    own = alice("osric", "declare", S, "party", "Brom=melee@Halvaine", "Halvaine=melee", "--seal", ok=False)
    assert own.code == 4 and "Halvaine is on its own side" in own.err and "(OSRIC Combat: Melee Attack)" in own.err
    assert "--anyway" in own.err
    # OSRIC Combat: Missile Attacks ("performed with ranged weapons like crossbows, slings, or thrown
    # axes"): a long sword is not one.
    sword = alice("osric", "declare", S, "party", "Brom=missile:long sword", "Halvaine=melee", "--seal", ok=False)
    assert sword.code == 4 and "a long sword is not a missile or throwing weapon" in sword.err
    assert "OSRIC Combat: Missile Attacks" in sword.err
    # OSRIC Combat: Declare Spells and General Actions is still checked as before (set needs a set weapon)
    setw = alice("osric", "declare", S, "party", "Brom=set", "Halvaine=melee", "--seal", ok=False)
    assert setw.code == 4 and "no weapon that can be set against a charge" in setw.err and "--anyway" in setw.err
    assert json.loads(alice("list", "--json").out)[0]["head_seq"] == head  # nothing appended
    assert json.loads(alice("seal", "show", S, "--json").out)["sealed"] == []  # nothing kept
    # bob's orc2 carries only a scimitar: no missile attack to make
    mail(alice, bob, S, tmp_path)
    orc = bob("osric", "declare", S, "orcs", "orc1=melee", "orc2=missile@Brom", "--seal", ok=False)
    assert orc.code == 4 and "orc2 carries no missile or throwing weapon (scimitar)" in orc.err
    # --anyway: sealed, and the output says so
    sealed = alice("osric", "declare", S, "party", "Brom=melee@Halvaine", "Halvaine=melee", "--seal", "--anyway")
    assert "sealed anyway, as you chose: Brom's target Halvaine is on its own side" in sealed.out
    shown = json.loads(alice("seal", "show", S, "--json").out)["sealed"]
    assert shown[0]["orders"]["declarations"][0] == {"who": "Brom", "action": "melee", "target": "Halvaine"}


@needs_mr
def test_mr_play_seal_refuses_with_the_rule_and_anyway_says_so(tmp_path: Path) -> None:
    G = "cave"
    alice, bob = _pair(tmp_path, G, "magic_realm", MR_SETUP, "manual")
    bob("mr", "lure", G, "wk", "goblin-1")
    mail(bob, alice, G, tmp_path)
    alice("mr", "lure", G, "bk", "giant")
    alice("mr", "deploy", G, "bk")
    mail(alice, bob, G, tmp_path)
    bob("mr", "deploy", G, "wk")
    bob("mr", "action", G, "wk", "none")
    mail(bob, alice, G, tmp_path)
    alice("mr", "action", G, "bk", "none")
    alice("mr", "melee", G, "--face", "r1/attention/1=1")
    mail(alice, bob, G, tmp_path)
    first = json.loads(bob("show", G, "--json").out)["state"]["attention"][0]
    seats, targets = {"bk": alice, "wk": bob}, {"bk": "giant", "wk": "goblin-1"}
    holder = bob
    for cid in (first, "wk" if first == "bk" else "bk"):
        if seats[cid] is not holder:
            mail(holder, seats[cid], G, tmp_path)
            holder = seats[cid]
        holder("mr", "target", G, cid, targets[cid])
    if holder is not alice:
        mail(holder, alice, G, tmp_path)
    play = ("mr", "play", G, "bk", "--attack", "smash", "--fight", "F3", "--maneuver", "charge", "--move", "M1",
            "--shield", "1", "--seal")
    refused = alice(*play, ok=False)
    assert refused.code == 4 and "(MR 8.4.5 strength restrictions)" in refused.err
    assert "M1 MOVE M5 would be cancelled at the reveal" in refused.err and "--anyway" in refused.err
    assert json.loads(alice("seal", "show", G, "--json").out)["sealed"] == []
    out = json.loads(alice(*play, "--anyway", "--json").out)
    assert out["sealed_anyway"]["rule"] == "MR 8.4.5 strength restrictions"
    assert out["events"][0]["type"] == "core.orders_committed"
    assert "sealed anyway" not in alice("log", G).out  # the choice is local: nothing of it is in the log
    plain = alice("mr", "play", G, "bk", "--anyway", ok=False)
    assert plain.code == 3 and "--anyway goes with --seal" in plain.err


def test_seal_commit_checks_like_the_rulesets_commands(tmp_path: Path) -> None:
    # seal commit runs the same check (here OSRIC's), with --anyway too
    S = "skirmish"
    alice, bob = _pair(tmp_path, S, "osric", OSRIC_SETUP, "manual")
    alice("osric", "round", S)
    orders = json.dumps({"side": "party", "declarations": [{"who": "Brom", "action": "melee", "target": "Halvaine"},
                                                           {"who": "Halvaine", "action": "melee"}]})
    refused = alice("seal", "commit", S, "--step", "r1/declare", "--orders-json", orders, ok=False)
    assert refused.code == 4 and "on its own side" in refused.err
    done = alice("seal", "commit", S, "--step", "r1/declare", "--orders-json", orders, "--anyway")
    assert "sealed anyway" in done.out




def test_osric_a_monster_that_failed_morale_cannot_seal_an_attack(tmp_path: Path) -> None:
    # OSRIC Combat: Morale (reference osric.md, "Morale": fail by up to 25%: fighting withdrawal, 26-50%:
    # flee): osric attack would refuse the declared attack, so it is refused before sealing.
    S = "skirmish"
    alice, bob = _pair(tmp_path, S, "osric", OSRIC_SETUP, "manual")
    alice("osric", "round", S)
    alice("osric", "declare", S, "party", "--rest", "parry", "--seal")
    mail(alice, bob, S, tmp_path)
    bob("osric", "declare", S, "orcs", "--rest", "parry", "--seal")
    bob("osric", "reveal", S)
    mail(bob, alice, S, tmp_path)
    alice("osric", "reveal", S)
    alice("osric", "initiative", S, "--face", "r1/initiative/party=3", "--face", "r1/initiative/orcs=4")
    # HD 1: 55%; d100 90 fails by 35 (flee), d100 70 by 15 (fighting withdrawal)
    alice("osric", "morale", S, "orc1", "orc2", "--face", "r1/morale/orc1=90", "--face", "r1/morale/orc2=70")
    alice("osric", "end-round", S)
    alice("osric", "round", S)
    mail(alice, bob, S, tmp_path)
    flee = bob("osric", "declare", S, "orcs", "orc1=melee", "orc2=parry", "--seal", ok=False)
    assert flee.code == 4 and "orc1 failed morale and must flee: melee will be refused (OSRIC Combat: Morale)" in flee.err
    withdraw = bob("osric", "declare", S, "orcs", "orc1=flee", "orc2=melee", "--seal", ok=False)
    assert withdraw.code == 4 and "orc2 is making a fighting withdrawal" in withdraw.err
    bob("osric", "declare", S, "orcs", "orc1=flee", "orc2=parry", "--seal")  # what morale leaves them
