"""``--db http://HOST:PORT``: players work against the server directly (a local replica, synced on every
command), and offline work is queued in the replica and pushed when the server is back (docs/server.md,
"Working against the server directly")."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO, Cli
from tests.server.live import LiveServer
from tests.trust.pbem import Seat


class Direct(Seat):
    """A seat whose log is the server itself (``--db URL``), its replica in the key home."""

    def __init__(self, name: str, root: Path, url: str) -> None:
        super().__init__(name, root)
        self.cli = Cli(self.dir / "unused.db", REPO, {"COMBATLOG_HOME": str(self.home), "COMBATLOG_DB": url})


def _players(root: Path, url: str) -> tuple[Direct, Direct]:
    alice, bob = Direct("alice", root, url), Direct("bob", root, url)
    for seat in (alice, bob):
        seat("keys", "new", seat.name)
        seat("keys", "export", seat.name, "-o", str(root / f"{seat.name}.pub"))
    alice("keys", "import", str(root / "bob.pub"))
    bob("keys", "import", str(root / "alice.pub"))
    return alice, bob


def test_two_players_play_against_the_server_directly(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = _players(tmp_path, server.url)
    made = alice("new", "duel", "--ruleset", "freeform", "--dice", "joint", "--player", "alice", "--player", "bob")
    assert "created on" in made.err  # pushed when the command ended
    assert (tmp_path / "alice" / "keys" / "replicas").is_dir()
    assert not (tmp_path / "alice" / "unused.db").exists()  # the replica lives in the key home
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")  # bob reads the combat as a pinned player
    alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    cid = alice("list", "--json").json()[0]["id"]  # type: ignore[index]
    assert server.head(cid)[0] == 3
    assert alice("verify", "duel", "--json").json()["head_hash"] == server.head(cid)[1]  # type: ignore[index]
    assert bob("log", "duel", "--json").json()[-1]["actor"] == "alice"  # type: ignore[index]


def test_offline_work_is_queued_and_pushed_when_the_server_is_back(tmp_path: Path) -> None:
    live = LiveServer(tmp_path, "--open")
    try:
        alice, bob = _players(tmp_path, live.url)
        alice("new", "duel", "--ruleset", "freeform", "--dice", "joint", "--player", "alice", "--player", "bob")
        bob("ack", "duel")
        cid = alice("list", "--json").json()[0]["id"]  # type: ignore[index]
    finally:
        live.stop()
    # the server is down: alice plays on; her event stays in her replica, and she is told so
    offline = alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
    assert "working offline" in offline.err and "not pushed" in offline.err
    again = LiveServer(tmp_path, "--open", db=live.db, port=live.port)
    try:
        assert again.head(cid)[0] == 2
        synced = alice("status", "duel")  # any command reaches the server again: the queue is pushed
        assert "pushed 1 events" in synced.err
        assert again.head(cid)[0] == 3
        # each command starts from the server's head (it syncs first) and ends by pushing
        assert "pushed 1 events" in bob("note", "duel", "bob waits").err
        assert "pushed 1 events" in alice("note", "duel", "alice waits").err
        bob("status", "duel")
        heads = {again.head(cid)[1], alice("verify", "duel", "--json").json()["head_hash"],  # type: ignore[index]
                 bob("verify", "duel", "--json").json()["head_hash"]}  # type: ignore[index]
        assert len(heads) == 1 and again.head(cid)[0] == 5
    finally:
        again.stop()
