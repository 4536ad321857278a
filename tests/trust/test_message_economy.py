"""The message economy of joint dice (issue #11, item 2; docs/trust.md, "Nonce chains: joint dice
without extra messages", "Message economy").

A two-round Magic Realm fight among three machines: a pinned referee ``gm`` who runs the referee's
steps (random assignment, Attention chits, resolution) and holds no character, alice (Black Knight)
and bob (Amazon); joint dice, strict mode. The set-up is docs/examples/magic_realm/giant-and-goblins.json
without the Giant and the Lancers (so that neither character can be killed by chance in round 1): two
Axe Goblins. In round 1 alice's Black Knight runs away (MR 001 Actions), so in round 2 she has no
character in the fight and nothing to decide.

The bundle passes from machine to machine (``export --for NEXT`` / ``import``): whoever holds the log
does everything ``status --mine`` asks of him, then mails it to the next player the combat waits for.
Every bundle is counted for its sender and round. The same fight is played twice: with nonce chains
(the Magic Realm commands' default) and with the classic commit and reveal for every seed step
(``COMBATLOG_NONCE_CHAINS=off`` on every machine), which is how combats were played before and must
still work and verify; that one is played to the end of round 1, which is where the two are compared.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from combatlog.rulesets import available
from tests.trust.pbem import Seat, seat_keys

pytestmark = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")

G = "cave"
SETUP = {
    "clearing": {"name": "Cave 4", "type": "cave"},
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "goblin-1", "monster": "Axe Goblin"}, {"id": "goblin-2", "monster": "Axe Goblin"}],
}
# Legal plays (tests/trust/test_mr_sealed.py): chits as the set-up numbers them at level 4.
PLAYS = {"amazon": ["--attack", "thrust", "--fight", "F6", "--maneuver", "dodge", "--move", "M1", "--shield", "smash"]}


def _table(root: Path, chains: bool) -> dict[str, Seat]:
    seats = {name: Seat(name, root) for name in ("gm", "alice", "bob")}
    for seat in seats.values():
        if not chains:
            seat.cli.env["COMBATLOG_NONCE_CHAINS"] = "off"
    seat_keys(root, list(seats.values()), everyone_imports=False)  # each his key; gm holds the players' too
    gm = seats["gm"]
    setup = root / "setup.json"
    setup.write_text(json.dumps(SETUP))
    gm("new", G, "--ruleset", "magic_realm", "--setup", str(setup), "--dice", "joint",
       "--player", "gm", "--player", "alice", "--player", "bob")
    return seats


def _has(seat: Seat) -> bool:
    rows = seat("list", "--json").json()
    return any(r["name"] == G for r in rows)  # type: ignore[union-attr,index]


def _command(seat: Seat, move: dict[str, Any], round_no: int) -> list[str] | None:
    """The command a player types for one of his moves (``status --mine`` gives his legal moves: a decision with
    many is the ``combatlog moves`` line that lists them, whose list this picks from as the fight goes)."""
    words = shlex.split(move["command"])[1:]
    if not words:
        return None
    if words[0] == "moves":  # many legal moves: the list they are in
        listed = [m["argv"] for m in seat(*words, "--json").json()["moves"]]  # type: ignore[index]
        return _pick(listed, round_no)
    return _pick([words, *(shlex.split(o)[1:] for o in move["options"])], round_no)


def _pick(listed: list[list[str]], round_no: int) -> list[str]:
    """One of a decision's legal moves: the Black Knight runs away in round 1 (with M3 where that chit is
    listed); a character targets a denizen and seals ``PLAYS`` where he has them; else the first move."""
    first = listed[0]
    if first[:2] == ["mr", "action"] and first[3] == "bk" and round_no == 1:
        runs = [m for m in listed if m[4:5] == ["run"]]
        return next((m for m in runs if "M3" in m), runs[0])  # the Black Knight runs away in round 1
    if first[:2] == ["mr", "target"]:
        return next((m for m in listed if len(m) > 4 and not m[4].startswith("-")), first)
    if first[:2] == ["mr", "play"] and first[3] in PLAYS:
        cid = first[3]
        wanted = [*first[:4], *PLAYS[cid], "--seal", "--as", first[-1]]
        if wanted in listed:
            return wanted
        # as the list writes them (shield boxes by number), or void now (a chit wounded or fatigued since, by the
        # dice): a listed sealed play that attacks and maneuvers, as PLAYS do
        sealed = [m for m in listed if "--seal" in m]
        return next((m for m in sealed if "--attack" in m and "--maneuver" in m), sealed[0] if sealed else first)
    return first


DECISIONS = {"lure", "deploy", "action", "target", "play", "fatigue"}  # a player's decision steps (MR 001, 8.4)
REFEREE = {"assign", "melee", "resolve"}  # the referee's steps: dice, nobody decides (docs/trust.md, "Whose move")


class Fight:
    """One fight played to the end of round 2; ``sent[(player, round)]`` bundles sent, ``steps[(player,
    round)]`` the decision (or referee) steps in which that player typed a command."""

    def __init__(self, root: Path, chains: bool) -> None:
        self.root, self.seats = root, _table(root, chains)
        self.sent: Counter[tuple[str, int]] = Counter()
        self.steps: dict[tuple[str, int], set[str]] = {}
        self.forwards: Counter[tuple[str, int]] = Counter()  # bundles sent by a holder who did nothing
        self.trace: list[str] = []
        self.mailed = 0
        self.holding: set[str] = set()  # seats known to have the combat (a log never loses it): no need to ask again

    def has(self, seat: Seat) -> bool:
        if seat.name not in self.holding and _has(seat):
            self.holding.add(seat.name)
        return seat.name in self.holding

    def mail(self, sender: Seat, receiver: Seat, round_no: int) -> None:
        self.mailed += 1
        path = self.root / f"{self.mailed:03d}-{sender.name}-to-{receiver.name}.jsonl"
        if self.has(receiver):
            sender("export", G, "--for", receiver.name, "-o", str(path))
        else:
            sender("export", G, "-o", str(path))  # the whole combat to a player who has nothing yet
        receiver("import", str(path))
        self.sent[(sender.name, round_no)] += 1
        self.trace.append(f"r{round_no} {sender.name} -> {receiver.name}")

    def play(self, last_round: int = 2) -> Fight:
        gm, alice, bob = self.seats["gm"], self.seats["alice"], self.seats["bob"]
        # Set-up (round 0): the combat goes round the table once; each player checks it and joins (ack),
        # which commits his nonce chain when chains are on.
        for sender, receiver in ((gm, alice), (alice, bob)):
            self.mail(sender, receiver, 0)
            receiver("ack", G)
        holder, acted = bob, 0
        for _turn in range(120):
            status = holder("status", G, "--mine", "--json").json()
            assert isinstance(status, dict)
            if status["finished"] or status["round"] > last_round:
                break
            moves = [m for m in status["pending"] if m["command"] and "ack" not in m["command"].split()[:2]]
            if moves:
                words = _command(holder, moves[0], status["round"])
                assert words is not None
                holder(*words)
                acted = status["round"]
                kind = words[1] if words[0] == "mr" else words[0]
                if kind in DECISIONS | REFEREE:
                    self.steps.setdefault((holder.name, acted), set()).add(kind)
                self.trace.append(f"r{acted} {holder.name}: {' '.join(words[:-2])}")
                continue
            waiting = [w.split(" (")[0] for w in status["waiting_for"]]
            assert waiting, f"nobody to wait for: {status}\n" + "\n".join(self.trace)
            if not acted:
                self.forwards[(holder.name, status["round"])] += 1
            self.mail(holder, self.seats[waiting[0]], acted or status["round"])
            holder, acted = self.seats[waiting[0]], 0
        else:
            raise AssertionError(f"the fight did not reach round {last_round + 1}:\n" + "\n".join(self.trace))
        for seat in self.seats.values():  # everyone gets the end of the last round (not counted in the rounds)
            if seat is not holder:
                self.mail(holder, seat, 3)
        return self

    def table(self, title: str) -> str:
        lines = [title, "| player | set-up | round 1 | round 2 | end | total |", "|---|---|---|---|---|---|"]
        for p in ("gm", "alice", "bob"):
            n = [self.sent[(p, r)] for r in range(4)]
            d = [len(self.steps.get((p, r), ())) for r in (1, 2)]
            lines.append(f"| {p} | {n[0]} | {n[1]} ({d[0]}) | {n[2]} ({d[1]}) | {n[3]} | {sum(n)} |")
        return "\n".join(lines)


def test_joint_dice_ride_along_one_bundle_per_decision_step(tmp_path: Path) -> None:
    (tmp_path / "chains").mkdir()
    (tmp_path / "classic").mkdir()
    new = Fight(tmp_path / "chains", chains=True).play()
    # The classic flow is compared on round 1 (its seed steps: a commit and a reveal each, where chains take a
    # link); tests/trust/test_mr_sealed.py and test_my_move.py play it further.
    old = Fight(tmp_path / "classic", chains=False).play(last_round=1)
    print("\n" + new.table("nonce chains (bundles sent)") + "\n" + old.table("classic commit-reveal (bundles sent)"))
    print("\n".join(new.trace))
    # The target (issue #11, item 2): at most one bundle per player per decision step where he has a decision
    # (the referee's steps count as his), and none from a player with nothing to decide.
    for (player, round_no), n in new.sent.items():
        if round_no in (1, 2):
            assert n <= len(new.steps.get((player, round_no), ())), (player, round_no, new.table("chains"))
    assert not new.forwards, new.forwards
    # alice's Black Knight ran away in round 1 (MR 001 Actions): in round 2 she decides nothing and sends nothing.
    assert new.steps.get(("alice", 2)) is None and new.sent[("alice", 2)] == 0
    assert sum(n for (_p, r), n in new.sent.items() if r == 1) < sum(n for (_p, r), n in old.sent.items() if r == 1)
    # Both fights end verified, the same on all three machines; the chained one never needed a commit and reveal
    # for a seed-only step, the classic one never used a link.
    for fight in (new, old):
        reports = [seat.verify(G) for seat in fight.seats.values()]
        assert len({r["head_hash"] for r in reports}) == 1
        assert all(r["signatures"] == r["head_seq"] for r in reports)
    log_new = new.seats["gm"]("log", G, "--json").out
    log_old = old.seats["gm"]("log", G, "--json").out
    assert "core.link_revealed" in log_new and "core.chain_released" in log_new
    commits = [e["data"]["step"] for e in json.loads(log_new) if e["type"] == "core.orders_committed"]
    assert commits and all(step.endswith("/plays") for step in commits)  # seed-only steps took links alone
    assert "core.link_revealed" not in log_old and "core.chain_committed" not in log_old
