"""Inputs the CLI used to accept silently or answer misleadingly (issue #21), each through the real
CLI in a subprocess: refused with a message that says what is wrong, and nothing appended."""

from __future__ import annotations

import json

import sqlite3
from pathlib import Path

import pytest

from combatlog.errors import ExitStatus
from tests.conftest import REPO, Cli


def duel(cli: Cli) -> None:
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    cli("freeform", "round", "duel")


def head(cli: Cli) -> int:
    return len(cli("log", "duel", "--json").json())  # type: ignore[arg-type]


def refused(cli: Cli, *args: str, code: int, says: str) -> None:
    before = head(cli)
    result = cli(*args, ok=False)
    assert result.code == code, result.err
    assert says in result.err, result.err
    assert head(cli) == before  # nothing appended


def test_freeform_text_is_refused_when_empty_or_oversized(cli: Cli) -> None:
    duel(cli)
    refused(cli, "freeform", "act", "duel", "Aldo", "", code=ExitStatus.INVALID, says="Aldo's action is empty")
    refused(cli, "freeform", "act", "duel", "Aldo", "   ", code=ExitStatus.INVALID, says="Aldo's action is empty")
    # names are capped at 100 characters; free text at 2,000 (combatlog.names.MAX_TEXT, docs/rules.md)
    refused(cli, "freeform", "act", "duel", "Aldo", "a" * 100_000, code=ExitStatus.INVALID,
            says="Aldo's action is 100000 characters long; at most 2000")
    cli("freeform", "act", "duel", "Aldo", "b" * 2000)  # the limit itself is accepted


def test_healing_never_exceeds_the_hit_points_joined_with(cli: Cli) -> None:
    # docs/rules.md, freeform: a number above the hit points lost is refused; a rolled heal is capped.
    duel(cli)
    refused(cli, "freeform", "heal", "duel", "Bo", "1000000", code=ExitStatus.ILLEGAL,
            says="Bo is at 10/10 hp: nothing to heal")
    cli("freeform", "damage", "duel", "Bo", "3")  # 10 -> 7
    refused(cli, "freeform", "heal", "duel", "Bo", "4", code=ExitStatus.ILLEGAL, says="heal at most 3")
    # a roll of 5 on 1d6 is recorded as rolled (verify recomputes it) and the fold stops at 10
    cli("freeform", "heal", "duel", "Bo", "1d6", "--face", "r1/Bo/heal=5")
    bo = next(p for p in cli("show", "duel", "--json").json()["state"]["participants"]  # type: ignore[index]
              if p["name"] == "Bo")
    assert (bo["hp"], bo["max_hp"]) == (10, 10)
    assert "Bo regains 5 hp (7 -> 10, capped at the 10 joined with)" in cli("explain", "duel", "--round", "1").out
    out = Path(cli.db).parent / "duel.jsonl"
    cli("export", "duel", "-o", str(out))
    assert "ok: duel" in cli("verify", str(out)).out


def test_a_long_participant_name_says_the_limit(cli: Cli) -> None:
    duel(cli)
    refused(cli, "freeform", "join", "duel", "n" * 61, "--side", "red", code=ExitStatus.INVALID,
            says="a participant's name is at most 60 characters (61 given)")
    refused(cli, "freeform", "join", "duel", "Cy", "--side", " ", code=ExitStatus.INVALID, says="Cy needs a side")
    cli("freeform", "join", "duel", "n" * 60, "--side", "red")


def test_replay_and_explain_ranges(cli: Cli) -> None:
    duel(cli)  # 4 events: #1 creates, #2 and #3 join (round 0, the set-up), #4 opens round 1
    refused(cli, "replay", "duel", "--from", "9", "--to", "3", code=ExitStatus.INVALID,
            says="--from 9 is after --to 3")
    refused(cli, "replay", "duel", "--from", "0", code=ExitStatus.INVALID, says="seq numbers start at 1")
    refused(cli, "replay", "duel", "--to", "99", code=ExitStatus.NOT_FOUND, says="duel has no event 99 (its last is 4)")
    zero = cli("explain", "duel", "--round", "0")
    assert "round 0 of duel is the set-up before round 1 (#1-#3)" in zero.out
    late = cli("explain", "duel", "--round", "99", ok=False)
    assert late.code == ExitStatus.NOT_FOUND
    assert "no round 99 in duel (round 0 is the set-up before round 1; so far round 1)" in late.err
    at0 = cli("show", "duel", "--at", "0", ok=False)
    assert at0.code == ExitStatus.INVALID and "seq numbers start at 1" in at0.err and "genesis" not in at0.err


def test_round_0_is_the_set_up_in_magic_realm_too(cli: Cli, tmp_path: Path) -> None:
    """guide.md: "round 0 is the set-up before round 1 (`show --round 0`, `explain --round 0`)". A Magic Realm
    state begins in round 1, so its genesis was counted in round 1 and every `--round 0` was refused with
    "no round 0 ... (round 0 is the set-up before round 1 ...)" (found by an exploratory test)."""
    setup = tmp_path / "s.json"
    setup.write_text('{"characters":[{"id":"bk","character":"Black Knight"}],'
                     '"denizens":[{"id":"gob","monster":"Axe Goblin"}],"assigned":{"gob":"bk"}}')
    cli("new", "e", "--ruleset", "magic_realm", "--setup", str(setup))
    assert "round 0 of e is the set-up before round 1 (#1-#1)" in cli("explain", "e", "--round", "0").out
    assert cli("show", "e", "--round", "0", "--json").json()["seq"] == 1
    cli("mr", "action", "e", "bk", "none")  # (nothing to deploy: the combat begins at the actions)
    assert cli("explain", "e", "--round", "1").out.startswith("#2 ")  # round 1 begins after the set-up
    cli("sheet", "e", "--round", "0", "-o", str(tmp_path / "r0.svg"))
    assert (tmp_path / "r0.svg").read_text().startswith("<svg")


@pytest.mark.parametrize(("option", "says"), [("--as", "--as is blank: give a player name, or leave --as out"),
                                              ("--command-id", "--command-id is blank: give any non-blank text, "
                                                               "or leave --command-id out")])
def test_blank_global_options_are_refused(cli: Cli, option: str, says: str) -> None:
    """A blank --as or --command-id (a shell variable never set) is refused as a blank --by or --name is
    (test_blank_names_are_refused_and_nothing_is_appended_or_written): error[invalid], exit status 3, naming
    the option, nothing appended. They were click usage errors (exit status 2), unlike every other blank name."""
    duel(cli)
    refused(cli, option, "", "freeform", "act", "duel", "Aldo", "x", code=ExitStatus.INVALID, says=f"error[invalid]: {says}")
    refused(cli, "freeform", "act", "duel", "Aldo", "x", option, " ", code=ExitStatus.INVALID, says=says)
    # a read command too, in text and in JSON (the error as JSON on stderr, the same exit status)
    result = cli("status", "duel", option, "", ok=False)
    assert result.code == ExitStatus.INVALID and f"error[invalid]: {says}" in result.err and result.out == ""
    result = cli("status", "duel", "--json", option, "", ok=False)
    assert result.code == ExitStatus.INVALID and json.loads(result.err)["error"] == {"code": "invalid", "message": says}


def test_unknown_db_url_scheme(cli: Cli, tmp_path: Path) -> None:
    result = Cli(tmp_path / "unused.db", tmp_path)("--db", "ftp://x/y", "list", ok=False)
    assert result.code == ExitStatus.INVALID
    assert "ftp://x/y: unknown kind of log 'ftp://'" in result.err
    assert not (tmp_path / "ftp:").exists()  # no SQLite file made under a folder named "ftp:"


def test_verify_names_a_sqlite_log_and_binary_bytes(cli: Cli, tmp_path: Path) -> None:
    duel(cli)
    sqlite = cli("verify", str(cli.db), ok=False)
    assert sqlite.code == ExitStatus.VERIFY_FAILED
    assert f"this is a SQLite log, not an export: verify a combat stored in it with `combatlog --db {cli.db} " \
           "verify NAME`" in sqlite.err
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    binary = cli("verify", str(junk), ok=False)
    assert binary.code == ExitStatus.VERIFY_FAILED and "not a combatlog export" in binary.err
    assert "newline" not in binary.err
    # the stored combat is verified the way the message says
    assert "ok: duel" in cli("--db", str(cli.db), "verify", "duel").out
    assert sqlite3.connect(cli.db).execute("select count(*) from events").fetchone()[0] >= 4


def test_verify_and_run_read_standard_input(cli: Cli, tmp_path: Path) -> None:
    script = "new piped --ruleset freeform --dice manual\nfreeform join piped Al --side a --hp 3\n"
    cli("run", "-", stdin=script)
    out = tmp_path / "piped.jsonl"
    cli("export", "piped", "-o", str(out))
    assert "ok: piped (freeform), events 1-2" in cli("verify", "-", stdin=out.read_text()).out
    tampered = out.read_text().replace('"Al"', '"Bo"', 1)
    assert cli("verify", "-", stdin=tampered, ok=False).code == ExitStatus.VERIFY_FAILED
    empty = cli("verify", "-", stdin="", ok=False)
    assert empty.code == ExitStatus.VERIFY_FAILED and "nothing on standard input" in empty.err


def test_run_reads_relative_paths_from_the_command_files_folder(tmp_path: Path) -> None:
    # docs/guide.md, Command files: --setup and -o inside the file are the file's own, and the log
    # stays the one of the folder it is run from.
    folder = tmp_path / "campaign"
    folder.mkdir()
    (folder / "setup.json").write_text((REPO / "docs/examples/osric/ford.json").read_text())
    (folder / "fight.cmds").write_text("new ford --ruleset osric --setup setup.json --dice manual\n"
                                       "export ford -o ford.jsonl\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cli = Cli(Path("here.db"), elsewhere)  # COMBATLOG_DB=here.db and the key home ./keys: relative to elsewhere
    cli("run", "-q", str(folder / "fight.cmds"))
    assert (folder / "ford.jsonl").is_file()  # -o ford.jsonl: beside the command file
    assert (elsewhere / "here.db").is_file() and not (folder / "here.db").exists()
    # run - reads paths from the current folder
    (elsewhere / "setup.json").write_text((REPO / "docs/examples/osric/ford.json").read_text())
    cli("run", "-", stdin="new ford2 --ruleset osric --setup setup.json --dice manual\n")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [
    ("export", "duel", "-o", "/dev/full"),
    ("export", "duel", "--format", "text", "-o", "/dev/full"),
    ("mail", "duel", "--for", "Bo", "--since", "0", "-o", "/dev/full"),
    ("sheet", "duel", "-o", "/dev/full"),
    ("report", "duel", "-o", "/dev/full"),
])
def test_a_full_disk_is_said_in_words(cli: Cli, args: tuple[str, ...]) -> None:
    duel(cli)
    result = cli(*args, ok=False)
    assert result.code == ExitStatus.INVALID, result.err
    assert "cannot write /dev/full: No space left on device" in result.err
    assert "bug" not in result.err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_for_keys_and_standard_output(cli: Cli) -> None:
    duel(cli)
    cli("keys", "new", "alice")
    keys = cli("keys", "export", "alice", "-o", "/dev/full", ok=False)
    assert "cannot write /dev/full: No space left on device" in keys.err
    import subprocess

    from tests.conftest import CLI

    with open("/dev/full", "w") as full:
        proc = subprocess.run([*CLI, "log", "duel"], cwd=cli.cwd, env=cli.env, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    assert proc.returncode == ExitStatus.FAILURE
    assert "cannot write standard output: No space left on device" in proc.stderr and "bug" not in proc.stderr


MR_SETUP = {"characters": [{"id": "amazon", "character": "Amazon", "player": "amazon"}],
            "denizens": [{"id": "goblin", "monster": "Axe Goblin"}]}


@pytest.mark.parametrize(("change", "says"), [
    # a misspelt key used to be ignored in silence: the weapon was not alerted, and nobody was told
    (lambda s: s["characters"][0].update(weapon_alert=True),
     "setup.characters[0]: unknown key 'weapon_alert'"),
    (lambda s: s["denizens"][0].update(sid="dark"), "setup.denizens[0]: unknown key 'sid'"),
    (lambda s: s.update(first_round_of_the_day=False), "setup: unknown key 'first_round_of_the_day'"),
    (lambda s: s["characters"][0].update(hirelings=[{"id": "h", "native": "Bashkar 1", "owner": "x"}]),
     "setup.characters[0].hirelings[0]: unknown key 'owner'"),
    # assigned: an uncontrolled denizen of the set-up onto one of its characters or hirelings
    (lambda s: s.update(assigned={"gobiln": "amazon"}), "setup.assigned.gobiln: no denizen 'gobiln'"),
    (lambda s: s.update(assigned={"goblin": "amazn"}), "setup.assigned.goblin: 'amazn' is not a character"),
])
def test_a_magic_realm_setup_with_an_unknown_key_or_id_is_refused(cli: Cli, tmp_path: Path, change, says) -> None:  # type: ignore[no-untyped-def]
    import copy
    import json

    setup = copy.deepcopy(MR_SETUP)
    change(setup)
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(setup))
    result = cli("new", "fight", "--ruleset", "magic_realm", "--setup", str(path), ok=False)
    assert result.code == ExitStatus.INVALID, result.err
    assert says in result.err, result.err
    assert "fight" not in cli("list").out  # nothing created
    path.write_text(json.dumps(MR_SETUP))  # the same set-up, corrected, is taken
    cli("new", "fight", "--ruleset", "magic_realm", "--setup", str(path))


def test_a_stored_event_edited_into_text_is_refused_by_verify(cli: Cli) -> None:
    """A cheat edits the log file so that an event's body is SQLite text instead of the bytes the log writes
    (the same characters): verify refused it with an internal TypeError; now it is a verification failure
    naming the event."""
    duel(cli)
    with sqlite3.connect(cli.db) as db:
        db.execute("UPDATE events SET body = CAST(body AS TEXT) WHERE seq = 3")
    result = cli("verify", "duel", ok=False)
    assert result.code == ExitStatus.VERIFY_FAILED, result.err
    assert "duel#3" in result.err and "the stored event is text" in result.err, result.err


def test_an_error_quotes_a_huge_input_once_not_whole(cli: Cli) -> None:
    """Found by an exploratory test: `osric attack o "<100,000 letters>"` printed all of them back in its
    refusal ("no combatant 'AAAA...'"). An error is read by a person: past 2,000 characters its middle is cut,
    saying how much, in text and in JSON."""
    duel(cli)
    name = "A" * 100_000
    result = cli("freeform", "act", "duel", name, "waves", ok=False)
    assert result.code == ExitStatus.INVALID and len(result.err) < 2_200 and "characters cut" in result.err
    as_json = cli("freeform", "act", "duel", name, "waves", "--json", ok=False)
    assert len(as_json.err) < 2_300 and "characters cut" in json.loads(as_json.err)["error"]["message"]


def test_blank_names_are_refused_and_nothing_is_appended_or_written(cli: Cli, tmp_path: Path) -> None:
    """``--by ''``, ``--about ''``, ``--for ''``, ``--name ''``: a name typed blank (a shell variable never set)
    used to mean "the default" or an empty name in the log (a note about ``[]``, a roll by nobody, a mail for
    nobody). Each is refused saying which option is blank, exit status 3, nothing appended or written."""
    duel(cli)
    before = cli("log", "duel", "--json").out
    bundle = tmp_path / "duel.jsonl"
    cli("export", "duel", "-o", str(bundle))
    written = tmp_path / "out.txt"
    for args, says in [
        (("roll", "duel", "1d6", "--label", "r1/x", "--scheme", "manual", "--face", "3", "--by", ""), "--by is blank"),
        (("roll", "duel", "1d6", "--label", "r1/x", "--scheme", "manual", "--face", "3", "--by", " "), "--by is blank"),
        (("note", "duel", "Bo disputes the reach", "--about", ""), "--about is blank"),
        (("note", "duel", "Bo disputes the reach", "--about", "Bo", "--about", "  "), "--about is blank"),
        (("mail", "duel", "--for", "", "--since", "0", "-o", str(written)), "--for is blank: give the player"),
        (("mail", "duel", "--for", "", "--since", "0"), "--for is blank"),
        (("export", "duel", "--for", "", "-o", str(written)), "--for is blank"),
        (("import", str(bundle), "--name", ""), "--name is blank"),
    ]:
        result = cli(*args, ok=False)
        assert result.code == ExitStatus.INVALID, (args, result.err)
        assert f"error[invalid]: {says}" in result.err, (args, result.err)
        assert result.out == "", (args, result.out)  # no mail body on standard output either
        assert cli("log", "duel", "--json").out == before, args
        assert not written.exists(), args
    # the same options with a name are taken, and without one mean the default as before
    cli("note", "duel", "Bo disputes the reach", "--about", "Bo")
    cli("roll", "duel", "1d6", "--label", "r1/x", "--scheme", "manual", "--face", "3")
    assert "gm's 1d6" in cli("log", "duel").out


def test_osric_aid_by_a_blank_name_is_refused(cli: Cli) -> None:
    setup = REPO / "docs" / "examples" / "osric" / "ford.json"
    cli("new", "ford", "--ruleset", "osric", "--setup", str(setup), "--dice", "manual")
    before = cli("log", "ford", "--json").out
    result = cli("osric", "aid", "ford", "Brom", "--by", "", ok=False)
    assert result.code == ExitStatus.INVALID and "--by is blank: give who gives the aid" in result.err, result.err
    assert cli("log", "ford", "--json").out == before


def test_numbers_are_read_from_ascii_digits_only(cli: Cli, tmp_path: Path) -> None:
    """``roll duel ２d６`` rolled 2d6: Python's ``int`` (and ``str.isdigit``, and ``\\d`` in a pattern) read other
    scripts' digits, and ``int`` reads '1_0' as 10. A number typed is read as its reader sees it: dice, faces
    and every whole-number option take the digits 0-9 only; anything else is refused naming the character,
    with nothing appended or written."""
    duel(cli)
    before = cli("log", "duel", "--json").out
    out = tmp_path / "out.jsonl"
    fullwidth_two = "'２' (U+FF12 FULLWIDTH DIGIT TWO) is not ASCII"
    for args, code, says in [
        (("roll", "duel", "２d６", "--label", "r1/x", "--scheme", "manual", "--face", "3,3"), ExitStatus.INVALID,
         f"dice '２d６': {fullwidth_two}"),
        (("roll", "duel", "1d٦", "--label", "r1/x", "--scheme", "manual", "--face", "3"), ExitStatus.INVALID,
         "'٦' (U+0666 ARABIC-INDIC DIGIT SIX) is not ASCII"),
        (("freeform", "damage", "duel", "Bo", "1d8", "--face", "r1/Bo/damage=５"), ExitStatus.INVALID,
         "'５' (U+FF15 FULLWIDTH DIGIT FIVE) is not ASCII"),
        (("freeform", "damage", "duel", "Bo", "1d8", "--face", "r1/Bo/damage=1_0"), ExitStatus.INVALID,
         "faces '1_0' must be whole numbers in the digits 0-9"),
        (("freeform", "damage", "duel", "Bo", "２"), ExitStatus.INVALID, fullwidth_two),
        (("freeform", "join", "duel", "Cy", "--side", "red", "--hp", "１２"), ExitStatus.USAGE,
         "'１２' is not a whole number written in the digits 0-9: '１' (U+FF11 FULLWIDTH DIGIT ONE) is not ASCII"),
        (("export", "duel", "--since", "２", "-o", str(out)), ExitStatus.USAGE, fullwidth_two),
        (("export", "duel", "--since", "²", "-o", str(out)), ExitStatus.USAGE, "'²' (U+00B2 SUPERSCRIPT TWO)"),
        (("log", "duel", "--tail", "1_0"), ExitStatus.USAGE, "'1_0' is not a whole number written in the digits 0-9"),
    ]:
        result = cli(*args, ok=False)
        assert result.code == code, (args, result.err)
        assert says in result.err, (args, result.err)
        assert "internal" not in result.err
        assert cli("log", "duel", "--json").out == before, args
        assert not out.exists(), args
    # the same in ASCII digits are taken
    cli("roll", "duel", "2d6", "--label", "r1/x", "--scheme", "manual", "--face", "3,3")
    cli("freeform", "join", "duel", "Cy", "--side", "red", "--hp", "12")
    cli("export", "duel", "--since", "2", "-o", str(out))


def test_digits_inside_words_are_ascii_too_and_never_an_internal_error(cli: Cli, tmp_path: Path) -> None:
    """'²' passes ``str.isdigit`` but not ``int``: a spell's casting time, an Argad rank and a mail's Size header
    written with it were internal errors (ValueError); '１' was read as 1. Each is refused as the input it is."""
    cli("new", "ford", "--ruleset", "osric", "--setup", str(REPO / "docs/examples/osric/ford.json"), "--dice", "manual")
    cli("osric", "round", "ford")
    for seg in ("²", "１"):
        result = cli("osric", "declare", "ford", "party", f"Halvaine=spell:sleep:{seg}", "--rest", "melee", ok=False)
        assert result.code == ExitStatus.INVALID and "a spell is spell:NAME:SEGMENTS" in result.err, result.err
    cli("new", "goblins", "--ruleset", "argad", "--setup", str(REPO / "docs/examples/argad/warrior-vs-goblins.json"),
        "--dice", "manual")
    cli("argad", "turn", "goblins")
    before = cli("log", "goblins", "--json").out
    for rank in ("²", "２"):
        result = cli("argad", "strike", "goblins", f"gob-d@{rank}", "--at", "warrior", ok=False)
        assert result.code == ExitStatus.INVALID and "write NAME or NAME@RANK" in result.err, result.err
    assert cli("log", "goblins", "--json").out == before
    # a mail whose armoured block declares its size as '²' bytes
    message = cli("mail", "goblins", "--for", "bob", "--since", "0").out
    assert "\nSize: " in message
    forged = tmp_path / "forged.txt"
    forged.write_text("\n".join("Size: ²" if line.startswith("Size: ") else line for line in message.splitlines()))
    other = Cli(tmp_path / "other.db", REPO)
    result = other("import", str(forged), ok=False)
    assert result.code == ExitStatus.VERIFY_FAILED and "the Size header '²' is not a byte count" in result.err, result.err
