"""The --json contract (issue #21; docs/guide.md "JSON output"): errors as JSON, dice counts with names
that say what they count, explain steps and pending decisions with a structured part beside the prose,
and mail --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from combatlog.errors import ExitStatus
from tests.cli.inproc import InProcessCli
from tests.conftest import Cli


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    cli = InProcessCli(tmp_path / "log.db", monkeypatch, capsys)
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    cli("freeform", "round", "duel")
    cli("freeform", "damage", "duel", "Bo", "1d8", "--face", "r1/Bo/damage=5")  # seq 5 (roll), 6 (Bo 10 -> 5)
    return cli


# -- errors ---------------------------------------------------------------------------------------------------


def test_an_error_under_json_is_json_on_stderr_with_the_same_exit_status(cli: InProcessCli) -> None:
    plain = cli("show", "nope", ok=False)
    as_json = cli("show", "nope", "--json", ok=False)
    assert plain.code == as_json.code == ExitStatus.NOT_FOUND
    assert plain.err.startswith("error[not_found]: ")
    assert as_json.out == ""
    error = json.loads(as_json.err)["error"]
    assert error["code"] == "not_found" and "no combat 'nope'" in error["message"]
    assert as_json.err.count("\n") == 1  # one line


@pytest.mark.parametrize(("args", "status", "code"), [
    (("show", "--json"), ExitStatus.USAGE, "usage"),  # a missing argument: click's own error
    (("show", "duel", "--at", "x", "--json"), ExitStatus.USAGE, "usage"),
    (("replay", "duel", "--round", "1", "--from", "2", "--json"), ExitStatus.INVALID, "invalid"),
    (("freeform", "damage", "duel", "Nobody", "3", "--json"), None, None),
])
def test_every_kind_of_error_under_json(cli: InProcessCli, args: tuple[str, ...], status: int | None,
                                        code: str | None) -> None:
    before = cli("log", "duel", "--json").out
    result = cli(*args, ok=False)
    assert result.code != 0 and result.out == ""
    error = json.loads(result.err)["error"]
    assert set(error) >= {"code", "message"} and error["message"]
    if status is not None:
        assert (result.code, error["code"]) == (status, code)
    assert cli("log", "duel", "--json").out == before  # and nothing changed


def test_a_hostile_name_in_an_error_cannot_break_the_json(cli: InProcessCli) -> None:
    name = 'x"}\n{"error": {"code": "ok"}}\x1b[31m'
    result = cli("show", name, "--json", ok=False)
    lines = result.err.splitlines()
    assert len(lines) == 1 and "\x1b" not in result.err  # one line, no raw escape reaches a terminal
    assert json.loads(lines[0])["error"]["code"] == "not_found"


def test_json_errors_from_a_real_process(cli_sub: Cli) -> None:
    result = cli_sub("log", "missing", "--json", ok=False)
    assert result.code == ExitStatus.NOT_FOUND and json.loads(result.err)["error"]["code"] == "not_found"


@pytest.fixture
def cli_sub(tmp_path: Path) -> Cli:
    from tests.conftest import REPO

    return Cli(tmp_path / "sub.db", REPO)


# -- dice -----------------------------------------------------------------------------------------------------


def test_dice_counts_top_faces_and_ones_under_names_that_say_so(cli: InProcessCli) -> None:
    # hand calculation: d20 faces 19, 20, 1 -> one die on its top face (20), one on 1; d8 face 5 -> none
    cli("roll", "duel", "1d20", "--label", "r1/a", "--face", "19")
    cli("roll", "duel", "2d20", "--label", "r1/b", "--face", "20,1")
    sides = cli("dice", "duel", "--json").json()["by_roller"]["gm"]["by_sides"]
    assert (sides["20"]["dice"], sides["20"]["top_faces"], sides["20"]["ones"]) == (3, 1, 1)
    assert (sides["8"]["top_faces"], sides["8"]["ones"]) == (0, 0)
    assert (sides["20"]["max"], sides["20"]["min"]) == (1, 1)  # the old names, one release


# -- explain steps and pending decisions ----------------------------------------------------------------------


def test_every_explain_step_has_rule_text_and_data(cli: InProcessCli) -> None:
    steps = cli("explain", "duel", "--json").json()["steps"]
    assert steps
    for step in steps:
        assert step["rule"] and step["text"] and isinstance(step["data"], dict)
        assert step["data"]["citation"] and "dice" in step["data"]
    damage = next(s for s in steps if s["seq"] == 6)  # "Bo loses 5 hp (10 -> 5)"
    assert damage["data"]["citation"] == "Freeform"
    assert damage["data"]["dice"] == [{"label": "r1/Bo/damage", "faces": [5], "total": 5}]


def test_replay_steps_have_the_same_data(cli: InProcessCli) -> None:
    replay = cli("replay", "duel", "--json").json()
    steps = [s for e in replay["events"] for s in e["steps"]]
    explain = cli("explain", "duel", "--json").json()["steps"]
    assert steps == explain


def test_osric_steps_keep_the_rulesets_own_data(cli: InProcessCli) -> None:
    from combatlog.cli.common import step_data
    from combatlog.rulesets.base import Step

    step = Step(seq=3, rule="OSRIC attack matrix", text="hits", dice=("r1/a",), data={"roll": 15, "need": 12})
    data = step_data(step, {"r1/a": {"faces": [15], "total": 15}})
    assert data == {"citation": "OSRIC", "reference": "attack matrix", "roll": 15, "need": 12,
                    "dice": [{"label": "r1/a", "faces": [15], "total": 15}]}


def test_pending_has_structured_fields_beside_the_prose(cli: InProcessCli) -> None:
    pending = cli("status", "duel", "--json").json()["pending"]
    by_who = {p["who"]: p for p in pending}
    aldo = by_who["Aldo"]
    assert aldo["what"] == "act in round 1"  # the prose stays
    assert (aldo["player"], aldo["character"], aldo["kind"]) == ("Aldo", None, "freeform act")
    assert aldo["command"] == aldo["commands"][0] and aldo["command"].startswith("combatlog freeform act duel Aldo")
    assert by_who["gm"]["kind"] == "freeform end-round"


# -- mail --json ----------------------------------------------------------------------------------------------


def test_mail_json_has_the_messages_parts(cli: InProcessCli, tmp_path: Path) -> None:
    text = cli("mail", "duel", "--for", "Bo", "--since", "0").out
    message = cli("mail", "duel", "--for", "Bo", "--since", "0", "--json").json()
    assert message["body"] == text  # the same message
    assert (message["stream"], message["for"], message["since"], message["head_seq"]) == ("duel", "Bo", 0, 6)
    headings = [s["heading"] for s in message["sections"]]
    assert headings[1:] == ["What happened", "Your side now", "What you must decide now", "The bundle"]
    assert message["bundle"].startswith("-----BEGIN COMBATLOG") and message["bundle"] in message["body"]
    assert [t["what"] for t in message["yours"]] == ["act in round 1"]
    assert message["yours"][0]["commands"][0].startswith("combatlog freeform act duel Bo")
    # the armoured bundle imports into another log as the message would
    (tmp_path / "bundle.txt").write_text(message["bundle"])
    other = tmp_path / "other.db"
    cli("--db", str(other), "import", str(tmp_path / "bundle.txt"))
    assert cli("--db", str(other), "log", "duel", "--json").json()[-1]["seq"] == 6


def test_mail_json_with_a_file_writes_the_body_there(cli: InProcessCli, tmp_path: Path) -> None:
    out = tmp_path / "to-bo.txt"
    message = cli("mail", "duel", "--for", "Bo", "--since", "0", "--json", "-o", str(out)).json()
    assert out.read_text() == message["body"]


def test_a_piece_no_player_plays_is_no_players_character_in_status_json() -> None:
    """Magic Realm's status named "wolf (no player)" and --json parsed it as player wolf's character "no player",
    then offered `mr lure ... --as sw`-like lines that failed. The piece is the character; nobody is its player."""
    from combatlog.cli.output import pending_json
    from combatlog.rulesets.base import Pending

    entry = pending_json(Pending(who="carl (no player)", what="lure: mr lure STREAM CHARACTER"), commands=[])
    assert entry["player"] is None and entry["character"] == "carl"
    entry = pending_json(Pending(who="bob (amazon)", what="play"), commands=[])
    assert entry["player"] == "bob" and entry["character"] == "amazon"
