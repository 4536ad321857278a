"""``combatlog report`` stays linear and small on a long combat, shows progress, and draws sheets where
asked. Growth is checked by counts that do not depend on the machine's load: rows read from the store,
bytes written, pictures drawn (bench/bench_report.py measures the time at 2,500 and 10,000 events).

The long combat is bench/bench_report.py's freeform fight (six fighters, dice entered by hand)."""

from __future__ import annotations

import importlib.util
import os
import re
import select
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from combatlog.pictures.report import MAX_SHEETS, PROGRESS_STEPS, report_html
from tests.conftest import CLI, REPO
from tests.pictures.svgcheck import parse_html

SMALL, LARGE = 300, 1200  # events: 4x


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_report", REPO / "bench" / "bench_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def fights(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The two fights, built once per test run (tests/played.py) and copied for this worker: a report may
    keep snapshots in the log, which would change what the next report reads."""
    from combatlog.store.sqlite import SQLiteStore
    from tests.played import built_once, copy_log

    def build(folder: Path) -> None:
        bench = _bench()
        for n in (SMALL, LARGE):
            store = SQLiteStore(folder / f"fight{n}.db")
            store.conn.execute("PRAGMA synchronous=OFF")  # writing the fight is not what is tested
            bench.long_fight(store, "fight", n)
            store.close()

    shared, mine = built_once(tmp_path_factory, "report-scale-fights", build), tmp_path_factory.mktemp("fights")
    return {n: copy_log(shared / f"fight{n}.db", mine / f"fight{n}.db") for n in (SMALL, LARGE)}


class Counted:
    """The real store, counting the rows its reads return (what a pass over the log costs)."""

    def __init__(self, path: Path) -> None:
        from combatlog.store.sqlite import SQLiteStore

        self.store, self.rows = SQLiteStore(path), 0
        real_rows, real_bodies = self.store.read_stream, self.store.read_bodies

        def read_stream(*args, **kwargs):  # type: ignore[no-untyped-def]
            rows = real_rows(*args, **kwargs)
            self.rows += len(rows)
            return rows

        def read_bodies(*args, **kwargs):  # type: ignore[no-untyped-def]  (the verifier's reads)
            rows = real_bodies(*args, **kwargs)
            self.rows += len(rows)
            return rows

        self.store.read_stream = read_stream  # type: ignore[method-assign]
        self.store.read_bodies = read_bodies  # type: ignore[method-assign]


def _report(path: Path, **kwargs) -> tuple[str, int, int, list[tuple[int, int]]]:  # type: ignore[no-untyped-def]
    """(html, rows read, events, progress calls)."""
    counted = Counted(path)
    try:
        meta = counted.store.list_streams()[0]
        events = counted.store.head(meta.id).seq
        calls: list[tuple[int, int]] = []
        counted.rows = 0
        text = report_html(counted.store, meta, None, on_progress=lambda d, t: calls.append((d, t)), **kwargs)
        return text, counted.rows, events, calls
    finally:
        counted.store.close()


def test_report_reads_the_log_a_few_times_and_grows_linearly(fights: dict[int, Path]) -> None:
    small, rows_s, n_s, _ = _report(fights[SMALL])
    large, rows_l, n_l, _ = _report(fights[LARGE])
    # the old report re-read the log for every round: 2,514 events cost 3.6 s, 10,002 cost 34 s
    # (docs/benchmarks.md). Now: one pass, the verifier's, which the walk reads from, plus at most a
    # snapshot's worth of events for the head's state.
    assert rows_l <= n_l + 500, (rows_l, n_l)
    assert rows_l / rows_s <= 1.1 * n_l / n_s, (rows_s, rows_l)
    size_s, size_l = len(small.encode()), len(large.encode())
    assert size_l / size_s <= 1.1 * n_l / n_s, (size_s, size_l)
    # what an event costs, pictures aside (they are bounded below): under 2 MB at 10,000 events leaves
    # about 180 bytes an event beside 20 pictures of ~9 kB
    text_only = len(re.sub(r"<svg\b.*?</svg>", "", large, flags=re.S).encode())
    assert text_only / n_l < 200, text_only / n_l
    pictures = large.count("<svg")
    rounds = len(re.findall(r'<section class="round"', large))
    assert rounds > 2 * MAX_SHEETS and pictures <= MAX_SHEETS + 2, (pictures, rounds)
    doc = parse_html(large)
    assert not doc.errors and not doc.stack
    assert len([a for a in doc.find("li") if (a.get("id") or "").startswith("seq-")]) == n_l


def test_what_every_round_or_die_would_repeat_is_said_once(fights: dict[int, Path]) -> None:
    """The fight's dice are all entered by hand, its events all recorded by the gm, and its rounds' steps
    mostly apply one rule: each is said once, above the rounds or the ledger, not per round or per die."""
    text, _rows, _events, _calls = _report(fights[SMALL])
    rounds = len(re.findall(r'<section class="round"', text))
    assert rounds > 10
    assert text.count("rolled at the table") == 1 and "(die r3/Aldo/act)</a>" in text
    # the act reads the die rolled just above it, whose line links to the ledger: its label is not linked again
    assert re.search(r'<a href="#die-\d+">Aldo&#39;s 1d20 [^<]*\(die r3/Aldo/act\)</a></li>\n'
                     r'<li id="seq-\d+"><b>#\d+</b> Aldo: swings at Grimsby \[r3/Aldo/act\]</li>', text)
    assert text.count("recorded by gm, unsigned") == 1 and 'class="who"' not in text
    assert text.count("Steps without a rule apply") == 1
    assert text.count("entered by hand: trusted") == 1 and "scheme: verification" not in text


def test_progress_is_reported_from_zero_to_the_head(fights: dict[int, Path]) -> None:
    _text, _rows, events, calls = _report(fights[LARGE])
    assert calls[0] == (0, events) and calls[-1] == (events, events)
    done = [d for d, _t in calls]
    assert done == sorted(done) and all(t == events for _d, t in calls)
    assert len(calls) <= PROGRESS_STEPS + 2  # a callback that prints stays cheap


def test_sheets_where_asked(fights: dict[int, Path]) -> None:
    text, *_ = _report(fights[SMALL], sheets="none")
    assert "<svg" not in text and "No picture: not asked for" in text
    text, *_ = _report(fights[SMALL], sheets="2,4-5")
    assert re.findall(r'<svg[^>]* aria-labelledby="r(\d+)-title', text) == ["2", "4", "5"]
    text, *_ = _report(fights[SMALL], sheets="all")
    assert text.count("<svg") == len(re.findall(r'<section class="round"', text))
    # auto: a short combat gets a picture of every round that changed (here all of them); a long one at
    # most one every few rounds, each round without one pointing at the last drawn
    text, *_ = _report(fights[SMALL])
    assert text.count("<svg") == len(re.findall(r'<section class="round"', text))
    text, *_ = _report(fights[LARGE])
    assert re.search(r'No picture: the last one is at <a href="#round-\d+">round \d+</a>', text)


@pytest.mark.parametrize("spec, message", [("x", "--sheets takes auto, all, none"), ("5-2", "runs backwards"),
                                           ("999", "no round 999")])
def test_bad_sheets_are_refused_and_write_nothing(fights: dict[int, Path], tmp_path: Path, spec: str,
                                                  message: str) -> None:
    out = tmp_path / "r.html"
    proc = subprocess.run([*CLI, "--db", str(fights[SMALL]), "report", "fight", "--sheets", spec, "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and message in proc.stderr and not out.exists(), proc.stderr


def test_one_round_is_drawn_whatever_it_holds(fights: dict[int, Path]) -> None:
    text, *_ = _report(fights[SMALL], round_no=3)
    assert re.findall(r'<section class="round" id="(round-\d+)"', text) == ["round-3"]
    assert text.count("<svg") == 1


def _report_cli(db: Path, out: Path, stderr: int) -> subprocess.Popen[bytes]:
    # a terminal that can redraw a line (the bar draws nothing on TERM=dumb, as CI may set it)
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    return subprocess.Popen([*CLI, "--db", str(db), "report", "fight", "-o", str(out)], stdout=subprocess.PIPE,
                            stderr=stderr, cwd=REPO, env=env)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_on_a_terminal_and_never_under_a_pipe(fights: dict[int, Path], tmp_path: Path) -> None:
    import pty

    main, side = pty.openpty()
    proc = _report_cli(fights[LARGE], tmp_path / "tty.html", side)
    os.close(side)
    seen = b""
    while True:  # read the terminal until the process closes it (no sleeps: select waits on the fd)
        ready, _, _ = select.select([main], [], [], 120)
        assert ready, "no output from report for 120 s"
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert proc.wait(timeout=120) == 0
    plain = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", seen)  # the shared bar (cli/progress.py) colours its parts
    assert plain.startswith(b"report") and re.search(rb"\d+/\d+ events", plain), plain[-300:]
    piped = _report_cli(fights[LARGE], tmp_path / "pipe.html", subprocess.PIPE)
    out, err = piped.communicate(timeout=120)
    assert piped.returncode == 0 and err == b"" and b"events (" not in out
