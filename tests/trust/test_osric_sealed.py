"""OSRIC's declarations sealed by the trust layer: two players on two machines (two databases, two key
homes) play an OSRIC round by exchanging bundle files only, through the real CLI.

alice plays the party (Brom, a 1st-level fighter, and Halvaine, a 1st-level magic-user) and bob the
orcs; the set-up's ``players`` says so. Each round's declarations are the sealed step ``rN/declare``
(OSRIC Combat: Declare Spells and General Actions: declared before initiative, monsters' actions
not tailored to the players'); the dice are ``joint``, so the round's initiative comes from that
step's seed. Attack dice are typed in by hand (face 1: a miss for everyone here, see below) so that
nobody dies and the round's order depends only on the joint initiative dice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.trust.pbem import Seat, appended, key_home, mail, pair, seats_built_once, write_lines

S = "skirmish"
SETUP = {
    "title": "Sealed skirmish",
    "players": {"party": ["alice"], "orcs": ["bob"]},
    "engaged": [["Brom", "orc1"], ["Halvaine", "orc2"]],
    "combatants": [
        {"name": "Brom", "side": "party", "class": "fighter", "level": 1, "hp": 10, "armour": "mail",
         "shield": "medium", "weapons": ["long sword"]},
        {"name": "Halvaine", "side": "party", "class": "magic-user", "level": 1, "hp": 4, "weapons": ["dagger"]},
        {"name": "orc1", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
        {"name": "orc2", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]},
    ],
}
OWNER = {"Brom": "alice", "Halvaine": "alice", "orc1": "bob", "orc2": "bob"}


def _pair(tmp_path: Path) -> tuple[Seat, Seat]:
    """alice and bob, both at round 1 of the skirmish. Every test here (and tests/security/test_authority.py)
    starts from it: made once per test run by the real CLI and copied into ``tmp_path``
    (tests/trust/pbem.py ``seats_built_once``)."""

    def build(folder: Path) -> tuple[Seat, Seat]:
        setup = folder / "skirmish.json"
        setup.write_text(json.dumps(SETUP))
        alice, bob = pair(folder, S, ruleset="osric", dice="joint", setup=str(setup))
        # no surprise check (it would need a joint seed first): round 1 opens, r1/declare is the first seed step
        alice("osric", "round", S)
        mail(alice, bob, S, folder)
        return alice, bob

    alice, bob = seats_built_once(tmp_path, "osric-sealed-round-1", build)
    return alice, bob


def _show(seat: Seat) -> dict[str, Any]:
    return seat("show", S, "--json").json()  # type: ignore[return-value]


def test_a_sealed_osric_round_by_mail(tmp_path: Path) -> None:
    alice, bob = _pair(tmp_path)
    # plain declarations would travel in clear: refused in a combat with pinned players
    plain = alice("osric", "declare", S, "party", "--rest", "melee", ok=False)
    assert plain.code == 4 and "--seal" in plain.err and "sealed by the trust layer" in plain.err

    alice("osric", "declare", S, "party", "Brom=melee", "Halvaine=spell:sleep:1", "--seal")
    log = alice("log", S, "--json").json()
    assert log[-1]["type"] == "core.orders_committed" and "sleep" not in json.dumps(log)  # type: ignore[index]
    bundle = mail(alice, bob, S, tmp_path)
    assert "sleep" not in bundle.read_text() and "orders_committed" in bundle.read_text()  # only a hash travelled
    bob("osric", "declare", S, "orcs", "--rest", "melee", "--seal")
    bob("osric", "reveal", S)  # alice is bound already: bob reveals in the same packet
    mail(bob, alice, S, tmp_path)

    # alice has bob's reveal, but her own view hides it until she has revealed too
    seen = {r["seq"]: r for r in alice("log", S, "--json").json()}  # type: ignore[union-attr]
    orcs = max(seen)
    assert seen[orcs]["type"] == "core.orders_revealed" and seen[orcs]["data"] is None
    assert "orcs declare" not in alice("osric", "timeline", S).out
    assert "orcs declare" in alice("osric", "timeline", S, "--as", "gm").out

    alice("osric", "reveal", S)
    state = _show(alice)["state"]
    declared = {c["name"]: c["declared"] for c in state["combatants"]}
    assert declared == {"Brom": "Brom melee", "Halvaine": "Halvaine spell sleep (1 segment(s))",
                        "orc1": "orc1 melee", "orc2": "orc2 melee"}

    # the initiative dice come from the seed of r1/declare (the newest joint seed)
    alice("osric", "initiative", S)
    status = alice("seal", "status", S, "--json").json()
    assert status["joint_seed"]["step"] == "r1/declare"  # type: ignore[index]
    rolls = {r["label"]: r for r in alice("dice", S, "--json").json()["rolls"]}  # type: ignore[index]
    assert {rolls[f"r1/initiative/{x}"]["seed_ref"] for x in ("party", "orcs")} == {status["joint_seed"]["seq"]}  # type: ignore[index]

    # each side acts in its segment, in timeline order; whoever acts mails first.
    # Face 1 misses for everyone: Brom (fighter 1, B 20) needs 14 against AC 6, the orcs (HD 1, B 19)
    # need 15 against Brom's AC 4 (mail 5, shield 1) and 9 against Halvaine's AC 10 (no armour).
    seat = alice
    for row in _show(alice)["state"]["schedule"]:
        who = row["who"]
        actor = alice if OWNER[who] == "alice" else bob
        if actor is not seat:
            mail(seat, actor, S, tmp_path)
            seat = actor
        if who == "Halvaine":
            actor("osric", "cast", S, who)
        else:
            actor("osric", "attack", S, who, "--dice", "manual", "--face", f"r1/{who}/atk1=1")
    seat("osric", "end-round", S)
    other = bob if seat is alice else alice
    mail(seat, other, S, tmp_path)
    other("ack", S)  # the other player countersigns the round
    mail(other, seat, S, tmp_path)

    va, vb = alice.verify(S), bob.verify(S)
    assert va["ok"] and vb["ok"] and va["head_hash"] == vb["head_hash"]
    assert va["signatures"] == va["head_seq"] and va["dice"]["verified"] == 2  # the two initiative dice
    assert _show(alice) == _show(bob)
    text = alice("osric", "timeline", S, "--round", "1").out
    assert "Halvaine begins casting sleep" in text and "Halvaine's sleep goes off" in text


def test_a_reveal_before_every_commit_is_refused(tmp_path: Path) -> None:
    alice, bob = _pair(tmp_path)
    alice("osric", "declare", S, "party", "--rest", "melee", "--seal")
    early = alice("osric", "reveal", S, ok=False)
    assert early.code == 4 and "waiting for commits from bob" in early.err
    mail(alice, bob, S, tmp_path)
    # bob has not committed either: he cannot reveal what he never sealed
    nothing = bob("osric", "reveal", S, ok=False)
    assert nothing.code == 4 and "bob has not committed to step r1/declare" in nothing.err
    assert bob.head(S) == alice.head(S)  # nothing was appended


def test_a_spell_cannot_be_switched_after_seeing_the_other_side(tmp_path: Path) -> None:
    """The seed's rule (OSRIC Combat: Declare Spells and General Actions: a caster "may choose not to
    complete the spell ... however, they cannot substitute the declared action") and the commit bind
    Halvaine to sleep: every way alice could switch to magic missile after seeing bob's reveal fails."""
    alice, bob = _pair(tmp_path)
    bob("osric", "declare", S, "orcs", "--rest", "melee", "--seal")
    mail(bob, alice, S, tmp_path)
    alice("osric", "declare", S, "party", "Brom=melee", "Halvaine=spell:sleep:1", "--seal")
    mail(alice, bob, S, tmp_path)
    bob("osric", "reveal", S)
    mail(bob, alice, S, tmp_path)

    # 1. a second commit
    again = alice("osric", "declare", S, "party", "Brom=melee", "Halvaine=spell:magic missile:1", "--seal", ok=False)
    assert again.code == 4 and "a commitment cannot be changed" in again.err

    # 2. editing the kept orders on her own machine, then revealing: the hash no longer matches
    from combatlog.events.canonical import canonical
    from combatlog.store import open_store

    store = open_store(str(alice.dir / "log.db"))
    digest = next(r["data"]["commitment"] for r in alice("log", S, "--json").json()  # type: ignore[union-attr]
                  if r["type"] == "core.orders_committed" and r["actor"] == "alice")
    kept = json.loads(store.get_secret(f"orders:{digest}") or b"{}")
    true_nonce, true_orders = kept["nonce"], kept["orders"]
    switched = json.loads(json.dumps(true_orders).replace("sleep", "magic missile"))
    store.put_secret(f"orders:{digest}", canonical({"nonce": true_nonce, "orders": switched}))
    store.close()
    edited = alice("osric", "reveal", S, ok=False)
    assert edited.code == 4 and "do not match the commitment" in edited.err

    # 3. a modified client signs the switched reveal and mails it: bob's import refuses it
    from combatlog.events.core import OrdersRevealed
    from combatlog.trust.players import make_signer

    path = tmp_path / "cheat.jsonl"
    alice("export", S, "--since", str(bob.head(S) - 1), "-o", str(path))  # bob's last event, then the cheat
    lines = path.read_bytes().split(b"\n")[:-1]
    forged = OrdersRevealed(step="r1/declare", player="alice", orders=switched, nonce=true_nonce)
    with key_home(alice.home):
        cheat = appended(lines, forged, actor="alice", signer=make_signer("alice"))
    refused = bob("import", str(write_lines(path, cheat)), ok=False)
    assert refused.code == 8 and "do not match the commitment" in refused.err

    # the true orders still reveal; then casting anything but sleep is refused
    store = open_store(str(alice.dir / "log.db"))
    store.put_secret(f"orders:{digest}", canonical(kept))
    store.close()
    alice("osric", "reveal", S)
    alice("osric", "initiative", S)
    switch = alice("osric", "cast", S, "Halvaine", "--spell", "magic missile", ok=False)
    assert switch.code == 4 and "may decline but not switch" in switch.err


def test_with_a_pinned_referee_the_declaration_step_still_seeds_the_joint_dice(tmp_path: Path) -> None:
    """In-process, one key home (hot seat): alice, bob and a referee gm pinned, joint dice. The step
    r1/declare needs every pinned player (docs/osric.md, Secret declarations), so gm commits a nonce;
    the initiative dice then name the reveal that completed r1/declare as their seed."""
    from combatlog.wiring import create_combat, execute
    from combatlog.errors import IllegalCommand
    from combatlog.projections.fold import state_at
    from combatlog.rulesets.osric import commands as c
    from combatlog.rulesets.osric.declare import orders_for
    from combatlog.store import open_store
    from combatlog.trust.api import CommitOrders, RevealOrders
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players

    with key_home(tmp_path / "keys"):
        for name in ("alice", "bob", "gm"):
            new_key(name)
        store = open_store("memory:")
        players, sign_gm = pin_players(["alice", "bob", "gm"], "gm")
        create_combat(store, S, "osric", actor="gm", setup=SETUP, dice="joint", players=players, signer=sign_gm)
        signers = {"gm": sign_gm, "alice": make_signer("alice"), "bob": make_signer("bob")}

        def do(actor: str, command: object) -> object:
            return execute(store, S, command, actor=actor, signer=signers[actor])

        def state() -> object:
            return state_at(store, store.list_streams()[0]).state

        do("gm", c.StartRound())
        with pytest.raises(IllegalCommand, match="sealed"):  # plain declarations are refused, even the caller's
            do("bob", c.Declare(side="orcs", declarations=(), rest="melee"))
        with pytest.raises(IllegalCommand, match="side orcs belongs to bob; gm may not declare for it"):
            do("gm", c.Declare(side="orcs", declarations=(), rest="melee"))  # the referee plays no side
        first = do("gm", CommitOrders(step="r1/declare"))  # gm calls for no side: an empty order
        assert first.events[0].event.required == ("alice", "bob", "gm")  # type: ignore[attr-defined]
        with pytest.raises(IllegalCommand, match="caller of party"):  # alice owes the party's declarations
            do("alice", CommitOrders(step="r1/declare"))
        do("alice", CommitOrders(step="r1/declare", orders=orders_for(state(), "party", (), "melee")))
        do("bob", CommitOrders(step="r1/declare", orders=orders_for(state(), "orcs", (), "melee")))
        for who in ("gm", "bob"):
            do(who, RevealOrders(step="r1/declare"))
        completed = do("alice", RevealOrders(step="r1/declare")).last_seq  # type: ignore[attr-defined]
        rolled = do("gm", c.RollInitiative())
        dice = [r.event for r in rolled.events if r.env.type == "core.dice_rolled"]  # type: ignore[attr-defined]
        assert [(d.label, d.scheme, d.seed_ref) for d in dice] == [
            ("r1/initiative/party", "joint", completed), ("r1/initiative/orcs", "joint", completed)]
