"""``combatlog status`` and ``combatlog list`` without click or typer (cli/fast.py, issue 22 item 3) answer exactly
as through them.

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
    (["--as", "", "status", "duel"], False, 2),  # blank --as: refused by the root
    (["--as", "  ", "status", "duel", "--json"], False, 2),
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
    assert out.splitlines() == ["duel: round 1, seq 4", "  roles: referee ref; players none pinned",
                                "  Aldo: act in round 1  (Freeform: table decision)",
                                "  Bo: act in round 1  (Freeform: table decision)",
                                "  gm (ref: the referee's step): end round 1  (Freeform: table decision)"]


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
        for args in (["status", "duel"], ["status", "nope"]):
            run(args, fast_path=fast_path, monkeypatch=monkeypatch, capsys=capsys)
    assert closed == [True] * 4
