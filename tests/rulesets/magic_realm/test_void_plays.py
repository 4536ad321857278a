"""Sealed plays that the rules void at the reveal, and the hit on a character who made no maneuver.

Seed 000 (MR 8.4.5, line 124): "Illegal plays are cancelled and have no effect, and the chits that were
played are put in their owner's Used This Round box. They cannot be played again that round and their
effort asterisks do count towards their owner's effort limit and fatigue." A sealed play the reveal voids
(a client that skipped the check, or ``--anyway``) must therefore count its chits as the plain ``mr play``
path counts a cancelled chit.

Seed 000 (MR 8.4.8, line 190): "Special: If a character does not play a maneuver, all of the denizen
counters on his sheet intercept and hit him": the hit is an intercept, and the explanation gives that
reason in both the 8.4.8 and the 8.4.9 lines.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.rulesets.magic_realm.mr_helpers import Game, char

from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.fatigue import owed
from combatlog.rulesets.magic_realm.plays import void_chits

# Black Knight level 4 (data/characters.json): Mace, Armor (H), Shield; chits F6 FIGHT H4**, M3 MOVE H6,
# F1 FIGHT H5*, F3 FIGHT M4*. Amazon level 4: Short Sword, Helmet, Breastplate, Shield; F6 FIGHT M4*,
# M1 MOVE M4. One Axe Goblin on each sheet.
SETUP = {
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "g1", "monster": "Axe Goblin"}, {"id": "g2", "monster": "Axe Goblin"}],
    "assigned": {"g1": "bk", "g2": "amazon"},
}
OWNER = {"bk": "alice", "amazon": "bob"}
# The tester's plays: the Black Knight forgets his active Shield (MR 8.4.5: "if he has a shield or other
# armor active he must play it"), so his whole play is void at the reveal.
BK_VOID = {"attack": 2, "fight": "F6", "maneuver": 2, "move": "M3"}
AMAZON = {"attack": 1, "fight": "F6", "maneuver": 2, "move": "M1", "shield": 3}


class Sealed:
    """Two pinned players (alice: bk, bob: amazon), manual dice, one log holding both keys."""

    def __init__(self, tmp: Path) -> None:
        from combatlog.store import open_store
        from combatlog.trust.keys import new_key
        from combatlog.trust.players import make_signer, pin_players
        from combatlog.wiring import create_combat

        for name in ("alice", "bob"):
            new_key(name)
        self.store = open_store(str(tmp / "log.db"))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        self.signers = {"alice": sign_a, "bob": make_signer("bob")}
        create_combat(self.store, "v", "magic_realm", actor="alice", setup=SETUP, dice="manual", players=players,
                      signer=sign_a)

    def do(self, actor: str, command: Any, faces: dict[str, tuple[int, ...]] | None = None) -> Any:
        from combatlog.wiring import execute

        return execute(self.store, "v", command, actor=actor, signer=self.signers[actor], manual_faces=faces or {})

    @property
    def state(self):  # type: ignore[no-untyped-def]
        from combatlog.projections.fold import state_at

        return state_at(self.store, self.store.list_streams()[0]).state

    def to_plays(self) -> None:
        self.do("alice", c.Deploy(character="bk"))
        self.do("bob", c.Deploy(character="amazon"))
        self.do("bob", c.Act(character="amazon", kind="none"))
        self.do("alice", c.Act(character="bk", kind="none"))
        self.do("alice", c.StartMelee(), {"r1/attention/1": (1,)})
        for cid in self.state.attention:
            self.do(OWNER[cid], c.Target(character=cid, target={"bk": "g1", "amazon": "g2"}[cid]))
        assert self.state.step == "plays"


@pytest.fixture
def sealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sealed:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return Sealed(tmp_path)


def test_a_void_sealed_play_still_counts_its_chits_for_effort_and_fatigue(sealed: Sealed) -> None:
    # Seed 000 line 124 (MR 8.4.5 "Illegal plays"): the void play's chits go to Used This Round and their
    # asterisks count toward fatigue. Hand calculation (data/magic_realm/tables.md "Fatigue Step": owed =
    # MOVE + FIGHT asterisks played - 1 free): FIGHT H4** (2) + MOVE H6 (0) = 2, - 1 = 1 owed, all Fight.
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = sealed
    g.to_plays()
    bk = g.state.characters["bk"]
    assert (bk.chit("F6").label, bk.chit("M3").label) == ("FIGHT H4**", "MOVE H6")
    g.do("alice", CommitOrders(step="r1/plays", orders={"plays": {"bk": BK_VOID}}, anyway=True))
    g.do("bob", CommitOrders(step="r1/plays", orders={"plays": {"amazon": AMAZON}}))
    out = g.do("alice", RevealOrders(step="r1/plays"))
    said = [s.text for s in out.steps]
    assert any("void, he plays nothing this round" in t and "F6 FIGHT H4**, M3 MOVE H6" in t
               and "still count toward his effort limit and fatigue" in t for t in said)
    out = g.do("bob", RevealOrders(step="r1/plays"))
    st = g.state
    # the void play has no effect (no attack, no maneuver, no shield) ...
    assert (st.plays["bk"].attack, st.plays["bk"].fight, st.plays["bk"].maneuver, st.plays["bk"].shield) == (0, "", 0, 0)
    # ... but its chits are in Used This Round, counted as the plain path counts a cancelled chit
    assert set(st.used["bk"]) == {"F6", "M3"}
    assert owed(st.characters["bk"], st.used["bk"]) == (1, {"FIGHT": 2})
    said = [(s.rule, s.text) for s in out.steps]
    assert ("MR 8.4.5", "Black Knight's void play with FIGHT H4** is cancelled; the chit still counts toward his "
            "effort limit and fatigue") in said
    # Reposition die 4 keeps a counter in box 1 (MR tables: Repositioning Denizens Table); no 6: no change.
    out = g.do("bob", c.Resolve(), {"r1/reposition/bk": (4,), "r1/reposition/amazon": (4,),
                                    "r1/tactics/bk/box1": (1, 1), "r1/tactics/amazon/box1": (1, 1)})
    st = g.state
    # the round now has a Fatigue Step for him (it had none: he owed 0)
    assert st.step == "fatigue" and st.owed["bk"] == 1
    assert not any(a.attacker == "bk" for a in st.melee.attacks)  # void: his attack never happened
    texts = [s.text for s in out.steps]
    assert any(t.startswith("Black Knight owes 1 asterisk(s) of fatigue") for t in texts)


def test_the_hit_on_a_character_with_no_maneuver_is_an_intercept_with_its_reason(sealed: Sealed) -> None:
    # Seed 000 line 190 (MR 8.4.8): "If a character does not play a maneuver, all of the denizen counters on
    # his sheet intercept and hit him". The Black Knight's void play leaves him without a maneuver, so g1
    # intercepts and hits him; the 8.4.9 line gives the same reason as the 8.4.8 line (tester's report).
    from combatlog.rulesets.magic_realm.hits import NO_MANEUVER
    from combatlog.trust.commands import CommitOrders, RevealOrders

    g = sealed
    g.to_plays()
    g.do("alice", CommitOrders(step="r1/plays", orders={"plays": {"bk": BK_VOID}}, anyway=True))
    g.do("bob", CommitOrders(step="r1/plays", orders={"plays": {"amazon": AMAZON}}))
    g.do("alice", RevealOrders(step="r1/plays"))
    g.do("bob", RevealOrders(step="r1/plays"))
    out = g.do("bob", c.Resolve(), {"r1/reposition/bk": (4,), "r1/reposition/amazon": (4,),
                                    "r1/tactics/bk/box1": (1, 1), "r1/tactics/amazon/box1": (1, 1)})
    attacks = next(r.attacks for r in g.state.resolved if r.round == 1)
    hit = next(a for a in attacks if a.attacker == "g1")
    assert (hit.hit, hit.why) == ("intercept", NO_MANEUVER)
    said = [(s.rule, s.text) for s in out.steps]
    assert ("MR 8.4.8", f"g1 (Axe Goblin) thrust at time 4 on Black Knight (bk): intercepts and hits, {NO_MANEUVER}") \
        in said
    assert ("MR 8.4.9", f"g1 (Axe Goblin) hits Black Knight (bk) (intercept: {NO_MANEUVER})") in said


def test_the_check_before_sealing_says_the_void_chits_would_still_count(sealed: Sealed) -> None:
    # docs/trust.md "Checks before sealing": the refusal names what the reveal would do; seed 000 line 124:
    # the chits of the void play still count (F6 FIGHT H4**, M3 MOVE H6).
    from combatlog.trust.api import RefusedAtReveal
    from combatlog.trust.commands import CommitOrders

    g = sealed
    g.to_plays()
    with pytest.raises(RefusedAtReveal) as err:
        g.do("alice", CommitOrders(step="r1/plays", orders={"plays": {"bk": BK_VOID}}))
    text = str(err.value)
    assert "play nothing" in text and "F6 FIGHT H4**, M3 MOVE H6 would still count" in text
    assert g.state.sealed.get("r1/plays") is None  # refused: nothing sealed


def test_void_chits_are_only_the_chits_he_could_have_played() -> None:
    # Seed 000 line 124 puts "the chits that were played" in Used This Round. Decision (plays.void_chits): a
    # chit he could not have put on his sheet (unknown, fatigued) played nothing; a chit named twice is one
    # chit. Set-up: Black Knight level 4 with M3 MOVE H6 fatigued.
    setup = {"first_round_of_day": False,
             "characters": [char("bk", "Black Knight", chits={"M3": "fatigued"})],
             "denizens": [{"id": "g1", "monster": "Axe Goblin"}], "assigned": {"g1": "bk"}}
    g = Game(setup)
    g.encounter(["bk"])
    g.do(c.Target(character="bk", target="g1"))
    st = g.state
    assert st.step == "plays" and st.characters["bk"].chit("M3").status == "fatigued"
    assert void_chits(st, c.Play(character="bk", fight="F6", move="M3")) == ("F6",)
    assert void_chits(st, c.Play(character="bk", fight="F6", move="F6")) == ("F6",)
    assert void_chits(st, c.Play(character="bk", fight="F99", move="M1")) == ("M1",)
    assert void_chits(st, c.Play(character="bk")) == ()
