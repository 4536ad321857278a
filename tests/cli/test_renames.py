"""One name per option (issue #21): ``--at SEQ`` wherever it means "the log as of seq N", ``fork --name``,
``roll --face``; the old names keep working for one release, hidden from help."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.errors import ExitStatus
from tests.cli.inproc import InProcessCli


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> InProcessCli:
    cli = InProcessCli(tmp_path / "log.db", monkeypatch, capsys)
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    cli("freeform", "round", "duel")
    cli("freeform", "damage", "duel", "Bo", "1d8", "--face", "r1/Bo/damage=5")  # seq 5-6: Bo 10 -> 5
    return cli


def _options_in_help(cli: InProcessCli, *command: str) -> set[str]:
    return {word.rstrip(",") for line in cli(*command, "--help").out.splitlines()
            for word in line.split()[:3] if word.startswith("--")}


@pytest.mark.parametrize(("command", "new", "old"), [
    (("sheet",), "--at", "--seq"),
    (("replay",), "--at", "--to"),
    (("ack",), "--at", "--upto"),
    (("fork",), "--name", "--fork-as"),
    (("roll",), "--face", "--faces"),
])
def test_help_shows_only_the_new_name(cli: InProcessCli, command: tuple[str, ...], new: str, old: str) -> None:
    shown = _options_in_help(cli, *command)
    assert new in shown and old not in shown, shown


def test_help_shows_at_wherever_a_seq_position_is_meant(cli: InProcessCli) -> None:
    for command in ("show", "sheet", "fork", "replay", "ack"):
        assert "--at" in _options_in_help(cli, command), command


def test_sheet_at_and_its_old_name_seq_draw_the_same(cli: InProcessCli, tmp_path: Path) -> None:
    new = cli("sheet", "duel", "--at", "4", "-o", str(tmp_path / "new.svg"), "--json").json()
    old = cli("sheet", "duel", "--seq", "4", "-o", str(tmp_path / "old.svg"), "--json").json()
    assert new["seq"] == old["seq"] == 4
    assert (tmp_path / "new.svg").read_bytes() == (tmp_path / "old.svg").read_bytes()


def test_replay_at_and_its_old_name_to_stop_at_the_same_seq(cli: InProcessCli) -> None:
    new = cli("replay", "duel", "--at", "4", "--json").json()
    old = cli("replay", "duel", "--to", "4", "--json").json()
    assert new == old and new["to"] == 4 and [e["seq"] for e in new["events"]] == [1, 2, 3, 4]


def test_fork_name_and_its_old_spelling_as(cli: InProcessCli) -> None:
    new = cli("fork", "duel", "--at", "4", "--name", "what-if", "--json").json()
    old = cli("fork", "duel", "--at", "4", "--as", "what-if-2", "--json").json()
    assert (new["name"], old["name"]) == ("what-if", "what-if-2")
    assert new["fork_seq"] == old["fork_seq"] == 4
    # with --name given, --as after fork is the acting player again, as after any other command
    cli("fork", "duel", "--at", "4", "--name", "what-if-3", "--as", "alice")
    assert cli("log", "what-if-3", "--json").json()[-1]["actor"] == "alice"


def test_fork_without_a_name_is_refused_and_creates_nothing(cli: InProcessCli) -> None:
    bad = cli("fork", "duel", "--at", "4", ok=False)
    assert bad.code == ExitStatus.INVALID and "--name NEW" in bad.err
    assert [s["name"] for s in cli("list", "--json").json()] == ["duel"]


def test_roll_face_and_its_old_name_faces(cli: InProcessCli) -> None:
    new = cli("roll", "duel", "2d6", "--label", "r1/morale/a", "--face", "3,5", "--json").json()
    old = cli("roll", "duel", "2d6", "--label", "r1/morale/b", "--faces", "1,2", "--json").json()
    labelled = cli("roll", "duel", "2d6", "--label", "r1/morale/c", "--face", "r1/morale/c=6,6", "--json").json()
    assert (new["faces"], new["total"], new["scheme"]) == ([3, 5], 8, "manual")
    assert (old["faces"], old["total"]) == ([1, 2], 3)
    assert labelled["faces"] == [6, 6]


def test_roll_face_with_another_label_is_refused(cli: InProcessCli) -> None:
    bad = cli("roll", "duel", "2d6", "--label", "r1/morale/a", "--face", "r1/other=3,5", ok=False)
    assert bad.code == ExitStatus.INVALID and "this roll's label" in bad.err
    assert "r1/morale/a" not in cli("dice", "duel", "--json").out  # nothing was drawn


@pytest.mark.parametrize("args", [
    ("sheet", "duel", "--at", "4", "--seq", "5", "-o", "x.svg"),
    ("replay", "duel", "--at", "4", "--to", "5"),
    ("roll", "duel", "2d6", "--label", "x", "--face", "1,1", "--faces", "2,2"),
])
def test_new_and_old_name_with_different_values_are_refused(cli: InProcessCli, args: tuple[str, ...]) -> None:
    bad = cli(*args, ok=False)
    assert bad.code == ExitStatus.INVALID and "is its old name" in bad.err


@pytest.mark.parametrize("spelling", ["--at", "--upto"])
def test_ack_at_and_its_old_name_upto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str], spelling: str) -> None:
    cli = InProcessCli(tmp_path / "log.db", monkeypatch, capsys)
    cli("keys", "new", "alice")
    cli("keys", "new", "bob")
    cli("--as", "alice", "new", "duel", "--ruleset", "freeform", "--player", "alice", "--player", "bob")
    cli("--as", "alice", "note", "duel", "first")
    cli("--as", "alice", "note", "duel", "second")  # seq 3
    cli("--as", "bob", "ack", "duel", spelling, "2")
    ack = cli("log", "duel", "--json").json()[-1]
    assert (ack["type"], ack["actor"], ack["data"]["upto"]) == ("core.acknowledged", "bob", 2)
