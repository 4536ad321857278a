"""No foreseeable dice (issue 37, items 5 and 7; docs/trust.md, "Decision points", rulesets/foresight.py).

With joint dice the rules fix every label, so whoever knows the newest seed can compute every die drawn from
it. Each test here plays, in one process with signed players, a choice made while the seed is known, and shows
that the die resolving it is not the one the chooser could compute: in strict mode the choice draws nothing
(a decision point, the choice recorded as deferred), its dice are refused until a fresh seed step completes, and
they then come from that fresh seed; the faces the old seed gives under the same labels are not the faces used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from combatlog.commands.handler import resolve_stream
from combatlog.dice.derive import derive_faces
from combatlog.errors import IllegalCommand
from combatlog.events.core import DecisionMarked, DiceRolled
from combatlog.events.envelope import decode_recorded
from combatlog.projections.fold import state_at
from combatlog.rulesets.foresight import ChoiceDeferred, ChoiceResolved, Resolve
from combatlog.trust.commands import CommitOrders, RevealOrders
from combatlog.trust.sealed import scanned
from combatlog.wiring import verify_stream
from tests.conftest import REPO


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMBATLOG_HOME", str(tmp_path / "home"))
    return tmp_path


class Table:
    """alice and bob, signed, one store; ``do`` runs a command as a player."""

    def __init__(self, home: Path, ruleset: str, setup: dict[str, Any], mode: str = "strict",
                 version: str = "") -> None:
        from combatlog.store import open_store
        from combatlog.trust.keys import new_key
        from combatlog.trust.players import make_signer, pin_players
        from combatlog.wiring import create_combat

        for name in ("alice", "bob"):
            new_key(name)
        self.store = open_store(str(home / "log.db"))
        players, sign_a = pin_players(["alice", "bob"], "alice")
        self.signers = {"alice": sign_a, "bob": make_signer("bob")}
        create_combat(self.store, "g", ruleset, actor="alice", dice="joint", players=players, signer=sign_a,
                      setup=setup, options={"joint_dice": mode})

    def do(self, actor: str, command: Any) -> Any:
        from combatlog.wiring import execute

        return execute(self.store, "g", command, actor=actor, signer=self.signers[actor])

    def seed(self, step_names: tuple[str, ...], actor_order: tuple[str, str] = ("alice", "bob")) -> None:
        """A classic seed step: both commit, then both reveal."""
        for name in step_names:
            for p in actor_order:
                self.do(p, CommitOrders(step=name, orders={}))
            for p in actor_order:
                self.do(p, RevealOrders(step=name))

    @property
    def folded(self) -> Any:
        return state_at(self.store, resolve_stream(self.store, "g"))

    def newest_seed(self) -> tuple[str, bytes]:
        step = scanned(self.store, self.folded.core).seed_step
        assert step is not None
        return step.name, step.seed

    def events(self, since: int = 1) -> list[tuple[int, str, Any]]:
        meta = resolve_stream(self.store, "g")
        out = []
        for row in self.store.read_stream(meta.id, since):
            rec = decode_recorded(row.body)
            out.append((rec.env.seq, rec.env.actor, rec.event))
        return out

    def head(self) -> int:
        return self.events()[-1][0]

    def verifies(self) -> bool:
        return verify_stream(self.store, resolve_stream(self.store, "g")).ok


def _foreseen_then_fresh(t: Table, chooser: str, choice: Any, other: str) -> list[DiceRolled]:
    """``chooser`` makes ``choice`` with the newest seed known; the dice it calls for are refused until a fresh
    seed step; then they are drawn from that step. Returns the dice drawn, after checking that none of them shows
    the faces the seed known at the choice gives under its label."""
    old_step, old_seed = t.newest_seed()
    before = t.head()
    t.do(chooser, choice)
    made = [ev for _seq, _actor, ev in t.events(before + 1)]
    # the choice draws nothing: a decision point, then the choice itself waiting for its dice
    assert [type(ev) for ev in made] == [DecisionMarked, ChoiceDeferred], made
    assert made[0].player == chooser and made[1].player == chooser
    # nobody may draw its dice from the seed the chooser knew: refused in strict mode
    with pytest.raises(IllegalCommand, match=f"the seed of step {old_step} was known when {chooser} decided"):
        t.do(other, Resolve())
    # nor may the game go on without them
    # a fresh seed step (the chooser's contribution is his, the other's comes after the choice)
    fresh = f"{old_step.split('#')[0]}#{len(scanned(t.store, t.folded.core).steps) + 1}"
    t.seed((fresh,), (chooser, other))
    new_step, new_seed = t.newest_seed()
    assert new_step == fresh and new_seed != old_seed
    mark = t.head()
    t.do(other, Resolve())
    drawn_events = t.events(mark + 1)
    assert type(drawn_events[0][2]) is ChoiceResolved
    dice = [ev for _s, _a, ev in drawn_events if isinstance(ev, DiceRolled)]
    assert dice, "the resolved choice drew its dice"
    completed = scanned(t.store, t.folded.core).seed_step
    assert completed is not None
    for die in dice:
        assert die.scheme == "joint" and die.seed_ref == completed.completed_at
        assert die.faces == derive_faces(new_seed, die.label, die.count, die.sides)
    # the faces the chooser could compute when he chose are not what the rules used: each die is the new seed's,
    # and the old seed gives another stream under the same label (compared over 16 faces: one die alone may show
    # the same face by chance, 1 in its number of sides, which tells the chooser nothing in advance)
    for d in dice:
        assert derive_faces(old_seed, d.label, 16, d.sides) != derive_faces(new_seed, d.label, 16, d.sides)
    foreseen = [derive_faces(old_seed, d.label, d.count, d.sides) for d in dice]
    if len(dice) > 2:
        assert foreseen != [d.faces for d in dice]
    assert t.verifies()
    return dice


# -- Classic Fantasy ---------------------------------------------------------------------------------------------


def _cfi_table(home: Path, mode: str = "strict") -> Table:
    setup = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
    setup["players"] = {"party": ["alice"], "orcs": ["bob"]}
    return Table(home, "classic_fantasy", setup, mode)


def test_classic_fantasy_a_choice_cannot_read_its_own_dice(home: Path) -> None:
    from combatlog.rulesets.classic_fantasy import commands as c

    t = _cfi_table(home)
    t.seed(("r1",))
    t.do("alice", c.StartRound())  # the procedure: Initiative from the seed of r1, no player's choice
    state = t.folded.state
    first = state.turn
    attacker, target = (first, "Grak" if first == "Brom" else "Brom")
    chooser = "alice" if attacker == "Brom" else "bob"
    other = "bob" if chooser == "alice" else "alice"
    # the attack: a choice made with the seed of r1 known; its roll waits for a fresh seed
    dice = _foreseen_then_fresh(t, chooser, c.Attack(attacker=attacker, target=target, moving=True), other)
    assert [d.label for d in dice] == ["r1/a1/attack"]
    # the defender's reaction, chosen with that fresh seed known: its dice wait for another one
    dice = _foreseen_then_fresh(t, other, c.Defend(defender=target, kind="parry"), chooser)
    assert "r1/a1/parry" in [d.label for d in dice]


def test_classic_fantasy_friendly_mode_draws_at_once_and_verify_flags_the_dice(home: Path) -> None:
    from combatlog.rulesets.classic_fantasy import commands as c

    t = _cfi_table(home, mode="friendly")
    t.seed(("r1",))
    t.do("alice", c.StartRound())
    state = t.folded.state
    attacker = state.turn
    target = "Grak" if attacker == "Brom" else "Brom"
    t.do("alice" if attacker == "Brom" else "bob", c.Attack(attacker=attacker, target=target, moving=True))
    before = t.head()
    t.do("bob" if attacker == "Brom" else "alice", c.Defend(defender=target, kind="parry"))
    made = [ev for _s, _a, ev in t.events(before + 1)]
    assert isinstance(made[0], DecisionMarked) and any(isinstance(ev, DiceRolled) for ev in made)
    report = verify_stream(t.store, resolve_stream(t.store, "g"))
    assert report.ok and any("friendly mode: allowed, with foreknowledge" in n for n in report.notes)


# -- OSRIC -------------------------------------------------------------------------------------------------------


def test_osric_a_choice_after_the_declarations_cannot_read_its_own_dice(home: Path) -> None:
    """The declarations are sealed (r1/declare, whose seed gives the initiative); once that seed is known, an
    attack (its target, weapon, segment: what the declaration did not fix) is a choice whose dice wait."""
    from combatlog.rulesets.osric import commands as o
    from tests.trust.test_osric_sealed import SETUP

    t = Table(home, "osric", SETUP)
    t.do("alice", o.StartRound())  # the referee's step (alice created the combat): no choice, no dice
    orders = {"alice": {"side": "party", "declarations": [{"who": "Brom", "action": "melee"},
                                                          {"who": "Halvaine", "action": "melee"}]},
              "bob": {"side": "orcs", "declarations": [{"who": "orc1", "action": "melee"},
                                                       {"who": "orc2", "action": "melee"}]}}
    for p in ("alice", "bob"):
        t.do(p, CommitOrders(step="r1/declare", orders=orders[p]))
    for p in ("bob", "alice"):
        t.do(p, RevealOrders(step="r1/declare"))
    t.do("alice", o.RollInitiative())  # the procedure: dice from the seed of r1/declare
    state = t.folded.state
    first = max(state.initiative, key=lambda side: state.initiative[side]) if state.initiative else "party"
    who, target, chooser, other = (("Brom", "orc1", "alice", "bob") if first == "party"
                                   else ("orc1", "Brom", "bob", "alice"))
    dice = _foreseen_then_fresh(t, chooser, o.Attack(who=who, target=target), other)
    assert any(d.sides == 20 for d in dice)  # the attack roll


# -- Argad -------------------------------------------------------------------------------------------------------


def test_argad_a_choice_in_a_game_turn_cannot_read_its_own_dice(home: Path) -> None:
    """Inside a game turn every die comes from the turn's seed: which figures shoot at whom, which strike, were
    chosen with it known. A volley (its targets) and a strike (who strikes whom) each wait for a fresh seed."""
    from combatlog.rulesets.argad import commands as a
    from tests.security.test_dice_uses_argad import JOINT_SETUP

    setup = {**JOINT_SETUP, "players": {"men": ["alice"], "beasts": ["bob"]}}
    t = Table(home, "argad", setup)
    t.seed(("t1",))
    t.do("alice", a.StartTurn())  # the procedure: no choice, no dice
    dice = _foreseen_then_fresh(t, "alice", a.Shoot(shooters=("archer",), targets=("troll", "brute"), need=5), "bob")
    assert dice and all(d.label.startswith("t1/") for d in dice)
    dice = _foreseen_then_fresh(t, "alice", a.Strike(attackers=("hero", "axeman"), targets=("brute",)), "bob")
    assert dice


# -- logs recorded before the protection --------------------------------------------------------------------------

OLD = {"classic-fantasy-version1-joint.jsonl": "classic_fantasy", "osric-version2-joint.jsonl": "osric",
       "argad-version2-joint.jsonl": "argad"}


@pytest.mark.parametrize("name", sorted(OLD))
def test_a_log_recorded_before_the_protection_still_verifies_and_imports(name: str, tmp_path: Path) -> None:
    """tests/fixtures/README.md: real bytes of the build before; their choices drew dice from a seed they knew,
    with no decision point, and re-deciding them under this build produces exactly that again."""
    from combatlog.rulesets import load_ruleset
    from tests.conftest import Cli

    path = REPO / "tests" / "fixtures" / name
    lines = path.read_bytes().split(b"\n")[:-1]
    assert not any(b'"core.decision_marked"' in line or b'"choice.deferred"' in line for line in lines)
    header = json.loads(lines[0])
    ruleset = load_ruleset(OLD[name])
    assert header["rules_digest"] in ruleset.earlier_digests and header["rules_digest"] != ruleset.rules_digest()
    cli = Cli(tmp_path / "log.db", tmp_path)
    report = cli("verify", str(path), "--json").json()
    assert report["ok"] and "before choices were protected" in report["rules_revision"]  # type: ignore[index]
    cli("import", str(path))
    assert cli("verify", "g", "--json").json()["ok"]  # type: ignore[index]


# -- by mail, as status --mine leads it ---------------------------------------------------------------------------


def test_classic_fantasy_by_mail_status_mine_holds_the_dice_back_and_the_links_ride_along(tmp_path: Path) -> None:
    """Two machines, nonce chains, strict mode: each command ``status --mine`` lists is run as given. After a choice
    that rolls, the chooser is given his link (after the choice, never before it), the other player his link and
    then ``cfi resolve``; no seed step costs a bundle of its own (docs/trust.md, "No foreseeable dice")."""
    import shlex

    from tests.trust.pbem import mail, pair

    setup = json.loads((REPO / "docs/examples/classic_fantasy/duel.json").read_text())
    setup["players"] = {"party": ["alice"], "orcs": ["bob"]}
    path = tmp_path / "duel.json"
    path.write_text(json.dumps(setup))
    alice, bob = pair(tmp_path, "g", ruleset="classic_fantasy", dice="joint", setup=str(path))
    seats = {"alice": alice, "bob": bob}

    def mine(seat: Any) -> list[str]:
        return [m["command"] for m in seat("status", "g", "--mine", "--json").json()["pending"] if m["command"]]

    def run(seat: Any, line: str) -> None:
        seat(*shlex.split(line)[1:])

    alice("seal", "chain", "g")
    mail(alice, bob, "g", tmp_path)
    bob("seal", "chain", "g")
    run(bob, mine(bob)[0])  # his link to r1 (the first seed: Initiative)
    mail(bob, alice, "g", tmp_path)
    run(alice, mine(alice)[0])  # her link to r1
    assert mine(alice)[0] == "combatlog cfi round g --as alice"  # (then her rulings: --surprised)
    run(alice, mine(alice)[0])
    mail(alice, bob, "g", tmp_path)
    first = json.loads(bob("show", "g", "--json").out)["state"]["turn"]
    chooser, other = (alice, bob) if first == "Brom" else (bob, alice)
    if chooser is alice:
        mail(bob, alice, "g", tmp_path)
    target = "Grak" if first == "Brom" else "Brom"
    # his Turn's many moves are counted, and listed by combatlog moves: an attack at the other
    listed = chooser("moves", "g", "--json", "--as", chooser.name).json()["moves"]  # type: ignore[index]
    attack = next(m["argv"] for m in listed if m["argv"][:4] == ["cfi", "attack", "g", first]
                  and m["argv"][4] == target)
    chooser(*attack)
    # his choice is in: only now his link to the fresh step
    link = f"combatlog seal link g --step 'r1#2' --as {chooser.name}"
    assert link in mine(chooser)
    run(chooser, link)
    assert not any(" seal " in c or " resolve " in c for c in mine(chooser))
    mail(chooser, other, "g", tmp_path)
    assert f"combatlog seal link g --step 'r1#2' --as {other.name}" in mine(other)
    refused = other("cfi", "resolve", "g", ok=False)
    assert refused.code == 4 and "r1#2" in refused.err
    run(other, f"combatlog seal link g --step 'r1#2' --as {other.name}")
    assert f"combatlog cfi resolve g --as {other.name}" in mine(other)
    run(other, f"combatlog cfi resolve g --as {other.name}")
    log = other("log", "g", "--json").json()
    kinds = [e["type"] for e in log]  # type: ignore[union-attr]
    assert kinds.count("choice.deferred") == kinds.count("choice.resolved") == 1
    assert "cfi.attack_declared" in kinds[kinds.index("choice.resolved"):]
    assert all(s.verify("g")["ok"] for s in seats.values() if s is other)


def test_a_modified_client_that_draws_a_choices_dice_at_once_is_refused_by_verify(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client without the protection (the rules' own decide, as Classic Fantasy 1 ran it) signs a parry with its
    dice drawn from the seed the defender knew: every other machine re-decides it to a decision point and a
    deferred choice, and refuses the batch."""
    from combatlog.errors import VerificationFailed
    from combatlog.rulesets import foresight
    from combatlog.rulesets.classic_fantasy import commands as c

    t = _cfi_table(home)
    t.seed(("r1",))
    t.do("alice", c.StartRound())
    attacker = t.folded.state.turn
    target = "Grak" if attacker == "Brom" else "Brom"
    owner = {"Brom": "alice", "Grak": "bob"}
    honest = foresight.decide
    with monkeypatch.context() as m:
        m.setattr(foresight, "decide", lambda ruleset, state, command, dice, rules: rules(state, command, dice))
        t.do(owner[attacker], c.Attack(attacker=attacker, target=target, moving=True))
    assert foresight.decide is honest
    with pytest.raises(VerificationFailed, match="does not re-decide to the recorded events"):
        verify_stream(t.store, resolve_stream(t.store, "g"))


def test_osric_by_mail_status_mine_offers_the_fresh_link_and_the_resolve(tmp_path: Path) -> None:
    """OSRIC seals its own steps (r<N>/declare), so ``status --mine`` offers no bare link there; the fresh seed step
    a held-back choice waits for is the log's, and each player is offered his link to it, then the resolve."""
    import shlex

    from tests.trust.pbem import mail, pair
    from tests.trust.test_osric_sealed import SETUP as OSETUP

    path = tmp_path / "skirmish.json"
    path.write_text(json.dumps(OSETUP))
    alice, bob = pair(tmp_path, "g", ruleset="osric", dice="joint", setup=str(path))

    def mine(seat: Any) -> list[str]:
        return [m["command"] for m in seat("status", "g", "--mine", "--json").json()["pending"] if m["command"]]

    alice("seal", "chain", "g")
    alice("osric", "round", "g")
    alice("osric", "declare", "g", "party", "--rest", "melee", "--seal")
    mail(alice, bob, "g", tmp_path)
    bob("seal", "chain", "g", ok=False)  # (a seed step is open: chains are committed between steps; none here)
    bob("osric", "declare", "g", "orcs", "--rest", "melee", "--seal")
    bob("osric", "reveal", "g")
    mail(bob, alice, "g", tmp_path)
    alice("osric", "reveal", "g")
    alice("osric", "initiative", "g")
    state = json.loads(alice("show", "g", "--json").out)["state"]
    ini = state["initiative"]
    party_first = ini["party"] >= ini["orcs"]
    chooser, other = (alice, bob) if party_first else (bob, alice)
    if chooser is bob:
        mail(alice, bob, "g", tmp_path)
    who, target = ("Brom", "orc1") if party_first else ("orc1", "Brom")
    refused = chooser("osric", "attack", "g", who, "--target", target, ok=False)
    if refused.code:  # (a segment to reach first: the timeline's own step)
        chooser("osric", "segment", "g", str(state["initiative"]["party" if party_first else "orcs"]))
        chooser("osric", "attack", "g", who, "--target", target)
    log = chooser("log", "g", "--json").json()
    assert log[-1]["type"] == "choice.deferred"  # type: ignore[index]
    offered = mine(chooser)
    assert len(offered) == 1 and offered[0].startswith("combatlog seal commit g --step r1 ")
    chooser(*shlex.split(offered[0])[1:])
    # alice holds no nonce chain here (bob could not commit one while r1/declare was open): a classic step, a
    # commit and a reveal each, as status --mine gives them; whoever completes the seed is offered the resolve
    holder, waiting = other, chooser
    mail(chooser, other, "g", tmp_path)
    for _ in range(4):
        offered = mine(holder)
        while offered and "resolve" not in offered[0]:
            assert offered[0].startswith(("combatlog seal commit g --step r1 ", "combatlog seal reveal g --step r1 "))
            holder(*shlex.split(offered[0])[1:])
            offered = mine(holder)
        if offered:
            assert offered == [f"combatlog osric resolve g --as {holder.name}"]
            break
        mail(holder, waiting, "g", tmp_path)
        holder, waiting = waiting, holder
    else:
        raise AssertionError("the resolve was never offered")
    holder("osric", "resolve", "g")
    kinds = [e["type"] for e in holder("log", "g", "--json").json()]  # type: ignore[union-attr]
    assert kinds.count("choice.resolved") == 1 and "osric.attack_rolled" in kinds[kinds.index("choice.resolved"):]
    assert holder.verify("g")["ok"]


def test_resolve_with_nothing_waiting_is_refused_in_every_mode(home: Path) -> None:
    t = _cfi_table(home, mode="friendly")
    with pytest.raises(IllegalCommand, match="no choice waits for its dice"):
        t.do("alice", Resolve())
