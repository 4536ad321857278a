"""One player, two logs (docs/server.md, "One player, two logs"): alice moves from a copy of her log after
she pushed from the first. The two branches are both signed by her: never merged (to everyone else, two
different branches one player signed are equivocation). Her push, pull and sync from the copy are refused
saying what happened and what to do, with the log unchanged; another player who meets her two branches is
refused as ``import`` refuses equivocation. The real CLI against a real server (``tests/server/live.py``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.server.live import LiveServer
from tests.server.players import table
from tests.trust.pbem import Seat


def _copy_of(seat: Seat, root: Path) -> Seat:
    """The same player on another machine (or a copy of his log): his log and key home copied."""
    other = Seat(seat.name, root)
    shutil.copy2(seat.dir / "log.db", other.dir / "log.db")
    shutil.copytree(seat.home, other.home, dirs_exist_ok=True)
    return other


def test_a_player_who_moved_from_two_logs_is_told_so_and_nothing_changes(tmp_path: Path, server: LiveServer) -> None:
    alice, bob, _carol = table(tmp_path, server.url)
    bob("pull", "duel")
    desktop = _copy_of(alice, tmp_path / "desktop")
    for seat in (alice, bob, desktop):
        seat.cli.cwd = seat.dir  # an equivocation proof is written where the command runs: not in the repository
    alice("note", "duel", "from the laptop")
    alice("push", "duel")
    desktop("note", "duel", "from the desktop")
    before = desktop("log", "duel", "--json").out
    for command in (("push", "duel"), ("pull", "duel"), ("sync",)):
        refused = desktop(*command, ok=False)
        said = " ".join(refused.err.split())
        assert refused.code == 9, (command, refused.err)
        assert "alice has moved from two logs" in said, said
        assert "automatic rebase" not in said  # the stale promise is gone
        assert "Nothing was pulled or pushed, and this log is unchanged" in said
        assert "pull the server's into a fresh log (combatlog --db OTHER.db pull duel)" in said
        assert "from #2 on" in said
        assert desktop("log", "duel", "--json").out == before  # nothing changed
    assert not any(Path.cwd().glob("origin-*.equivocation-*")), "a proof written into the repository"

    # what the message says to do works: the server's events in a fresh log, the move made again there
    fresh = desktop.dir / "fresh.db"
    desktop("--db", str(fresh), "pull", "duel")
    desktop("--db", str(fresh), "note", "duel", "from the desktop, again")
    desktop("--db", str(fresh), "push", "duel")
    bob("pull", "duel")
    notes = [e["data"]["text"] for e in bob("log", "duel", "--json").json() if e["type"] == "core.noted"]  # type: ignore[index,union-attr]
    assert notes == ["from the laptop", "from the desktop, again"]


def test_another_players_two_branches_met_on_pull_are_refused_as_equivocation(tmp_path: Path,
                                                                             server: LiveServer) -> None:
    alice, bob, _carol = table(tmp_path, server.url)
    bob("pull", "duel")
    desktop = _copy_of(alice, tmp_path / "desktop")
    for seat in (alice, bob, desktop):
        seat.cli.cwd = seat.dir
    alice("note", "duel", "from the laptop")
    alice("push", "duel")
    desktop("note", "duel", "from the desktop")
    bundle = tmp_path / "desktop.jsonl"
    desktop("export", "duel", "-o", str(bundle))
    bob("import", str(bundle))  # by mail: alice's other #2
    before = bob("log", "duel", "--json").out
    refused = bob("pull", "duel", ok=False)
    assert refused.code == 9 and "error[equivocation]: equivocation by alice" in refused.err, refused.err
    assert "moved from two logs" not in refused.err  # bob holds no key of alice's: not his own crossing
    assert bob("log", "duel", "--json").out == before
    assert list(bob.dir.glob("origin-*.equivocation-2.jsonl"))  # the proof, beside where bob ran it
