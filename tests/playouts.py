"""Random playouts: a combat played only through the moves the program offers, to its end or a bound.

Each move is picked at random (seeded) among ``combatlog moves``'s list and run as its ``argv`` through the
real CLI, in this process (``main``) or as a subprocess. A playout fails when an offered move is refused,
when nothing is offered while the combat is not over (stuck), on an internal error, when ``verify`` fails,
or when the export does not import into a second log. The failure message carries the seed and every
command played with the faces its local dice showed (``--face LABEL=FACES``), as a shell script that replays
the same combat die for die (joint dice come from fresh chain secrets: those are not repeated); the script is
also written beside the log (``replay.sh``).

The set-ups are the example combats' own (docs/examples/), played with local dice so that every die is drawn
by the program.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.playout_setups import EXAMPLES, ROOT, Setup, new  # noqa: F401  (the set-ups' names, also from here)


def _setups() -> dict[str, list[Setup]]:
    """Each ruleset's set-ups, from tests/playout_setups/RULESET.py (its ``SETUPS`` list)."""
    import importlib

    out: dict[str, list[Setup]] = {}
    for path in sorted((Path(__file__).parent / "playout_setups").glob("*.py")):
        if path.stem != "__init__":
            out[path.stem] = list(importlib.import_module(f"tests.playout_setups.{path.stem}").SETUPS)
    return out


@dataclass
class Played:
    setup: Setup
    seed: int
    commands: list[tuple[str, ...]] = field(default_factory=list)
    finished: bool = False
    moves_offered: int = 0
    faces: list[tuple[str, ...]] = field(default_factory=list)  # per command: its dice as --face options

    def replay_lines(self) -> list[tuple[str, ...]]:
        """Every command of the playout, each move with the faces its dice showed: run in order on a fresh log,
        they play the same combat."""
        keys = [("keys", "new", p) for p in self.setup.players]
        faces = self.faces + [()] * (len(self.commands) - len(self.faces))  # (a refused move drew none)
        moves = [(*c, *f) for c, f in zip(self.commands, faces)]
        return [*keys, *self.setup.lines, *moves]

    def replay_text(self) -> str:
        head = (f"# playout {self.setup.ruleset}/{self.setup.name} seed {self.seed}; replay it with\n"
                "#   COMBATLOG_HOME=$(mktemp -d) COMBATLOG_DB=$(mktemp -d)/log.db sh THIS_FILE\n")
        return head + "\n".join(shlex.join(("combatlog", *c)) for c in self.replay_lines())


class PlayoutFailed(AssertionError):
    pass


class InProcess:
    """``combatlog ARGS`` through ``main`` in this process, against one log."""

    def __init__(self, db: Path, home: Path) -> None:
        self.db, self.home = db, home

    def __call__(self, *args: str) -> tuple[int, str, str]:
        import os

        from combatlog.cli.app import main

        out, err = io.StringIO(), io.StringIO()
        env = {"COMBATLOG_HOME": str(self.home)}
        saved = {k: os.environ.get(k) for k in (*env, "COMBATLOG_ACTOR", "COMBATLOG_DB")}
        os.environ.update(env)
        os.environ.pop("COMBATLOG_ACTOR", None)
        os.environ.pop("COMBATLOG_DB", None)
        code = 0
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    main(["--db", str(self.db), *args])
                except SystemExit as exc:
                    code = int(exc.code or 0)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return code, out.getvalue(), err.getvalue()


class Subprocess(InProcess):
    """``combatlog ARGS`` as its own process."""

    def __call__(self, *args: str) -> tuple[int, str, str]:
        import os
        import subprocess

        env = {k: v for k, v in os.environ.items() if k not in ("COMBATLOG_ACTOR", "COMBATLOG_DB")}
        env["COMBATLOG_HOME"] = str(self.home)
        done = subprocess.run([sys.executable, "-m", "combatlog.cli.app", "--db", str(self.db), *args],
                              capture_output=True, text=True, env=env, timeout=120)
        return done.returncode, done.stdout, done.stderr


def play(tmp: Path, setup: Setup, seed: int, *, max_moves: int = 300, subprocess: bool = False,
         check_status: bool = False) -> Played:
    """Play ``setup`` at random from ``seed`` through the offered moves; raise ``PlayoutFailed`` on a defect.

    ``check_status``: at every state, ``status --json`` and each decider's ``status --mine --json`` offer only
    command lines that ``moves`` lists (or the ``combatlog moves`` line that lists them), and every piece that has
    a legal move of a player's is named in his ``status --mine`` (``_check_status``)."""
    tmp.mkdir(parents=True, exist_ok=True)
    run = (Subprocess if subprocess else InProcess)(tmp / "log.db", tmp / "keys")
    played = Played(setup, seed)
    rng = random.Random(seed)

    def call(*args: str, what: str) -> str:
        code, out, err = run(*args)
        if code != 0:
            (tmp / "replay.sh").write_text(played.replay_text() + "\n")
            raise PlayoutFailed(f"{what}: `combatlog {shlex.join(args)}` exited {code}\n{err.strip()}\n"
                                f"{played.replay_text()}\n(written to {tmp / 'replay.sh'})")
        return out

    for player in setup.players:
        call("keys", "new", player, what="set-up")
    for line in setup.lines:
        call(*line, what="set-up")
    rolled = _Rolled(tmp / "log.db")  # the set-up's own dice are in its lines
    for _ in range(max_moves):
        listing = json.loads(call("moves", setup.name, "--json", "--limit", "100000", what="moves"))
        if listing["finished"]:
            if listing["moves"]:
                raise PlayoutFailed(f"finished, yet moves are offered\n{played.replay_text()}")
            played.finished = True
            break
        moves = listing["moves"]
        if not moves:
            raise PlayoutFailed(f"stuck: the combat is not over and no move is offered\n{played.replay_text()}")
        played.moves_offered += len(moves)
        if check_status:
            _check_status(call, setup, moves, played)
        move = _pick(moves, rng)
        argv = tuple(move["argv"])
        played.commands.append(argv)
        call(*argv, what=f"offered move refused ({move['text']})")
        played.faces.append(rolled.since_last())
    call("verify", setup.name, what="verify")
    call("export", setup.name, "-o", str(tmp / "bundle.jsonl"), what="export")
    other = (Subprocess if subprocess else InProcess)(tmp / "other.db", tmp / "keys")
    code, _out, err = other("import", str(tmp / "bundle.jsonl"))
    if code != 0:
        raise PlayoutFailed(f"the export does not import into a second log: {err.strip()}\n{played.replay_text()}")
    return played


class _Rolled:
    """The local and manual dice appended to a log since the last look, as ``--face LABEL=FACES`` options (read from
    the SQLite file: a die's faces are in its event)."""

    def __init__(self, db: Path) -> None:
        self.db, self.position = db, 0
        self.since_last()

    def since_last(self) -> tuple[str, ...]:
        import sqlite3

        with contextlib.closing(sqlite3.connect(self.db)) as conn:
            rows = conn.execute("SELECT position, type, body FROM events WHERE position > ? ORDER BY position",
                                (self.position,)).fetchall()
        out: list[str] = []
        for position, kind, body in rows:
            self.position = position
            if kind == "core.dice_rolled":
                data = json.loads(body)["data"]
                if data["scheme"] in ("local", "manual"):
                    out += ["--face", f"{data['label']}={','.join(map(str, data['faces']))}"]
        return tuple(out)


def _check_status(call, setup: Setup, moves: list[dict[str, object]], played: Played) -> None:  # type: ignore[no-untyped-def]
    """What ``status`` offers stands on ``moves``: nothing offered that ``moves`` does not list (so nothing that
    is refused), and no piece with a legal move left out of its player's ``status --mine``."""
    lines = {shlex.join(("combatlog", *m["argv"])) for m in moves}  # type: ignore[arg-type]
    listing = f"combatlog moves {shlex.quote(setup.name)}"

    def offered(command: str) -> bool:
        return command in lines or command.startswith(listing)

    plain = json.loads(call("status", setup.name, "--json", what="status"))
    for entry in plain["pending"]:
        for command in entry["commands"]:
            if not offered(command):
                raise PlayoutFailed(f"status offers {command!r}, which moves does not list\n{played.replay_text()}")
    for player in sorted({str(m["player"]) for m in moves} - {""}) or ["gm"]:
        mine = json.loads(call("status", setup.name, "--mine", "--json", "--as", player, what="status --mine"))
        said = " ".join(str(m["what"]) for m in mine["pending"])
        for m in mine["pending"]:
            for command in [m["command"], *m["options"]]:
                if command and not offered(command):
                    raise PlayoutFailed(f"status --mine offers {player} {command!r}, which moves does not list\n"
                                        f"{played.replay_text()}")
        pieces = {str(m["piece"]) for m in moves if m["player"] == player and m.get("piece") and m["kind"] == "move"}
        missing = sorted(p for p in pieces if p not in said)
        if missing:
            raise PlayoutFailed(f"status --mine for {player} leaves out {missing}, which have legal moves of his\n"
                                f"{played.replay_text()}")


def _pick(moves: list[dict[str, object]], rng: random.Random) -> dict[str, object]:
    """A move at random in three draws, so that no kind of move crowds out the others: its kind (a step of the
    procedure, a piece's move, a ruling), then a decision of that kind (the words before its first option:
    ``argad strike t gob``), then one of that decision's variants. Uniform over moves, rulings (many per
    piece) would end most combats early."""
    kinds: dict[str, dict[str, list[dict[str, object]]]] = {}
    for m in moves:
        argv = [str(a) for a in m["argv"]]  # type: ignore[attr-defined]
        head = " ".join(a for a in argv[:4] if not a.startswith("-"))
        kinds.setdefault(str(m.get("kind", "move")), {}).setdefault(head, []).append(m)
    groups = kinds[rng.choice(sorted(kinds))]
    return rng.choice(groups[rng.choice(sorted(groups))])


SETUPS = _setups()


if __name__ == "__main__":  # one playout per set-up: python -m tests.playouts RULESET SEED [--subprocess]
    import tempfile

    ruleset, seed_text = sys.argv[1], sys.argv[2]
    for s in SETUPS[ruleset]:
        with tempfile.TemporaryDirectory() as d:
            result = play(Path(d), s, int(seed_text), subprocess="--subprocess" in sys.argv)
            print(result.replay_text())
            print("# finished" if result.finished else "# bound reached")
