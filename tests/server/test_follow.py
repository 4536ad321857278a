"""``combatlog follow``: a player follows a combat while another pushes; each new event is printed as
``log`` prints it, after a pull that verified and imported it; the follower reconnects when the server
ends a stream, and stops at its --timeout."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from tests.conftest import CLI, REPO
from tests.server.players import table


def test_follow_prints_new_events_as_they_arrive_verified(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    live = start_server("--open", "--stream-seconds", "2")  # streams end often: the follower reconnects
    alice, bob = table(tmp_path, live.url, ("alice", "bob"))
    started = time.monotonic()
    proc = subprocess.Popen([*CLI, "follow", "duel", "--timeout", "12", "--as", "bob"], cwd=REPO,
                            env=bob.cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, str]] = []
    reader = threading.Thread(target=lambda: lines.extend((time.monotonic(), line) for line in proc.stdout))  # type: ignore[union-attr]
    reader.start()
    try:
        time.sleep(4)  # past at least one end of stream and reconnection
        assert bob.head("duel") == 1, "the follower pulled the combat it did not have"
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("note", "duel", "first blood")
        pushed = time.monotonic()
        alice("push", "duel")
        proc.wait(timeout=40)
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=10)
    err = proc.stderr.read()  # type: ignore[union-attr]
    assert proc.returncode == 0, err
    assert 11 < time.monotonic() - started < 30, "bounded by --timeout"
    printed = [line.rstrip("\n") for _, line in lines]
    assert len(printed) == 2, (printed, err)
    assert printed[0].startswith("#2") and "Aldo joins side red, 12 hp" in printed[0] and "[signed: alice]" in printed[0]
    assert printed[1].startswith("#3") and "first blood" in printed[1]
    assert all(at - pushed < 5 for at, _ in lines), "printed within a few seconds of the push"
    # the follower's own log has them, verified, the same as the pusher's
    assert bob.verify("duel")["head_hash"] == alice.verify("duel")["head_hash"]
    assert [row.split()[0] for row in bob("log", "duel").out.splitlines()] == ["#1", "#2", "#3"]


def test_follow_refuses_what_it_may_not_read(tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    from tests.trust.pbem import Seat

    alice, _ = table(tmp_path, server.url, ("alice", "bob"))
    stranger = Seat("eve", tmp_path)
    stranger("remote", "add", "origin", server.url)
    result = stranger("follow", "duel", "--timeout", "3", ok=False)
    assert result.code != 0 and "duel" in result.err and "Traceback" not in result.err
