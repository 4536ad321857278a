"""Issue 37, item 3: a merge never re-rolls a die (docs/trust.md, "Crossings").

On a combat server (``combatlog serve`` on 127.0.0.1), alice and bob strike the same ogre at once, each
rolling 1d8 with local dice under the rules' label ``r1/Ogre/damage``. The server takes alice's; bob's push is
refused (409), his client pulls and merges, and his strike cannot be placed unchanged (the label is alice's
now: his would be ``r1/Ogre/damage#2``). His machine decides it again, and it used to roll the die again
(1d8 = 2 became 3): a player who disliked a roll could cross on purpose to get another. Now the die drawn
again shows the faces it showed the first time, or the decision is refused and handed back with its first
roll named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.server.players import combat_id, table


def _dice(seat: Any, tmp_path: Path, name: str) -> list[dict[str, Any]]:
    path = tmp_path / f"{seat.name}-{name}.jsonl"
    seat("export", "duel", "-o", str(path))
    events = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [{**e["data"], "seq": e["seq"], "actor": e["actor"]} for e in events if e["type"] == "core.dice_rolled"]


def test_a_crossing_never_re_rolls_a_die(tmp_path: Path, start_server: Any) -> None:
    server = start_server("--open")
    alice, bob = table(tmp_path, server.url, ("alice", "bob"), dice="local")
    cid = combat_id(alice)
    alice("freeform", "join", "duel", "Ogre", "--side", "green", "--hp", "40")
    alice("freeform", "round", "duel")
    alice("push", "duel")
    bob("pull", "duel")
    alice("freeform", "damage", "duel", "Ogre", "1d8")
    bob("freeform", "damage", "duel", "Ogre", "1d8")  # on the same head: the same label
    (first,) = _dice(bob, tmp_path, "first")
    assert first["label"] == "r1/Ogre/damage"
    alice("push", "duel")
    before = server.head(cid)
    pushed = bob("push", "duel")  # 409, pull, merge (the server's branch kept), his strike decided again, push
    assert "re-applied bob's" in pushed.out, pushed.out
    dice = _dice(bob, tmp_path, "after")
    again = next(d for d in dice if d["actor"] == "bob")
    # the label moved with the crossing; the die did not: the faces of his first roll
    assert again["label"] == "r1/Ogre/damage#2" and again["faces"] == first["faces"], (first, again)
    assert server.head(cid)[0] == before[0] + 2 and bob.verify("duel")["head_hash"] == server.head(cid)[1]
    alice("pull", "duel")
    assert alice.verify("duel")["head_hash"] == server.head(cid)[1]
    superseded = bob("superseded", "duel", "--json").json()["superseded"]  # type: ignore[index]
    assert first["seq"] in [s["seq"] for s in superseded]  # his first roll, kept as evidence too


def test_a_decision_whose_dice_cannot_be_drawn_again_alike_is_refused_with_its_first_roll(tmp_path: Path) -> None:
    """The same crossing with joint dice: a die's faces come from the seed and its label, so under the moved
    label they differ (unless by chance they agree): the re-run is refused, not rolled again, and the refusal
    names the first roll; bob's machine says the decision is his to make again."""
    from combatlog.dice.port import RULE_NO_REROLL
    from tests.security.test_crossing_choices import S, _file, _receive
    from tests.trust.converge import gossip
    from tests.trust.pbem import key_home
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.trust.commands import CommitOrders, RevealOrders

    names = ("alice", "bob")
    with key_home(tmp_path / "keys"):
        from tests.trust.converge import table as converge_table

        ms = converge_table(tmp_path, names, {n: (n,) for n in names}, stream=S, ruleset="freeform", dice="joint")
        alice, bob = ms["alice"], ms["bob"]
        alice.do("alice", ff.Join(name="Ogre", side="green", hp=40), S)
        gossip(list(ms.values()), S)
        alice.do("alice", CommitOrders(step="r1", orders={}), S)
        gossip(list(ms.values()), S)
        bob.do("bob", CommitOrders(step="r1", orders={}), S)
        bob.do("bob", RevealOrders(step="r1"), S)
        gossip(list(ms.values()), S)
        alice.do("alice", RevealOrders(step="r1"), S)
        alice.do("alice", ff.StartRound(), S)
        gossip(list(ms.values()), S)
        refused = 0
        for target in ("Ogre", "Troll", "Ettin", "Giant", "Wyrm", "Hydra"):  # until a refusal (7 in 8 each time)
            if target != "Ogre":
                alice.do("alice", ff.Join(name=target, side="green", hp=40), S)
            gossip(list(ms.values()), S)
            # alice's branch is the one kept at the crossing: pad until the players' order puts her first
            while (0 - alice.head(S)[0] - 1) % 2 != 0:
                alice.do("alice", ff.Join(name=f"Pad{alice.head(S)[0]}", side="green", hp=1), S)
            gossip(list(ms.values()), S)
            fork = alice.head(S)[0]
            alice.do("alice", ff.ChangeHp(who=target, amount="1d8"), S)
            bob.do("bob", ff.ChangeHp(who=target, amount="1d8"), S)
            first = next(e.payload() for e in bob.events(S) if e.seq > fork and e.type == "core.dice_rolled")
            report = _receive(bob, _file(alice, tmp_path / "alice.jsonl"))
            (strike,) = report.merge.decisions
            again = [e.payload() for e in bob.events(S)
                     if e.seq > fork and e.type == "core.dice_rolled" and e.actor == "bob"]
            if strike.outcome == "reapplied":  # the moved label happened to give the same faces: the same die
                assert [d.faces for d in again] == [first.faces], (first, again)
                continue
            assert strike.outcome == "refused" and strike.rule == RULE_NO_REROLL, strike
            assert f"its first roll was r1/{target}/damage 1d8 = {list(first.faces)}" in strike.message, strike.message
            assert not again  # nothing of bob's rolled again: the decision went back to him
            from combatlog.projections.streams import resolve_stream
            from combatlog.rulesets import load_ruleset
            from combatlog.trust.after_merge import AfterMerge

            # his first roll is in the timeline where his branch parted (combatlog log), not only in superseded
            (shown,) = AfterMerge(bob.store, resolve_stream(bob.store, S)).not_kept(load_ruleset("freeform"))
            assert shown.after == fork and shown.rolls == [
                f"r1/{target}/damage 1d8 = {', '.join(map(str, first.faces))}"], shown
            assert any("refused bob's" in line and "first roll" in line for line in report.merge.lines())
            refused += 1
            break
        assert refused == 1
