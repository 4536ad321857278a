"""``combatlog follow``: a player follows a combat while another pushes; each new event is printed as
``explain`` prints it (the steps it derived, with their rules: issue #20, item 5), after a pull that verified and imported it; the follower reconnects when the server
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
    """Each step waits on what it needs (the follower has the combat; the last event and its steps printed), never on a
    guessed time, so a loaded machine makes it slower, not failing. The events are printed while the
    follower runs (it is interrupted only after), and a second follower stops at its --timeout."""
    live = start_server("--open", "--stream-seconds", "2")  # streams end often: the follower reconnects
    alice, bob = table(tmp_path, live.url, ("alice", "bob"))
    proc = subprocess.Popen([*CLI, "follow", "duel", "--as", "bob"], cwd=REPO,
                            env=bob.cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    errors: list[str] = []  # read as it comes: a follower never blocks on a full stderr pipe
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout))  # type: ignore[arg-type]
    err_reader = threading.Thread(target=lambda: errors.extend(proc.stderr))  # type: ignore[arg-type]
    reader.start()
    err_reader.start()
    try:
        deadline = time.monotonic() + 120
        while bob("list", "--json").json() == []:  # the follower pulls the combat it did not have
            assert proc.poll() is None and time.monotonic() < deadline, "".join(errors)
            time.sleep(0.1)
        assert bob.head("duel") == 1
        time.sleep(2.5)  # a lower bound only: past at least one end of stream (2 s), so it has reconnected
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("note", "duel", "first blood")
        alice("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
        alice("freeform", "round", "duel")
        alice("freeform", "damage", "duel", "Bo", "12", "--reason", "sword")
        alice("push", "duel")
        while sum(line.startswith("         -> Bo is down") for line in lines) < 1:
            assert proc.poll() is None and time.monotonic() < deadline, "".join(errors)
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)  # Ctrl-C: the follower stops as documented
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the follower did not stop on Ctrl-C:\n" + "".join(errors)) from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=60)
    err_reader.join(timeout=60)
    err = "".join(errors)
    assert proc.returncode in (0, 130) and "Traceback" not in err, err  # interrupted: a clean stop
    printed = [line.rstrip("\n") for line in lines]
    events = [line for line in printed if line.startswith("#")]
    assert [line.split()[0] for line in events] == ["#2", "#3", "#4", "#5", "#6"], (printed, err)
    assert "Aldo joins side red, 12 hp" in events[0] and "first blood" in events[1]
    # the resolved step as explain tells it, not only its headline: Bo's 10 hp less 12 (by hand) is -2, down
    at = printed.index(events[4])
    assert "Bo hp -12 (sword)" in events[4]
    assert printed[at + 1:at + 3] == ["         -> Bo loses 12 hp (10 -> -2): sword  (Freeform: table decision)",
                                      "         -> Bo is down  (Freeform: table decision)"]
    # --timeout bounds a follower: with nothing new it stops after its seconds, and succeeds
    started = time.monotonic()
    bob("follow", "duel", "--timeout", "2")
    assert time.monotonic() - started >= 2
    # the follower's own log has them, verified, the same as the pusher's
    assert bob.verify("duel")["head_hash"] == alice.verify("duel")["head_hash"]
    assert [row.split()[0] for row in bob("log", "duel", "--all").out.splitlines()] == [f"#{n}" for n in range(1, 7)]


def test_follow_refuses_what_it_may_not_read(tmp_path: Path, server) -> None:  # type: ignore[no-untyped-def]
    from tests.trust.pbem import Seat

    alice, _ = table(tmp_path, server.url, ("alice", "bob"))
    stranger = Seat("eve", tmp_path)
    stranger("remote", "add", "origin", server.url)
    result = stranger("follow", "duel", "--timeout", "3", ok=False)
    assert result.code != 0 and "duel" in result.err and "Traceback" not in result.err


def test_a_ctrl_c_dropped_by_a_finaliser_still_stops_the_follower() -> None:
    """Python raises KeyboardInterrupt wherever the main thread is; raised inside a finaliser (a response
    closed by the garbage collector) it is printed and dropped. The follower's handler remembers it, and
    the follower checks at every line of the stream and before every reconnection."""
    import pytest

    from combatlog.remote.follow import Stop

    stop = Stop()
    stop.check()  # not asked: nothing happens
    try:
        stop(signal.SIGINT, None)
    except KeyboardInterrupt:
        pass  # dropped, as a finaliser drops it
    with pytest.raises(KeyboardInterrupt):
        stop.check()
