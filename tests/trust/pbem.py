"""Reusable helpers for play-by-email tests: players with their own log and key home.

Two flavours:

- ``Seat`` drives the real CLI in subprocesses (one database and one
  ``COMBATLOG_HOME`` per player); ``mail`` carries a bundle from one seat to the
  other by file only. Any ruleset's round can be played with them (the Magic
  Realm round over bundles will reuse ``pair``/``mail``).
- ``signed_duel`` builds a signed freeform combat in-process (fast), for the
  tampering tests; ``forge`` appends an event the way a modified client would,
  bypassing every check of the write path, so that ``verify`` alone must catch it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import REPO, Cli, CliResult


class Seat:
    """One player at their own machine: a log, a key home, a mail folder."""

    def __init__(self, name: str, root: Path, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.dir = root / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.home = self.dir / "keys"
        self.env = dict(env or {})
        self.cli = Cli(self.dir / "log.db", REPO, {"COMBATLOG_HOME": str(self.home), **self.env})
        self.sent = 0

    def __call__(self, *args: str, ok: bool = True) -> CliResult:
        """``combatlog ARGS --as NAME`` (unless ARGS name another actor)."""
        return self.cli(*(args if "--as" in args else (*args, "--as", self.name)), ok=ok)

    def head(self, stream: str) -> int:
        rows = self("list", "--json").json()
        return next(r["head_seq"] for r in rows if r["name"] == stream)  # type: ignore[union-attr,index]

    def verify(self, stream: str) -> dict[str, Any]:
        return self("verify", stream, "--json").json()  # type: ignore[return-value]


_SEAT_KEYS: dict[tuple[tuple[str, ...], bool], Path] = {}


def seat_keys(root: Path, seats: list[Seat], *, everyone_imports: bool) -> None:
    """Each seat's key pair, exported to ``root/NAME.pub``; with ``everyone_imports`` every seat holds
    every other's public key, else the first seat holds the others'. Made by the real CLI (``keys new``,
    ``keys export``, ``keys import``) once per test process for these names, then copied into the seats'
    key homes: key making is what tests/trust/test_keys.py tests; here it is only the table's furniture,
    and ~0.2 s of CPU a command saved a few hundred times over the suite."""
    import atexit
    import shutil
    import tempfile

    names = tuple(seat.name for seat in seats)
    made = _SEAT_KEYS.get((names, everyone_imports))
    if made is None:
        made = Path(tempfile.mkdtemp(prefix="combatlog-seat-keys-"))
        atexit.register(shutil.rmtree, made, ignore_errors=True)
        furnished = [Seat(name, made) for name in names]
        for seat in furnished:
            seat("keys", "new", seat.name)
            seat("keys", "export", seat.name, "-o", str(made / f"{seat.name}.pub"))
        for seat in furnished if everyone_imports else furnished[:1]:
            for other in furnished:
                if other is not seat:
                    seat("keys", "import", str(made / f"{other.name}.pub"))
        _SEAT_KEYS[(names, everyone_imports)] = made
    for seat in seats:
        shutil.copytree(made / seat.name / "keys", seat.home, dirs_exist_ok=True)
        shutil.copy2(made / f"{seat.name}.pub", root / f"{seat.name}.pub")


def pair(root: Path, stream: str = "duel", *, ruleset: str = "freeform", dice: str = "joint",
         options: tuple[str, ...] = (), names: tuple[str, str] = ("alice", "bob"),
         setup: str | None = None, env: dict[str, str] | None = None) -> tuple[Seat, Seat]:
    """Two seats with keys; the first creates ``stream`` pinning both and mails it to the second.
    ``setup`` is a set-up JSON path relative to the repository root (or absolute); ``env`` is added to both seats'
    environment.

    The same pair (the same arguments, the same set-up text) is made once per test run, by the real CLI,
    and copied into ``root`` (tests/played.py ``built_once``): a test gets the logs, key homes and mail a
    fresh pair would have, for a copy instead of four CLI calls. No test makes two pairs."""
    import hashlib

    # keyed on the set-up's content, not its path: a set-up a test writes into its own folder is shared by
    # every test writing the same text (``new --setup`` reads the file's content; its path is in no event)
    setup_text = (REPO / setup).read_bytes() if setup else None
    key = hashlib.sha256(repr((stream, ruleset, dice, options, names, setup_text,
                               sorted((env or {}).items()))).encode()).hexdigest()[:16]

    def build(folder: Path) -> tuple[Seat, Seat]:
        a, b = Seat(names[0], folder, env), Seat(names[1], folder, env)
        seat_keys(folder, [a, b], everyone_imports=False)
        args = ["new", stream, "--ruleset", ruleset, "--dice", dice, "--player", a.name, "--player", b.name]
        for opt in options:
            args += ["--option", opt]
        if setup:
            args += ["--setup", str(REPO / setup)]
        a(*args)
        mail(a, b, stream, folder)
        return a, b

    a, b = seats_built_once(root, f"pair-{key}", build)
    return a, b


def duel_with_bundles(root: Path) -> tuple[Seat, Seat, dict[str, Path]]:
    """alice and bob play a signed duel; bob holds #1. alice's bundles in ``root``: ``b1`` #2-#3, ``b2`` #4-#5
    and ``all`` #2-#5 (for the tests of what ``import`` does with them). Made once per test run, copied."""

    def build(folder: Path) -> tuple[Seat, Seat]:
        alice, bob = pair(folder)
        alice("freeform", "join", "duel", "Aldo", "--side", "red", "--hp", "12")
        alice("note", "duel", "Aldo waits at the ford")
        alice("export", "duel", "--since", "1", "-o", str(folder / "b1.jsonl"))
        alice("note", "duel", "the river rises")
        alice("note", "duel", "night falls")
        alice("export", "duel", "--since", "3", "-o", str(folder / "b2.jsonl"))
        alice("export", "duel", "--since", "1", "-o", str(folder / "all.jsonl"))
        return alice, bob

    alice, bob = seats_built_once(root, "duel-with-bundles", build)
    return alice, bob, {name: root / f"{name}.jsonl" for name in ("b1", "b2", "all")}


def seats_built_once(root: Path, key: str, build: Callable[[Path], Sequence[Seat]]) -> tuple[Seat, ...]:
    """The seats ``build(folder)`` sets up (logs, key homes, the mail it wrote), built once per test run under
    ``key`` by the real CLI and copied into ``root`` (tests/played.py ``built_once``), for fixtures that
    every test of a module starts from: the seats returned are ``root``'s, each with its mail count."""
    import shutil

    from tests.played import built_once, shared_factory

    def make(folder: Path) -> None:
        seats = build(folder)
        (folder / "seats.json").write_text(json.dumps([[s.name, s.sent, s.env] for s in seats]))

    made = built_once(shared_factory(), key, make)
    shutil.copytree(made, root, dirs_exist_ok=True)
    seats = []
    for name, sent, env in json.loads((made / "seats.json").read_text()):
        seat = Seat(name, root, env)
        seat.sent = sent
        seats.append(seat)
    return tuple(seats)


def mail(sender: Seat, receiver: Seat, stream: str, root: Path) -> Path:
    """Export what ``receiver`` lacks as a bundle file and import it there."""
    try:
        since = receiver.head(stream)
    except StopIteration:
        since = 0
    sender.sent += 1
    path = root / f"{sender.name}-{sender.sent}.jsonl"
    sender("export", stream, "--since", str(since), "-o", str(path))
    receiver("import", str(path))
    return path


# -- in-process: a signed duel and a forging client -------------------------------------


@contextmanager
def key_home(path: Path) -> Iterator[None]:
    old = os.environ.get("COMBATLOG_HOME")
    os.environ["COMBATLOG_HOME"] = str(path)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("COMBATLOG_HOME", None)
        else:
            os.environ["COMBATLOG_HOME"] = old


def equivocated(root: Path) -> tuple[Seat, Seat, Path]:
    """bob shows alice two different #2 (he rewinds his machine to a copy): alice's refused import
    writes the proof. Returns alice, bob and the second bundle's path."""
    import shutil

    alice, bob = pair(root)
    shutil.copytree(bob.dir, root / "bob-backup")  # bob keeps a copy of his machine
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "10")
    mail(bob, alice, "duel", root)
    # later, bob rewinds to the copy (log and keys) and shows alice a different #2
    shutil.rmtree(bob.dir)
    shutil.copytree(root / "bob-backup", bob.dir)
    bob("freeform", "join", "duel", "Bo", "--side", "blue", "--hp", "30")
    path = root / "second.jsonl"
    bob("export", "duel", "--since", "1", "-o", str(path))
    return alice, bob, path


def signed_duel(tmp: Path, *, mode: str = "strict", rolls: bool = True):  # type: ignore[no-untyped-def]
    """A freeform duel pinning alice and bob (both keys in one home, set in the environment by the caller).

    Seqs: 1 genesis (alice), 2-3 joins (alice, bob), 4-5 commits to r1 (alice, bob), 6-7 reveals (bob,
    alice; 7 completes the joint seed), 8 round 1 (alice); with ``rolls``: 9-10 Aldo's joint die and
    action (alice), 11-12 Bo's (bob), 13 alice's acknowledgement of everything."""
    from combatlog.wiring import create_combat, execute
    from combatlog.rulesets.freeform import commands as ff
    from combatlog.store import open_store
    from combatlog.trust.commands import Acknowledge, CommitOrders, RevealOrders
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players

    for name in ("alice", "bob"):
        new_key(name)
    store = open_store(str(tmp / "log.db"))
    players, sign_a = pin_players(["alice", "bob"], "alice")
    sign_b = make_signer("bob")
    signers = {"alice": sign_a, "bob": sign_b}
    create_combat(store, "duel", "freeform", actor="alice", dice="joint", players=players, signer=sign_a,
                  options={"joint_dice": mode})

    def do(actor: str, command: Any) -> None:
        execute(store, "duel", command, actor=actor, signer=signers[actor])

    do("alice", ff.Join(name="Aldo", side="red", hp=12))
    do("bob", ff.Join(name="Bo", side="blue", hp=10))
    do("alice", CommitOrders(step="r1", orders={"Aldo": "thrust"}))
    do("bob", CommitOrders(step="r1", orders={"Bo": "swing"}))
    do("bob", RevealOrders(step="r1"))
    do("alice", RevealOrders(step="r1"))
    do("alice", ff.StartRound())
    if rolls:
        do("alice", ff.Act(who="Aldo", action="thrusts", roll="1d20"))
        do("bob", ff.Act(who="Bo", action="swings", roll="1d20"))
        do("alice", Acknowledge())
    return store, signers, do


def forge(store: Any, stream: str, event: Any, *, actor: str, signer: Any = None) -> None:
    """Append ``event`` as a modified client would: sealed and (optionally) signed, no checks."""
    from combatlog.commands.handler import resolve_stream
    from combatlog.events.envelope import encode_envelope, seal
    from combatlog.store.base import NewRow

    meta = resolve_stream(store, stream)
    head = store.head(meta.id)
    env = seal(stream=meta.id, seq=head.seq + 1, prev=head.hash, event=event, actor=actor,
               command_id=f"forged-{head.seq + 1}")
    if signer is not None:
        env = signer(env)
    store.append(meta.id, [NewRow(env.seq, env.type, env.hash, encode_envelope(env))],
                 expected_version=head.seq, command_id=env.command_id)


def export(store: Any, path: Path, stream: str = "duel", since: int = 0) -> list[bytes]:
    """Export ``stream`` to ``path``; the file's lines (header first)."""
    from combatlog.commands.handler import resolve_stream
    from combatlog.exchange.bundle import export_file

    export_file(store, resolve_stream(store, stream), path, since=since)
    return path.read_bytes().split(b"\n")[:-1]


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def event_line(lines: list[bytes], seq: int) -> dict[str, Any]:
    """The decoded envelope at ``seq`` (lines[0] is the header, lines[seq] the event of that seq)."""
    return json.loads(lines[seq])  # type: ignore[no-any-return]


def rechain(lines: list[bytes], seq: int, mutate: Any) -> list[bytes]:
    """A forger's best effort: change the payload at ``seq`` with ``mutate(data_dict)``, then recompute
    that event's hash, re-chain every later event and rewrite the header, keeping the signatures."""
    import msgspec

    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope, encode_envelope
    from combatlog.exchange.bundle import Header, _header_check

    envs = [decode_envelope(line) for line in lines[1:]]
    out: list[bytes] = []
    prev = envs[0].prev
    for env in envs:
        if env.seq == seq:
            data = json.loads(bytes(env.data))
            mutate(data)
            env = msgspec.structs.replace(env, data=msgspec.Raw(canonical(data)))
        env = msgspec.structs.replace(env, prev=prev)
        env = msgspec.structs.replace(env, hash=env.computed_hash())
        prev = env.hash
        out.append(encode_envelope(env))
    header = msgspec.json.decode(lines[0], type=Header)
    header = msgspec.structs.replace(header, head_hash=prev, count=len(out), head_seq=envs[-1].seq)
    header = msgspec.structs.replace(header, check=_header_check(header))
    return [canonical(header), *out]


def batch_cut(lines: list[bytes], seq: int) -> int:
    """The seq just before the batch holding ``seq``: where an honest log or bundle may end (or begin) so that
    the next file carries that whole batch. A batch is the run of consecutive envelopes sharing a
    ``command_id`` (one command's decision); verify and import re-decide each batch whole, so a log is cut
    between batches, never inside one (a fork aside)."""
    ids = {event["seq"]: event["command_id"] for event in map(json.loads, lines[1:])}
    assert seq in ids, f"seq {seq} is not in the file (it holds {min(ids)}-{max(ids)})"
    first = seq
    while first - 1 in ids and ids[first - 1] == ids[seq]:
        first -= 1
    return first - 1  # (in an incremental bundle, the batch could have begun before the file: not seen here)


def is_batch_cut(lines: list[bytes], seq: int) -> bool:
    """True when the file may be cut after ``seq``: it is the last event, or the next begins a batch."""
    return seq + 1 > json.loads(lines[-1])["seq"] or batch_cut(lines, seq + 1) == seq


def truncated(lines: list[bytes], keep_to_seq: int) -> list[bytes]:
    """The export cut after ``keep_to_seq`` with a header rewritten to match (a careful forger). A receiving
    log built from it must end between batches (``batch_cut``): one cut inside a batch is refused on import."""
    import msgspec

    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope
    from combatlog.exchange.bundle import Header, _header_check

    header = msgspec.json.decode(lines[0], type=Header)
    events = [line for line in lines[1:] if decode_envelope(line).seq <= keep_to_seq]
    last = decode_envelope(events[-1])
    header = msgspec.structs.replace(header, head_hash=last.hash, count=len(events), head_seq=last.seq)
    header = msgspec.structs.replace(header, check=_header_check(header))
    return [canonical(header), *events]


def appended(lines: list[bytes], event: Any, *, actor: str, signer: Any = None) -> list[bytes]:
    """The export with one more event chained on its last (sealed, optionally signed), header rewritten."""
    import msgspec

    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope, encode_envelope, seal
    from combatlog.exchange.bundle import Header, _header_check

    last = decode_envelope(lines[-1])
    env = seal(stream=last.stream, seq=last.seq + 1, prev=last.hash, event=event, actor=actor,
               command_id=f"forged-{last.seq + 1}")
    if signer is not None:
        env = signer(env)
    header = msgspec.json.decode(lines[0], type=Header)
    header = msgspec.structs.replace(header, head_hash=env.hash, count=header.count + 1, head_seq=env.seq)
    header = msgspec.structs.replace(header, check=_header_check(header))
    return [canonical(header), *lines[1:], encode_envelope(env)]
