"""After a merge, a mail tells the reader only what he has not seen, and status says what each player owes
(issue #20, items 3 and 5; docs/trust.md, "Mail and forum messages", "Concurrent moves").

The crossing: on the same head #6 alice has Aldo act with a die (local dice: the rules name it
``r1/Aldo/act``) while bob has Aldo (who has no player of his own) act with a die too, and they mail
crosswise. At #7 the players' order starts with the player at index 7 mod 2 = 1, bob (docs/trust.md,
"Concurrent moves", point 1), so bob's machine keeps its own branch. alice's action cannot be placed after it
unchanged (the label ``r1/Aldo/act`` is bob's now: the rules draw ``r1/Aldo/act#2``, not the die she
rolled), so it goes to ``superseded``, and she owes it until her
machine decides it again (a note, which stands anywhere, would have been placed: test_converge_cli). Before the crossing alice imported bob's
#3-#6 but signed nothing after #2, so "the last event she signed" is #2, far behind what she has seen.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.trust.pbem import Seat, mail, pair, seats_built_once


def _crossed(tmp_path: Path) -> tuple[Seat, Seat]:
    """alice's note and bob's note both on #6; bob has imported alice's (merged: his kept, hers superseded).
    Made once per test run by the real CLI and copied into ``tmp_path`` (tests/trust/pbem.py ``seats_built_once``):
    two tests start from it."""

    def build(folder: Path) -> tuple[Seat, Seat]:
        alice, bob = pair(folder, dice="local")  # #1: alice's genesis pinning alice and bob
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")  # #2, alice's last signature
        mail(alice, bob, "duel", folder)
        bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # #3
        bob("freeform", "round", "duel")  # #4: round 1
        for n in (5, 6):
            bob("note", "duel", f"bob's aside number {n}")
        mail(bob, alice, "duel", folder)  # alice has #1-#6 and signs nothing
        alice("freeform", "act", "duel", "Aldo", "asks for a parley", "--roll", "1d20")  # her #7-#8
        bob("freeform", "act", "duel", "Aldo", "draws his sword", "--roll", "1d20")  # his #7-#8, in round 1 too
        crossing = folder / "alice-crossing.jsonl"
        alice("export", "duel", "--since", "6", "-o", str(crossing))
        merged = bob("import", str(crossing)).out
        assert "merged at #6" in merged and "(bob) goes first" in merged
        assert "it goes back to alice" in merged  # her key is not on bob's machine, and placing it fails
        return alice, bob

    alice, bob = seats_built_once(tmp_path, "after-merge-crossed", build)
    return alice, bob


def test_a_mail_after_a_merge_tells_the_loser_only_what_he_had_not_seen(tmp_path: Path) -> None:
    alice, bob = _crossed(tmp_path)
    text = bob("mail", "duel", "--for", "alice").out
    flat = " ".join(text.split())  # lines wrap at 72 columns
    # she held #1-#6 (her superseded #7 was made on bob's #6): not #2, her last signature in the log
    assert "Events #7-#8 since #6, where your branch parted from the one the merge kept" in flat
    assert "#8 [round 1] bob: Aldo: draws his sword" in flat  # bob's #7-#8: news to her
    for seen in ("bob's aside number 5", "bob's aside number 6", "Bo joins", "round 1 begins"):
        assert seen not in flat, seen  # what she had imported is not told again
    # what she owes, in words: her note went back to her, and her import re-applies it
    assert "your decision \u201cAldo's 1d20 for asks for a parley" in flat, flat
    assert ("(was #7) was not kept by the merge at #6 and could not be placed after it: importing this mail applies "
            "it again on your machine" in flat), flat
    assert flat.index("your decision") < flat.index("The bundle")
    # the bundle still holds what her machine needs: the events after the #6 she has
    assert "Events: 7-8" in text
    letter = tmp_path / "to-alice.txt"
    letter.write_text(text)
    imported = alice("import", str(letter)).out
    assert "merged at #6" in imported
    assert "re-applied alice's core.dice_rolled, ff.action_taken (was #7-#8) as #9-#10" in imported, imported
    # her note is in her log now: nobody tells her she owes it
    mine = alice("status", "duel", "--mine").out
    assert "was not kept by the merge" not in mine
    assert alice("status", "duel", "--mine", "--json").json()["owed"] == []  # type: ignore[index]
    mail(alice, bob, "duel", tmp_path)
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"]
    assert "was not kept by the merge" not in bob("status", "duel").out
    assert bob("status", "duel", "--json").json()["owed"] == []  # type: ignore[index]


def test_status_says_who_owes_a_decision_the_merge_could_not_place(tmp_path: Path) -> None:
    alice, bob = _crossed(tmp_path)
    # bob's view: alice owes her note, in the third person, once
    status = " ".join(bob("status", "duel").out.split())
    assert status.count("alice's decision \u201cAldo's 1d20 for asks for a parley") == 1, status
    assert status.count("(was #7) was not kept by the merge at #6") == 1, status
    assert "alice applies it again by importing that merge, or decides it again" in status  # the rules allow it
    owed = bob("status", "duel", "--json").json()["owed"]  # type: ignore[index]
    assert [(o["player"], o["was"], o["merge_at"]) for o in owed] == [("alice", 7, 6)]  # type: ignore[index]
    assert owed[0]["what"].startswith("Aldo's 1d20 for asks for a parley")  # type: ignore[index]
    # alice reads bob's log (hot seat on his machine): it is hers to redo, in the second person
    hers = bob.cli("status", "duel", "--mine", "--as", "alice").out
    assert "your decision \u201cAldo's 1d20 for asks for a parley" in " ".join(hers.split())
    assert "nothing now" not in hers
    # bob owes nothing, and is told whom he waits for and why
    his = bob("status", "duel", "--mine").out
    assert "your decision" not in his
    assert "alice (a decision the merge could not place)" in " ".join(his.split()), his
    # once alice has signed on the kept branch (here at bob's machine, her key copied there: a hot seat),
    # she has seen the merge; her note is not in the log, so her machine refused it or she decided
    # otherwise: nobody is told she still owes it
    shutil.copy2(alice.home / "keys" / "alice.key", bob.home / "keys" / "alice.key")
    bob.cli("ack", "duel", "--as", "alice")
    assert bob("status", "duel", "--json").json()["owed"] == []  # type: ignore[index]
    assert "could not place" not in bob("status", "duel", "--mine").out


def test_a_placed_decision_is_not_news_to_its_author_and_the_mail_starts_where_he_decided(tmp_path: Path) -> None:
    """A placed event as ``Envelope.placed_at`` makes it (the merge that places is built beside this): in
    ``signed_duel`` alice's last signature is #8 (round 1); bob rolls and acts at #9-#10, which alice
    imports without signing; alice notes on #10 as #11 while bob notes #11; the merge keeps bob's and
    places hers at #12, with her signature over #11. She held #1-#10 (placed.seq - 1), not #12: a mail
    from #12 would leave out bob's #11 and her import could not attach it."""
    from combatlog.commands.core import AddNote
    from combatlog.commands.handler import resolve_stream
    from combatlog.events.core import Noted
    from combatlog.events.envelope import encode_envelope, seal
    from combatlog.exchange.mail import mail_body
    from combatlog.store.base import ImportBatch, NewRow
    from combatlog.trust.after_merge import AfterMerge, held_by
    from combatlog.rulesets.freeform import commands as ff
    from tests.trust.pbem import key_home, signed_duel

    with key_home(tmp_path / "keys"):
        store, signers, do = signed_duel(tmp_path, rolls=False)
        do("bob", ff.Act(who="Bo", action="swings", roll="1d20"))  # #9-#10
        meta = resolve_stream(store, "duel")
        at10 = store.head(meta.id)
        assert at10.seq == 10
        hers = signers["alice"](seal(stream=meta.id, seq=11, prev=at10.hash, event=Noted(text="alice parleys"),
                                     actor="alice", command_id="alice-parley"))
        do("bob", AddNote(text="bob strikes"))  # #11, kept
        kept = store.head(meta.id)
        placed = hers.placed_at(seq=12, prev=kept.hash)
        store.import_batches([ImportBatch(stream_id=meta.id, expected_version=11, rows=[
            NewRow(12, placed.type, placed.hash, encode_envelope(placed), placed.command_id)])])
        assert placed.original().hash == hers.hash  # her signature holds for where she made it
        assert held_by(store, meta)["alice"] == 10
        assert AfterMerge(store, meta).held("alice") == (10, "placed")
        text = " ".join(mail_body(store, meta, "alice", since=10).split())
    assert "Events #11-#12 since #10, where you made your last decision (the merge placed it later)" in text
    assert "#11 [round 1] bob: note: bob strikes" in text  # news to her
    told = text[text.index("What happened"):text.index("Your side now")]
    assert "swings" not in told and "#10 [" not in told and "#9 [" not in told  # she had them when she decided
    # her own decision in one line, not as news: where she made it and where the merge put it
    assert "#12 yours: note: alice parleys; you decided it on #10 (as #11), the merge placed it here" in text
    assert "#12 [round 1] alice" not in text
    assert "was not kept by the merge" not in text  # placed: she owes nothing


def test_the_mail_after_a_merge_shown_in_the_docs_is_what_the_command_prints(tmp_path: Path) -> None:
    """docs/trust.md, "Mail and forum messages": alice's note and bob's cross on #6; bob's machine keeps his #7
    and places hers as #8. Every line of the page's example (but the head's hash and the cut bundle) is in
    the real mail."""
    import re

    from tests.conftest import REPO

    alice, bob = pair(tmp_path)
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    mail(alice, bob, "duel", tmp_path)
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    for n in (4, 5, 6):
        bob("note", "duel", f"bob's aside number {n}")
    mail(bob, alice, "duel", tmp_path)
    alice("note", "duel", "alice asks for a parley")
    bob("note", "duel", "bob draws his sword")
    crossing = tmp_path / "alice-crossing.jsonl"
    alice("export", "duel", "--since", "6", "-o", str(crossing))
    assert "placed alice's core.noted (was #7) as #8" in bob("import", str(crossing)).out
    text = bob("mail", "duel", "--for", "alice").out
    page = (REPO / "docs" / "trust.md").read_text()
    shown = re.search(r"\$ combatlog mail duel --for alice.*?\n(combatlog: duel .*?)```", page, re.S)
    assert shown is not None
    for line in shown.group(1).splitlines():
        if line != "..." and not line.startswith("Head: #8 ("):
            assert line in text, line
    letter = tmp_path / "to-alice.txt"
    letter.write_text(text)
    assert "alice's core.noted (was #7): already in this log as #8" in alice("import", str(letter)).out
    assert alice.verify("duel")["head_hash"] == bob.verify("duel")["head_hash"]


def test_owed_decisions_of_a_log_no_merge_touched_read_no_log(tmp_path: Path) -> None:
    """``status`` asks for owed decisions on every call. A log with nothing superseded owes nothing, and the
    answer must not read the log: it used to decode every event, so status grew with the combat (a third of
    its instructions on a 2,500-line one, docs/benchmarks.md). The tests above read it, with one superseded."""
    from combatlog.commands.core import AddNote
    from combatlog.rulesets import load_ruleset
    from combatlog.store import open_store
    from combatlog.trust.after_merge import AfterMerge
    from combatlog.wiring import create_combat, execute

    store = open_store(str(tmp_path / "log.db"))
    meta = create_combat(store, "duel", "freeform", actor="gm").stream
    for n in range(20):
        execute(store, "duel", AddNote(text=f"aside {n}"), actor="gm")
    reads: list[tuple[object, ...]] = []
    real_rows, real_bodies = store.read_stream, store.read_bodies
    store.read_stream = lambda *a, **k: (reads.append(a), real_rows(*a, **k))[1]  # type: ignore[method-assign]
    store.read_bodies = lambda *a, **k: (reads.append(a), real_bodies(*a, **k))[1]  # type: ignore[method-assign]
    assert AfterMerge(store, meta).owed(load_ruleset("freeform")) == []
    assert reads == []
