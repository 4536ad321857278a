"""PostgreSQL restarts under a running ``combatlog serve`` and a running CLI: the server answers 503
``unavailable`` while the database is down and reconnects by itself once it is back; a CLI command
whose connection is lost fails as ``error[unavailable]`` (exit 11). Each test has a server of its own
(``own_pg_server``), stopped and started as an administrator would (``pg_ctl stop -m fast``)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from combatlog.store.pgtemp import TempPostgres
from tests.conftest import CLI, REPO, Cli
from tests.server.live import LiveServer, OpenStream, Reply, signed
from tests.server.players import combat_id, table

pytestmark = pytest.mark.postgres

BACK_WITHIN_S = 30  # generous on a shared machine; the server is back in well under a second here


def until_answered(request: Callable[[], Reply], seconds: float = BACK_WITHIN_S) -> tuple[Reply, list[Reply]]:
    """Send ``request`` until it is answered 200 (or the time is up); the answer and those before it."""
    deadline = time.monotonic() + seconds
    refused: list[Reply] = []
    while True:
        reply = request()
        if reply.status == 200 or time.monotonic() > deadline:
            return reply, refused
        refused.append(reply)
        time.sleep(0.05)


def assert_unavailable(reply: Reply) -> None:
    assert reply.status == 503, (reply.status, reply.body)
    assert reply.json()["error"] == "unavailable" and reply.headers["retry-after"].isdigit()


def test_serve_answers_unavailable_while_postgresql_is_down_and_recovers_by_itself(
        own_pg_server: TempPostgres, tmp_path: Path) -> None:
    url = own_pg_server.url(schema=own_pg_server.new_schema("restart"))
    live = LiveServer(tmp_path, "--open", "--poll-seconds", "0.2", db=url)
    try:
        alice, _bob = table(tmp_path, live.url, ("alice", "bob"))
        cid = combat_id(alice)
        info, events = f"/v1/combats/{cid}", f"/v1/combats/{cid}/events"

        def read() -> Reply:
            return live.request("GET", info, None, signed(alice.home, "alice", "GET", info))

        def append(body: bytes) -> Reply:
            return live.request("POST", events, body, signed(alice.home, "alice", "POST", events, body))

        assert read().json()["head_seq"] == 1
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("export", "duel", "--since", "1", "-o", str(tmp_path / "join.jsonl"))
        join = (tmp_path / "join.jsonl").read_bytes()
        stream = OpenStream(live.port, f"{events.rsplit('/', 1)[0]}/stream?since=1&timeout=60",
                            signed(alice.home, "alice", "GET", f"/v1/combats/{cid}/stream?since=1&timeout=60"))
        stream.read_message(":")

        own_pg_server.stop_server()
        assert_unavailable(read())  # the store finds its connection gone
        assert_unavailable(append(join))  # and cannot reconnect yet: refused, nothing written
        assert_unavailable(read())
        # an open event stream ends as at its deadline, so that its client comes back with since=
        assert "event: end" in stream.read_message("event: end")
        stream.close()

        own_pg_server.start_server()
        back, refused = until_answered(read)
        assert back.status == 200 and back.json()["head_seq"] == 1  # the refused append left nothing
        for reply in refused:
            assert_unavailable(reply)
        appended = append(join)
        assert appended.status == 200 and appended.json()["appended"] == 1

        # A restart between two requests: the first finds the connection gone (503), a later one is served.
        own_pg_server.stop_server()
        own_pg_server.start_server()
        back, refused = until_answered(read)
        assert back.status == 200 and back.json()["head_seq"] == 2
        for reply in refused:
            assert_unavailable(reply)
        assert alice.verify("duel")["head_hash"] == back.json()["head_hash"]
    finally:
        live.stop()
    log = live.log_path.read_text()
    assert "internal error" not in log and "Traceback" not in log, log
    assert "reconnected to PostgreSQL" in log


def test_a_command_file_whose_connection_is_lost_fails_as_unavailable(
        own_pg_server: TempPostgres, tmp_path: Path) -> None:
    url = own_pg_server.url(schema=own_pg_server.new_schema("run"))
    cli = Cli(url, REPO)  # type: ignore[arg-type]  # COMBATLOG_DB takes a URL as well as a path
    cli("new", "duel", "--ruleset", "freeform", "--dice", "manual")
    notes = tmp_path / "notes.cmds"
    notes.write_text("".join(f"note duel 'note {n}'\n" for n in range(NOTES)))
    run = subprocess.Popen([*CLI, "run", "--quiet", str(notes)], cwd=tmp_path, env=cli.env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        wait_for_events(url, 5)  # the run is under way, on its one connection
        own_pg_server.stop_server()
        _out, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 11, err
    assert "error[unavailable]" in err and "lost the connection to PostgreSQL" in err, err
    assert "Pipeline" not in err and "Traceback" not in err, err

    own_pg_server.start_server()
    cli("run", "--quiet", str(notes))  # run again: the lines already recorded are recognised, the rest run
    assert cli("verify", "duel", "--json").json()["head_seq"] == 1 + NOTES  # type: ignore[index]


NOTES = 400  # far more than the run makes before the database stops (it stops after 5)


def wait_for_events(url: str, count: int, seconds: float = 60) -> None:
    import psycopg

    deadline = time.monotonic() + seconds
    with psycopg.connect(url, autocommit=True) as conn:
        while conn.execute("SELECT count(*) FROM events").fetchone()[0] < count:  # type: ignore[index]
            assert time.monotonic() < deadline, f"fewer than {count} events after {seconds} s"
            time.sleep(0.01)


def test_the_pipeline_a_lost_connection_broke_is_not_reported_twice(
        own_pg_server: TempPostgres, caplog: pytest.LogCaptureFixture) -> None:
    from combatlog.errors import Unavailable
    from combatlog.store.postgres import PostgresStore

    store = PostgresStore(own_pg_server.url(schema=own_pg_server.new_schema("pipe")))
    try:
        own_pg_server.stop_server()
        # executemany runs in a psycopg pipeline (as the store's batched inserts do): the connection breaks in it
        with pytest.raises(Unavailable, match="lost the connection"), store._translate(), store.conn.cursor() as cur:
            cur.executemany("INSERT INTO secrets (name, value) VALUES (%s, %s)", [("a", b"1"), ("b", b"2")])
        # psycopg's "error ignored terminating <psycopg.Pipeline [BAD]>", which reached the CLI's stderr
        assert not [r for r in caplog.records if "Pipeline" in r.getMessage()], caplog.text
        own_pg_server.start_server()
        store.put_secret("c", b"3")  # and the store's next use reconnects
        assert store.get_secret("c") == b"3"
    finally:
        store.close()
