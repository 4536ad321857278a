"""Fuzzing the CLI's entry point in-process with mutated and garbage input.

Whatever a hostile player mails (an import file, a command file, arguments), the
CLI must answer with a clean error, never an internal one ("This is a bug in
combatlog"), never hang (each case runs under an alarm), and a refusal must
leave the log exactly as it was. Import files are mutated at three depths: raw
bytes, whole lines, and values inside events with every hash recomputed (so the
checks behind the hashes are reached too).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.cli.app import main
from tests.security.forge import log_fingerprint, read, reforge, write

CASE_SECONDS = 20
FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


class Hang(Exception):
    pass


@contextmanager
def bounded(seconds: int = CASE_SECONDS) -> Iterator[None]:
    def ring(_signum: int, _frame: Any) -> None:
        raise Hang(f"a case ran over {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run(*argv: str) -> tuple[int, str, str]:
    """``combatlog ARGV`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    stdin, sys.stdin = sys.stdin, io.StringIO("")
    try:
        with redirect_stdout(out), redirect_stderr(err), bounded():
            try:
                main(list(argv))
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


def clean(code: int, err: str, what: str) -> None:
    assert "error[internal]" not in err and "bug in combatlog" not in err, f"{what}: {err}"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """An honest combat (with dice, a note and a fork), exported, and a receiver that already holds it. The
    module's commands run in this process with its environment: the key home and actor are set for them and
    given back afterwards (left set, every later test of the worker shared this key home)."""
    root = tmp_path_factory.mktemp("fuzz")
    saved = {name: os.environ.get(name) for name in ("COMBATLOG_ACTOR", "COMBATLOG_HOME")}
    os.environ.pop("COMBATLOG_ACTOR", None)
    os.environ["COMBATLOG_HOME"] = str(root / "home")  # `keys new` and friends write here, not in ~
    try:
        yield _world(root)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _world(root: Path) -> dict[str, Path]:
    source = str(root / "source.db")
    for argv in (("new", "duel", "--ruleset", "freeform"),
                 ("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12"),
                 ("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10"),
                 ("freeform", "round", "duel"),
                 ("freeform", "act", "duel", "Aldo", "lunges", "--roll", "1d20"),
                 ("freeform", "damage", "duel", "Bo", "1d8", "--reason", "sword"),
                 ("note", "duel", "a ruling\nover two lines"),
                 ("fork", "duel", "--at", "6", "--as", "whatif"),
                 ("freeform", "damage", "whatif", "Bo", "3"),  # Bo is unhurt at the fork: a heal is refused
                 ("export", "duel", "-o", str(root / "duel.jsonl")),
                 ("export", "whatif", "-o", str(root / "whatif.jsonl")),
                 ("export", "duel", "--since", "5", "-o", str(root / "tail.jsonl"))):
        code, _out, err = run("--db", source, *argv)
        assert code == 0, err
    holder = root / "holder.db"
    assert run("--db", str(holder), "import", str(root / "duel.jsonl"))[0] == 0
    return {"root": root, "duel": root / "duel.jsonl", "whatif": root / "whatif.jsonl",
            "tail": root / "tail.jsonl", "holder": holder}


def receivers(world: dict[str, Path], case: Path) -> Iterator[Path]:
    """A fresh copy of each receiver: an empty log, and one that already holds the combat."""
    empty = case.with_suffix(".empty.db")
    held = case.with_suffix(".held.db")
    for p in (empty, held):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{p}{suffix}").unlink(missing_ok=True)
    shutil.copy(world["holder"], held)
    yield empty
    yield held


def check_import(world: dict[str, Path], path: Path) -> None:
    for db in receivers(world, path):
        before = log_fingerprint(db)
        code, _out, err = run("--db", str(db), "import", str(path))
        clean(code, err, f"import into {db.name}")
        if code != 0:
            assert log_fingerprint(db) == before, f"a refused import changed {db.name}: {err}"
        else:  # accepted: what landed must verify
            for name in {json.loads(path.read_bytes().split(b"\n")[0])["name"]}:
                vcode, _o, verr = run("--db", str(db), "verify", name)
                assert vcode == 0, f"an accepted import does not verify: {verr}"
        code, _out, err = run("--db", str(db), "verify", str(path))
        clean(code, err, "verify")


# -- import files -----------------------------------------------------------------------------------

SOURCES = st.sampled_from(["duel", "whatif", "tail"])


@FUZZ
@given(source=SOURCES, data=st.data())
def test_byte_mutations(world: dict[str, Path], tmp_path: Path, source: str, data: st.DataObject) -> None:
    raw = bytearray(world[source].read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    check_import(world, write(tmp_path / "bytes.jsonl", [bytes(raw).rstrip(b"\n")]))


@FUZZ
@given(source=SOURCES, data=st.data())
def test_line_mutations(world: dict[str, Path], tmp_path: Path, source: str, data: st.DataObject) -> None:
    lines = read(world[source])
    op = data.draw(st.sampled_from(["drop", "duplicate", "swap", "truncate", "garbage"]))
    i = data.draw(st.integers(0, len(lines) - 1))
    j = data.draw(st.integers(0, len(lines) - 1))
    if op == "drop":
        del lines[i]
    elif op == "duplicate":
        lines.insert(j, lines[i])
    elif op == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "truncate":
        lines[i] = lines[i][: data.draw(st.integers(0, max(0, len(lines[i]) - 1)))]
    else:
        lines[i] = data.draw(st.binary(max_size=200))
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if data.draw(st.booleans()) else b""))
    check_import(world, path)


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.text(max_size=30),
                        st.sampled_from(["", "\x1b[2J", "a\nb", "9" * 30, "..", "duel"]))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                        max_leaves=12)


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


@FUZZ
@given(source=SOURCES, data=st.data())
def test_value_mutations_behind_recomputed_hashes(world: dict[str, Path], tmp_path: Path, source: str,
                                                  data: st.DataObject) -> None:
    lines = read(world[source])
    events = [json.loads(line) for line in lines[1:]]
    target = data.draw(st.sampled_from(events))
    seq = target["seq"]
    where = data.draw(st.sampled_from(["payload", "envelope", "header"]))
    value = data.draw(st.one_of(_json_values(), st.just(_deep(200)), st.just(2**70)))
    if where == "payload":
        key = data.draw(st.sampled_from(sorted(target["data"]) + ["extra"]))

        def mutate(d: dict[str, Any]) -> None:
            if key == "type":
                d[key] = data.draw(st.sampled_from(["core.forked", "ff.participant_joined", "nosuch.x"]))
            else:
                d[key] = value

        try:
            forged = reforge(lines, {seq: mutate})
        except (TypeError, ValueError, OverflowError):
            return  # the forger's own tools cannot encode it (a float, a huge int): nothing to send
    elif where == "envelope":
        key = data.draw(st.sampled_from(["actor", "recorded_at", "command_id", "stream", "v", "schema", "type"]))

        def change(env: dict[str, Any]) -> None:
            env[key] = value

        try:
            forged = reforge(lines, {}, envelope={seq: change})
        except Exception:
            return  # not even an envelope the forger's tools can build
    else:
        header = json.loads(lines[0])
        key = data.draw(st.sampled_from(sorted(header)))
        header[key] = value
        from combatlog.events.canonical import canonical
        from combatlog.exchange.bundle import _header_check

        header.pop("check", None)
        try:
            header["check"] = _header_check(header)
            forged = [canonical(header), *lines[1:]]
        except (TypeError, ValueError, OverflowError):
            return
    check_import(world, write(tmp_path / "values.jsonl", forged))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(blob=st.binary(max_size=2000))
def test_garbage_files(world: dict[str, Path], tmp_path: Path, blob: bytes) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(blob)
    check_import(world, path)


# -- command files and arguments ----------------------------------------------------------------------

WORDS = st.sampled_from([
    "duel", "whatif", "nosuch", "Aldo", "Bo", "1d20", "2d6+3", "d0", "99999999999999999999999", "-1", "0",
    "--at", "--round", "--from", "--since", "--label", "--roll", "--side", "--hp", "--json", "--as", "--db",
    "--command-id", "--scheme", "joint", "manual", "--face", "r1/x=3", "\x1b[31m", "a\nb", "é", "#", "'", '"',
    "freeform", "mr", "cfi", "osric", "argad", "join", "act", "damage", "heal", "round", "end", "note", "show",
    "log", "status", "explain", "replay", "dice", "roll", "fork", "export", "import", "verify", "seal", "ack",
    "commit", "reveal", "decision", "--step", "r1", "--orders-json", '{"a":1}', "[[[[[[", "sheets", "figures",
])


@FUZZ
@given(argv=st.lists(st.one_of(WORDS, st.text(max_size=12)), min_size=1, max_size=8))
def test_arguments(world: dict[str, Path], tmp_path: Path, argv: list[str]) -> None:
    db = tmp_path / "args.db"
    shutil.copy(world["holder"], db)
    argv = [a for a in argv if a != "-" and "\x00" not in a]  # no standard input or NUL arguments in a shell
    if any(a in ("-o", "--output") for a in argv):
        return
    before = log_fingerprint(db)
    code, _out, err = run("--db", str(db), *argv)
    clean(code, err, f"combatlog {argv}")
    if code != 0:
        assert log_fingerprint(db) == before, f"a refused command changed the log: {argv}: {err}"


@FUZZ
@given(lines=st.lists(st.lists(st.one_of(WORDS, st.text(max_size=10)), min_size=1, max_size=6), max_size=5),
       blob=st.binary(max_size=40))
def test_command_files(world: dict[str, Path], tmp_path: Path, lines: list[list[str]], blob: bytes) -> None:
    db = tmp_path / "cmds.db"
    shutil.copy(world["holder"], db)
    script = tmp_path / "turn.cmds"
    script.write_bytes("\n".join(" ".join(words) for words in lines).encode("utf-8", "surrogatepass") + b"\n" + blob)
    code, _out, err = run("--db", str(db), "run", str(script))
    clean(code, err, f"run {script.read_bytes()!r}")
