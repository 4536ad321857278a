"""Sealed orders are drawn face down until revealed; their content is never in a picture before."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli, REPO
from tests.pictures.svgcheck import groups, parse_svg


def _signed_duel(root: Path) -> Cli:
    """alice's signed duel pinning alice and bob, Aldo joined: the same four CLI calls for both tests below,
    made once per test run by the real CLI and copied into ``root`` (tests/played.py ``built_once``), so
    each test changes its own log and key home."""
    import shutil

    from tests.played import built_once, shared_factory

    def build(folder: Path) -> None:
        cli = Cli(folder / "log.db", REPO, {"COMBATLOG_HOME": str(folder / "keys")})
        cli("keys", "new", "alice")
        cli("keys", "new", "bob")
        cli("new", "duel", "--ruleset", "freeform", "--dice", "local", "--player", "alice", "--player", "bob",
            "--as", "alice")
        cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12", "--as", "alice")

    shutil.copytree(built_once(shared_factory(), "pictures-sealed-duel", build), root, dirs_exist_ok=True)
    return Cli(root / "log.db", REPO, {"COMBATLOG_HOME": str(root / "keys")})


def test_sealed_orders_face_down_until_revealed(tmp_path: Path) -> None:
    cli = _signed_duel(tmp_path)
    cli("seal", "commit", "duel", "--step", "r1", "--orders-json", '{"plan": "feint left"}', "--as", "alice")
    for who in ("gm", "bob", "alice"):
        out = tmp_path / f"{who}.svg"
        cli("sheet", "duel", "-o", str(out), "--as", who)
        text = out.read_text()
        assert "feint" not in text
        cards = groups(parse_svg(text), "face-down", data_kind="sealed")
        assert len(cards) == 1 and "alice sealed orders for step r1" in (cards[0][0].text or "")
    cli("seal", "commit", "duel", "--step", "r1", "--as", "bob")
    cli("seal", "reveal", "duel", "--step", "r1", "--as", "alice")
    cli("sheet", "duel", "-o", str(tmp_path / "after.svg"))
    cards = groups(parse_svg((tmp_path / "after.svg").read_text()), "face-down", data_kind="sealed")
    assert [c[0].text.split(" sealed")[0] for c in cards] == ["bob"]  # type: ignore[union-attr]


def test_report_of_a_signed_combat_names_keys_signers_and_acknowledgements(tmp_path: Path) -> None:
    from tests.pictures.svgcheck import parse_html

    cli = _signed_duel(tmp_path)
    cli("ack", "duel", "--as", "bob")
    out = tmp_path / "r.html"
    cli("report", "duel", "-o", str(out))
    doc = parse_html(out.read_text())
    words = " ".join(doc.text)
    assert "signed by alice" in words and "key fingerprint" in words and "verified" in words
    acks = next(a for a in doc.find("section") if a.get("id") == "acknowledgements")
    assert acks is not None and "bob" in words.split("Acknowledgements", 2)[-1]
    # bob's acknowledgement decides nothing: one line in its round, as log and explain tell it ...
    assert "signed by bob" not in words
    assert "(+1 trust event: acknowledgements by bob; `combatlog report --all` lists them)" in words
    # ... and among the events with --all, where the table's row links to it
    cli("report", "duel", "-o", str(out), "--all")
    text = out.read_text()
    words = " ".join(parse_html(text).text)
    assert "signed by bob" in words and "trust event" not in words
    assert 'href="#seq-3"' in text and 'id="seq-3"' in text


def test_a_tampered_log_is_reported_as_failing_verification(tmp_path: Path) -> None:
    import sqlite3

    from tests.pictures.svgcheck import parse_html

    cli = Cli(tmp_path / "log.db", REPO)
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    with sqlite3.connect(tmp_path / "log.db") as db:
        db.execute("UPDATE events SET body = CAST(REPLACE(CAST(body AS TEXT), '\"hp\":12', '\"hp\":99') AS BLOB) "
                   "WHERE seq = 2")
    out = tmp_path / "r.html"
    cli("report", "duel", "-o", str(out))
    words = " ".join(parse_html(out.read_text()).text)
    assert "VERIFICATION FAILED" in words and "not checked" not in words  # no dice to mark
