"""Helpers for the dice-binding attacks (test_dice_uses_*.py): the CLI in-process, a forger's edits of an
export, and a receiving log that must come out of a refused file byte for byte as it went in.

A forger works on an exported file: ``forged`` changes payloads with ``tests.trust.pbem.rechain``
(recomputing every hash and the header) and, in a signed combat, re-signs with the forger's own key the
events that are the forger's (the tail: later events of another player would carry broken signatures).
A forged die of the joint scheme gets the faces its new label really gives (``joint_faces``, computed
from the revealed nonces as anyone can), so only the rules' label check can catch it.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from tests.conftest import REPO, CliResult
from tests.trust.pbem import is_batch_cut, rechain, truncated, write_lines

Mutation = Callable[[dict[str, Any]], None]


@contextmanager
def _env(**values: str | None) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    cwd = Path.cwd()
    os.chdir(REPO)  # the example command files name their set-up files from the repository root
    try:
        yield
    finally:
        os.chdir(cwd)
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cli(db: Path, *args: str, home: Path | None = None) -> CliResult:
    """``combatlog --db DB ARGS`` through the real entry point (``combatlog.cli.app.main``), in-process."""
    from combatlog.cli.app import main, root_command

    out, err = io.StringIO(), io.StringIO()
    code = 0
    home = home or db.parent / "keys"  # never the user's own key home
    with _env(COMBATLOG_ACTOR=None, COMBATLOG_DB=None, COMBATLOG_HOME=str(home)), \
            redirect_stdout(out), redirect_stderr(err):
        try:
            main(["--db", str(db), *args])
        except SystemExit as exc:
            code = int(exc.code or 0)
        finally:
            # the cached root group keeps the ruleset groups it loaded, in the order they were invoked
            # (which the generated CLI reference would then follow): the next user gets a fresh one
            root_command.cache_clear()
    return CliResult(code, out.getvalue(), err.getvalue())


def ok(db: Path, *args: str, home: Path | None = None) -> CliResult:
    result = cli(db, *args, home=home)
    assert result.code == 0, f"combatlog {' '.join(args)} exited {result.code}\n{result.err}{result.out}"
    return result


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def events(lines: list[bytes]) -> list[dict[str, Any]]:
    """The envelopes of a file (after its header), decoded, each with its payload under ``data``."""
    return [json.loads(line) for line in lines[1:]]


def seq_of(lines: list[bytes], type_: str, **match: Any) -> int:
    """The seq of the only event of ``type_`` whose payload has these values."""
    found = [e["seq"] for e in events(lines)
             if e["type"] == type_ and all(e["data"].get(k) == v for k, v in match.items())]
    assert len(found) == 1, (type_, match, found)
    return int(found[0])


def die_seq(lines: list[bytes], label: str) -> int:
    return seq_of(lines, "core.dice_rolled", label=label)


def payload(lines: list[bytes], seq: int) -> dict[str, Any]:
    return next(e["data"] for e in events(lines) if e["seq"] == seq)


def forged(lines: list[bytes], edits: dict[int, Mutation], *, forger: str = "", signer: Any = None) -> list[bytes]:
    """``lines`` with each ``edits[seq]`` applied to that payload, hashes and header recomputed; with a
    ``signer`` (``make_signer(forger)``), the forger's events from the first edit on are signed again."""
    from combatlog.events.envelope import decode_envelope, encode_envelope

    for seq in sorted(edits):
        lines = rechain(lines, seq, edits[seq])
    if signer is None:
        return lines
    out = [lines[0]]
    for line in lines[1:]:
        env = decode_envelope(line)
        out.append(encode_envelope(signer(env)) if env.seq >= min(edits) and env.actor == forger else line)
    return out


def joint_faces(lines: list[bytes], die: dict[str, Any], label: str, count: int, sides: int) -> tuple[int, ...]:
    """The faces the joint seed ``die`` was drawn from gives ``label`` (anyone can compute them once the
    seed step is revealed: the genesis hash, the step and every revealed nonce are in the log)."""
    from combatlog.dice.derive import derive_faces
    from combatlog.trust.crypto import joint_seed

    evs = events(lines)
    reveal = next(e for e in evs if e["seq"] == die["seed_ref"])
    step = reveal["data"]["step"]
    nonces = {e["data"]["player"]: e["data"]["nonce"] for e in evs
              if e["type"] == "core.orders_revealed" and e["data"]["step"] == step and e["seq"] <= die["seed_ref"]}
    genesis = next(e for e in evs if e["seq"] == 1)["hash"]
    return derive_faces(joint_seed(genesis, step, nonces), label, count, sides)


def relabel_joint(lines: list[bytes], seq: int, label: str) -> Mutation:
    """An edit giving the joint die at ``seq`` another label, with the faces the seed gives that label."""
    die = payload(lines, seq)
    faces = joint_faces(lines, die, label, die["count"], die["sides"])

    def edit(data: dict[str, Any]) -> None:
        data.update(label=label, faces=list(faces), total=sum(faces) + data["modifier"])

    return edit


def renotate(notation: str, faces: list[int]) -> Mutation:
    """An edit making a manual die another (self-consistent) one: ``1d30`` showing ``faces``."""
    from combatlog.dice.notation import parse_dice

    dice = parse_dice(notation)

    def edit(data: dict[str, Any]) -> None:
        data.update(notation=str(dice), count=dice.count, sides=dice.sides, modifier=dice.modifier,
                    faces=faces, total=sum(faces) + dice.modifier)

    return edit


class Receiver:
    """The player who receives a file: a log holding the combat up to some seq, which a refused file
    must leave exactly as it was. ``upto`` ends a batch (``tests.trust.pbem.batch_cut``), as every honest
    log does: a log cut inside a command's batch would itself be refused."""

    def __init__(self, db: Path, honest: list[bytes], upto: int, home: Path | None = None) -> None:
        assert is_batch_cut(honest, upto), f"seq {upto} is inside a batch: cut at batch_cut(lines, {upto + 1})"
        self.db, self.home = db, home
        ok(db, "import", str(write_lines(db.with_suffix(".prefix.jsonl"), truncated(honest, upto))), home=home)
        self.snapshot = self.contents()

    def contents(self) -> bytes:
        """Every stored event's bytes, in order, for every stream of the log."""
        from combatlog.store import open_store

        store = open_store(str(self.db))
        try:
            out = []
            for meta in store.list_streams():
                out += [row.body for row in store.read_stream(meta.id)]
            return b"\n".join(out)
        finally:
            store.close()

    def refuses(self, path: Path, *expected: str) -> str:
        """``verify FILE`` and ``import FILE`` both fail, naming what is wrong; the log is unchanged."""
        for verb in ("verify", "import"):
            result = cli(self.db, verb, str(path), home=self.home)
            assert result.code == 8, (verb, result.code, result.err, result.out)
            assert result.err.startswith("error[verify_failed]: "), result.err
            for text in expected:
                assert text in result.err, (verb, text, result.err)
        assert self.contents() == self.snapshot, "a refused file changed the receiving log"
        return result.err
