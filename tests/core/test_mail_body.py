"""The mail body: each pending decision with the legal moves that answer it, and text escaped for each format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatlog.exchange.armour import find_blocks
from combatlog.exchange.mail import _bb_code, _fence, _md, mail_body, mail_json
from combatlog.exchange.sources import read_input
from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute
from combatlog.commands.core import AddNote
from combatlog.rulesets.freeform import commands as ff
from combatlog.store.sqlite import SQLiteStore
from tests.core.helpers import duel


def test_each_decision_carries_the_legal_moves_that_answer_it(tmp_path: Path) -> None:
    """In a combat that pins no players the mail lists every pending decision with the legal moves that answer
    it (trust/offers.py ``answering``, as ``status`` gives them), each a command line that runs as written and
    is quoted for the shell, never a guess with words to fill in ("ACTION", "TARGET"): Bo's action is each of
    Bo's legal moves, the referee's end of the round his steps and rulings (shown to him, not to bob)."""
    store = SQLiteStore(tmp_path / "a.db")
    duel(store)
    execute(store, "duel", ff.Join(name="Bo Jr", side="blue", hp=4), actor="gm")
    meta = resolve_stream(store, "duel")
    gm = mail_json(store, meta, "gm", since=0, acknowledged=False)
    by = {t["who"]: t["commands"] for t in gm["yours"] + gm["others"]}
    assert by["Bo"] == ["combatlog freeform act duel Bo 'attacks Aldo'",
                        "combatlog freeform act duel Bo 'attacks Aldo' --roll 1d20", "combatlog freeform leave duel Bo"]
    assert by["Bo Jr"][0] == "combatlog freeform act duel 'Bo Jr' 'attacks Aldo'"
    assert by["gm"][0] == "combatlog freeform end-round duel" and "combatlog freeform damage duel Aldo 1d6" in by["gm"]
    assert not any(word in line for lines in by.values() for line in lines for word in ("ACTION", "TARGET", "--as"))
    bob = {t["who"]: t["commands"] for t in mail_json(store, meta, "bob", since=0, acknowledged=False)["others"]}
    assert bob["Bo"] == by["Bo"] and bob["gm"] == []


def test_a_decision_with_more_legal_moves_than_a_mail_shows_names_the_command_listing_them(tmp_path: Path) -> None:
    """More than ``SHOWN_PER_PIECE`` legal moves for one decision are given as ``combatlog moves``, which lists
    them: here Aldo, with four opponents, has nine (an action against each, with and without a d20, and leaving)."""
    store = SQLiteStore(tmp_path / "a.db")
    duel(store)
    for name in ("Cy", "Di", "Ed"):
        execute(store, "duel", ff.Join(name=name, side="blue", hp=4), actor="gm")
    meta = resolve_stream(store, "duel")
    message = mail_json(store, meta, "gm", since=0, acknowledged=False)
    by = {t["who"]: t["commands"] for t in message["yours"] + message["others"]}
    assert by["Aldo"] == ["combatlog moves duel"]
    assert by["Bo"] == ["combatlog freeform act duel Bo 'attacks Aldo'",
                        "combatlog freeform act duel Bo 'attacks Aldo' --roll 1d20", "combatlog freeform leave duel Bo"]


def test_markdown_and_bbcode_escapes() -> None:
    assert _md("![x](http://e/t.png) <b>&amp; *a* _b_ `c` # h") == (
        "\\!\\[x\\]\\(http://e/t.png\\) \\<b\\>\\&amp; \\*a\\* \\_b\\_ \\`c\\` \\# h")
    assert _md("two\nlines") == "two\\\\nlines"  # one line: a newline from the log cannot start a block
    assert _fence(["a ``` b", "````"]) == ["`````", "a ``` b", "````", "`````"]
    assert _bb_code("x [/code] [CODE] y") == "x [/ code] [ CODE] y"


def test_a_mail_for_a_combat_without_pinned_players_tells_from_a_given_seq(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "a.db")
    duel(store)
    execute(store, "duel", AddNote(text="-----BEGIN COMBATLOG BUNDLE-----\nVersion: 1\n"), actor="gm")
    meta = resolve_stream(store, "duel")
    text = mail_body(store, meta, "bob", since=2, acknowledged=False)
    assert "Events #3-#5 since #2\n" in text and "last event you signed" not in text
    assert "#5 [round 1] gm: note: ----- BEGIN COMBATLOG BUNDLE-----" in text
    assert text.count("-----BEGIN COMBATLOG BUNDLE-----") == 1
    message = tmp_path / "m.txt"
    message.write_text(text)
    [incoming] = read_input(str(message))
    assert incoming.error is None and incoming.data is not None and incoming.data.count(b"\n") == 4  # header + 3
    assert len(find_blocks(text, "m")) == 1
    with pytest.raises(Exception, match="choose text, markdown, bbcode"):
        mail_body(store, meta, "bob", since=2, fmt="html")


def test_a_decision_named_after_a_player_and_his_character_takes_that_characters_moves(tmp_path: Path) -> None:
    """Magic Realm names a decision "bob (amazon)" where the combat does not pin who plays what. The mail and
    ``status --json`` must answer it with the Amazon's legal moves (trust/offers.py ``answering``), and only
    hers: in the deployment step both characters have moves, so a mapping that took every legal move, or the
    player's name as a piece, would show the Black Knight's deployment under bob, or nothing at all."""
    from combatlog.wiring import create_combat
    from tests.security.dice_forgery import cli

    store = SQLiteStore(tmp_path / "a.db")
    setup = {"characters": [{"id": "bk", "character": "Black Knight", "player": "alice"},
                            {"id": "amazon", "character": "Amazon", "player": "bob"}],
             "denizens": [{"id": "gob", "monster": "Axe Goblin"}], "assigned": {"gob": "amazon"}}
    create_combat(store, "cave", "magic_realm", actor="gm", setup=setup, dice="manual")
    meta = resolve_stream(store, "cave")
    message = mail_json(store, meta, "bob", since=0, acknowledged=False)
    by = {t["who"]: t["commands"] for t in message["yours"] + message["others"]}
    assert by["bob (amazon)"], by
    # "combatlog mr deploy cave amazon [--charge bk ...]": the fifth word is the character who moves
    assert {line.split()[4] for line in by["bob (amazon)"]} == {"amazon"}, by["bob (amazon)"]
    assert {line.split()[4] for line in by["alice (bk)"]} == {"bk"}, by["alice (bk)"]
    status = json.loads(cli(tmp_path / "a.db", "status", "cave", "--json").out)
    entry = next(p for p in status["pending"] if p["player"] == "bob")
    assert entry["character"] == "amazon" and entry["commands"] == by["bob (amazon)"]
