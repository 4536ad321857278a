"""A throwaway PostgreSQL cluster in a temporary directory, for tests and benchmarks.

It runs ``initdb`` and ``pg_ctl`` from this machine's server binaries, listens
only on a Unix socket inside its own directory (no port to collide with, no
network), and is removed by ``stop()``. PostgreSQL refuses to run as root, so
when we are root the server runs as an unprivileged user (``postgres`` if the
system has it, else ``nobody``; ``COMBATLOG_PG_USER`` chooses another) while
the client side stays in this process.

Nothing in the product imports this module: it is here (rather than under
tests/) so that the test suite and ``bench/bench_postgres.py`` share it.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote

SUPERUSER = "combatlog"
PORT = 5432  # only names the socket file; the socket lives in our private directory

# Settings for a cluster whose data is thrown away: no fsync, so tests run at memory speed.
FAST = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


def find_bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: $COMBATLOG_PG_BIN, PATH, or Debian's /usr/lib/postgresql/N/bin."""
    override = os.environ.get("COMBATLOG_PG_BIN")
    if override:  # when set, the only place looked at
        cand = Path(override)
        return cand if (cand / "initdb").is_file() and (cand / "pg_ctl").is_file() else None
    candidates: list[Path] = []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    found = glob.glob("/usr/lib/postgresql/*/bin") + glob.glob("/usr/pgsql-*/bin")
    candidates += [Path(p) for p in sorted(found, key=_version_key, reverse=True)]
    for cand in candidates:
        if (cand / "initdb").is_file() and (cand / "pg_ctl").is_file():
            return cand
    return None


def _version_key(path: str) -> int:
    digits = "".join(c for c in path.split("/")[-2] if c.isdigit())
    return int(digits or 0)


def _run_as() -> pwd.struct_passwd | None:
    """The account the server runs under when we are root (None: run as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in filter(None, [os.environ.get("COMBATLOG_PG_USER"), "postgres", "nobody"]):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def unavailable_reason() -> str | None:
    """Why a temporary server cannot be started here, or None if it can."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'psycopg[binary]')"
    if find_bin_dir() is None:
        return ("PostgreSQL server binaries (initdb, pg_ctl) not found on PATH, in /usr/lib/postgresql/*/bin "
                "or $COMBATLOG_PG_BIN; install the server (apt-get install postgresql) to run these tests")
    if os.geteuid() == 0 and _run_as() is None:
        return "running as root and no unprivileged account (postgres, nobody) to run the server as"
    return None


class TempPostgres:
    """``with TempPostgres() as pg: url = pg.url(schema=pg.new_schema())``."""

    def __init__(self, *, durable: bool = False, settings: dict[str, str] | None = None) -> None:
        self.durable = durable
        self.settings = {**({} if durable else FAST), **(settings or {})}
        self.dir: Path | None = None
        self._bin: Path | None = None
        self._user = _run_as()

    # -- life cycle ---------------------------------------------------------------
    def start(self) -> TempPostgres:
        reason = unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        self._bin = find_bin_dir()
        # The server account must reach the directory, and a socket path must stay short (~100
        # bytes): use /tmp rather than a TMPDIR that may be long or private to us.
        base = tempfile.gettempdir()
        if (self._user is not None or len(base) > 60) and os.path.isdir("/tmp"):
            base = "/tmp"
        self.dir = Path(tempfile.mkdtemp(prefix="combatlog-pg-", dir=base))
        os.chmod(self.dir, 0o755)
        if self._user is not None:
            os.chown(self.dir, self._user.pw_uid, self._user.pw_gid)
        data = self.dir / "data"
        self._server_cmd(["initdb", "-D", str(data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                          "--locale=C", "--no-sync"])
        try:
            self.start_server()
        except RuntimeError:
            self._cleanup()
            raise
        return self

    def start_server(self) -> None:
        """Start the server on this cluster (again, after ``stop_server``): same socket, same data."""
        assert self.dir is not None, "no cluster: start() first"
        options = ["-c listen_addresses=''", f"-k {self.dir}", f"-p {PORT}",
                   *(f"-c {k}={v}" for k, v in self.settings.items())]
        try:
            self._server_cmd(["pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"), "-w",
                              "-t", "60", "-o", " ".join(options), "start"])
        except RuntimeError as exc:
            log = self.dir / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{exc}\n{tail}") from None

    def stop_server(self) -> None:
        """Stop the server as an administrator's restart does (``-m fast``: open sessions are ended,
        their transactions rolled back), keeping the cluster for ``start_server``."""
        assert self.dir is not None, "no cluster: start() first"
        self._server_cmd(["pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop"])

    def stop(self) -> None:
        if self.dir is None:
            return
        data = self.dir / "data"
        if (data / "postmaster.pid").exists():
            try:
                self._server_cmd(["pg_ctl", "-D", str(data), "-m", "fast", "-w", "stop"])
            except RuntimeError:
                pass
        self._cleanup()

    def _cleanup(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self) -> TempPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _server_cmd(self, argv: list[str]) -> None:
        assert self._bin is not None and self.dir is not None
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir), "LC_ALL": "C",
               "TZ": "UTC"}
        kwargs: dict[str, object] = {}
        if self._user is not None:
            kwargs = {"user": self._user.pw_uid, "group": self._user.pw_gid, "extra_groups": []}
        proc = subprocess.run([str(self._bin / argv[0]), *argv[1:]], cwd=self.dir, env=env, capture_output=True,
                              text=True, timeout=120, **kwargs)  # type: ignore[call-overload]
        if proc.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {proc.stderr.strip() or proc.stdout.strip()}")

    # -- addresses ----------------------------------------------------------------
    def url(self, dbname: str = "postgres", schema: str | None = None) -> str:
        """A ``postgresql://`` URL for this server; ``schema`` sets the search_path (one log per schema)."""
        assert self.dir is not None, "server not started"
        url = f"postgresql://{SUPERUSER}@/{dbname}?host={quote(str(self.dir), safe='/')}&port={PORT}"
        if schema:
            url += "&options=" + quote(f"-csearch_path={schema}", safe="")
        return url

    def execute(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)  # type: ignore[arg-type]

    def new_schema(self, prefix: str = "t") -> str:
        """Create an empty schema and return its name: a fresh, isolated log on the shared server."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.execute(f'CREATE SCHEMA "{name}"')
        return name

    def new_database(self, prefix: str = "d") -> str:
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.execute(f'CREATE DATABASE "{name}"')
        return name
