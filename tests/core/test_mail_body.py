"""The mail body: commands named from each ruleset's pending decisions, and text escaped for each format."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.exchange.armour import find_blocks
from combatlog.exchange.mail import _bb_code, _fence, _md, commands_for, mail_body
from combatlog.exchange.sources import read_input
from combatlog.commands.handler import resolve_stream
from combatlog.wiring import execute
from combatlog.commands.core import AddNote
from combatlog.rulesets.base import Pending
from combatlog.store.sqlite import SQLiteStore
from tests.core.helpers import duel


@pytest.mark.parametrize("ruleset,pending,expected", [
    ("osric", Pending(who="bob", what="seal the declarations of orcs for round 2 (osric declare STREAM orcs "
                                      "WHO=ACTION ... --seal)"),
     ["combatlog osric declare duel orcs WHO=ACTION ... --seal --as bob"]),
    ("osric", Pending(who="gm", what="check surprise (osric surprise) or start round 1 (osric round)"),
     ["combatlog osric surprise duel --as bob", "combatlog osric round duel --as bob"]),
    ("magic_realm", Pending(who="bob", what="seal the plays of Amazon (secret): mr play STREAM CHARACTER ... --seal "
                                            "[step r1/plays]"),
     ["combatlog mr play duel CHARACTER ... --seal --as bob"]),
    ("magic_realm", Pending(who="bob (Amazon)", what="pay 1 asterisk(s) of fatigue ...: mr fatigue"),
     ["combatlog mr fatigue duel --as bob"]),
    ("magic_realm", Pending(who="anyone", what="random assignment: mr assign; joint dice need a fresh seed first: "
                                               "every player runs mr seed, then mr reveal (r1/assign)"),
     ["combatlog mr assign duel --as bob", "combatlog mr seed duel --as bob", "combatlog mr reveal duel --as bob"]),
    ("freeform", Pending(who="Bo", what="act in round 2"), ['combatlog freeform act duel Bo "ACTION" --as bob']),
    ("classic_fantasy", Pending(who="Bo", what="react to Aldo's attack (rolled 07)", options=("parry", "none")),
     ["combatlog cfi parry duel Bo --as bob", "combatlog cfi no-defence duel Bo --as bob"]),
    ("argad", Pending(who="Grok", what="may strike in melee (short step), or hold its blow"),
     ["combatlog argad strike duel Grok --at ENEMY --as bob", "combatlog argad hold duel Grok --as bob"]),
    ("osric", Pending(who="Bo", what="melee in segment 3"), []),  # nothing named: no command made up
])
def test_pending_decisions_name_their_commands(ruleset: str, pending: Pending, expected: list[str]) -> None:
    assert commands_for(ruleset, "duel", pending, "bob") == expected


def test_a_combat_or_player_name_is_quoted_for_the_shell() -> None:
    p = Pending(who="Bo", what="act in round 1")
    assert commands_for("freeform", "duel;rm", p, "b'o") == ["combatlog freeform act 'duel;rm' Bo \"ACTION\" --as 'b'\"'\"'o'"]


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
