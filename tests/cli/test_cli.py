"""The CLI as a user runs it: subprocesses, exit statuses, JSON output, command files."""

from __future__ import annotations

import json

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.errors import ExitStatus
from tests.conftest import REPO, Cli

TAVERN = "docs/examples/freeform/tavern-brawl.cmds"


def start_duel(cli: Cli) -> None:
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    cli("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cli("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    cli("freeform", "round", "duel")


def test_json_contracts_of_the_read_commands(cli: Cli) -> None:
    start_duel(cli)
    cli("freeform", "damage", "duel", "Bo", "1d8", "--face", "r1/Bo/damage=5")
    streams = cli("list", "--json").json()
    assert [s["name"] for s in streams] == ["duel"] and len(streams[0]["id"]) == 16
    assert streams[0]["head_seq"] == 6
    status = cli("status", "duel", "--json").json()
    assert status["round"] == 1 and {p["who"] for p in status["pending"]} == {"Aldo", "Bo", "gm"}
    show = cli("show", "duel", "--json").json()
    bo = next(p for p in show["state"]["participants"] if p["name"] == "Bo")
    assert bo["hp"] == 5
    assert cli("show", "duel", "--at", "4", "--json").json()["state"]["participants"][1]["hp"] == 10
    explain = cli("explain", "duel", "--round", "1", "--json").json()
    texts = [s["text"] for s in explain["steps"]]
    assert "Bo loses 5 hp (10 -> 5)" in texts
    assert any(s["rule"] == "core: dice (manual)" and s["dice"] == ["r1/Bo/damage"] for s in explain["steps"])
    log = cli("log", "duel", "--json").json()
    assert [r["seq"] for r in log] == [1, 2, 3, 4, 5, 6] and log[4]["type"] == "core.dice_rolled"
    assert all(len(r["hash"]) == 64 for r in log)
    ledger = cli("dice", "duel", "--json").json()
    assert ledger["rolls"][0]["faces"] == [5] and ledger["by_roller"]["gm"]["rolls"] == 1
    replay = cli("replay", "duel", "--to", "4", "--json").json()
    assert [e["seq"] for e in replay["events"]] == [1, 2, 3, 4] and replay["state"]["round"] == 1


def test_roll_with_a_label_once(cli: Cli) -> None:
    start_duel(cli)
    out = cli("roll", "duel", "2d6", "--label", "r1/morale", "--faces", "3,5", "--json").json()
    assert (out["faces"], out["total"], out["scheme"]) == ([3, 5], 8, "manual")
    again = cli("roll", "duel", "2d6", "--label", "r1/morale", "--faces", "1,1", ok=False)
    assert again.code == ExitStatus.ILLEGAL and "already drawn" in again.err
    local = cli("roll", "duel", "d100", "--label", "r1/chaos", "--scheme", "local", "--json").json()
    assert 1 <= local["total"] <= 100


@pytest.mark.parametrize("args,status,text", [
    (("show", "nosuch"), ExitStatus.NOT_FOUND, "no combat 'nosuch'"),
    (("freeform", "act", "duel", "Cy", "waves"), ExitStatus.INVALID, "no participant 'Cy'"),
    (("freeform", "end-round", "duel"), ExitStatus.OK, ""),
    (("new", "x", "--ruleset", "chess"), ExitStatus.NOT_FOUND, "unknown ruleset"),
    (("roll", "duel", "2x6", "--label", "a"), ExitStatus.INVALID, "NdS"),
    (("show", "duel", "--round", "9"), ExitStatus.NOT_FOUND, "no round 9"),
    (("fork", "duel", "--as", "f"), ExitStatus.INVALID, "exactly one of"),
    (("status",), ExitStatus.USAGE, "Missing argument"),
])
def test_errors_have_stable_codes_and_change_nothing(cli: Cli, args: tuple[str, ...], status: int, text: str) -> None:
    start_duel(cli)
    before = cli("list", "--json").json()[0]["head_seq"]
    result = cli(*args, ok=False)
    assert result.code == status, result.err
    assert text in result.err
    if status:
        assert result.err.startswith("error[") or status == ExitStatus.USAGE
        assert cli("list", "--json").json()[0]["head_seq"] == before


def test_illegal_after_end_round(cli: Cli) -> None:
    start_duel(cli)
    cli("freeform", "end-round", "duel")
    result = cli("freeform", "end-round", "duel", ok=False)
    assert result.code == ExitStatus.ILLEGAL and "error[illegal]: no round is open (Freeform: table decision)" in result.err


def test_run_plays_a_file_and_resumes_after_a_fix(cli: Cli, tmp_path: Path) -> None:
    script = tmp_path / "fight.cmds"
    script.write_text("new f --ruleset freeform\nfreeform join f A --side x --hp 3\n"
                      "# comment\n\nfreeform act f Nobody waves\nfreeform round f\n")
    result = cli("run", str(script), ok=False)
    assert result.code == ExitStatus.INVALID
    assert f"{script}:5" in result.err and "no participant 'Nobody'" in result.err
    assert cli("list", "--json").json()[0]["head_seq"] == 2  # lines 1-2 landed, line 5 did not
    script.write_text(script.read_text().replace("Nobody", "A").replace("freeform act f A waves\nfreeform round f",
                                                                          "freeform round f\nfreeform act f A waves"))
    out = cli("run", str(script)).out
    assert "already exists: f" in out  # line 1 is recognised as done, not refused
    log = cli("log", "f", "--json").json()
    assert [r["type"] for r in log] == ["core.combat_started", "ff.participant_joined", "ff.round_started",
                                         "ff.action_taken"]  # the join was not recorded twice
    cli("run", "--fresh", str(script), ok=False)  # --fresh records anew: `new f` now clashes


def test_an_error_of_run_is_json_with_its_line_when_asked(cli: Cli, tmp_path: Path) -> None:
    """guide.md, "JSON output": an error is JSON, with "where": "FILE:LINE" for a line of run FILE. run took no
    --json, and a failing line's own --json was ignored (found by an exploratory test)."""
    script = tmp_path / "e.cmds"
    script.write_text("new e --ruleset freeform --dice manual\nfreeform damage e Nobody 3\n")
    result = cli("run", "-q", str(script), "--json", ok=False)
    assert result.code == ExitStatus.INVALID
    error = json.loads(result.err)["error"]
    assert error["where"] == f"{script}:2" and error["code"] == "invalid" and "Nobody" in error["message"]
    err = cli("run", "-q", str(script), ok=False).err  # not asked; a retry: line 1 is said to be recorded already
    assert err.startswith(f"{script}:1: already recorded by an earlier run of this file (a retry)")
    assert err.splitlines()[-1].startswith(f"error[invalid]: {script}:2: ")
    script.write_text("new e --ruleset freeform --dice manual\nfreeform damage e Nobody 3 --json\n"
                      "freeform join e A --side a --json\n")
    assert json.loads(cli("run", "-q", str(script), ok=False).err)["error"]["where"] == f"{script}:2"
    script.write_text("new e --ruleset freeform --dice manual\nfreeform join e A --sid a --json\n")  # a usage error
    error = json.loads(cli("run", "-q", str(script), ok=False).err)["error"]
    assert error["where"] == f"{script}:2" and "--sid" in error["message"]


def test_run_parses_each_line_anew_though_a_command_keeps_its_parser(cli: Cli, tmp_path: Path) -> None:
    """cli/root.py keeps each command's option parser for the next line: what one line gave must not carry
    into the next, and a mistake is still reported against its own line."""
    script = tmp_path / "fight.cmds"
    script.write_text("new f --ruleset freeform\nfreeform join f A --side x --hp 3\nfreeform join f B --hp 4\n")
    result = cli("run", str(script), ok=False)
    assert result.code == ExitStatus.INVALID
    assert f"{script}:3: Missing option '--side'." in result.err  # not line 2's side
    script.write_text(script.read_text().replace("B --hp", "B --side y --hp") + "freeform join f C --sid z --hp 5\n")
    result = cli("run", str(script), ok=False)
    assert f"{script}:4: No such option '--sid'. Did you mean '--side'?" in result.err
    sides = {p["name"]: (p["side"], p["hp"]) for p in cli("show", "f", "--json").json()["state"]["participants"]}
    assert sides == {"A": ("x", 3), "B": ("y", 4)}


def test_rerunning_the_same_file_records_nothing_twice(cli: Cli) -> None:
    cli("run", "--quiet", TAVERN)
    head = cli("list", "--json").json()[0]["head_seq"]
    cli("run", "--quiet", TAVERN)
    assert cli("list", "--json").json()[0]["head_seq"] == head


def test_a_line_changed_after_it_ran_is_refused_not_recorded_twice_with_every_line_after_it(
        cli: Cli, tmp_path: Path) -> None:
    """The attack (found by an exploratory test): run a file, edit a line that already ran, run it again. Each
    line's command id chains the lines before it, so the edited line and every line after it were new: the
    unchanged ``act`` was recorded a second time and Aldo took both hits. The run now stops at the edited line,
    recording nothing; the documented flows still run: a line fixed after it failed, lines added at the end,
    commands typed by hand in between."""
    script = tmp_path / "f.cmds"
    lines = ["new d --ruleset freeform --dice manual", "freeform join d Aldo --side a --hp 10", "freeform round d",
             "freeform damage d Aldo 3 --reason x", "freeform act d Aldo waits"]
    script.write_text("\n".join(lines) + "\n")
    cli("run", "-q", str(script))
    before = cli("log", "d", "--json").json()
    script.write_text(script.read_text().replace("Aldo 3", "Aldo 4"))
    result = cli("run", "-q", str(script), ok=False)
    assert result.code == ExitStatus.INVALID
    assert f"{script}:4: d has this file's lines recorded up to #3, and #4 (ff.hp_changed) was recorded by " \
           "another line of a command file run by gm, not by this one" in result.err
    assert cli("log", "d", "--json").json() == before  # nothing recorded, the unchanged act not twice
    # restored as it ran: nothing new; a line added at the end runs
    script.write_text(script.read_text().replace("Aldo 4", "Aldo 3") + "freeform act d Aldo grins\n")
    cli("run", "-q", str(script))
    assert [e["seq"] for e in cli("log", "d", "--json").json()] == [1, 2, 3, 4, 5, 6]
    # commands typed by hand after the run, then a line added: it runs after them
    cli("note", "d", "by hand")
    script.write_text(script.read_text() + "freeform act d Aldo sighs\n")
    cli("run", "-q", str(script))
    assert [e["type"] for e in cli("log", "d", "--json").json()][-2:] == ["core.noted", "ff.action_taken"]
    # a failing line fixed and run again: the run continues from it
    script.write_text(script.read_text() + "freeform damage d Nobody 2\nfreeform act d Aldo laughs\n")
    assert cli("run", "-q", str(script), ok=False).code == ExitStatus.INVALID
    script.write_text(script.read_text().replace("Nobody 2", "Aldo 2"))
    cli("run", "-q", str(script))
    assert [e["seq"] for e in cli("log", "d", "--json").json()][-3:] == [8, 9, 10]


def test_the_freeform_example_plays_to_the_end_and_verifies(cli: Cli, tmp_path: Path) -> None:
    cli("run", TAVERN)
    status = cli("status", "tavern", "--json").json()
    assert status["finished"] and status["pending"] == []
    state = cli("show", "tavern", "--json").json()["state"]
    hp = {p["name"]: p["hp"] for p in state["participants"]}
    # hand calculation from the file: Grimsby 14-3-2=9, Aldo 12-4=8, Knuckles 8-(3+4)=1, Bo 9
    assert hp == {"Aldo": 8, "Bo": 9, "Grimsby": 9, "Knuckles": 1}
    cli("fork", "tavern", "--round", "2", "--as", "tavern-b")
    out = tmp_path / "t.jsonl"
    cli("export", "tavern-b", "-o", str(out))
    assert "ok: tavern-b" in cli("verify", str(out)).out
    other = Cli(tmp_path / "other.db", REPO)
    other("import", str(out))
    assert other("show", "tavern-b", "--json").json()["state"] == cli("show", "tavern-b", "--json").json()["state"]


def test_verify_names_the_line_of_a_tampered_file(cli: Cli, tmp_path: Path) -> None:
    cli("run", "--quiet", TAVERN)
    out = tmp_path / "t.jsonl"
    cli("export", "tavern", "-o", str(out))
    lines = out.read_text().splitlines()
    lines[9] = lines[9].replace('"Aldo"', '"Bo"', 1)
    out.write_text("\n".join(lines) + "\n")
    result = cli("verify", str(out), ok=False)
    assert result.code == ExitStatus.VERIFY_FAILED and f"{out}:10" in result.err


def test_import_of_a_divergent_log_names_the_seq_and_both_hashes(cli: Cli, tmp_path: Path) -> None:
    start_duel(cli)
    a = tmp_path / "a.jsonl"
    cli("export", "duel", "-o", str(a))
    other = Cli(tmp_path / "other.db", REPO)
    other("import", str(a))
    other("freeform", "act", "duel", "Bo", "flees")
    cli("freeform", "act", "duel", "Aldo", "charges")
    cli("export", "duel", "-o", str(a))
    result = other("import", str(a), ok=False)
    assert result.code == ExitStatus.DIVERGED and "diverges at seq 5" in result.err


def test_global_options_may_follow_the_command(cli: Cli, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.db"
    cli("new", "x", "--ruleset", "freeform", "--db", str(elsewhere))
    assert Cli(elsewhere, REPO)("list", "--json").json()[0]["name"] == "x"
    cli("new", "y", "--ruleset", "freeform", "--as", "alice")
    assert cli("log", "y", "--json").json()[0]["actor"] == "alice"


def test_referee_seed_flow_from_the_cli(cli: Cli) -> None:
    cli("new", "ref", "--ruleset", "freeform", "--dice", "referee")
    cli("roll", "ref", "3d6", "--label", "r1/a")
    pending = cli("verify", "ref", "--json").json()
    assert pending["dice"]["pending"] == 1
    cli("seed", "reveal", "ref")
    done = cli("verify", "ref", "--json").json()
    assert done["dice"]["verified"] == 1 and done["dice"]["pending"] == 0


def test_shell_completion_offers_combat_names(cli: Cli) -> None:
    cli("new", "duel", "--ruleset", "freeform")
    cli("new", "dragon-fight", "--ruleset", "freeform")
    cli("new", "ambush", "--ruleset", "freeform")
    import subprocess

    # typer's bash protocol: what `combatlog --install-completion bash` sets up
    env = {**cli.env, "_COMBATLOG_COMPLETE": "complete_bash", "COMP_WORDS": "combatlog show d", "COMP_CWORD": "2"}
    proc = subprocess.run([str(Path(cli.env.get("VIRTUAL_ENV", REPO / ".venv")) / "bin" / "combatlog")], env=env,
                          capture_output=True, text=True, timeout=60)
    offered = set(proc.stdout.split())
    assert offered == {"duel", "dragon-fight"}


def test_hoist_keeps_fork_names_and_root_option_values_apart() -> None:
    from combatlog.cli.app import hoist

    # `fork --as NEW` is the old spelling of `fork --name NEW` (one release): it stays with fork...
    assert hoist(["--db", "x.db", "fork", "duel", "--round", "2", "--as", "whatif"]) == \
        ["--db", "x.db", "fork", "duel", "--round", "2", "--fork-as", "whatif"]
    # ...and with --name given, --as after fork is the acting player, as after any command
    assert hoist(["fork", "duel", "--at", "2", "--name", "w", "--as", "alice"]) == \
        ["--as", "alice", "fork", "duel", "--at", "2", "--name", "w"]
    assert hoist(["--as", "bob", "freeform", "act", "duel", "Bo", "hits", "--db", "y.db"]) == \
        ["--as", "bob", "--db", "y.db", "freeform", "act", "duel", "Bo", "hits"]
    assert hoist(["new", "x", "--ruleset", "r", "--as=alice"]) == ["--as=alice", "new", "x", "--ruleset", "r"]
    assert hoist(["--version"]) == ["--version"]


def test_fork_with_db_before_the_command(cli: Cli, tmp_path: Path) -> None:
    start_duel(cli)
    result = cli("--db", str(cli.db), "fork", "duel", "--round", "1", "--as", "duel-b")
    assert "forked: duel-b" in result.out


def test_run_treats_hash_as_a_comment_only_at_a_word_start() -> None:
    from combatlog.cli.runner import strip_comment

    assert strip_comment("roll x 1d6 --label r1/reroll#1 # the re-roll") == "roll x 1d6 --label r1/reroll#1 "
    assert strip_comment('note x "a # inside quotes" # out') == 'note x "a # inside quotes" '
    assert strip_comment("# whole line") == ""
    assert strip_comment(r'note x "say \"#1\"" # c') == r'note x "say \"#1\"" '
    assert strip_comment(r"note x \#not-a-comment") == r"note x \#not-a-comment"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \t\x0b\x0c\r\n\xa0\u2003\"'\\#$!|;&-aZ9/=~é", max_size=24))
def test_run_splits_a_plain_line_as_shlex_does(line: str) -> None:
    """cli/runner.py reads a plain line (printable ASCII, no quote, backslash or #) without shlex; for any
    line the words must be those shlex gives after the comment is cut."""
    _assert_split_as_shlex(line)


def _assert_split_as_shlex(line: str) -> None:
    import shlex

    from combatlog.cli.runner import split_line, strip_comment

    try:
        expected = shlex.split(strip_comment(line))
    except ValueError:  # an unclosed quote or a trailing backslash: shlex's error, on either path
        with pytest.raises(ValueError):
            split_line(line, shlex.split)
        return
    assert split_line(line, shlex.split) == expected


_WORD_PARTS = st.text(alphabet="aZ9-/ #\t", max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_WORD_PARTS, _WORD_PARTS.map(lambda part: f'"{part}"'), st.sampled_from(['"', "\\", "'"])),
                max_size=8))
def test_run_splits_a_line_with_double_quotes_as_shlex_does(parts: list[str]) -> None:
    """Lines of plain words and double-quoted parts (the quoted fast path of cli/runner.py split_line), with a
    stray quote or backslash now and then (the shlex path): the words are shlex's."""
    _assert_split_as_shlex("".join(parts))


def test_a_long_line_the_fast_paths_refuse_is_refused_at_once() -> None:
    """Hostile command files: a pattern that let a word split anywhere backtracks exponentially on a long
    word that ends in a backslash (20 characters took 0.1 s, 22 took 0.7 s); the fast paths' patterns are
    possessive, so these lines, thousands of characters long, reach shlex at once (a hang here is the defect)."""
    _assert_split_as_shlex("a" * 5000 + "\\ b")
    _assert_split_as_shlex(" " * 5000 + "\\")
    _assert_split_as_shlex('a"b" ' * 2000 + '"')


def test_a_setup_file_with_a_fraction_is_refused_with_its_path(cli: Cli, tmp_path: Path) -> None:
    setup = tmp_path / "setup.json"
    setup.write_text('{"characters": [{"id": "c0"}, {"level": 2.5}]}')
    result = cli("new", "x", "--ruleset", "freeform", "--setup", str(setup), ok=False)
    assert result.code == ExitStatus.INVALID
    assert f"{setup}: characters.1.level:" in result.err and "whole numbers" in result.err
    assert cli("list", "--json").json() == []
    setup.write_text("[1, 2]")
    assert "top level" in cli("new", "x", "--ruleset", "freeform", "--setup", str(setup), ok=False).err


def test_a_closed_pipe_is_not_an_error(tmp_path: Path) -> None:
    """`combatlog log duel | head -1`: the reader stops early; combatlog exits 0 without a traceback."""
    import subprocess

    from combatlog.wiring import create_combat, execute
    from combatlog.commands.core import AddNote
    from combatlog.store import open_store

    store = open_store(str(tmp_path / "long.db"))
    create_combat(store, "duel", "freeform", actor="gm")
    for i in range(1500):  # well past a pipe's buffer
        execute(store, "duel", AddNote(text=f"note {i} " + "x" * 40), actor="gm")
    store.close()
    script = f"set -o pipefail; {sys.executable} -m combatlog.cli.app --db {tmp_path / 'long.db'} log duel | head -1"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("#1") and "Traceback" not in proc.stderr and "error" not in proc.stderr
