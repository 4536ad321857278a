"""Load on `combatlog serve` over loopback (issue 13, item 6): many players appending signed events.

    .venv/bin/python bench/bench_server.py              # 8 clients x 200 appends, every scenario
    .venv/bin/python bench/bench_server.py --quick      # 4 clients x 20, one shared combat, SQLite
    .venv/bin/python bench/bench_server.py --clients 4 --appends 50 --backend sqlite --scenario shared

Each client is a process of its own, with its own replica log (in memory) and the project's own
client code (``combatlog.remote.client``): it adds a note signed with its own key (one freeform
event), then appends it (``export --since HEAD`` of its log), a real signed request that the server
verifies in full (request signature, then the bundle: chain, event signatures, rules). When another
client got there first the server answers 409 and the client pulls the events after the head both
hold (``import_pulled``, verified), which merges with the server's branch kept and re-applies its note
after it (re-decided and re-signed on the new head), and appends again, until it is acknowledged
(200). This is ``push``'s loop without its first GET of the head (the client knows it: everything
but its one new note was acknowledged), so one request per attempt. Every acknowledgement
is written to the client's file as it comes.

Scenarios: ``own``, each client on a combat of its own (no conflicts); ``shared``, all on one combat
(a conflict for nearly every append); each on SQLite and on PostgreSQL (a throwaway durable server,
``combatlog.store.pgtemp``), and ``shared`` on PostgreSQL again with two server processes (the
clients alternate between them). Afterwards the server's log is read from its database and compared
with what the clients saw acknowledged: every acknowledged note is there exactly once (0 lost, 0
duplicated), nothing else was added, and each combat's chain verifies (``verify_stream``).

Printed: throughput (acknowledged appends per second, from the start signal to the last client's
end), latency per append (from adding the note to its acknowledgement, retries included: p50, p99),
the 409s and merges. Not a test (figures depend on the machine: 2 shared cores here); ``--json``
writes the figures and the checks, which ``tests/server/test_load.py`` reads in ``--quick`` mode.

The clients' side is ``python bench/bench_server.py client ...``, also used by tests/server/test_kill.py.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
SERVER_SRC = [SRC]  # --src: the sources the server runs (another checkout's, for a before figure)
RATE = "1000000"  # the server's rate limits: out of the way (loopback load from one address)
GO_WAIT_S = 120.0
CLIENT_DEADLINE_S = 600.0  # a client gives up after this long (a bound, not an expectation)


# -- one client (a process) ------------------------------------------------------------------------------

def client_main(argv: list[str]) -> int:
    """``client --url URL --name NAME --combat ID --count N --out FILE [--go FILE] [--prefix P]``

    COMBATLOG_HOME holds NAME's secret key. Pulls the combat, then COUNT times: note, push until
    acknowledged. Writes ``ack TEXT SECONDS`` per acknowledgement (flushed at once), and a last line
    ``done CONFLICTS MERGES ERRORS``. Survives the server going away (it retries until it is back,
    within the deadline): tests/server/test_kill.py kills it mid-load.
    """
    ap = argparse.ArgumentParser(prog="bench_server.py client")
    ap.add_argument("--url", action="append", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--combat", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--go", type=Path)
    ap.add_argument("--prefix", default="")
    ap.add_argument("--deadline", type=float, default=CLIENT_DEADLINE_S)
    args = ap.parse_args(argv)

    import http.client

    from combatlog.commands.core import AddNote
    from combatlog.wiring import execute
    from combatlog.errors import Unavailable
    from combatlog.remote import client as rc
    from combatlog.remote.config import Remote
    from combatlog.store import open_store
    from combatlog.trust.players import make_signer

    counts = {"409": 0, "other": 0}

    class CountingClient(rc.Client):
        def append(self, combat_id: str, bundle: bytes) -> rc.Response:
            resp = super().append(combat_id, bundle)
            if resp.status == 409:
                counts["409"] += 1
            elif resp.status != 200:
                counts["other"] += 1
            return resp

    end = time.monotonic() + args.deadline
    store = open_store("memory:")
    client = CountingClient(Remote(name="origin", url=args.url[0]), args.name, timeout=30)
    signer = make_signer(args.name)
    out = args.out.open("a", buffering=1)

    def until_done(step):  # type: ignore[no-untyped-def]
        """Run ``step`` until it returns without the server being unreachable (it may be restarting)."""
        while True:
            try:
                return step()
            except (Unavailable, http.client.HTTPException):  # refused, reset, or cut off mid-answer
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)
            except rc.RemoteError as exc:
                # a push that met more conflicts in a row than its attempts: go on (it pulls again);
                # 5xx: the server died under the request; anything else is a real failure
                if exc.status not in (409, 500, 502, 503) or time.monotonic() > end:
                    raise
                time.sleep(0.05)

    until_done(lambda: rc.pull(store, client, args.combat))
    warm = open_store("memory:")  # warm up (lazy imports, the rules, signing) on a log of its own
    from combatlog.wiring import create_combat

    scratch = create_combat(warm, "warm", "freeform", actor=args.name).stream
    execute(warm, scratch.id, AddNote(text="warm"), actor=args.name, signer=signer)
    rc._bundle(warm, scratch, 0)
    importlib.import_module("combatlog.exchange.merge")  # what a conflict runs
    if args.go is not None:
        out.write("ready\n")
        wait_end = time.monotonic() + GO_WAIT_S
        while not args.go.exists():
            if time.monotonic() > wait_end:
                raise SystemExit("no go signal")
            time.sleep(0.01)
    meta = store.get_stream(args.combat)
    for i in range(args.count):
        text = f"{args.prefix}{args.name} {i}"
        started = time.perf_counter()
        execute(store, args.combat, AddNote(text=text), actor=args.name, signer=signer)
        while True:  # our one note not yet acknowledged is the last event here: the server has the rest
            agreed = store.head(args.combat).seq - 1
            bundle = rc._bundle(store, meta, agreed)
            resp = until_done(lambda: client.append(args.combat, bundle))
            if resp.status == 200:  # also a retry of an append made whose answer was lost (appended 0)
                break
            if resp.status in (409, 500, 502, 503):  # 409: another's event first; pull it, merge, ours after
                until_done(lambda: rc.import_pulled(store, client, client.events(args.combat, agreed),
                                                    args.combat, agreed))
                continue
            raise client._refused(resp, f"appending {text!r}")
        out.write(f"ack {json.dumps(text)} {time.perf_counter() - started:.6f} {time.time():.6f}\n")
    out.write(f"done {counts['409']} {len(client.merges)} {counts['other']}\n")
    out.close()
    return 0


# -- setting up: keys, combats, servers --------------------------------------------------------------------

def env_for(home: Path) -> dict[str, str]:
    env = {**os.environ, "COMBATLOG_HOME": str(home), "PYTHONPATH": str(SRC)}
    env.pop("COMBATLOG_DB", None)
    return env


def make_keys(home: Path, names: list[str]) -> None:
    old = os.environ.get("COMBATLOG_HOME")
    os.environ["COMBATLOG_HOME"] = str(home)
    try:
        from combatlog.trust.keys import new_key

        for name in names:
            new_key(name)
    finally:
        if old is None:
            os.environ.pop("COMBATLOG_HOME", None)
        else:
            os.environ["COMBATLOG_HOME"] = old


def host_combat(home: Path, url: str, name: str, players: list[str]) -> str:
    """The first player creates a combat pinning ``players`` and puts it on the server: its id."""
    old = os.environ.get("COMBATLOG_HOME")
    os.environ["COMBATLOG_HOME"] = str(home)
    try:
        from combatlog.wiring import create_combat
        from combatlog.remote import client as rc
        from combatlog.remote.config import Remote
        from combatlog.store import open_store
        from combatlog.trust.players import pin_players

        pinned, signer = pin_players(players, players[0])
        store = open_store("memory:")
        meta = create_combat(store, name, "freeform", actor=players[0], players=pinned, signer=signer).stream
        rc.create(store, rc.Client(Remote(name="origin", url=url), players[0]), meta.id)
        return meta.id
    finally:
        if old is None:
            os.environ.pop("COMBATLOG_HOME", None)
        else:
            os.environ["COMBATLOG_HOME"] = old


def thread_cpu(pid: int) -> dict[int, float]:
    """Each thread's CPU time (user + system) so far, by thread id (the main thread's id is ``pid``)."""
    out = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        out[int(task.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def cpu_split(pid: int) -> tuple[float, float]:
    """The CPU time a process has used so far in user mode and in the kernel (system), from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick  # utime, stime: fields 14, 15


class Server:
    """``combatlog serve`` in a subprocess on 127.0.0.1."""

    def __init__(self, db: str, root: Path, port: int | None = None, *extra: str) -> None:
        self.db, self.root, self.port = db, root, port or 0  # 0: the OS picks (read back on start)
        self.url = f"http://127.0.0.1:{self.port}" if self.port else ""
        self.log_path: Path | None = None
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        import http.client

        if self.log_path is None:  # one log per server, kept across restarts
            self.log_path = Path(tempfile.mkstemp(prefix="server-", suffix=".log", dir=self.root)[1])
        log_path = self.log_path
        log = open(log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "combatlog", "serve", "--db", self.db, "--port", str(self.port), "--open",
             "--rate", RATE, "--burst", RATE, *self.extra],
            cwd=self.root, env={**env_for(self.root / "server-home"), "PYTHONPATH": str(SERVER_SRC[0])}, stdout=log,
            stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 60
        while True:
            if not self.port:  # the port the server was given by the OS, from the line it prints on start
                found = re.search(rb"on http://127\.0\.0\.1:(\d+)/v1/", log_path.read_bytes())
                self.port = int(found.group(1)) if found else 0
                self.url = f"http://127.0.0.1:{self.port}"
            try:
                if not self.port:
                    raise OSError("not listening yet")
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                conn.request("GET", "/v1/health")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the server did not start: " + log_path.read_text(errors="replace")[-2000:])
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_client(root: Path, home: Path, urls: list[str], name: str, combat: str, count: int, out: Path,
                 go: Path | None, prefix: str = "") -> subprocess.Popen[bytes]:
    argv = [sys.executable, str(Path(__file__).resolve()), "client", "--name", name, "--combat", combat,
            "--count", str(count), "--out", str(out), "--prefix", prefix]
    for url in urls:
        argv += ["--url", url]
    if go is not None:
        argv += ["--go", str(go)]
    err = open(root / f"client-{name}.err", "ab")
    proc = subprocess.Popen(argv, cwd=root, env=env_for(home), stdout=err, stderr=subprocess.STDOUT)
    err.close()
    return proc


def read_acks(path: Path) -> tuple[list[tuple[str, float, float]], dict[str, int] | None]:
    """A client's file: its acknowledgements (text, latency, wall time) and its end counts."""
    acks, done = [], None
    if path.exists():
        for line in path.read_text().splitlines():
            if line.startswith("ack ") and line.count(" ") >= 3:
                head, latency, at = line.rsplit(" ", 2)
                acks.append((json.loads(head[4:]), float(latency), float(at)))
            elif line.startswith("done "):
                c, m, e = (int(x) for x in line.split()[1:4])
                done = {"conflicts": c, "merges": m, "errors": e}
    return acks, done


def check_log(db: str, combats: list[str]) -> dict[str, object]:
    """Every note of the combats as the server's database holds them, and whether each chain verifies."""
    from combatlog.events.core import Noted
    from combatlog.events.envelope import decode_recorded
    from combatlog.wiring import verify_stream
    from combatlog.store import open_store

    store = open_store(db)
    try:
        notes: list[str] = []
        verified = True
        for cid in combats:
            for row in store.read_stream(cid):
                event = decode_recorded(row.body).event
                if isinstance(event, Noted):
                    notes.append(event.text)
            meta = store.get_stream(cid)
            try:
                verify_stream(store, meta)
            except Exception as exc:  # the report, not a crash: a failed check is a figure here
                print(f"  verify {cid}: {exc}", file=sys.stderr)
                verified = False
        return {"notes": notes, "verified": verified}
    finally:
        store.close()


# -- one scenario ------------------------------------------------------------------------------------------

def run_scenario(label: str, db: str, root: Path, clients: int, appends: int, shared: bool,
                 servers: int = 1, port: int = 0) -> dict[str, object]:
    root.mkdir(parents=True, exist_ok=True)
    home = root / "keys"
    names = [f"p{i}" for i in range(clients)]
    make_keys(home, names)
    extra = ("--poll-seconds", "5")
    running = [Server(db, root, port + i if port else None, *extra) for i in range(servers)]
    try:
        if shared:
            cid = host_combat(home, running[0].url, "arena", names)
            combats = {n: cid for n in names}
        else:
            combats = {n: host_combat(home, running[0].url, f"own-{n}", [n]) for n in names}
        go = root / "go"
        outs = {n: root / f"acks-{n}.txt" for n in names}
        procs = [start_client(root, home, [running[i % servers].url], n, combats[n], appends, outs[n], go)
                 for i, n in enumerate(names)]
        ready_by = time.monotonic() + GO_WAIT_S
        while not all(outs[n].exists() and "ready" in outs[n].read_text() for n in names):
            if time.monotonic() > ready_by or any(p.poll() not in (None, 0) for p in procs):
                raise RuntimeError(f"{label}: clients did not get ready")
            time.sleep(0.05)
        split0 = [cpu_split(s.proc.pid) for s in running if s.proc is not None]
        threads0 = [thread_cpu(s.proc.pid) for s in running if s.proc is not None]
        t0 = time.time()
        go.touch()
        for p in procs:
            p.wait(timeout=CLIENT_DEADLINE_S + 60)
        failed = [n for n, p in zip(names, procs) if p.returncode != 0]
        # the servers' own CPU time: what the load cost them, whatever the clients took on the same cores
        split1 = [cpu_split(s.proc.pid) for s in running if s.proc is not None]
        threads1 = [thread_cpu(s.proc.pid) for s in running if s.proc is not None]
        # the main thread (the event loop: HTTP, routing, responses) against every other (the store's)
        loop_cpu = sum(t1.get(s.proc.pid, 0.0) - t0.get(s.proc.pid, 0.0)
                       for s, t0, t1 in zip(running, threads0, threads1) if s.proc is not None)
        server_user = sum(u for u, _ in split1) - sum(u for u, _ in split0)
        server_sys = sum(k for _, k in split1) - sum(k for _, k in split0)
        server_cpu = server_user + server_sys
    finally:
        for s in running:
            s.stop()
    acked: list[str] = []
    latencies: list[float] = []
    ends: list[float] = []
    conflicts = merges = errors = 0
    for n in names:
        acks, done = read_acks(outs[n])
        acked += [a[0] for a in acks]
        latencies += [a[1] for a in acks]
        ends += [a[2] for a in acks]
        if done:
            conflicts, merges, errors = conflicts + done["conflicts"], merges + done["merges"], errors + done["errors"]
    log = check_log(db, sorted(set(combats.values())))
    notes: list[str] = log["notes"]  # type: ignore[assignment]
    in_log = set(notes)
    lost = [t for t in acked if t not in in_log]
    duplicated = len(notes) - len(in_log)
    unexpected = sorted(in_log - set(acked))
    elapsed = max(ends) - t0 if ends else 0.0
    latencies.sort()
    return {
        "scenario": label, "clients": clients, "appends": appends, "acknowledged": len(acked),
        "in_log": len(notes), "lost": len(lost), "duplicated": duplicated, "unacknowledged_in_log": len(unexpected),
        "verified": log["verified"], "failed_clients": failed, "conflicts_409": conflicts, "merges": merges,
        "other_errors": errors, "seconds": round(elapsed, 3),
        "server_cpu_s": round(server_cpu, 3),
        "server_cpu_ms_per_append": round(1000 * server_cpu / len(acked), 2) if acked else 0.0,
        "server_user_ms_per_append": round(1000 * server_user / len(acked), 2) if acked else 0.0,
        "server_sys_ms_per_append": round(1000 * server_sys / len(acked), 2) if acked else 0.0,
        "server_loop_ms_per_append": round(1000 * loop_cpu / len(acked), 2) if acked else 0.0,
        "appends_per_s": round(len(acked) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(1000 * statistics.median(latencies), 1) if latencies else 0.0,
        "p99_ms": round(1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))], 1) if latencies else 0.0,
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["client"]:
        return client_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 clients x 20 appends, one shared combat, SQLite")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--appends", type=int, default=200)
    ap.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--scenario", choices=("own", "shared", "both"), default="both")
    ap.add_argument("--no-two-servers", action="store_true", help="skip shared on two PostgreSQL server processes")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--src", type=Path, help="serve the combatlog sources in this folder (a before figure)")
    ap.add_argument("--port", type=int, default=0,
                    help="serve on this port (and the next, for a second server) instead of one the OS picks: "
                         "builds before 76adde6 print port 0 when given --port 0")
    args = ap.parse_args(argv)
    if args.src:  # the server runs these sources; the clients and the checks keep ours
        SERVER_SRC[0] = args.src.resolve()
    if args.quick:
        args.clients, args.appends, args.backend, args.scenario, args.no_two_servers = 4, 20, "sqlite", "shared", True
    sys.path.insert(0, str(SRC))
    scenarios = [s for s in ("own", "shared") if args.scenario in (s, "both")]
    backends = [b for b in ("sqlite", "postgresql") if args.backend in (b, "both")]
    results = []
    with tempfile.TemporaryDirectory(prefix="combatlog-bench-server-") as tmp:
        pg = None
        try:
            if "postgresql" in backends:
                from combatlog.store.pgtemp import TempPostgres

                pg = TempPostgres(durable=True).start()
            plan = []
            for backend in backends:
                for scenario in scenarios:
                    plan.append((backend, scenario, 1))
                    if backend == "postgresql" and scenario == "shared" and not args.no_two_servers:
                        plan.append((backend, scenario, 2))
            for n, (backend, scenario, servers) in enumerate(plan):
                root = Path(tmp) / f"run{n}"
                db = str(root / "server.db") if backend == "sqlite" else pg.url(schema=pg.new_schema("load"))  # type: ignore[union-attr]
                label = f"{backend} {scenario}" + (f" x{servers} servers" if servers > 1 else "")
                result = run_scenario(label, db, root, args.clients, args.appends, scenario == "shared", servers,
                                      args.port)
                results.append(result)
                print(_line(result), flush=True)
        finally:
            if pg is not None:
                pg.stop()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def _line(r: dict[str, object]) -> str:
    return (f"{r['scenario']:<32} {r['clients']}x{r['appends']}: {r['appends_per_s']:>7} appends/s  "
            f"server CPU {r['server_cpu_ms_per_append']:>6} ms/append (user {r['server_user_ms_per_append']}, "
            f"system {r['server_sys_ms_per_append']}; event loop {r['server_loop_ms_per_append']})  "
            f"p50 {r['p50_ms']:>7} ms  p99 {r['p99_ms']:>7} ms  409s {r['conflicts_409']:>5}  "
            f"merges {r['merges']:>5}  lost {r['lost']}  duplicated {r['duplicated']}  "
            f"extra {r['unacknowledged_in_log']}  verified {r['verified']}  other errors {r['other_errors']}"
            + (f"  FAILED CLIENTS {r['failed_clients']}" if r["failed_clients"] else ""))


if __name__ == "__main__":
    sys.path.insert(0, str(SRC))
    print(f"combatlog serve under load, loopback; {os.cpu_count()} cores (shared machine)", flush=True) \
        if sys.argv[1:2] != ["client"] else None
    raise SystemExit(main(sys.argv[1:]))
