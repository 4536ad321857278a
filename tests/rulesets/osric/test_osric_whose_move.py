"""Whose move in OSRIC (docs/trust.md "Whose move"): ``status --mine``'s "waiting for" and the mail name the
players who must act, with the piece, not the piece alone.

Found by an exploratory test: ``pending`` names a side ("party") for its declarations and a combatant
("orc1") for its action, and without ``Ruleset.players_of`` the trust layer took those names for players:
alice was told she was waiting for "party" (her own side) and bob for "orc1" (his own orc), and a
player reading his mail could not tell it was his turn. The set-up's ``players`` (side -> players) says
who plays what (OSRIC Combat: Declare Spells and General Actions: the players declare for their side;
authority.py: a combatant's actions are its side's players', a side no player plays is the referee's).

In-process: a memory store, the real handler, the trust layer's ``waiting_for``, ``moves_of`` (``status
--mine``: the legal moves) and the mail; then through the CLI, plain ``status`` (text and ``--json``) and the
sheet, which named the pieces alone after ``status --mine`` and the mail were fixed.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from combatlog.exchange.mail import mail_json
from combatlog.projections.fold import state_at
from combatlog.rulesets.osric import commands as c
from combatlog.rulesets.osric.commands import parse_declaration as P
from combatlog.store import open_store
from combatlog.trust.mine import waiting_for
from combatlog.trust.offers import moves_of
from combatlog.wiring import create_combat, deciding, execute
from tests.conftest import Cli

BROM = {"name": "Brom", "side": "party", "class": "fighter", "level": 1, "hp": 10, "weapons": ["long sword"]}
PIECES = ("Brom", "orc1", "party", "orcs")  # the sides and combatants of the table below
ORC = {"name": "orc1", "side": "orcs", "hd": "1", "hp": 5, "ac": 6, "weapons": ["spear"]}


class Table:
    def __init__(self, players: dict[str, list[str]], **options: str) -> None:
        self.store = open_store("memory:")
        setup = {"players": players, "engaged": [["Brom", "orc1"]], "combatants": [BROM, ORC]}
        create_combat(self.store, "t", "osric", actor="gm", setup=setup, dice="manual", options=options or None)

    def do(self, actor: str, command: Any, **faces: int) -> None:
        execute(self.store, "t", command, actor=actor, manual_faces={k: (v,) for k, v in faces.items()})

    def waits(self, player: str) -> list[str]:
        meta = self.store.get_stream(self.store.list_streams()[0].id)
        return waiting_for(self.store, meta, state_at(self.store, meta), player)

    def moves(self, player: str) -> list[str]:
        """What ``status --mine`` offers ``player`` for the pieces (a side, a combatant), each as the piece and
        what ``pending`` says is owed there (without the count of its legal moves); the procedure's steps and
        the rulings left out."""
        meta = self.store.get_stream(self.store.list_streams()[0].id)
        moves = moves_of(self.store, meta, state_at(self.store, meta), player, wiring=deciding())[1]
        return [re.sub(r" \(\d+ legal moves\)$", "", m.what) for m in moves if m.what.partition(": ")[0] in PIECES]

    def mail(self, player: str) -> dict[str, Any]:
        meta = self.store.get_stream(self.store.list_streams()[0].id)
        return mail_json(self.store, meta, player, since=0)

    def to_initiative(self, actor_party: str, actor_orcs: str) -> None:
        # initiative (seed 003 "Determine Initiative"): each side's d6 is the segment the other side acts
        # in: party 2, orcs 5 -> the orcs act in segment 2, the party in segment 5.
        self.do("gm", c.StartRound())
        self.do(actor_party, c.Declare(side="party", declarations=(P("Brom=melee"),)))
        self.do(actor_orcs, c.Declare(side="orcs", declarations=(P("orc1=melee"),)))
        self.do("gm", c.RollInitiative(), **{"r1/initiative/party": 2, "r1/initiative/orcs": 5})


def test_waiting_for_names_the_players_of_a_side_and_of_a_combatant() -> None:
    t = Table({"party": ["alice"], "orcs": ["bob"]})
    t.do("gm", c.StartRound())
    # declarations: each side's players declare for it; nobody waits for himself
    assert t.waits("alice") == ["bob (orcs)"]
    assert t.waits("bob") == ["alice (party)"]
    assert t.waits("gm") == ["alice (party)", "bob (orcs)"]
    t.do("alice", c.Declare(side="party", declarations=(P("Brom=melee"),)))
    t.do("bob", c.Declare(side="orcs", declarations=(P("orc1=melee"),)))
    t.do("gm", c.RollInitiative(), **{"r1/initiative/party": 2, "r1/initiative/orcs": 5})
    # orc1 acts in segment 2: bob's move, not something bob waits for
    assert t.waits("alice") == ["bob (orc1)", "gm"]
    assert "bob" not in " ".join(t.waits("bob")) and "orc1" not in " ".join(t.waits("bob"))
    assert t.moves("bob") == ["orc1: melee in segment 2 (next attack die r1/orc1/atk1)"]
    # the mail says so too: bob's is his, alice's names bob with his orc
    assert [x["who"] for x in t.mail("alice")["others"]][:1] == ["bob (orc1)"]
    assert [x["what"] for x in t.mail("bob")["yours"]] == ["melee in segment 2 (next attack die r1/orc1/atk1)"]


def test_a_side_no_player_plays_is_waited_for_as_the_referees() -> None:
    # docs/osric.md "Players and sides" / authority.py: a side no player plays is the referee's. Here the
    # orcs have no player and rita referees: alice waits for rita (with the orc), rita is offered the orcs'
    # declarations and orc1's action as her own moves.
    t = Table({"party": ["alice"]}, referee="rita")
    t.do("rita", c.StartRound())
    assert t.waits("alice") == ["rita (orcs)"]
    assert t.moves("rita") == ["orcs: declare spells and general actions for round 1 (osric declare STREAM orcs "
                               "WHO=ACTION ...)"]
    t.do("alice", c.Declare(side="party", declarations=(P("Brom=melee"),)))
    t.do("rita", c.Declare(side="orcs", declarations=(P("orc1=melee"),)))
    t.do("rita", c.RollInitiative(), **{"r1/initiative/party": 2, "r1/initiative/orcs": 5})
    assert t.waits("alice") == ["rita (orc1)", "rita"]
    assert t.waits("rita") == []
    assert t.moves("rita")[0] == "orc1: melee in segment 2 (next attack die r1/orc1/atk1)"
    assert [x["who"] for x in t.mail("alice")["others"]][:1] == ["rita (orc1)"]
    assert "orc1" not in " ".join(x["who"] for x in t.mail("rita")["others"])


def test_without_a_referee_a_side_no_player_plays_is_anyones_move() -> None:
    # docs/trust.md "Pieces no player plays": without a referee any player may move such a piece; so
    # nobody waits for the orcs, and each player is offered orc1's action (status --mine and the mail).
    t = Table({"party": ["alice"]})
    t.to_initiative("alice", "alice")
    assert "orc1" not in " ".join(t.waits("alice"))
    assert "orc1: melee in segment 2 (next attack die r1/orc1/atk1)" in t.moves("alice")
    assert [x["who"] for x in t.mail("alice")["yours"]] == ["orc1"]


# -- through the CLI: plain status and the sheet -------------------------------------------------------------


def _new(cli: Cli, tmp_path: Path, players: dict[str, list[str]], *options: str) -> None:
    setup = tmp_path / "t.json"
    setup.write_text(json.dumps({"players": players, "engaged": [["Brom", "orc1"]], "combatants": [BROM, ORC]}))
    cli("new", "t", "--ruleset", "osric", "--setup", str(setup), "--dice", "manual", *options)


def _status(cli: Cli) -> tuple[list[str], dict[str, Any]]:
    return cli("status", "t").out.splitlines(), cli("status", "t", "--json").json()  # type: ignore[return-value]


def test_plain_status_and_the_sheet_name_the_players_with_the_piece(cli: Cli, tmp_path: Path) -> None:
    """The table of test_waiting_for_names_the_players_of_a_side_and_of_a_combatant, through the CLI: plain
    status said "party: declare ..." and "orc1: melee ...", the sheet "waiting for orc1: ...". Now each names
    the players with the piece, as status --mine's waiting for does; --json keeps ``who`` (the piece) and adds
    ``players`` beside it, and ``waiting_for`` as status --mine --json has it."""
    _new(cli, tmp_path, {"party": ["alice"], "orcs": ["bob"]})
    cli("osric", "round", "t")
    text, data = _status(cli)
    # (the command the text names is this combat's: it printed a literal STREAM)
    assert "  alice (party): declare spells and general actions for round 1 (osric declare t party WHO=ACTION " \
           "...)  (OSRIC Combat: Declare Spells and General Actions)" in text
    assert any(line.startswith("  bob (orcs): declare") for line in text)
    assert [(p["who"], p["players"]) for p in data["pending"]] == [("party", ["alice"]), ("orcs", ["bob"])]
    assert data["waiting_for"] == ["alice (party)", "bob (orcs)"]
    # the commands offered are the side's legal declarations (it said `osric declare t --as alice`, refused; no
    # player is pinned here, so none needs --as): run as given
    for entry in data["pending"]:
        assert entry["commands"] and all(c.startswith(f"combatlog osric declare t {entry['who']} ")
                                         for c in entry["commands"])
        cli(*shlex.split(entry["command"])[1:])
    cli("osric", "initiative", "t", "--face", "r1/initiative/party=2", "--face", "r1/initiative/orcs=5")
    text, data = _status(cli)  # orc1 acts in segment 2 (seed 003 "Determine Initiative")
    assert "  bob (orc1): melee in segment 2 (next attack die r1/orc1/atk1)  (OSRIC Combat: Determine Initiative)" \
        in text and not any(line.startswith("  orc1") for line in text)
    assert data["pending"][0]["who"] == "orc1" and data["pending"][0]["players"] == ["bob"]
    assert data["waiting_for"] == ["bob (orc1)", "gm"]
    sheet = tmp_path / "t.svg"
    cli("sheet", "t", "-o", str(sheet))
    drawn = sheet.read_text()
    assert "waiting for bob (orc1): melee in segment 2" in drawn and "waiting for orc1" not in drawn


def test_plain_status_gives_a_side_no_player_plays_to_the_referee(cli: Cli, tmp_path: Path) -> None:
    """As test_a_side_no_player_plays_is_waited_for_as_the_referees: the orcs have no player, rita referees.
    Plain status named "orcs" and its command ran as --as orcs; now it is rita's, as the mail has it."""
    _new(cli, tmp_path, {"party": ["alice"]}, "--referee", "rita")
    cli("osric", "round", "t", "--as", "rita")
    text, data = _status(cli)
    assert any(line.startswith("  rita (orcs): declare spells") for line in text), text
    orcs = next(p for p in data["pending"] if p["who"] == "orcs")
    assert orcs["players"] == ["rita"] and all(c.endswith("--as rita") for c in orcs["commands"]), orcs
    assert data["waiting_for"] == ["alice (party)", "rita (orcs)"]
    report = tmp_path / "t.html"
    cli("report", "t", "-o", str(report))
    assert "waiting for rita (orcs): declare spells" in report.read_text()


def test_the_live_page_names_the_players_with_the_piece() -> None:
    """The server's live page (server/page.py) said "orc1: melee ..." after status and the sheet were fixed;
    it names the players as they do (the same table as the first test: bob plays the orcs)."""
    from combatlog.server.page import fragment

    t = Table({"party": ["alice"], "orcs": ["bob"]})
    t.to_initiative("alice", "bob")
    meta = t.store.list_streams()[0]
    html = fragment(t.store, meta)
    pending = html[html.index('id="pending"'):html.index("</section>", html.index('id="pending"'))]
    assert "<strong>bob (orc1)</strong>" in pending and 'data-who="orc1"' in pending, pending
    assert "<strong>orc1</strong>" not in pending
