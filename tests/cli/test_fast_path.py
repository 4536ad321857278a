"""``combatlog status``, ``list``, ``export`` and ``import`` without click or typer (cli/fast.py, issue 22 item 3)
answer exactly as through them.

Every command line below runs twice in this process through ``main``: as it is, and with the fast path
switched off (click parses it, typer's command runs). Same exit status, same stdout, same stderr, whether
the fast path takes the line or leaves it to click; and it takes exactly the plain lines it claims to.
Which modules a fresh process imports is checked in tests/cli/test_startup.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.cli import fast
from combatlog.cli.argv import hoist
from tests.conftest import Cli, CliResult


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log with a combat whose roles are enforced (a named referee, pieces of pinned players: status
    prints the roles and "gm (ref: the referee's step)") and a second combat."""
    folder = tmp_path_factory.mktemp("fast")
    cli = Cli(folder / "log.db", folder, {"COMBATLOG_HOME": str(folder / "keys")})
    cli("new", "duel", "--ruleset", "freeform", "--referee", "ref", "--as", "ref")
    cli("freeform", "join", "duel", "Aldo", "--side", "a", "--player", "alice", "--as", "ref")
    cli("freeform", "join", "duel", "Bo", "--side", "b", "--player", "bob", "--as", "ref")
    cli("freeform", "round", "duel", "--as", "ref")
    cli("new", "dust", "--ruleset", "freeform")
    cli("export", "duel", "-o", str(folder / "up.jsonl"))  # for the imports below: this log has it all
    return folder


def run(args: list[str], *, fast_path: bool, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> CliResult:
    from combatlog.cli.app import main

    with monkeypatch.context() as m:
        if not fast_path:
            m.setattr(fast, "fast_command", lambda args: None)
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_:
            main(list(args))
        out = capsys.readouterr()
    return CliResult(int(exit_.value.code or 0), out.out, out.err)


@pytest.fixture
def env(table: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMBATLOG_DB", str(table / "log.db"))
    monkeypatch.setenv("COMBATLOG_HOME", str(table / "keys"))
    monkeypatch.chdir(table)  # a relative --db names the table's own log
    for name in ("COMBATLOG_ACTOR", "_COMBATLOG_COMPLETE"):
        monkeypatch.delenv(name, raising=False)
    return table


# (command line, whether the fast path takes it, its exit status)
LINES = [
    (["status", "duel"], True, 0),
    (["status", "duel", "--json"], True, 0),
    (["status", "--json", "duel"], True, 0),
    (["status", "duel", "--mine"], True, 0),
    (["status", "duel", "--mine", "--json", "--as", "alice"], True, 0),
    (["--as", "ref", "status", "duel", "--mine"], True, 0),
    (["status", "duel", "--as=ref", "--mine"], True, 0),
    (["status", "duel", "--command-id", "x1"], True, 0),
    (["status", "Duel"], True, 6),  # no such combat: error[not_found]
    (["status", "nope", "--json"], True, 6),  # the same error as JSON on stderr
    (["status", "duel\x1b[2J"], True, 6),  # a control character in the name, escaped in the error
    # left to click:
    (["status"], False, 2),  # missing STREAM: usage error
    (["status", "--json"], False, 2),  # the same as JSON
    (["status", "--help"], False, 0),
    (["status", "duel", "-h"], False, 0),
    (["status", "duel", "--mine", "--mine"], False, 0),
    (["status", "duel", "extra"], False, 2),
    (["status", "duel", "--bogus"], False, 2),
    (["status", "duel", "--json=yes"], False, 2),
    (["status", "duel", "--"], False, 0),
    (["status", "-", "duel"], False, 2),
    (["status", ""], False, 6),
    (["--as", "", "status", "duel"], False, 3),  # blank --as: refused by the root, as a blank name is
    (["--as", "  ", "status", "duel", "--json"], False, 3),
    (["--as", "ref", "--as", "bob", "status", "duel", "--mine"], False, 0),
    (["--as", "-x", "status", "duel", "--mine"], False, 0),
    (["status", "duel", "--db"], False, 2),
    (["--version"], False, 0),
    (["--help"], False, 0),
    (["Status", "duel"], False, 2),  # no such command
    # list: the root's options and --json once
    (["list"], True, 0),
    (["list", "--json"], True, 0),
    (["--as", "ref", "list", "--json"], True, 0),
    (["list", "--db=log.db"], True, 0),  # a relative file, from the folder the command runs in
    (["list", "--json", "--json"], False, 0),
    (["list", "duel"], False, 2),
    (["list", "--mine"], False, 2),
    (["list", "--help"], False, 0),
    (["list", "-"], False, 2),
    # export: the combat, -o FILE (not -), --since in digits, --for PLAYER, --json
    (["export", "duel", "-o", "out.jsonl"], True, 0),
    (["export", "--json", "duel", "--output", "out.jsonl", "--since", "2"], True, 0),
    (["export", "duel", "--since", "003", "-o", "out.jsonl", "--as", "ref"], True, 0),
    (["export", "duel", "-o", "out.jsonl", "--since", "9"], True, 3),  # past the head
    (["export", "nope", "-o", "out.jsonl"], True, 6),
    (["export", "duel"], False, 2),  # missing -o
    (["export", "duel", "-o"], False, 2),
    (["export", "duel", "-o", "-"], False, 0),  # the bundle on standard output
    (["export", "duel", "--output=out.jsonl"], False, 0),
    (["export", "duel", "-o", "out.jsonl", "-o", "out.jsonl"], False, 0),
    (["export", "duel", "-o", "out.jsonl", "--since", "x"], False, 2),
    (["export", "duel", "-o", "out.jsonl", "--since", "-1"], False, 3),
    (["export", "duel", "-o", "out.jsonl", "--since", "\uff11"], False, 2),  # a fullwidth 1: refused by click
    (["export", "duel", "-o", "out.jsonl", "--since", "99999999999999999999999"], False, 2),
    (["export", "duel", "-o", "out.jsonl", "--for", "alice"], True, 3),  # nobody pinned here
    (["export", "duel", "-o", "out.jsonl", "--for", "alice", "--since", "1"], True, 3),  # one or the other
    (["export", "duel", "-o", "out.jsonl", "--for", ""], False, 3),  # a blank name: refused
    (["export", "duel", "-o", "out.jsonl", "--for", "-x"], False, 3),
    (["export", "duel", "dust", "-o", "out.jsonl"], False, 2),
    (["export", "duel", "-o", "out.jsonl", "--help"], False, 0),
    # import: files (not -), --json
    (["import", "up.jsonl"], True, 0),  # this log has it all: nothing changes, either path
    (["import", "up.jsonl", "--json"], True, 0),
    (["import", "up.jsonl", "up.jsonl"], True, 0),
    (["import", "missing.jsonl"], True, 6),
    (["import", "log.db"], True, 3),  # a log, not an export
    (["import"], False, 3),
    (["import", "up.jsonl", "--name", "other"], False, 0),
    (["import", "up.jsonl", "--trust-new-key"], False, 0),
    (["import", "up.jsonl", "--bogus"], False, 2),
    (["verify", "duel"], True, 0),
    (["verify", "duel", "--json"], True, 0),
    (["verify", "up.jsonl", "--allow-rules-mismatch"], True, 0),
    (["verify", "--json", "up.jsonl", "--as", "ref"], True, 0),
    (["verify", "nope"], True, 6),
    (["verify", "missing.jsonl"], True, 6),
    (["verify", "log.db"], True, 8),  # a log, not an export
    (["verify"], False, 2),
    (["verify", "duel", "dust"], False, 2),
    (["verify", "duel", "--json", "--json"], False, 0),
    (["verify", "duel", "--bogus"], False, 2),
]


@pytest.mark.parametrize(("args", "taken", "code"), LINES, ids=[" ".join(a) or "''" for a, _, _ in LINES])
def test_fast_and_click_paths_answer_alike(args: list[str], taken: bool, code: int, env: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert (fast.fast_command(hoist(list(args))) is not None) is taken
    quick = run(args, fast_path=True, monkeypatch=monkeypatch, capsys=capsys)
    assert quick == run(args, fast_path=False, monkeypatch=monkeypatch, capsys=capsys)
    assert quick.code == code, quick
    assert quick.out or quick.err


def test_an_id_prefix_names_the_combat_on_both_paths(env: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    listed = run(["list", "--json"], fast_path=False, monkeypatch=monkeypatch, capsys=capsys).json()
    duel = next(c["id"] for c in listed if c["name"] == "duel")  # type: ignore[union-attr,index]
    args = ["status", duel[:6]]
    assert fast.fast_command(args) is not None
    quick = run(args, fast_path=True, monkeypatch=monkeypatch, capsys=capsys)
    assert quick.code == 0 and quick.out.startswith("duel: round 1, seq 4")
    assert quick == run(args, fast_path=False, monkeypatch=monkeypatch, capsys=capsys)


def test_the_roles_and_the_referee_are_printed(env: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # what the combat of the fixture must show for the comparisons above to compare something
    out = run(["status", "duel"], fast_path=True, monkeypatch=monkeypatch, capsys=capsys).out
    # each decision with its legal moves (commands/legal.py), as the piece's player or the referee may make them
    assert out.splitlines() == ["duel: round 1, seq 4", "  roles: referee ref; players none pinned",
                                "  Aldo: act in round 1  (Freeform: table decision)",
                                "    combatlog freeform act duel Aldo 'attacks Bo' --as alice",
                                "    combatlog freeform act duel Aldo 'attacks Bo' --roll 1d20 --as alice",
                                "    combatlog freeform leave duel Aldo --as alice",
                                "  Bo: act in round 1  (Freeform: table decision)",
                                "    combatlog freeform act duel Bo 'attacks Aldo' --as bob",
                                "    combatlog freeform act duel Bo 'attacks Aldo' --roll 1d20 --as bob",
                                "    combatlog freeform leave duel Bo --as bob",
                                "  gm (ref: the referee's step): end round 1  (Freeform: table decision)",
                                "    combatlog freeform end-round duel --as ref",
                                "    combatlog freeform end duel --outcome 'the fight is broken off' --as ref"]


@pytest.mark.parametrize(("variable", "value", "taken"), [
    ("COMBATLOG_ACTOR", "ref", True), ("COMBATLOG_ACTOR", "", True), ("COMBATLOG_ACTOR", " ", False),
    ("COMBATLOG_DB", "", True), ("_COMBATLOG_COMPLETE", "bash_complete", False),
])
def test_the_environment_is_read_as_click_reads_it(variable: str, value: str, taken: bool, env: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # An empty variable is unset for click; a blank actor is refused; completion is click's to answer.
    monkeypatch.setenv(variable, value)
    monkeypatch.chdir(env)  # an empty COMBATLOG_DB: the default ./combatlog.db, here a new empty log
    args = ["status", "duel", "--mine"]
    assert (fast.fast_command(args) is not None) is taken
    if variable == "_COMBATLOG_COMPLETE":
        monkeypatch.setenv("COMP_WORDS", "combatlog status du")
        monkeypatch.setenv("COMP_CWORD", "2")
    quick = run(args, fast_path=True, monkeypatch=monkeypatch, capsys=capsys)
    assert quick == run(args, fast_path=False, monkeypatch=monkeypatch, capsys=capsys)
    if variable == "COMBATLOG_ACTOR" and value:
        assert ("ref (the referee) must decide" in quick.out) is taken
    if variable == "COMBATLOG_DB":
        assert quick.code != 0 and "no combat 'duel'" in quick.err


def test_the_only_key_here_is_the_default_actor(env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("COMBATLOG_HOME", str(home))
    assert run(["keys", "new", "ref"], fast_path=False, monkeypatch=monkeypatch, capsys=capsys).code == 0
    quick = run(["status", "duel", "--mine"], fast_path=True, monkeypatch=monkeypatch, capsys=capsys)
    assert quick.out.startswith("duel: round 1, seq 4; ref (the referee) must decide:")
    assert quick == run(["status", "duel", "--mine"], fast_path=False, monkeypatch=monkeypatch, capsys=capsys)


@pytest.mark.parametrize(("raised", "code", "err"), [(KeyboardInterrupt, 130, ""), (EOFError, 130, "\naborted\n")])
def test_an_interrupt_ends_both_paths_alike(raised: type[BaseException], code: int, err: str, env: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-C while the log is read: exit status 130 either way (through click it used to be 0, typer
    # returning the status instead of raising it); end of input: click's "aborted".
    from combatlog.cli.state import AppState

    def interrupted(self: AppState) -> None:
        raise raised()

    monkeypatch.setattr(AppState, "store", interrupted)
    for fast_path in (True, False):
        assert run(["status", "duel"], fast_path=fast_path, monkeypatch=monkeypatch,
                   capsys=capsys) == CliResult(code, "", err)


def test_the_log_is_closed_by_both_paths(env: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from combatlog.cli.state import AppState

    closed: list[bool] = []
    close = AppState.close

    def counting(self: AppState) -> None:
        closed.append(self._store is not None)
        close(self)

    monkeypatch.setattr(AppState, "close", counting)
    for fast_path in (True, False):
        for args in (["status", "duel"], ["status", "nope"], ["export", "duel", "-o", "out.jsonl"],
                     ["import", "up.jsonl"]):
            run(args, fast_path=fast_path, monkeypatch=monkeypatch, capsys=capsys)
    assert closed == [True] * 8


def test_an_export_and_an_import_into_a_new_log_are_the_same_on_both_paths(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The lines above import what the log has already; here each path appends the whole combat to a log
    # of its own, and each export writes the same bundle.
    answers, bundles, logs = [], [], []
    for fast_path in (True, False):
        export = ["export", "duel", "-o", "bundle.jsonl", "--since", "1"]
        imports = ["--db", f"{'fast' if fast_path else 'click'}.db", "import", "up.jsonl", "--json"]
        assert fast.fast_command(hoist(export)) is not None and fast.fast_command(hoist(imports)) is not None
        answers.append([run(export, fast_path=fast_path, monkeypatch=monkeypatch, capsys=capsys),
                        run(imports, fast_path=fast_path, monkeypatch=monkeypatch, capsys=capsys)])
        bundles.append((env / "bundle.jsonl").read_bytes())
        logs.append(run([*imports[:2], "log", "duel", "--json"], fast_path=False, monkeypatch=monkeypatch,
                        capsys=capsys).json())
    assert answers[0] == answers[1] and bundles[0] == bundles[1]
    assert answers[0][1].code == 0 and answers[0][1].json()["appended"] == {"duel": 4}  # type: ignore[index]
    assert logs[0] == logs[1] and len(logs[0]) == 4  # type: ignore[arg-type]
