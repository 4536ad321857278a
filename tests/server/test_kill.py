"""SIGKILL of the server mid-load: nothing acknowledged is lost, nothing is doubled, the chain verifies,
and the clients carry on against the restarted server (SQLite, and PostgreSQL).

Four client processes (bench/bench_server.py's clients: the project's client code, signed appends,
409 -> pull, merge, append again) append notes to one shared combat; once some are acknowledged the
server process is killed with SIGKILL (no shutdown of any kind), then started again on the same
database and port. The clients retry through the outage; afterwards every note a client was told
was appended (200) is in the server's log exactly once, nothing else is, the chain verifies, and a
fresh replica pulls the combat, verifies it, and syncs a note of its own.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO
from tests.postgres.server import pg_server  # noqa: F401  (the fixture, by name)

CLIENTS, APPENDS = 4, 25


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_server", REPO / "bench" / "bench_server.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _acks(bench: ModuleType, outs: list[Path]) -> list[tuple[str, float, float]]:
    return [a for out in outs for a in bench.read_acks(out)[0]]


def _kill_mid_load(db: str, root: Path) -> None:
    bench = _bench()
    home = root / "keys"
    names = [f"p{i}" for i in range(CLIENTS)]
    bench.make_keys(home, names)
    server = bench.Server(db, root)
    try:
        cid = bench.host_combat(home, server.url, "arena", names)
        outs = [root / f"acks-{n}.txt" for n in names]
        procs = [bench.start_client(root, home, [server.url], n, cid, APPENDS, out, None)
                 for n, out in zip(names, outs)]
        try:
            deadline = time.monotonic() + 120
            while len(_acks(bench, outs)) < 15:
                assert time.monotonic() < deadline and all(p.poll() is None for p in procs), "no load to kill"
                time.sleep(0.01)
            server.kill()  # SIGKILL, mid-load: requests in flight, appends half done
            killed_at, before = time.time(), len(_acks(bench, outs))
            assert before < CLIENTS * APPENDS
            time.sleep(1.0)
            server.start()  # the same database, the same port
            codes = [p.wait(timeout=300) for p in procs]
            failed = {n: (root / f"client-{n}.err").read_text()[-3000:] for n, code in zip(names, codes) if code}
            assert not failed, failed  # each failed client with the end of its output (its traceback)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        acks = _acks(bench, outs)
        acked = [a[0] for a in acks]
        assert len(acked) == CLIENTS * APPENDS == len(set(acked))
        assert any(at > killed_at for _, _, at in acks)  # the clients went on after the restart
        log = bench.check_log(db, [cid])
        notes = log["notes"]
        assert sorted(notes) == sorted(acked)  # every acknowledged note, once each, and nothing else
        assert log["verified"] is True

        # a fresh replica: pull the whole combat (verified as import does), verify it, and sync a note
        env = {**os.environ, "COMBATLOG_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
        env.pop("COMBATLOG_DB", None)

        def cli(*args: str) -> str:
            run = subprocess.run([sys.executable, "-m", "combatlog", "--db", str(root / "replica.db"), *args,
                                  "--as", "p0"], capture_output=True, text=True, env=env, timeout=120, cwd=root)
            assert run.returncode == 0, run.stdout + run.stderr
            return run.stdout

        cli("remote", "add", "origin", server.url)
        cli("pull", cid)
        report = json.loads(cli("verify", "arena", "--json"))
        assert report["head_seq"] == 1 + CLIENTS * APPENDS
        cli("note", "arena", "after the crash")
        assert "pushed 1 events" in cli("sync")
    finally:
        server.stop()


@pytest.mark.slow
def test_sigkill_mid_load_on_sqlite(tmp_path: Path) -> None:
    _kill_mid_load(str(tmp_path / "server.db"), tmp_path)


@pytest.mark.slow
@pytest.mark.postgres
def test_sigkill_mid_load_on_postgresql(tmp_path: Path, pg_server) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _kill_mid_load(pg_server.url(schema=pg_server.new_schema("kill")), tmp_path)
