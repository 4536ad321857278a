"""``combatlog follow``: a player follows a combat while another pushes; each new event is printed as
``log`` prints it, after a pull that verified and imported it; the follower reconnects when the server
ends a stream, and stops at its --timeout."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.conftest import CLI, REPO
from tests.server.players import table


def test_follow_prints_new_events_as_they_arrive_verified(tmp_path: Path, start_server) -> None:  # type: ignore[no-untyped-def]
    """Each step waits on what it needs (the follower has the combat; two lines printed), never on a
    guessed time, so a loaded machine makes it slower, not failing. The events are printed while the
    follower runs (it is interrupted only after), and a second follower stops at its --timeout."""
    live = start_server("--open", "--stream-seconds", "2")  # streams end often: the follower reconnects
    alice, bob = table(tmp_path, live.url, ("alice", "bob"))
    proc = subprocess.Popen([*CLI, "follow", "duel", "--as", "bob"], cwd=REPO,
                            env=bob.cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout))  # type: ignore[arg-type]
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while bob("list", "--json").json() == []:  # the follower pulls the combat it did not have
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()  # type: ignore[union-attr]
            time.sleep(0.1)
        assert bob.head("duel") == 1
        time.sleep(2.5)  # a lower bound only: past at least one end of stream (2 s), so it has reconnected
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("note", "duel", "first blood")
        alice("push", "duel")
        while len(lines) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()  # type: ignore[union-attr]
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)  # Ctrl-C: the follower stops as documented
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=60)
    err = proc.stderr.read()  # type: ignore[union-attr]
    assert proc.returncode in (0, 130) and "Traceback" not in err, err  # interrupted: a clean stop
    printed = [line.rstrip("\n") for line in lines]
    assert len(printed) == 2, (printed, err)
    assert printed[0].startswith("#2") and "Aldo joins side red, 12 hp" in printed[0] and "[signed: alice]" in printed[0]
    assert printed[1].startswith("#3") and "first blood" in printed[1]
    # --timeout bounds a follower: with nothing new it stops after its seconds, and succeeds
    started = time.monotonic()
    bob("follow", "duel", "--timeout", "2")
    assert time.monotonic() - started >= 2
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
