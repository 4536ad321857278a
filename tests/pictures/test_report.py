"""`combatlog report`: one self-contained HTML file per example that html.parser reads back whole, with
a section, a picture and the events of every round, the dice ledger, forks; and every string from the log
escaped."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from combatlog.pictures.report import report_html
from combatlog.projections.views import dice_ledger
from tests.conftest import REPO, Cli
from tests.edited_logs import rewrite_event, small_brawl
from tests.pictures.conftest import EXAMPLES, run_cli
from tests.pictures.svgcheck import groups, parse_html, parse_svg

STEMS = [p.stem for p in EXAMPLES]
SVG = re.compile(r"<svg\b.*?</svg>", re.S)


@pytest.mark.parametrize("stem", STEMS)
def test_every_example_reports_whole(stem: str, open_example) -> None:  # type: ignore[no-untyped-def]
    from combatlog.projections.fold import state_at

    store, meta = open_example(stem)
    text = report_html(store, meta, None)
    doc = parse_html(text)
    assert not doc.errors and not doc.stack, (doc.errors, doc.stack)
    # self-contained: nothing fetched, nothing run
    assert not doc.find("script") and not doc.find("link") and not doc.find("img") and not doc.find("iframe")
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", text) and "@import" not in text and "url(http" not in text
    assert all(a["href"].startswith("#") for a in doc.find("a"))  # type: ignore[union-attr]
    head = state_at(store, meta)
    rounds = sorted(head.core.round_last)
    assert [s["id"] for s in doc.find("section") if (s["id"] or "").startswith("round-")] == [f"round-{r}" for r in rounds]
    pictures = SVG.findall(text)
    assert len(pictures) == len(rounds)
    for svg in pictures:
        parse_svg(svg)  # each inline picture is well-formed XML too
    ids = [a["id"] for _t, a in doc.starts if a.get("id")]
    assert len(ids) == len(set(ids)), "ids must be unique in the page"
    events = [a for a in doc.find("li") if (a.get("id") or "").startswith("seq-")]
    assert len(events) == head.core.head_seq
    rolls = dice_ledger(store, meta)["rolls"]
    assert len([a for a in doc.find("tr") if (a.get("id") or "").startswith("die-")]) == len(rolls)
    words = " ".join(doc.text)
    assert "verified" in words and head.core.head_hash in words
    assert "entered by hand" in words or not rolls
    # a die a step reads links to its ledger row, except on the line just after the die's own (which links there)
    rolled = {str(escape(r["label"])): r["seq"] for r in rolls}
    linked = unlinked = 0
    for seq, line in re.findall(r'^<li id="seq-(\d+)">(.*)$', text, re.M):
        for anchor, label in re.findall(r'(?:<a href="#die-(\d+)">)?\[([^\]<]+)\]', line):
            if label not in rolled:
                continue
            if anchor:
                assert int(anchor) == rolled[label], (seq, label)
                linked += 1
            else:
                assert rolled[label] == int(seq) - 1, f"#{seq} reads [{label}] unlinked, its die not the line above"
                unlinked += 1
    assert linked + unlinked > 0 or not rolls


def test_report_of_one_round_and_on_the_command_line(examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ex = examples["giant-and-goblins"]
    out = tmp_path / "r2.html"
    proc = run_cli(ex.db, "report", ex.stream, "--round", "2", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = parse_html(out.read_text())
    assert [s["id"] for s in doc.find("section") if (s["id"] or "").startswith("round-")] == ["round-2"]
    proc = run_cli(ex.db, "report", ex.stream, "--round", "9", "-o", str(tmp_path / "r9.html"))
    assert proc.returncode == 6 and "no round 9" in proc.stderr and not (tmp_path / "r9.html").exists()
    proc = run_cli(ex.db, "report", ex.stream, "-o", str(tmp_path / "nope" / "x.html"))
    assert proc.returncode == 6 and "no folder" in proc.stderr


HOSTILE = ['<script>alert("x")</script>', '"><img src=x onerror=alert(1)>', "</style><b>bold</b>",
           "]]><!-- & &amp; -->"]


def test_hostile_strings_are_escaped(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "log.db", REPO)
    cli("new", "brawl", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "brawl", HOSTILE[0], "--side", HOSTILE[1], "--hp", "5")
    cli("freeform", "join", "brawl", "Bo", "--side", "x", "--hp", "5")
    cli("note", "brawl", HOSTILE[2])
    cli("freeform", "round", "brawl")
    cli("freeform", "act", "brawl", "Bo", HOSTILE[3], "--roll", "1d6", "--face", "r1/Bo/act=3")
    cli("freeform", "condition", "brawl", "Bo", HOSTILE[1], "--reason", HOSTILE[2])
    cli("fork", "brawl", "--at", "5", "--as", "what-if", "--reason", HOSTILE[0])
    html_out, svg_out = tmp_path / "r.html", tmp_path / "s.svg"
    cli("report", "brawl", "-o", str(html_out))
    cli("sheet", "brawl", "-o", str(svg_out))
    text = html_out.read_text()
    doc = parse_html(text)
    assert not doc.errors and not doc.stack
    assert not doc.find("script") and not doc.find("img")
    assert "<b>bold" not in text and "&lt;b&gt;bold" in text  # the report's own <b> marks seqs, not this
    words = "".join(doc.text)
    for s in HOSTILE:
        assert s in words  # shown as text, escaped in the file
    root = parse_svg(svg_out.read_text())
    assert [g.get("data-name") for g in groups(root, "participant")] == [HOSTILE[0], "Bo"]
    assert "<script>" not in svg_out.read_text()
    forks = next(a for a in doc.find("section") if a.get("id") == "forks")
    assert forks and "what-if" in words


# A note written on several lines by a hostile player (core.noted is the one event text that may hold
# line breaks: combatlog.text.MULTILINE): markup, an attribute-breaking quote, an indented line.
NOTE = 'the ruling:\n<b onmouseover="x">1.</b> the orc flees\n  2. "Bo" keeps\tthe axe'


def note_report(tmp_path: Path) -> str:
    cli = Cli(tmp_path / "log.db", REPO)
    cli("new", "brawl", "--ruleset", "freeform", "--dice", "manual")
    cli("note", "brawl", NOTE)
    page = tmp_path / "r.html"
    cli("report", "brawl", "-o", str(page))
    return page.read_text()


def test_a_notes_line_breaks_are_kept_in_the_report_and_escaped(tmp_path: Path) -> None:
    """Found by an exploratory test: a note's lines were written into the report's event line, where
    HTML folds a line break into a space, so a ruling in three lines read as one. The text stays escaped
    (nothing of it becomes markup) and the event lines keep their breaks and indentation (white-space:
    pre-wrap); tests/pictures/test_browser.py checks the lines as Chromium lays them out."""
    text = note_report(tmp_path)
    doc = parse_html(text)
    assert not doc.errors and not doc.stack
    assert "<b onmouseover" not in text and not [a for _t, a in doc.starts if "onmouseover" in a]
    item = re.search(r'<li id="seq-2"><b>#2</b> (.*?)</li>', text, re.S)
    assert item is not None
    assert item.group(1) == f"note: {escape(NOTE)}"  # the breaks, the indentation and the tab as written
    css = re.search(r"<style>(.*?)</style>", text, re.S)
    assert css is not None and re.search(r"ol\.events li \{[^}]*white-space: pre-wrap", css.group(1))
    # the steps' lines get no stray leading space from the template now that spaces are kept
    assert "<li> " not in text


def test_a_fork_taken_mid_plays_reports_concealed_plays_as_alice(examples, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    db = tmp_path / "copy.db"
    shutil.copy(examples["giant-and-goblins"].db, db)
    assert run_cli(db, "fork", "giant-goblins", "--at", "15", "--as", "mid-plays",
                   "--reason", "what if the Black Knight played otherwise").returncode == 0
    out = tmp_path / "alice.html"
    proc = run_cli(db, "report", "mid-plays", "-o", str(out), "--as", "alice")
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    doc = parse_html(text)
    words = " ".join(doc.text)
    assert "Fork of giant-goblins after seq 15: what if the Black Knight played otherwise" in words
    assert "concealed until every side has played" in words and "showing only what alice may see" in words
    pictures = SVG.findall(text)
    assert groups(parse_svg(pictures[-1]), "plays-hidden", data_sheet="amazon")
    parent = tmp_path / "parent.html"
    assert run_cli(db, "report", "giant-goblins", "-o", str(parent)).returncode == 0
    forks = parse_html(parent.read_text())
    assert "mid-plays" in " ".join(forks.text) and "#15" in " ".join(forks.text)


def test_the_dice_ledger_says_a_state_every_die_shares_once() -> None:
    """The state of each die (scheme: verification) is a column where the dice differ in it; where they
    all share one, it is said once above the table, not on every row."""
    from combatlog.pictures.html import environment

    table = environment().from_string('{% from "_parts.html" import dice_table %}{{ dice_table(dice, legend) }}')
    row = {"seq": 3, "anchor": "die-3", "label": "r1/a", "notation": "1d6", "faces": [4], "total": 4, "by": "bob",
           "for": "", "state": "manual", "cls": "muted"}
    manual = ("manual", "entered by hand: trusted, not checkable")
    one = parse_html(table.render(dice=[row, {**row, "seq": 5, "anchor": "die-5"}], legend=[manual]))
    assert not one.errors and not one.stack
    assert len(one.find("th")) == 6 and len(one.find("td")) == 12
    assert "Scheme and verification of every die below: manual: entered by hand" in "".join(one.text)
    joint = {**row, "seq": 5, "anchor": "die-5", "state": "joint: verified", "cls": "ok"}
    two = parse_html(table.render(dice=[row, joint], legend=[manual, ("joint: verified", "verified against ...")]))
    assert not two.errors and not two.stack
    assert len(two.find("th")) == 7 and [a.get("class") for a in two.find("td")][6::7] == ["muted", "ok"]
    assert "manual" in two.text and "joint: verified" in two.text


def test_what_every_round_would_repeat_is_said_once() -> None:
    """The usual who line and the common rule most rounds share go to the introduction: a round writes a
    who line where it changes and at its start only where it is not the usual one, and names its common
    rule only where it is another."""
    from combatlog.pictures.report import EventRow, RoundPart, say_once

    def part(n: int, whos: list[str], rule: str) -> RoundPart:
        return RoundPart(n, f"Round {n}", 0, 0, common_rule=rule,
                         events=[EventRow(i, "x", False, who, None, None, []) for i, who in enumerate(whos)])

    parts = [part(1, ["gm", "gm", "alice"], "R1"), part(2, ["alice", "gm", "gm"], "R1"), part(3, ["gm"], "R2"),
             part(4, [], "")]
    assert say_once(parts) == ("gm", "R1")
    assert [[e.who for e in p.events] for p in parts] == [[None, None, "alice"], ["alice", "gm", None], [None], []]
    assert [p.common_rule for p in parts] == ["", "", "R2", ""]
    # a rule one round names stays with it; a report of no events has no usual who
    lone = [part(1, ["bob"], "R1"), part(2, ["bob"], "R2")]
    assert say_once(lone) == ("bob", "") and [p.common_rule for p in lone] == ["R1", "R2"]
    assert say_once([part(0, [], "")]) == ("", "")


# -- a log that fails verification: the report reads the log once, verifying as it walks -----------------


def _failure_of(store: Any, meta: Any) -> str:
    from combatlog.errors import VerificationFailed
    from combatlog.wiring import verify_stream

    with pytest.raises(VerificationFailed) as failed:
        verify_stream(store, meta)
    return str(failed.value)


def _rounds(text: str) -> list[str]:
    return re.findall(r'<section class="round".*?</section>', text, re.S)


def test_a_log_altered_midway_is_reported_failing_and_still_whole(tmp_path: Path) -> None:
    """The verifier stops at the altered event; the report still shows every event, as the log holds them."""
    import msgspec

    store, meta, last = small_brawl(tmp_path / "log.db")
    intact = report_html(store, meta, None)
    middle = last // 2  # its time moved by a microsecond: nothing the report shows, but its hash breaks
    rewrite_event(store, middle, lambda env: msgspec.structs.replace(
        env, recorded_at=env.recorded_at[:-2] + ("1" if env.recorded_at[-2] != "1" else "2") + "Z"))
    failure = _failure_of(store, meta)
    assert f"seq {middle}: hash does not match" in failure
    calls: list[tuple[int, int]] = []
    text = report_html(store, meta, None, on_progress=lambda done, total: calls.append((done, total)))
    words = " ".join(parse_html(text).text)
    assert "VERIFICATION FAILED" in words and str(escape(failure)) in text and "verified:" not in words
    assert _rounds(text) == _rounds(intact)  # every event and picture, before and after the altered one
    assert 'every die below: <b class="bad">not checked</b>: the log failed verification' in text
    assert text.count('<tr id="die-') == 3
    # progress goes once from 0 to the head, though the log is walked again after the failure
    assert calls[0] == (0, last) and calls[-1] == (last, last)
    done = [d for d, _t in calls[:-1]]
    assert done == sorted(set(done)) and len(done) > middle, done


def test_a_forgery_found_only_when_the_last_command_is_re_decided_fails_the_report(tmp_path: Path) -> None:
    """A last event forged with its hash recomputed passes every check on arrival: re-deciding its command,
    when the verifier finishes (after the walk has read every event), refuses it."""
    import msgspec

    from combatlog.events.canonical import canonical

    store, meta, last = small_brawl(tmp_path / "log.db")

    def forge(env: Any) -> Any:
        data = msgspec.json.decode(env.data)
        data["delta"] = -4  # the rules decided -3
        forged = msgspec.structs.replace(env, data=msgspec.Raw(canonical(data)), hash="")
        return msgspec.structs.replace(forged, hash=forged.computed_hash())

    rewrite_event(store, last, forge)
    failure = _failure_of(store, meta)
    assert f"seq {last}" in failure and "does not re-decide" in failure
    text = report_html(store, meta, None)
    words = " ".join(parse_html(text).text)
    assert "VERIFICATION FAILED" in words and str(escape(failure)) in text and "verified:" not in words
    assert len(re.findall(r'<li id="seq-', text)) == last and "Bo loses 4 hp" in words


def test_the_compiled_templates_are_kept_as_python_keeps_bytecode(tmp_path: Path) -> None:
    """Compiled once, then read back, under PYTHONPYCACHEPREFIX here (beside the templates by default); a
    damaged entry is compiled and written again; nothing is kept under PYTHONDONTWRITEBYTECODE."""
    from jinja2.bccache import bc_magic

    from combatlog.pictures.html import TEMPLATES

    small_brawl(tmp_path / "log.db")[0].close()
    prefix, outs = tmp_path / "pyc", [tmp_path / f"r{i}.html" for i in range(4)]
    cli = Cli(tmp_path / "log.db", REPO, env={"PYTHONPYCACHEPREFIX": str(prefix)})
    cli("report", "brawl", "-o", str(outs[0]))
    kept = sorted((prefix / TEMPLATES.relative_to(TEMPLATES.anchor)).glob("*.cache"))
    assert len(kept) == 2  # report.html and the _parts.html it imports
    written = [(p.stat().st_mtime_ns, p.read_bytes()) for p in kept]
    cli("report", "brawl", "-o", str(outs[1]))
    assert [(p.stat().st_mtime_ns, p.read_bytes()) for p in kept] == written  # read, not compiled again
    for p in kept:  # the right header, then what unpickling refuses
        p.write_bytes(bc_magic + b"\x80\xff")
    cli("report", "brawl", "-o", str(outs[2]))
    assert [p.read_bytes() for p in kept] == [b for _t, b in written]
    for p in kept:
        p.unlink()
    Cli(tmp_path / "log.db", REPO, env={"PYTHONPYCACHEPREFIX": str(prefix), "PYTHONDONTWRITEBYTECODE": "1"})(
        "report", "brawl", "-o", str(outs[3]))
    assert not list(prefix.rglob("*.cache"))
    assert outs[0].read_bytes() == outs[1].read_bytes() == outs[2].read_bytes() == outs[3].read_bytes()
