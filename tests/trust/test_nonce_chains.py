"""Nonce chains: joint dice seeds from chain links instead of a commit and a reveal per step
(docs/trust.md, "Nonce chains: joint dice without extra messages").

In-process, on a signed freeform duel (alice and bob pinned, joint dice): each case says which rule of
that section it checks, and each attack is performed the way a modified client would (``forge``: signed,
appended without the write path's checks) so that ``verify`` alone must catch it, or through the write
path, which must refuse it and append nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from combatlog.errors import IllegalCommand, VerificationFailed
from combatlog.events.core import ChainCommitted, ChainReleased, DiceRolled, LinkRevealed, OrdersRevealed
from combatlog.trust.crypto import chain_link, chain_step, joint_seed
from tests.trust.pbem import export, forge, key_home


@pytest.fixture
def duel(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[_Duel] = []

    def make(**kw: Any) -> _Duel:
        where = tmp_path / f"duel{len(made)}"
        where.mkdir()
        with key_home(where / "home"):
            made.append(_Duel(where, **kw))
        return made[-1]

    with key_home(tmp_path / "home"):
        yield make


class _Duel:
    def __init__(self, tmp: Path, mode: str = "strict", chains: tuple[str, ...] = ("alice", "bob")) -> None:
        from combatlog.wiring import create_combat
        from combatlog.rulesets.freeform import commands as ff
        from combatlog.store import open_store
        from combatlog.trust.commands import CommitChain
        from combatlog.trust.keys import new_key
        from combatlog.trust.players import make_signer, pin_players

        self.tmp = tmp
        for name in ("alice", "bob"):
            new_key(name)
        self.store = open_store(str(tmp / "log.db"))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        self.signers = {"alice": sign_a, "bob": make_signer("bob")}
        create_combat(self.store, "duel", "freeform", actor="alice", dice="joint", players=players, signer=sign_a,
                      options={"joint_dice": mode})
        self.do("alice", ff.Join(name="Aldo", side="red", hp=12))
        self.do("bob", ff.Join(name="Bo", side="blue", hp=10))
        for p in chains:
            self.do(p, CommitChain(length=8))

    def do(self, actor: str, command: Any, **kw: Any) -> Any:
        from combatlog.wiring import execute

        with key_home(self.tmp / "home"):
            return execute(self.store, "duel", command, actor=actor, signer=self.signers[actor], **kw)

    def link(self, actor: str, step: str) -> Any:
        from combatlog.trust.commands import RevealLink

        return self.do(actor, RevealLink(step=step))

    def head(self) -> int:
        return self.store.head(self.store.list_streams()[0].id).seq

    def events(self) -> list[Any]:
        from combatlog.projections.fold import history

        meta = self.store.list_streams()[0]
        return [rec.event for rec in history(self.store, meta, 1, self.head())]

    def secret(self, player: str) -> str:
        head = next(e.head for e in self.events() if isinstance(e, ChainCommitted) and e.player == player)
        return self.store.get_secret(f"chain:{head}").decode()  # type: ignore[union-attr]

    def forge(self, actor: str, event: Any) -> None:
        forge(self.store, "duel", event, actor=actor, signer=self.signers[actor])

    def verify(self) -> Any:
        from combatlog.commands.handler import resolve_stream
        from combatlog.wiring import verify_stream

        return verify_stream(self.store, resolve_stream(self.store, "duel"))

    def verify_file(self) -> Any:
        from combatlog.wiring import verify_file

        path = self.tmp / "out.jsonl"
        export(self.store, path)
        return verify_file(path)


def _roll(duel: _Duel, actor: str = "alice", who: str = "Aldo") -> Any:
    from combatlog.rulesets.freeform import commands as ff

    return duel.do(actor, ff.Act(who=who, action="strikes", roll="1d20"))


def test_links_seed_the_joint_dice_in_one_message_each(duel) -> None:  # type: ignore[no-untyped-def]
    # "Nonce chains", rules 1-2: each link hashes to the one before; the seed is joint_seed over the links.
    from combatlog.rulesets.freeform import commands as ff

    d = duel()
    d.link("alice", "r1")
    out = d.link("bob", "r1")
    links = {e.player: e for e in d.events() if isinstance(e, LinkRevealed)}
    assert {p: e.index for p, e in links.items()} == {"alice": 1, "bob": 1}
    for p in ("alice", "bob"):
        assert chain_step(links[p].link) == next(e.head for e in d.events()
                                                 if isinstance(e, ChainCommitted) and e.player == p)
    d.do("alice", ff.StartRound())
    _roll(d)
    die = next(e for e in d.events() if isinstance(e, DiceRolled))
    assert die.seed_ref == out.last_seq
    from combatlog.dice.derive import derive_faces
    from combatlog.projections.fold import history

    meta = d.store.list_streams()[0]
    genesis_hash = next(iter(history(d.store, meta, 1, 1))).env.hash
    seed = joint_seed(genesis_hash, "r1", {p: e.link for p, e in links.items()})
    assert derive_faces(seed, die.label, 1, 20) == die.faces
    # the next step uses link 2 of each chain
    d.link("bob", "r2")
    d.link("alice", "r2")
    assert [e.index for e in d.events() if isinstance(e, LinkRevealed)][-2:] == [2, 2]
    report = d.verify_file()
    assert report.head_seq == d.head()


def test_sealed_orders_in_a_chained_step_use_the_next_link_as_their_nonce(duel) -> None:  # type: ignore[no-untyped-def]
    # Rule 2: a player with orders commits and reveals them; the nonce is his next link, so it was fixed by his
    # chain and cannot be ground after seeing the other contributions.
    from combatlog.trust.commands import CommitOrders, RevealOrders

    d = duel()
    d.link("bob", "r1")
    d.do("alice", CommitOrders(step="r1", orders={"Aldo": "thrust"}))
    d.do("alice", RevealOrders(step="r1"))
    reveal = next(e for e in d.events() if isinstance(e, OrdersRevealed))
    assert reveal.nonce == chain_link(d.secret("alice"), 8, 1)
    d.verify_file()


@pytest.mark.parametrize("case", ["reused", "skipped", "invented"])
def test_a_reused_a_skipped_or_an_invented_link_is_refused(duel, case: str) -> None:  # type: ignore[no-untyped-def]
    # Rule 1 ("revealed in order, never reused"). Attack: bob replays his link 1 for step r2 (a contribution
    # everyone already knows), skips to link 3, or sends 32 bytes of his choosing: verify refuses each.
    d = duel()
    d.link("alice", "r1")
    d.link("bob", "r1")
    first = next(e for e in d.events() if isinstance(e, LinkRevealed) and e.player == "bob")
    event, message = {
        "reused": (LinkRevealed(step="r2", player="bob", index=1, link=first.link), "next link is 2"),
        "skipped": (LinkRevealed(step="r2", player="bob", index=3, link=chain_link(d.secret("bob"), 8, 3)),
                    "next link is 2"),
        "invented": (LinkRevealed(step="r2", player="bob", index=2, link="ab" * 32), "not link 2"),
    }[case]
    d.forge("bob", event)
    with pytest.raises(VerificationFailed, match=message):
        d.verify_file()


def test_a_second_link_to_one_step_and_a_link_without_a_chain_are_refused(duel) -> None:  # type: ignore[no-untyped-def]
    from combatlog.trust.commands import RevealLink

    d = duel(chains=("alice",))
    head = d.head()
    # bob has no chain: the step cannot be seeded by links at all (nobody may contribute a link to it).
    with pytest.raises(IllegalCommand, match="bob committed no nonce chain"):
        d.link("alice", "r1")
    with pytest.raises(IllegalCommand, match="committed no nonce chain"):
        d.do("bob", RevealLink(step="r1"))
    assert d.head() == head
    d2 = duel()
    d2.link("alice", "r1")
    head = d2.head()
    with pytest.raises(IllegalCommand, match="already contributed"):
        d2.link("alice", "r1")
    assert d2.head() == head


def test_a_chain_committed_while_a_seed_step_is_open_is_refused(duel) -> None:  # type: ignore[no-untyped-def]
    # Attack: bob waits until alice's contribution to r1 is public, then commits a chain whose first link he
    # ground offline to give r1 the seed he likes. Chains are committed between seed steps only.
    from combatlog.events.core import OrdersCommitted
    from combatlog.trust.commands import CommitOrders

    d = duel(chains=("alice",))
    d.do("alice", CommitOrders(step="r1"))
    d.forge("bob", ChainCommitted(player="bob", head="cd" * 32, length=8))
    with pytest.raises(VerificationFailed, match="while seed step r1 is open"):
        d.verify_file()
    assert OrdersCommitted  # the classic commit above opened r1


def test_a_fresh_nonce_in_a_chained_step_is_refused(duel) -> None:  # type: ignore[no-untyped-def]
    # Attack: in a chained step bob sees alice's link, then seals "orders" with a nonce ground offline so that
    # the seed suits him. His nonce must be his next link: verify refuses any other.
    from combatlog.events.core import OrdersCommitted
    from combatlog.trust.crypto import commitment

    d = duel()
    d.link("alice", "r1")
    ground = "ef" * 32
    d.forge("bob", OrdersCommitted(step="r1", player="bob", commitment=commitment({}, ground),
                                   required=("alice", "bob")))
    d.forge("bob", OrdersRevealed(step="r1", player="bob", orders={}, nonce=ground))
    with pytest.raises(VerificationFailed, match="not link 1 of his chain"):
        d.verify_file()


def test_a_released_chain_contributes_by_itself(duel) -> None:  # type: ignore[no-untyped-def]
    # Rule 4: after alice's release, every later seed step takes her next link without a message from her,
    # and anyone can check it from the secret she published.
    from combatlog.trust.commands import ReleaseChain

    d = duel()
    d.do("alice", ReleaseChain())
    out = d.link("bob", "r1")  # completes r1 alone
    from combatlog.rulesets.freeform import commands as ff

    d.do("bob", ff.StartRound())
    _roll(d, "bob", "Bo")
    die = next(e for e in d.events() if isinstance(e, DiceRolled))
    assert die.seed_ref == out.last_seq
    d.link("bob", "r2")
    report = d.verify_file()
    assert any("only bob's links are still secret" in n for n in report.notes)
    # bob is now the last player whose links are secret: he may not release (every seed would be public).
    head = d.head()
    with pytest.raises(IllegalCommand, match="last player whose links are secret"):
        d.do("bob", ReleaseChain())
    assert d.head() == head


def test_a_release_with_a_false_secret_is_refused(duel) -> None:  # type: ignore[no-untyped-def]
    # Attack: alice "releases" a secret that is not her chain's, so that her later links are whatever that
    # secret gives (chosen after seeing bob's).
    d = duel()
    d.forge("alice", ChainReleased(player="alice", secret="12" * 32))
    with pytest.raises(VerificationFailed, match="does not hash to the head"):
        d.verify_file()


def test_a_release_before_revealing_sealed_orders_is_refused(duel) -> None:  # type: ignore[no-untyped-def]
    from combatlog.trust.commands import CommitOrders, ReleaseChain

    d = duel()
    d.do("alice", CommitOrders(step="r1", orders={"Aldo": "thrust"}))
    head = d.head()
    with pytest.raises(IllegalCommand, match="before revealing what he sealed"):
        d.do("alice", ReleaseChain())
    assert d.head() == head


@pytest.mark.parametrize("mode", ["strict", "friendly"])
def test_a_decision_with_every_other_link_public_is_a_decision_point(duel, mode: str) -> None:  # type: ignore[no-untyped-def]
    # Rule 3, the foreknowledge attack: alice's link to r1 is public; bob knows his own next link, so he can
    # compute r1's seed before revealing. He decides, marks it (freeform marks nothing by itself), and then
    # reveals. Strict mode refuses every die from r1; friendly mode draws it and verify flags it.
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.trust.commands import MarkDecision

    d = duel(mode=mode)
    d.link("alice", "r1")
    d.do("bob", MarkDecision(what="Bo presses on, knowing the dice"))
    d.link("bob", "r1")
    d.do("alice", ff.StartRound())
    if mode == "strict":
        head = d.head()
        with pytest.raises(IllegalCommand, match="was known when bob decided"):
            _roll(d)
        assert d.head() == head
    else:
        _roll(d)
        assert any("friendly mode" in n for n in d.verify().notes)


def test_a_forged_die_after_a_decision_point_fails_verify_in_strict_mode(duel) -> None:  # type: ignore[no-untyped-def]
    # The attack of the test above by a modified client: it draws the die from r1 anyway (the faces the seed
    # gives, signed by alice). verify's trust check files bob's decision point against r1 as the write path
    # does, and refuses the die in strict mode (docs/trust.md, "Foreknowledge").
    from combatlog.dice.derive import derive_faces
    from combatlog.errors import VerificationFailed
    from combatlog.trust.commands import MarkDecision
    from combatlog.trust.sealed import scanned

    d = duel(mode="strict")
    d.link("alice", "r1")
    d.do("bob", MarkDecision(what="Bo presses on, knowing the dice"))
    d.link("bob", "r1")
    step = scanned(d.store, _folded(d).core).seed_step
    assert step is not None and step.name == "r1"
    faces = derive_faces(step.seed, "r1/forged", 1, 20)
    d.forge("alice", DiceRolled(label="r1/forged", notation="1d20", count=1, sides=20, modifier=0, faces=faces,
                                total=faces[0], scheme="joint", seed_ref=step.completed_at, by="alice",
                                purpose="strikes"))
    with pytest.raises(VerificationFailed, match="after the decision point.*strict mode needs a fresh commit-reveal"):
        d.verify()


def _folded(d: Any) -> Any:
    from combatlog.projections.fold import state_at

    return state_at(d.store, d.store.list_streams()[0])


def test_a_decision_before_the_other_links_is_not_one(duel) -> None:  # type: ignore[no-untyped-def]
    # Rule 3, the honest order: bob has revealed his link but alice's is still secret, so bob cannot know the
    # seed of r1: no decision of his can be a decision point on it (and none is recorded).
    from combatlog.errors import InvalidCommand
    from combatlog.trust.commands import MarkDecision
    from combatlog.trust.sealed import scanned

    d = duel()
    d.link("bob", "r1")
    with pytest.raises(InvalidCommand, match="no joint dice seed is known"):
        d.do("bob", MarkDecision(what="Bo presses on"))
    from combatlog.projections.fold import state_at

    checker = scanned(d.store, state_at(d.store, d.store.list_streams()[0]).core)
    assert checker.foreknown_by("bob") is None and checker.foreknown_by("alice") is not None
