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

    # the timeline shows it where the branches parted, not only `combatlog superseded`
    timeline = bob("log", "duel", "--no-pager").out.splitlines()
    at = next(i for i, x in enumerate(timeline) if x.startswith("#6 "))
    assert timeline[at + 1].split()[:3] == ["(not", "kept)", "alice's"], timeline
    assert "\u201cAldo: asks for a parley\u201d (was #7), made on #6, was not kept by a merge" in timeline[at + 1]

    # the mail bob writes her says so once, and offers nothing for it; the next mail does not repeat it
    first = bob("mail", "duel", "--for", "alice", "--json").json()
    assert not any("parley" in t["what"] for t in first["yours"])  # type: ignore[index]
    assert "Your decision \u201cAldo: asks for a parley\u201d (was #7) was not kept by the merge at #6 and cannot be made" \
           " again now: the combat has ended" in " ".join(first["body"].split())  # type: ignore[index]
    body = " ".join(bob("mail", "duel", "--for", "alice").out.split())
    assert "decide it again" not in body and "applies it again" not in body
    assert "asks for a parley" not in body  # the --json message above told her
    assert "asks for a parley" not in " ".join(bob("status", "duel").out.split())  # told her: settled
    hers = " ".join(bob.cli("status", "duel", "--mine", "--as", "alice").out.split())  # her view on his log
    assert "cannot be made again now" not in hers and "decide it again" not in hers

    # her machine, importing the merge, tries it again: refused, the rule named once
    imported = alice("import", str(merged)).out
    refused = next(x for x in imported.splitlines() if "alice's ff.action_taken (was #7)" in x)
    assert refused.strip() == f"refused alice's ff.action_taken (was #7): the combat has ended {RULE}", imported
    # ... and that report was her telling: her status does not say it again
    mine = " ".join(alice("status", "duel", "--mine").out.split())
    assert "cannot be made again now" not in mine and "decide it again" not in mine
    data = alice("status", "duel", "--mine", "--json").json()
    assert data["owed"] == [] and [(d["refused"], d["told"]) for d in data["dropped"]] == [  # type: ignore[index]
        (f"the combat has ended {RULE}", True)]
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"]


def test_the_reason_a_decision_was_dropped_is_the_merges_not_a_later_heads(tmp_path: Path) -> None:
    """alice's act crosses bob's end of round 1 (tests/security/test_crossing_choices.py, attack 3); gm's merge
    refuses it there: no round is open. gm then opens round 2, where the rules alone would take an act again.
    Re-decided on that later head, her decision used to read as owed ("decide it again"), an order for round 1
    offered in round 2, and its reason changed with every head. It stays dropped, with the merge's reason."""
    from combatlog.projections.fold import state_at
    from combatlog.projections.streams import resolve_stream
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.trust.after_merge import AfterMerge
    from tests.security.test_crossing_choices import S, act_crossing_the_end_of_round
    from tests.trust.pbem import key_home

    with key_home(tmp_path / "keys"):
        ms, act, _fork = act_crossing_the_end_of_round(tmp_path)
        gm = ms["gm"]
        meta = resolve_stream(gm.store, S)

        def dropped() -> list[tuple[str, bool, str]]:
            owed = AfterMerge(gm.store, meta).owed(state_at(gm.store, meta).ruleset, state_at(gm.store, meta))
            return [(o.player, o.owed, o.refused) for o in owed]

        at_merge = dropped()
        assert at_merge == [("alice", False, f"{act.message} ({act.rule})")], at_merge
        gm.do("gm", ff.StartRound(), S)  # round 2: an act is legal again on this head
        assert dropped() == at_merge
