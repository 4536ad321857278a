"""tests/server/test_nonce_with_events.py on PostgreSQL: a signed append's nonce recorded in the transaction
that appends its events (the registry's tables in the store's own schema), replays refused whatever the
first request came to; and the same request sent to two server processes at once is appended once, the
other answer being refused."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from combatlog.store.pgtemp import TempPostgres
from tests.server.live import LiveServer, signed
from tests.server.players import combat_id, table
from tests.server.test_nonce_with_events import _bundle, _head, replays_refused

pytestmark = pytest.mark.postgres


def test_replays_are_refused_with_the_nonce_in_the_events_commit(pg_server: TempPostgres, tmp_path: Path) -> None:
    url = pg_server.url(schema=pg_server.new_schema("nonce"))
    server = LiveServer(tmp_path, "--open", db=url)
    try:
        replays_refused(server, tmp_path)
    finally:
        server.stop()


def test_one_request_sent_to_two_processes_at_once_appends_once(pg_server: TempPostgres, tmp_path: Path) -> None:
    url = pg_server.url(schema=pg_server.new_schema("nonce2"))
    a = LiveServer(tmp_path, "--open", "--poll-seconds", "60", db=url)
    try:
        b = LiveServer(tmp_path, "--open", "--poll-seconds", "60", db=url)
        try:
            alice, _bob = table(tmp_path, a.url, ("alice", "bob"))
            cid = combat_id(alice)
            target = f"/v1/combats/{cid}/events"
            for round_ in range(4):  # the race is the machine's: a few rounds, each must hold
                alice("note", "duel", f"n{round_}")
                since = _head(a, alice, cid)
                body = _bundle(alice, tmp_path, since)
                headers = signed(alice.home, "alice", "POST", target, body)
                answers: dict[str, object] = {}
                go = threading.Barrier(2)

                def send(name: str, server: LiveServer) -> None:
                    go.wait()
                    answers[name] = server.request("POST", target, body, headers)

                threads = [threading.Thread(target=send, args=(n, s)) for n, s in (("a", a), ("b", b))]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                got = sorted((r.status, r.json().get("error", r.json().get("appended"))) for r in answers.values())  # type: ignore[attr-defined]
                assert got[0] == (200, 1) and got[1][0] in (401, 409), got
                assert got[1] != (200, 0)  # never answered as a success twice
                assert _head(b, alice, cid) == since + 1
        finally:
            b.stop()
    finally:
        a.stop()
