"""Every field the HTML templates write (report and live page) is escaped: each template is rendered with
a hostile string in every field a log or a request could fill, and none of them becomes markup.

The strings are distinct per field, so the test also proves each field reached the page (and was not
silently dropped), and they hold a control character, shown as an escape (``pictures.html``)."""

from __future__ import annotations

from types import SimpleNamespace as NS
from typing import Any

import pytest

from combatlog.pictures.html import render, trusted
from combatlog.pictures.report import EventRow, RoundPart, StepRow
from tests.pictures.svgcheck import parse_html


def hostile(field: str) -> str:
    return f'{field}<i data-pwn="{field}">\'"&amp;</i></style></script><!--\x1b'


def escaped(field: str) -> str:
    """How ``hostile(field)`` reads once parsed back: the same characters, the escape character shown."""
    return hostile(field).replace("\x1b", "\\x1b")


def rows(prefix: str) -> list[EventRow]:
    step = StepRow(hostile(f"{prefix}.step.text"), hostile(f"{prefix}.step.rule"),
                   [(hostile(f"{prefix}.die.label"), "die-3"), (hostile(f"{prefix}.die.unshown"), "")])
    inline = StepRow(hostile(f"{prefix}.inline.text"), hostile(f"{prefix}.inline.rule"), [])
    return [EventRow(1, hostile(f"{prefix}.summary"), False, hostile(f"{prefix}.who"), None, inline, []),
            EventRow(2, hostile(f"{prefix}.concealed"), True, None, None, None, [step]),
            EventRow(3, hostile(f"{prefix}.die.summary"), False, None, "die-3", None, [])]


def dice(prefix: str) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Two dice in two states (the ledger writes a state column only where the dice differ in it)."""
    row = {"seq": 3, "anchor": "die-3", "label": hostile(f"{prefix}.label"), "notation": hostile(f"{prefix}.notation"),
           "faces": [hostile(f"{prefix}.face")], "total": hostile(f"{prefix}.total"), "by": hostile(f"{prefix}.by"),
           "for": hostile(f"{prefix}.for"), "state": hostile(f"{prefix}.state"), "cls": "muted"}
    other = {**row, "seq": 4, "anchor": "die-4", "state": hostile(f"{prefix}.state2"), "cls": "ok"}
    return [row, other], [(hostile(f"{prefix}.legend.word"), hostile(f"{prefix}.legend.meaning")),
                          (hostile(f"{prefix}.legend.word2"), hostile(f"{prefix}.legend.meaning2"))]


def verified(prefix: str) -> NS:
    return NS(first_seq=1, head_seq=3, head_hash=hostile(f"{prefix}.head_hash"), signatures=2, rules_digest_matches=False,
              dice=NS(verified=1, pending=0, manual=0, local=0, unbound=1), notes=[hostile(f"{prefix}.note")],
              acknowledged={hostile(f"{prefix}.acked"): 3})


def report_context(ok: bool) -> dict[str, Any]:
    table, legend = dice("ledger")
    part = RoundPart(1, hostile("round.title"), 1, 3, common_rule=hostile("round.common_rule"), events=rows("ev"),
                     plumbing_note=hostile("round.plumbing_note"))
    part2 = RoundPart(2, hostile("round2.title"), 4, 4, no_picture=(hostile("round2.why"), 1))
    return dict(
        css=trusted("body{}"), version=hostile("version"),
        meta=NS(name=hostile("meta.name"), id=hostile("meta.id"), parent=hostile("meta.parent"), fork_seq=2),
        viewer=hostile("viewer"),
        ruleset=NS(title=hostile("ruleset.title"), name=hostile("ruleset.name"), version=hostile("ruleset.version"),
                   citation=hostile("ruleset.citation")),
        genesis=NS(ruleset_version=hostile("genesis.version"), rules_digest=hostile("genesis.digest"),
                   dice=hostile("genesis.dice"), options={hostile("option.key"): hostile("option.value")},
                   players=[NS(name=hostile("player.name"), fingerprint=hostile("player.fingerprint"))]),
        core=NS(head_seq=4, head_hash=hostile("core.head_hash")), now=hostile("now"),
        report=verified("report") if ok else None, failure=hostile("failure"), parent=hostile("parent"),
        fork_reason=hostile("fork_reason"), rounds=[part, part2], round_no=None,
        acks=[(3, NS(player=hostile("ack.player"), upto=2, hash=hostile("ack.hash")))], dice=table, legend=legend,
        forks=[(NS(name=hostile("fork.name"), id=hostile("fork.id"), fork_seq=2), hostile("fork.reason"))],
        sheets="auto", gap=3, usual_who=hostile("usual_who"), common_rule=hostile("common_rule"),
        dice_origin=hostile("dice_origin"), all_events=False,
    )


def fragment_context(ok: bool) -> dict[str, Any]:
    table, legend = dice("ledger")
    return dict(
        name=hostile("name"), title=hostile("title"), head_seq=3, head_hash=hostile("head_hash"),
        where=hostile("where"), report=verified("report") if ok else None, failure=hostile("failure"),
        round_title=hostile("round_title"), picture=trusted("<svg></svg>"),
        pending=[{"who": hostile("pending.who"), "name": hostile("pending.name"), "what": hostile("pending.what"),
                  "options": [hostile("pending.option")], "rule": hostile("pending.rule")},
                 {"who": hostile("pending2.who"), "name": hostile("pending2.name"), "what": "x", "options": [],
                  "rule": ""}],
        rounds=[{"round": 1, "title": hostile("round.title"), "rows": rows("ev"), "plumbing": hostile("plumbing")}],
        dice=table, legend=legend,
    )


CASES = {
    "report.html": report_context,
    "page_fragment.html": fragment_context,
    "page.html": lambda ok: dict(stream_url=hostile("stream_url"), fragment_url=hostile("fragment_url"), head_seq=3,
                                 here=hostile("here"), content=hostile("content")),
    "error.html": lambda ok: dict(status=hostile("status"), code=hostile("code"), message=hostile("message")),
    "document.html": lambda ok: dict(title=hostile("title"), css=trusted("p{}"), body=hostile("body"), script=None),
}


def fields(context: Any) -> set[str]:
    """The field names planted in a context (every string made by ``hostile``)."""
    found: set[str] = set()

    def visit(value: Any) -> None:
        if isinstance(value, str) and 'data-pwn="' in value and not hasattr(value, "__html__"):
            found.add(value.split("<i ", 1)[0])
        elif isinstance(value, dict):
            for k, v in value.items():
                visit(k)
                visit(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
        elif isinstance(value, (NS, EventRow, StepRow, RoundPart)):
            visit(list(vars(value).values()))

    visit(context)
    return found


@pytest.mark.parametrize("ok", [True, False], ids=["verified", "failed"])
@pytest.mark.parametrize("template", sorted(CASES))
def test_a_hostile_string_in_every_field_comes_out_escaped(template: str, ok: bool) -> None:
    context = CASES[template](ok)
    text = render(template, **context)
    doc = parse_html(text)
    assert not doc.errors and not doc.stack, (doc.errors, doc.stack)
    assert not [a for _t, a in doc.starts if "data-pwn" in a], "a hostile string became markup"
    assert "<i data-pwn" not in text and "</script><!--" not in text and "\x1b" not in text
    words = "".join(doc.text) + "".join(str(v) for _t, a in doc.starts for v in a.values())
    planted = fields(context)
    shown = {f for f in planted if escaped(f) in words}
    # fields only one branch writes: the failure (and, on the page, the store's head) when verification
    # failed, the verifier's report when it passed; the page does not list acknowledgements; the report
    # names the parent by its name (``parent``), the version from the genesis, the head from ``core``
    unused = {"meta.parent", "ruleset.version", "report.head_hash"} if template == "report.html" else set()
    if ok:
        branch = {"failure"} | ({"head_hash", "report.acked"} if template == "page_fragment.html" else set())
    else:
        branch = {f for f in planted if f.startswith("report.")}
    assert planted - shown == (branch | unused) & planted, sorted(planted - shown)


def test_the_templates_ship_and_jinja2_waits_for_report_or_serve() -> None:
    """The templates are package data (an installed combatlog has them), and a command that draws no HTML
    never imports jinja2 (CLI start-up)."""
    import subprocess
    import sys
    import tomllib

    from combatlog.pictures.html import TEMPLATES
    from tests.conftest import REPO

    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "templates/*.html" in data["combatlog"] and "jinja2>=3.1" in " ".join(
        tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])
    # (__pycache__: their compiled code, kept there as Python keeps bytecode: pictures/html.py)
    assert {p.suffix for p in TEMPLATES.iterdir() if p.name != "__pycache__"} == {".html"}
    probe = ("import sys\nfrom combatlog.cli.app import main\n"
             "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print('jinja2' in sys.modules, 'markupsafe' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "False False", out.stdout + out.stderr
