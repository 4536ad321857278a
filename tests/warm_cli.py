"""A warm launcher for the suite's CLI calls: each call is still its own process, forked from one that has
already started Python and imported the CLI, so the suite stops paying the interpreter's and the imports'
start-up thousands of times (they were most of its CPU: docs/benchmarks.md).

What a call gets is what ``python -m combatlog.cli.app ARGS`` gets, except the start-up itself: its own process
(a fork: module state, caches and open files are its own), its arguments, environment and working folder,
pipes for stdin/stdout/stderr, ``main`` run as the ``-m`` entry runs it, ``atexit`` handlers, the exit status.
What it does not exercise is the start-up: which modules a command imports, the fast path's avoiding click,
``lean_import``. Those tests (tests/cli/test_startup.py, test_fast_path.py, tests/core/test_lean_msgspec.py)
run the real interpreter, as does any call whose environment changes how Python starts (``PYTHON*``, the
locale, ``TZ``, ``COMBATLOG_FULL_MSGSPEC``). ``COMBATLOG_TEST_COLD=1`` sends every call through a fresh
interpreter, as before.

The launcher (``python -m tests.warm_cli SOCKET``) is started once per test process, at its first call; it
exits when that process closes its stdin (or dies). It forks on each connection, before reading anything, so
the file descriptors a call sends never reach the launcher itself: when the call's process ends, its pipes
close and the caller sees end of file.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

_HEADER = struct.Struct("!Q")
# Environment that Python reads while starting (or that a module reads when imported): a call that sets any of
# them differently from the launcher's start runs in a fresh interpreter.
_STARTUP_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "COMBATLOG_FULL_MSGSPEC", "COMBATLOG_TEST_COLD")


def startup_env_matches(launcher_env: dict[str, str], env: dict[str, str]) -> bool:
    keys = {k for k in (*launcher_env, *env) if k.startswith("PYTHON") or k in _STARTUP_ENV}
    return all(launcher_env.get(k) == env.get(k) for k in keys)


# ---------------------------------------------------------------------------------------------- the launcher

def _preload() -> None:
    """What every command through click imports before its own module (app.main, then cli/root.py), and the
    modules shared by most commands. Nothing here is run: no log opened, no key read."""
    from combatlog.lean_import import import_msgspec_without_typing_extensions

    import_msgspec_without_typing_extensions()
    import click  # noqa: F401

    import combatlog.cli.app  # noqa: F401
    import combatlog.cli.fast  # noqa: F401
    import combatlog.cli.root  # noqa: F401


def _recv_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError("the caller went away")
        data += chunk
    return data


def _run_call(conn: socket.socket) -> None:
    """In the forked process: become the call (fds, folder, environment, argv), run ``main``, exit."""
    header, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
    if len(header) < _HEADER.size:
        header += _recv_exact(conn, _HEADER.size - len(header))
    request = json.loads(_recv_exact(conn, _HEADER.unpack(header)[0]))
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    import combatlog.cli.app as app

    sys.argv = [app.__file__, *request["args"]]
    conn.sendall(f"{os.getpid()}\n".encode())
    code = _exit_status(app.main)
    conn.sendall(f"{code}\n".encode())
    os._exit(code)


def _exit_status(main) -> int:  # type: ignore[no-untyped-def]
    """Run ``main`` and end as the interpreter ends a ``-m`` run: the exit status of its SystemExit (a
    traceback and 1 for any other exception), atexit handlers, streams flushed."""
    import atexit
    import traceback

    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # noqa: BLE001  (as the interpreter: print it, exit 1)
        traceback.print_exc()
        code = 1
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = 120  # as the interpreter does when it cannot flush stdout at exit
    return code & 0xFF


def serve(path: str) -> None:
    _preload()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # a fork must not inherit unwritten output
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the calls' processes are reaped by the kernel
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is not listener:  # the test process closed our stdin or ended
                return
            conn, _ = listener.accept()
            if os.fork() == 0:
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the call may wait on processes of its own
                selector.close()
                listener.close()
                try:
                    _run_call(conn)
                finally:
                    os._exit(1)  # _run_call exits; this only if it failed before the call began
            conn.close()


# ------------------------------------------------------------------------------------------------ the caller

class Launcher:
    """The caller's side: one launcher per test process, started at the first call."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.folder = tempfile.mkdtemp(prefix="combatlog-warm-")
        self.path = os.path.join(self.folder, "launcher.sock")
        self.env = dict(env)
        self.log = open(os.path.join(self.folder, "launcher.err"), "wb")  # noqa: SIM115  (kept for its life)
        self.process = subprocess.Popen([sys.executable, "-m", "tests.warm_cli", self.path], cwd=cwd, env=self.env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        assert self.process.stdout is not None
        if self.process.stdout.readline() != b"ready\n":
            self.process.wait()
            raise RuntimeError(f"the warm CLI launcher did not start: {Path(self.log.name).read_text()}")

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=30)
        self.log.close()

    def run(self, args: list[str], cwd: Path, env: dict[str, str], stdin: str | None,
            timeout: float) -> subprocess.CompletedProcess[str]:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        if stdin is None:
            in_r, in_w = os.open(os.devnull, os.O_RDONLY), None
        else:
            in_r, in_w = os.pipe()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(self.path)
            body = json.dumps({"args": args, "cwd": str(cwd), "env": env}).encode()
            socket.send_fds(conn, [_HEADER.pack(len(body))], [in_r, out_w, err_w])
            conn.sendall(body)
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
        return self._communicate(conn, out_r, err_r, in_w, stdin, args, timeout)

    @staticmethod
    def _communicate(conn: socket.socket, out_r: int, err_r: int, in_w: int | None, stdin: str | None,
                     args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        chunks: dict[object, list[bytes]] = {out_r: [], err_r: [], conn: []}
        pending = (stdin or "").encode(_encoding())
        selector = selectors.DefaultSelector()
        for source in (out_r, err_r, conn):
            selector.register(source, selectors.EVENT_READ)
        if in_w is not None:
            os.set_blocking(in_w, False)
            selector.register(in_w, selectors.EVENT_WRITE)
        deadline = _monotonic() + timeout
        try:
            while selector.get_map():
                left = deadline - _monotonic()
                if left <= 0:
                    _kill(b"".join(chunks[conn]))
                    raise subprocess.TimeoutExpired(["combatlog", *args], timeout)
                for key, _ in selector.select(left):
                    source = key.fileobj
                    if source == in_w:
                        try:
                            pending = pending[os.write(in_w, pending[:65536]):]
                        except BrokenPipeError:
                            pending = b""
                        if not pending:
                            selector.unregister(in_w)
                            os.close(in_w)
                            in_w = None
                        continue
                    data = conn.recv(65536) if source is conn else os.read(source, 65536)  # type: ignore[arg-type]
                    if data:
                        chunks[source].append(data)
                    else:
                        selector.unregister(source)
        finally:
            selector.close()
            conn.close()
            for fd in (out_r, err_r, in_w):
                if fd is not None:
                    os.close(fd)
        lines = b"".join(chunks[conn]).decode().split()
        if len(lines) != 2:  # the call's process died without an exit status (a signal)
            return subprocess.CompletedProcess(args, -1, _text(chunks[out_r]),
                                               _text(chunks[err_r]) + "\n[warm launcher: the call died]")
        return subprocess.CompletedProcess(args, int(lines[1]), _text(chunks[out_r]), _text(chunks[err_r]))


def _monotonic() -> float:
    import time

    return time.monotonic()


def _kill(pid_line: bytes) -> None:
    if pid_line.split():
        try:
            os.kill(int(pid_line.split()[0]), signal.SIGKILL)
        except ProcessLookupError:
            pass


def _encoding() -> str:
    import locale

    return locale.getpreferredencoding(False)


def _text(chunks: list[bytes]) -> str:
    """As ``subprocess.run(text=True)`` decodes: the locale's encoding, universal newlines."""
    text = b"".join(chunks).decode(_encoding())
    return text.replace("\r\n", "\n").replace("\r", "\n")


_LAUNCHER: Launcher | None = None
_LOCK = threading.Lock()


def launcher(env: dict[str, str], cwd: Path) -> Launcher | None:
    """This test process's launcher (started on first use), or None when calls must start cold."""
    global _LAUNCHER
    if os.environ.get("COMBATLOG_TEST_COLD") or not hasattr(socket, "send_fds") or not hasattr(os, "fork"):
        return None
    with _LOCK:
        if _LAUNCHER is None:
            import atexit

            _LAUNCHER = Launcher(env, cwd)
            atexit.register(_LAUNCHER.close)
    return _LAUNCHER


if __name__ == "__main__":
    serve(sys.argv[1])
