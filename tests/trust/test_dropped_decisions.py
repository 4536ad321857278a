"""A crossing whose losing decision the winner's move made illegal (docs/trust.md, "What a merge left owed"):
it cannot be made again, so nobody is told to decide it again and nobody waits for it; the refusal says its
rule once. Two machines, the real CLI in subprocesses, bundles by file.

On the same head #6 alice has Aldo act while bob ends the combat. At #7 the players' order starts with bob
(index 7 mod 2 = 1), so his branch goes first; after the end, the rules refuse any action: alice's cannot be
placed after it, and re-issuing it would be refused too.
"""

from __future__ import annotations

from pathlib import Path

from tests.trust.pbem import Seat, mail, pair, seats_built_once

RULE = "(Freeform: table decision)"


def _crossed(tmp_path: Path) -> tuple[Seat, Seat, Path, str]:
    """alice's action and bob's end of the combat, both on #6; bob has imported hers. Returns the seats, the
    bundle bob mails back to alice, and bob's import report."""

    def build(folder: Path) -> tuple[Seat, Seat]:
        alice, bob = pair(folder, dice="local")  # #1
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")  # #2
        mail(alice, bob, "duel", folder)
        bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # #3
        bob("freeform", "round", "duel")  # #4
        bob("note", "duel", "an aside")  # #5
        bob("note", "duel", "another aside")  # #6
        mail(bob, alice, "duel", folder)
        alice("freeform", "act", "duel", "Aldo", "asks for a parley")  # her #7
        bob("freeform", "end", "duel", "--outcome", "Bo walks away")  # his #7-#8
        alice("export", "duel", "--since", "6", "-o", str(folder / "alice-crossing.jsonl"))
        report = bob("import", str(folder / "alice-crossing.jsonl")).out
        (folder / "bob-import.txt").write_text(report)
        bob("export", "duel", "--since", "6", "-o", str(folder / "bob-merged.jsonl"))
        return alice, bob

    alice, bob = seats_built_once(tmp_path, "dropped-decision-crossed", build)
    return alice, bob, tmp_path / "bob-merged.jsonl", (tmp_path / "bob-import.txt").read_text()


def test_a_decision_the_winner_made_illegal_is_not_offered_again(tmp_path: Path) -> None:
    alice, bob, merged, report = _crossed(tmp_path)
    # the merging machine re-decides it on the merged log: refused, with the rule once, not "goes back to alice"
    line = next(x for x in report.splitlines() if "alice's ff.action_taken (was #7)" in x)
    assert line.strip() == f"refused alice's ff.action_taken (was #7): the combat has ended {RULE}", report
    assert "goes back to alice" not in report

    # status: said once, why it cannot be made again; nobody owes it, nobody waits for it
    status = " ".join(bob("status", "duel").out.split())
    assert ("alice's decision \u201cAldo: asks for a parley\u201d (was #7) was not kept by the merge at #6 and cannot "
            f"be made again now: the combat has ended {RULE}; nobody owes it") in status, status
    assert "decides it again" not in status and "applies it again" not in status
    data = bob("status", "duel", "--json").json()
    assert data["owed"] == []  # type: ignore[index]
    assert [(d["player"], d["was"], d["refused"]) for d in data["dropped"]] == [  # type: ignore[index]
        ("alice", 7, f"the combat has ended {RULE}")]
    his = bob("status", "duel", "--mine").out
    assert "waiting for alice" not in his and "could not place" not in his
    hers = " ".join(bob.cli("status", "duel", "--mine", "--as", "alice").out.split())  # her view on his log
    assert "cannot be made again now: the combat has ended" in hers and "decide it again" not in hers

    # the mail bob writes her says so once, and offers nothing for it
    body = " ".join(bob("mail", "duel", "--for", "alice").out.split())
    assert "Your decision \u201cAldo: asks for a parley\u201d (was #7) was not kept by the merge at #6 and cannot be made" \
           " again now" in body
    assert "decide it again" not in body and "applies it again" not in body
    yours = bob("mail", "duel", "--for", "alice", "--json").json()["yours"]  # type: ignore[index]
    assert not any("parley" in t["what"] for t in yours)  # type: ignore[index]

    # her machine, importing the merge, tries it again: refused, the rule named once
    imported = alice("import", str(merged)).out
    refused = next(x for x in imported.splitlines() if "alice's ff.action_taken (was #7)" in x)
    assert refused.strip() == f"refused alice's ff.action_taken (was #7): the combat has ended {RULE}", imported
    mine = " ".join(alice("status", "duel", "--mine").out.split())
    assert "cannot be made again now" in mine and "decide it again" not in mine
    assert alice("status", "duel", "--mine", "--json").json()["owed"] == []  # type: ignore[index]
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"]
