"""Issue #20, "Done when": crossing replies settle in one exchange, through the CLI on three key homes.

gm, alice and bob each have their own machine (log and key home, ``tests/trust/pbem.Seat``). At a head
all three hold, alice and bob answer the same mail, each mails the referee (a ``combatlog mail`` body),
the referee imports both and mails both back, and each imports his mail. Then all three logs must hold
both decisions and the same verified head, with no other mail: the decision of the branch the merge did
not keep was placed after the kept one, unchanged and still signed by its author, by every machine alike
(docs/trust.md, "Crossings"). Cases: Magic Realm lures with and without a sequencer (the crossed lures'
chain links included: the referee's ``mr assign`` draws its dice right after, with no further mail), a
move against a bare acknowledgement, and freeform notes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from combatlog.rulesets import available
from tests.trust.pbem import Seat, seat_keys, seats_built_once

G = "cave"
MR_SETUP = {  # the fight of docs/trust.md's walkthrough, with a third goblin left for the random assignment
    "clearing": {"name": "Cave 4", "type": "cave"},
    "first_round_of_day": False,
    "characters": [{"id": "bk", "character": "Black Knight", "player": "alice", "level": 4},
                   {"id": "amazon", "character": "Amazon", "player": "bob", "level": 4}],
    "denizens": [{"id": "goblin-1", "monster": "Axe Goblin"}, {"id": "goblin-2", "monster": "Axe Goblin"},
                 {"id": "goblin-3", "monster": "Axe Goblin"}],
}
needs_mr = pytest.mark.skipif("magic_realm" not in available(), reason="the Magic Realm ruleset is not installed")


class Table:
    """Three machines and the mail between them, counted."""

    def __init__(self, root: Path, seats: Sequence[Seat] = (), mails: int = 0) -> None:
        """Three new machines with their keys, or ``seats`` (copied, with ``mails`` sent between them)."""
        self.root = root
        self.seats = {seat.name: seat for seat in seats} or {name: Seat(name, root) for name in ("gm", "alice", "bob")}
        if not seats:
            seat_keys(root, list(self.seats.values()), everyone_imports=False)
        self.mails = mails

    def __getitem__(self, name: str) -> Seat:
        return self.seats[name]

    def mail(self, sender: str, to: str) -> str:
        """``combatlog mail`` from ``sender`` to ``to``, imported there; the import's output."""
        self.mails += 1
        path = self.root / f"{self.mails:02d}-{sender}-to-{to}.txt"
        self[sender]("mail", G, "--for", to, "-o", str(path))
        return self[to]("import", str(path)).out

    def exchange(self) -> dict[str, str]:
        """alice and bob mail the referee, who imports both and mails both back: four mails."""
        before = self.mails
        out = {"gm<alice": self.mail("alice", "gm"), "gm<bob": self.mail("bob", "gm")}
        out["alice"] = self.mail("gm", "alice")
        out["bob"] = self.mail("gm", "bob")
        assert self.mails - before == 4
        return out

    def log(self, name: str) -> list[dict[str, object]]:
        return self[name]("log", G, "--json", "--all").json()  # type: ignore[return-value]

    def one_head(self) -> str:
        reports = [seat.verify(G) for seat in self.seats.values()]
        assert all(r["ok"] for r in reports), reports
        heads = {r["head_hash"] for r in reports}
        assert len(heads) == 1, {name: r["head_seq"] for name, r in zip(self.seats, reports)}
        return heads.pop()  # type: ignore[no-any-return]


def _types_by(log: list[dict[str, object]], actor: str) -> list[object]:
    return [e["type"] for e in log if e["actor"] == actor]


def _magic_realm(root: Path, *options: str) -> Table:
    """The table ``_magic_realm_built`` sets up, made once per test run for these options by the real CLI and
    copied into ``root`` (tests/trust/pbem.py ``seats_built_once``): two tests start from the same one."""

    def build(folder: Path) -> list[Seat]:
        table = _magic_realm_built(folder, *options)
        (folder / "mails").write_text(str(table.mails))
        return list(table.seats.values())

    seats = seats_built_once(root, "crossings-mr-" + "-".join(options), build)
    return Table(root, seats, int((root / "mails").read_text()))


def _magic_realm_built(root: Path, *options: str) -> Table:
    """The combat reaches alice and bob; each joins (``ack``: his nonce chain too) and mails the referee: that
    first crossing (two acknowledgements) settles like any other. Every machine then holds one head."""
    table = Table(root)
    setup = root / "setup.json"
    setup.write_text(json.dumps(MR_SETUP))
    args = ["new", G, "--ruleset", "magic_realm", "--setup", str(setup), "--dice", "joint",
            "--player", "gm", "--player", "alice", "--player", "bob"]
    for option in options:
        args += ["--option", option]
    table["gm"](*args)
    table.mail("gm", "alice")
    table.mail("gm", "bob")
    table["alice"]("ack", G)
    table["bob"]("ack", G)
    out = table.exchange()
    assert "merged at" in out["gm<bob"] and "re-appl" not in "".join(out.values())
    table.one_head()
    return table


def _lures_cross(table: Table) -> None:
    alice, bob, gm = table["alice"], table["bob"], table["gm"]
    alice("mr", "lure", G, "bk", "goblin-1")
    bob("mr", "lure", G, "amazon", "goblin-2")
    out = table.exchange()
    merged = out["gm<bob"]
    assert "merged at" in merged and "placed " in merged and "re-appl" not in "".join(out.values()), merged
    table.one_head()
    for name in ("gm", "alice", "bob"):  # both decisions, with the links that rode along, on every machine
        log = table.log(name)
        lured = [(e["actor"], e["data"]["character"], e["data"]["lures"])  # type: ignore[index]
                 for e in log if e["type"] == "mr.lured"]
        assert sorted(lured, key=str) == [("alice", "bk", {"goblin-1": "bk"}),
                                          ("bob", "amazon", {"goblin-2": "amazon"})], (name, lured)
        links = {e["actor"] for e in log if e["type"] == "core.link_revealed"}
        assert {"alice", "bob"} <= links, (name, links)
    # nobody owes anything, and the referee draws the random assignment now, with no other mail
    for name in ("alice", "bob"):
        assert table[name]("status", G, "--mine", "--json").json()["owed"] == []  # type: ignore[index]
    before = table.mails
    assigned = gm("mr", "assign", G).out  # goblin-3, unlured, is assigned by a die of step r1/assign (MR 001)
    assert "r1/assign" in assigned and table.mails == before


@needs_mr
def test_magic_realm_lures_cross_without_a_sequencer(tmp_path: Path) -> None:
    _lures_cross(_magic_realm(tmp_path))


@needs_mr
def test_magic_realm_lures_cross_with_a_sequencer(tmp_path: Path) -> None:
    _lures_cross(_magic_realm(tmp_path, "sequencer=gm"))


@needs_mr
def test_a_move_against_a_bare_acknowledgement(tmp_path: Path) -> None:
    """The issue: "A bare ack beat alice's real move". bob only acknowledges; alice lures. Whatever the
    players' order at that place, the acknowledgement goes after the move (it decides nothing) and both
    stand on every machine."""
    table = _magic_realm(tmp_path)
    table["gm"]("note", G, "the goblins growl")  # #7: so that the crossing starts at #8, where bob goes first
    table.mail("gm", "alice")
    table.mail("gm", "bob")
    table["bob"]("ack", G)
    table["alice"]("mr", "lure", G, "bk", "goblin-1")
    out = table.exchange()
    merged = out["gm<bob"]
    # at #8 the players' order (gm, alice, bob) starts with index 8 mod 3 = 2, bob: his ack would have won
    assert "merged at #7" in merged and "(alice) goes first (bob's branch decides nothing" in merged, merged
    assert "placed bob's core.acknowledged" in merged and "re-appl" not in "".join(out.values())
    table.one_head()
    for name in ("gm", "alice", "bob"):
        log = table.log(name)
        lure = next(e for e in log if e["type"] == "mr.lured")
        acks = [e for e in log if e["type"] == "core.acknowledged" and e["actor"] == "bob"]
        assert acks[-1]["seq"] > lure["seq"], name  # type: ignore[operator]  # the move first, the ack placed after


def test_freeform_notes_cross(tmp_path: Path) -> None:
    table = Table(tmp_path)
    table["gm"]("new", G, "--ruleset", "freeform", "--dice", "joint", "--player", "gm", "--player", "alice",
                "--player", "bob")
    table.mail("gm", "alice")
    table.mail("gm", "bob")
    table.one_head()
    table["alice"]("note", G, "alice: we parley")
    table["bob"]("note", G, "bob: we fight")
    out = table.exchange()
    assert "merged at" in out["gm<bob"] and "re-appl" not in "".join(out.values())
    table.one_head()
    # the two crossing mails again at the referee's: nothing new, and said so with this log's head. A re-import
    # of the merged one said "merged at ..." as if it merged anew, and the other gave the bundle's head as if
    # it were the log's (found by an exploratory test)
    before = table.log("gm")
    head = before[-1]["seq"]
    for path in sorted(tmp_path.glob("*-to-gm.txt"))[-2:]:
        again = table["gm"]("import", str(path)).out
        assert "already up to date" in again and "merged at" not in again, again
        assert f"this log ends at #{head}" in again or f"this log at #{head})" in again, again
    assert table.log("gm") == before
    for name in ("gm", "alice", "bob"):
        log = table.log(name)
        assert _types_by(log, "alice")[-1] == _types_by(log, "bob")[-1] == "core.noted"
        texts = {e["data"]["text"] for e in log if e["type"] == "core.noted"}  # type: ignore[index]
        assert {"alice: we parley", "bob: we fight"} <= texts, name
    # the loser is not told his own decision back as news: his mail names it as his, placed by the merge
    placed = next(e for e in table.log("gm") if e["type"] == "core.noted" and e["seq"] == max(
        x["seq"] for x in table.log("gm") if x["type"] == "core.noted"))
    loser = str(placed["actor"])
    mail = table["gm"]("mail", G, "--for", loser).out
    assert "the merge placed it here" in " ".join(mail.split()), mail
    # the log says where it was decided; its author's signature is the one it carries
    assert placed["signed_by"] == [loser] and placed["placed_from"] < placed["seq"]  # type: ignore[operator]
    line = next(li for li in table["alice"]("log", G).out.splitlines() if li.startswith(f"#{placed['seq']} "))
    assert f"[signed by {loser}] [decided on #{placed['placed_from'] - 1}, placed here by a merge]" in line, line  # type: ignore[operator]
    report = tmp_path / "report.html"
    table["bob"]("report", G, "-o", str(report))
    assert f"recorded by {loser}, signed by {loser} (placed by a merge)" in report.read_text()



def test_a_placed_batch_is_decided_on_the_head_before_its_first_event(tmp_path: Path) -> None:
    """Found by an exploratory test: after a crossing, ``log`` marked the second event of a placed batch (bob's
    act, after his own die) "[decided on #7, ...]", #7 being his die where he made it but now another player's
    event. Every event of a placed batch is decided on the head before the batch's first event."""
    table = Table(tmp_path)
    table["gm"]("new", G, "--ruleset", "freeform", "--dice", "local", "--player", "gm", "--player", "alice",
                "--player", "bob", "--referee", "gm")
    table["gm"]("freeform", "join", G, "Aldo", "--side", "red", "--hp", "10", "--player", "alice")
    table["gm"]("freeform", "join", G, "Bo", "--side", "blue", "--hp", "10", "--player", "bob")
    table["gm"]("freeform", "round", G)
    table.mail("gm", "alice")
    table.mail("gm", "bob")
    table["alice"]("freeform", "act", G, "Aldo", "swings", "--roll", "1d20")
    table["bob"]("freeform", "act", G, "Bo", "parries", "--roll", "1d20")
    out = table.exchange()
    assert "merged at" in out["gm<bob"], out
    table.one_head()
    log = table.log("gm")
    placed = [e for e in log if "placed_from" in e]
    assert len(placed) == 2 and placed[0]["command_id"] == placed[1]["command_id"], placed  # a die, then the act
    first = placed[0]["placed_from"]
    assert [e["decided_on"] for e in placed] == [first - 1, first - 1]  # type: ignore[operator]
    lines = table["gm"]("log", G).out.splitlines()
    for e in placed:
        line = next(li for li in lines if li.startswith(f"#{e['seq']} "))
        assert f"[decided on #{first - 1}, placed here by a merge]" in line, line  # type: ignore[operator]
