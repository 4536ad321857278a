"""Right-to-left text in the terminal views (``log``, ``replay``, ``explain``, ``show``, ``status``).

Found by an exploratory test: a participant named and sided in Hebrew made the terminal's bidi
algorithm (Unicode UAX #9, which a bidi terminal applies to each line) pull the numbers and words
beside the name into its run: "#2 gm אבי joins side שלום עליכם, 10 hp" showed its "10" on the wrong
side. The pictures were fixed by isolating each right-to-left stretch with FSI ... PDI (U+2068,
U+2069: pictures/svg.py, docs/pictures.md); the terminal views now do the same, after the escaping and
the wrapping (so the isolates are ours, never the log's, and each line is balanced), and only where a
line holds right-to-left text: every other line is byte for byte what it was.
"""

from __future__ import annotations

import re

from tests.cli.terminal import run_on_a_terminal
from tests.conftest import Cli

FSI, PDI = "\u2068", "\u2069"
NAME, SIDE, KNIFE = "אבי", "שלום עליכם", "סכין"


def _duel(cli: Cli) -> None:
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", NAME, "--side", SIDE, "--hp", "10")
    cli("freeform", "join", "duel", "Bo", "--side", "b", "--hp", "5")
    cli("note", "duel", f"{NAME}: 3 hp left,\nBo 5")
    cli("freeform", "round", "duel")
    cli("freeform", "damage", "duel", NAME, "3", "--reason", KNIFE)


def test_log_and_replay_isolate_right_to_left_text_and_leave_the_rest_alone(cli: Cli) -> None:
    _duel(cli)
    log = cli("log", "duel", "--no-pager").out.splitlines()
    assert log[1] == f"#2     gm         {FSI}{NAME}{PDI} joins side {FSI}{SIDE}{PDI}, 10 hp"
    assert log[2] == "#3     gm         Bo joins side b, 5 hp"  # no right-to-left text: as before
    # a stretch runs from its first right-to-left letter to its last before a left-to-right one, so the
    # note's colon and the numbers after it stay outside (the line break is escaped: one line a row)
    assert log[3] == f"#4     gm         note: {FSI}{NAME}{PDI}: 3 hp left,\\nBo 5"
    assert log[5] == f"#6     gm         {FSI}{NAME}{PDI} hp -3 ({FSI}{KNIFE}{PDI})"
    replay = cli("replay", "duel").out.splitlines()
    assert f"#2     [r0] {FSI}{NAME}{PDI} joins side {FSI}{SIDE}{PDI}, 10 hp" in replay
    assert f"         -> {FSI}{NAME}{PDI} loses 3 hp (10 -> 7): {FSI}{KNIFE}{PDI}  (Freeform: table decision)" in replay
    assert "#3     [r0] Bo joins side b, 5 hp" in replay
    # the state shown at the end: the table's columns line up as before (the isolates take no column)
    table = replay[replay.index("round 1 (open)") + 1:]
    assert table == [f"  {FSI}{NAME}{PDI}  side {FSI}{SIDE}{PDI} hp 7/10", "  Bo   side b        hp 5/5"]
    for out in (log, replay, cli("explain", "duel").out.splitlines(), cli("show", "duel").out.splitlines()):
        for line in out:
            assert line.count(FSI) == line.count(PDI), line
            assert (FSI in line) == bool(re.search("[\u0590-\u08ff]", line)), line


def test_a_combat_without_right_to_left_text_prints_no_isolate(cli: Cli) -> None:
    cli("new", "plain", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "plain", "Aldo", "--side", "red", "--hp", "10")
    cli("note", "plain", "two\nlines")
    for view in (("log", "plain", "--no-pager"), ("replay", "plain"), ("explain", "plain"), ("show", "plain"),
                 ("status", "plain")):
        out = cli(*view).out
        assert FSI not in out and PDI not in out


def test_on_a_narrow_terminal_each_wrapped_line_is_isolated_on_its_own(cli: Cli) -> None:
    # a terminal lays out each line by itself: an isolate opened on one line and closed on the next would
    # leave both unbalanced. The 60-column terminal folds a long Hebrew note.
    _duel(cli)
    cli("note", "duel", " ".join([KNIFE] * 20))
    code, shown = run_on_a_terminal(["replay", "duel"], {**cli.env, "COLUMNS": "60"})
    assert code == 0, shown
    lines = shown.replace("\r\n", "\n").splitlines()
    folded = [x for x in lines if KNIFE in x and "hp" not in x]
    assert len(folded) >= 2 and all(x.count(FSI) == 1 for x in folded), shown  # over several lines, each isolated
    for line in lines:
        assert line.count(FSI) == line.count(PDI) and len(line.replace(FSI, "").replace(PDI, "")) <= 60, line
