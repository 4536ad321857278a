"""Magic Realm's secret plays sealed with the trust layer (MR 8.4.5; docs/magic_realm.md "Playing by email").

MR 8.4.5: every side plays its attack, maneuver and armor secretly, then all reveal together. With
pinned players each side commits its plays to step ``r<N>/plays`` (only a hash enters the log) and
reveals once every required commit is in; with ``joint`` dice that step seeds the round's
repositioning and change tactics dice (docs/trust.md, "Magic Realm plays").

The set-up: alice's Black Knight (``bk``) and bob's Amazon (``amazon``, no hirelings) against the
Giant (with its club) and two Axe Goblins. Chits played (ids as the set-up numbers them, level 4):
Black Knight M3 MOVE H6 and F3 FIGHT M4*; Amazon M1 MOVE M4 and F6 FIGHT M4* (`mr chits` lists them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from combatlog.errors import IllegalCommand, InvalidCommand, VerificationFailed
from combatlog.events.core import DecisionMarked, DiceRolled, OrdersRevealed
from combatlog.rulesets import available
from tests.trust.pbem import appended, export, forge, mail, pair, write_lines

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "giant", "monster": "Giant"}, {"id": "goblin-1", "monster": "Axe Goblin"},
                 {"id": "goblin-2", "monster": "Axe Goblin"}],
}
OWNER = {"bk": "alice", "amazon": "bob"}
# Legal plays for either sheet: counters left unplaced fill the red boxes 1, 2, 3 in turn (MR 001
# Attacks/Maneuvers); Black Knight and Amazon both carry a shield, which must be played (MR 8.4.5).
BK_PLAY = ("--attack", "smash", "--fight", "F3", "--maneuver", "charge", "--move", "M3", "--shield", "thrust")
AMAZON_PLAY = ("--attack", "thrust", "--fight", "F6", "--maneuver", "dodge", "--move", "M1", "--shield", "smash")


# -- two players, two machines, bundles only ------------------------------------------------------


def _pending(seat, stream: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return seat("status", stream, "--json").json()["pending"]  # type: ignore[no-any-return,index]


def test_a_sealed_round_by_mail_with_joint_dice(tmp_path: Path) -> None:
    G = "cave"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(SETUP))
    # The classic flow (commit and reveal for every seed step), as combats without nonce chains play it:
    # neither machine commits a chain (tests/trust/test_message_economy.py plays the chained flow).
    alice, bob = pair(tmp_path, G, ruleset="magic_realm", dice="joint", setup=str(setup),
                      env={"COMBATLOG_NONCE_CHAINS": "off"})
    seats = {"alice": alice, "bob": bob}
    bob("ack", G)
    bob("mr", "lure", G, "amazon", "goblin-1")
    mail(bob, alice, G, tmp_path)
    alice("mr", "lure", G, "bk", "giant")
    # goblin-2 is left for the random assignment: joint dice need a seed, and none exists yet.
    err = alice("mr", "assign", G, ok=False)
    assert err.code != 0 and "mr seed" in err.err
    alice("mr", "seed", G)  # step r1/assign: a nonce only
    mail(alice, bob, G, tmp_path)
    bob("mr", "seed", G)
    bob("mr", "reveal", G)  # alice is already bound by her commit
    mail(bob, alice, G, tmp_path)
    alice("mr", "reveal", G)
    alice("mr", "assign", G)  # r1/assign/goblin-2 from the seed of r1/assign
    alice("mr", "deploy", G, "bk")
    mail(alice, bob, G, tmp_path)
    bob("mr", "deploy", G, "amazon")
    bob("mr", "action", G, "amazon", "none")
    mail(bob, alice, G, tmp_path)
    alice("mr", "action", G, "bk", "none")
    alice("mr", "melee", G)  # the Attention chits, from the same seed (no choice since depended on it)
    holder = alice
    targets = {"bk": "giant", "amazon": "goblin-1"}
    for cid in alice("show", G, "--json").json()["state"]["attention"]:  # type: ignore[index]
        seat = seats[OWNER[cid]]
        if seat is not holder:
            mail(holder, seat, G, tmp_path)
            holder = seat
        seat("mr", "target", G, cid, targets[cid])
    first, second = holder, (bob if holder is alice else alice)
    plays = {"alice": ("bk", BK_PLAY), "bob": ("amazon", AMAZON_PLAY)}
    cid, args = plays[first.name]
    first("mr", "play", G, cid, *args, "--seal")
    # No reveal before every commit is in.
    early = first("mr", "reveal", G, ok=False)
    assert early.code != 0 and f"waiting for commits from {second.name}" in early.err
    sent = mail(first, second, G, tmp_path)
    # The other side cannot read the sealed plays: not in the bundle, the log or the views.
    assert b'"fight"' not in sent.read_bytes() and b'"F3"' not in sent.read_bytes()
    log = second("log", G, "--json").out
    assert '"fight"' not in log and "orders_committed" in log
    sheets = second("mr", "sheets", G, "--json").json()
    assert all("attack" not in s for s in sheets)  # type: ignore[union-attr]
    assert any(p["who"] == second.name and "--seal" in p["what"] for p in _pending(second, G))
    cid2, args2 = plays[second.name]
    second("mr", "play", G, cid2, *args2, "--seal")
    second("mr", "reveal", G)
    mail(second, first, G, tmp_path)
    first("mr", "reveal", G)  # the last reveal completes r1/plays: the round's joint seed
    first("mr", "resolve", G)  # repositioning and change tactics derive from the seed of r1/plays
    mail(first, second, G, tmp_path)
    second("ack", G)
    mail(second, first, G, tmp_path)

    va, vb = alice.verify(G), bob.verify(G)
    assert va["head_hash"] == vb["head_hash"] and va["signatures"] == va["head_seq"]
    assert not any("local or manual dice" in n for n in va["notes"])
    dice = alice("dice", G, "--json").json()["rolls"]  # type: ignore[index]
    labels = {d["label"] for d in dice}  # type: ignore[union-attr]
    assert "r1/assign/goblin-2" in labels and "r1/attention/1" in labels
    assert {"r1/reposition/bk", "r1/reposition/amazon"} <= labels
    assert all(d["scheme"] == "joint" for d in dice)  # type: ignore[union-attr]
    sa = alice("show", G, "--json").json()
    assert sa == bob("show", G, "--json").json()
    assert sa["state"]["step"] in ("fatigue", "lure", "deploy", "actions")  # type: ignore[index]  # the Melee Step is resolved


# -- in process: one log, both keys (fast) ------------------------------------------------------------


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return lambda **kw: _Game(tmp_path, **kw)


class _Game:
    def __init__(self, tmp: Path, dice: str = "joint", mode: str = "strict") -> None:
        from combatlog.wiring import create_combat
        from combatlog.store import open_store
        from combatlog.trust.keys import new_key
        from combatlog.trust.players import make_signer, pin_players

        for name in ("alice", "bob"):
            new_key(name)
        self.tmp = tmp
        self.store = open_store(str(tmp / "log.db"))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        self.signers = {"alice": sign_a, "bob": make_signer("bob")}
        create_combat(self.store, "g", "magic_realm", actor="alice", setup=SETUP, dice=dice, players=players,
                      signer=sign_a, options={"joint_dice": mode})

    def do(self, actor: str, command: Any, **kw: Any) -> Any:
        from combatlog.wiring import execute

        return execute(self.store, "g", command, actor=actor, signer=self.signers[actor], **kw)

    @property
    def folded(self):  # type: ignore[no-untyped-def]
        from combatlog.projections.fold import state_at

        return state_at(self.store, self.store.list_streams()[0])

    def events(self) -> list[Any]:
        from combatlog.projections.fold import history

        return [rec.event for rec in history(self.store, self.store.list_streams()[0], 1, self.folded.core.head_seq)]

    def seal_step(self, step: str) -> None:
        from combatlog.trust.commands import CommitOrders, RevealOrders

        self.do("alice", CommitOrders(step=step))
        self.do("bob", CommitOrders(step=step))
        self.do("bob", RevealOrders(step=step))
        self.do("alice", RevealOrders(step=step))

    def to_plays(self, faces: dict[str, tuple[int, ...]] | None = None) -> None:
        """Both lure everything (no random assignment), pass, take no action; then target selection."""
        from combatlog.rulesets.magic_realm import commands as c

        self.do("bob", c.Lure(character="amazon", denizens=("goblin-1", "goblin-2")))
        self.do("alice", c.Lure(character="bk", denizens=("giant",)))
        self.do("bob", c.Deploy(character="amazon"))
        self.do("alice", c.Deploy(character="bk"))
        self.do("alice", c.Act(character="bk", kind="none"))
        self.do("bob", c.Act(character="amazon", kind="none"))
        if faces is None:
            self.seal_step("r1/attention")
            self.do("bob", c.StartMelee())
        else:
            self.do("bob", c.StartMelee(), manual_faces=faces)
        for cid in self.folded.state.attention:
            self.do(OWNER[cid], c.Target(character=cid, target={"bk": "giant", "amazon": "goblin-1"}[cid]))
        assert self.folded.state.step == "plays"


def _orders(**plays: dict[str, Any]) -> dict[str, Any]:
    return {"plays": plays}


BK = {"attack": 3, "fight": "F3", "maneuver": 1, "move": "M3", "shield": 1}
AMAZON = {"attack": 1, "fight": "F6", "maneuver": 2, "move": "M1", "shield": 3}


def test_revealed_orders_become_the_plays_and_seed_the_resolution(game) -> None:  # type: ignore[no-untyped-def]
    from combatlog.rulesets.magic_realm import commands as c
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = game()
    g.to_plays()
    pending = {p.who: p.what for p in g.folded.ruleset.pending(g.folded.state)}
    assert "mr play" in pending["alice"] and "r1/plays" in pending["alice"]
    # MR 8.4.5 with pinned players: the plain, unsealed play is refused (it would travel in clear).
    with pytest.raises(IllegalCommand, match="--seal"):
        g.do("alice", c.Play(character="bk", shield=1))
    g.do("alice", CommitOrders(step="r1/plays", orders=_orders(bk=BK)))
    g.do("bob", CommitOrders(step="r1/plays", orders=_orders(amazon=AMAZON)))
    assert g.folded.state.plays == {}  # sealed: nothing known yet
    g.do("bob", RevealOrders(step="r1/plays"))
    reveal = g.do("alice", RevealOrders(step="r1/plays"))
    st = g.folded.state
    assert st.step == "resolve" and st.seed == "r1/plays"
    assert (st.plays["bk"].attack, st.plays["bk"].fight, st.plays["bk"].move) == (3, "F3", "M3")
    assert (st.plays["amazon"].maneuver, st.plays["amazon"].move) == (2, "M1")
    g.do("bob", c.Resolve())
    dice = [e for e in g.events() if isinstance(e, DiceRolled) and e.label.startswith("r1/reposition/")]
    # docs/trust.md, "Magic Realm plays": the repositioning dice derive from the seed completed by the last reveal.
    assert dice and all(d.scheme == "joint" and d.seed_ref == reveal.last_seq for d in dice)


def test_an_illegal_commit_is_refused_with_the_rule(game) -> None:  # type: ignore[no-untyped-def]
    from combatlog.trust.commands import CommitOrders

    g = game()
    g.to_plays()
    head = g.folded.core.head_seq
    # MR 8.4.5: an attack needs a Fight chit; M3 is a Move chit (mr play refuses the same).
    with pytest.raises(IllegalCommand) as err:
        g.do("alice", CommitOrders(step="r1/plays", orders=_orders(bk={**BK, "fight": "M3"})))
    assert err.value.rule == "MR 8.4.5"
    with pytest.raises(IllegalCommand, match="exactly his characters"):  # bob's Amazon is not alice's
        g.do("alice", CommitOrders(step="r1/plays", orders=_orders(bk=BK, amazon=AMAZON)))
    with pytest.raises(InvalidCommand, match="sealed as"):
        g.do("alice", CommitOrders(step="r1/plays", orders={"bk": BK}))
    with pytest.raises(IllegalCommand, match="round 1"):
        g.do("alice", CommitOrders(step="r2/plays", orders=_orders(bk=BK)))
    assert g.folded.core.head_seq == head


def test_a_reveal_before_every_commit_is_refused(game) -> None:  # type: ignore[no-untyped-def]
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = game()
    g.to_plays()
    g.do("alice", CommitOrders(step="r1/plays", orders=_orders(bk=BK)))
    with pytest.raises(IllegalCommand, match="waiting for commits from bob"):
        g.do("alice", RevealOrders(step="r1/plays"))
    # A modified client that appends the reveal anyway is caught by verify on the other side.
    g2_lines = export(g.store, g.tmp / "x.jsonl", stream="g")
    secret = json.loads(g.store.get_secret(f"orders:{_commitment(g, 'alice')}"))
    lines = appended(g2_lines, OrdersRevealed(step="r1/plays", player="alice", orders=secret["orders"],
                                              nonce=secret["nonce"]), actor="alice", signer=g.signers["alice"])
    from combatlog.wiring import verify_file

    with pytest.raises(VerificationFailed, match="before every required commit"):
        verify_file(write_lines(g.tmp / "early.jsonl", lines))


def _commitment(g: _Game, player: str) -> str:
    from combatlog.events.core import OrdersCommitted

    return next(e.commitment for e in g.events() if isinstance(e, OrdersCommitted) and e.player == player
                and e.step == "r1/plays")


def test_a_reveal_that_differs_from_its_commit_is_refused(game) -> None:  # type: ignore[no-untyped-def]
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = game()
    g.to_plays()
    g.do("alice", CommitOrders(step="r1/plays", orders=_orders(bk=BK)))
    g.do("bob", CommitOrders(step="r1/plays", orders=_orders(amazon=AMAZON)))
    # alice edits her kept orders after seeing... nothing yet, but she tries: smash becomes thrust.
    key = f"orders:{_commitment(g, 'alice')}"
    kept = json.loads(g.store.get_secret(key))
    kept["orders"]["plays"]["bk"]["attack"] = 1
    from combatlog.events.canonical import canonical

    g.store.put_secret(key, canonical(kept))
    with pytest.raises(IllegalCommand, match="do not match the commitment"):
        g.do("alice", RevealOrders(step="r1/plays"))
    # The same changed reveal forged into a bundle is refused by the other player's verify.
    lines = appended(export(g.store, g.tmp / "y.jsonl", stream="g"),
                     OrdersRevealed(step="r1/plays", player="alice", orders=kept["orders"], nonce=kept["nonce"]),
                     actor="alice", signer=g.signers["alice"])
    from combatlog.wiring import verify_file

    with pytest.raises(VerificationFailed, match="do not match the commitment"):
        verify_file(write_lines(g.tmp / "changed.jsonl", lines))


def test_a_forged_illegal_reveal_is_void_by_the_rules(game) -> None:  # type: ignore[no-untyped-def]
    # docs/trust.md: check_orders runs on the committing machine only, so evolve treats an illegal
    # revealed order by the rules. Decision (sealed.py): the character plays nothing this round.
    from combatlog.events.core import OrdersCommitted
    from combatlog.trust.api import commitment
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = game()
    g.to_plays()
    bad = _orders(bk={**BK, "fight": "M3"})
    nonce = "ab" * 32
    forge(g.store, "g", OrdersCommitted(step="r1/plays", player="alice", commitment=commitment(bad, nonce),
                                        required=("alice", "bob")), actor="alice", signer=g.signers["alice"])
    g.do("bob", CommitOrders(step="r1/plays", orders=_orders(amazon=AMAZON)))
    g.do("bob", RevealOrders(step="r1/plays"))
    forge(g.store, "g", OrdersRevealed(step="r1/plays", player="alice", orders=bad, nonce=nonce), actor="alice",
          signer=g.signers["alice"])
    st = g.folded.state
    assert st.step == "resolve" and st.plays["bk"].attack == 0 and st.plays["bk"].fight == ""
    assert any("void" in s.text and s.rule == "MR 8.4.5" for s in st.steps)


def test_lures_chosen_with_the_seed_known_need_a_fresh_seed(game) -> None:  # type: ignore[no-untyped-def]
    # docs/trust.md, "Decision points": here both players sealed r1/assign before
    # luring (as in round 2, where the lures follow the seed of r1/plays): the random assignment of
    # goblin-2 depends on the lures, so strict mode refuses it until a fresh seed step.
    from combatlog.rulesets.magic_realm import commands as c

    g = game()
    g.seal_step("r1/assign")
    g.do("bob", c.Lure(character="amazon", denizens=("goblin-1",)))
    g.do("alice", c.Lure(character="bk", denizens=("giant",)))
    head = g.folded.core.head_seq
    with pytest.raises(IllegalCommand, match="fresh seed") as err:
        g.do("alice", c.Assign())
    # r1/assign is complete, so the fresh seed step is named r1/assign#2 (what mr seed commits to).
    assert "(step r1/assign#2:" in str(err.value) and g.folded.core.head_seq == head
    g.seal_step("r1/assign#2")
    g.do("alice", c.Assign())
    assert "goblin-2" in g.folded.state.assigned


def test_friendly_mode_marks_the_decision_points(game) -> None:  # type: ignore[no-untyped-def]
    from combatlog.rulesets.magic_realm import commands as c

    g = game(mode="friendly")
    g.seal_step("r1/assign")
    g.do("bob", c.Lure(character="amazon", denizens=("goblin-1",)))
    g.do("alice", c.Lure(character="bk", denizens=("giant",)))
    g.do("alice", c.Assign())
    marks = [e for e in g.events() if isinstance(e, DecisionMarked)]
    assert {m.player for m in marks} == {"alice", "bob"}
    from combatlog.wiring import verify_stream
    from combatlog.commands.handler import resolve_stream

    report = verify_stream(g.store, resolve_stream(g.store, "g"))
    assert any("friendly mode" in n for n in report.notes)


def test_manual_dice_with_pinned_players_still_seal_the_plays(game) -> None:  # type: ignore[no-untyped-def]
    # Without joint dice only the owners of the characters in the fight must commit (MR 8.4.5).
    from combatlog.trust.commands import CommitOrders

    g = game(dice="manual")
    g.to_plays(faces={"r1/attention/1": (1,)})
    out = g.do("alice", CommitOrders(step="r1/plays", orders=_orders(bk=BK)))
    assert out.events[0].event.required == ("alice", "bob")
    assert g.folded.state.seed == ""  # no seed steps completed
