"""Machines in one process for convergence tests: each its own store and the keys of its own players.

A ``Table`` pins its players (one key home holds every key, but each ``Machine`` is given signers
only for the players who sit at it, as on real machines). ``send`` carries a machine's whole
export to another, which imports it exactly as ``combatlog import`` does (verify, then append,
merge or hold), re-applying the decisions of the players who sit there. ``gossip`` sends
everything to everyone until nothing changes, bounded.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from combatlog.commands.handler import resolve_stream
from combatlog.wiring import create_combat, execute
from combatlog.exchange.bundle import ImportReport, export_lines, read_bytes
from combatlog.wiring import import_bundle, verify_stream
from combatlog.exchange.merge import MergeReport
from combatlog.store.base import EventStore
from combatlog.store.memory import MemoryStore

MAX_GOSSIP_ROUNDS = 12


class Machine:
    def __init__(self, name: str, players: Iterable[str], signers: dict[str, Any], store: EventStore | None = None):
        self.name = name
        self.players = tuple(players)
        self.signers = {p: signers[p] for p in self.players}
        self.store = store or MemoryStore()
        self.merges: list[MergeReport] = []

    def do(self, actor: str, command: Any, stream: str, **kw: Any) -> Any:
        assert actor in self.players, f"{actor} does not sit at {self.name}"
        return execute(self.store, stream, command, actor=actor, signer=self.signers[actor], **kw)

    def bundle(self, stream: str) -> bytes:
        meta = resolve_stream(self.store, stream)
        return b"".join(line + b"\n" for line in export_lines(self.store, meta))

    def receive(self, data: bytes, where: str) -> ImportReport:
        header, lines = read_bytes(data, where)
        report = import_bundle(self.store, header, lines, where, proof=Path("/nonexistent/proof"),
                               signer_for=self.signers.get)
        if report.merge is not None:
            self.merges.append(report.merge)
        return report

    def head(self, stream: str) -> tuple[int, str]:
        h = self.store.head(resolve_stream(self.store, stream).id)
        return h.seq, h.hash

    def has(self, stream: str) -> bool:
        return any(m.name == stream for m in self.store.list_streams())

    def events(self, stream: str) -> list[Any]:
        from combatlog.events.envelope import decode_envelope

        meta = resolve_stream(self.store, stream)
        return [decode_envelope(r.body) for r in self.store.read_stream(meta.id)]

    def verify(self, stream: str) -> Any:
        return verify_stream(self.store, resolve_stream(self.store, stream))


def send(sender: Machine, receiver: Machine, stream: str) -> ImportReport | None:
    if not sender.has(stream):
        return None
    return receiver.receive(sender.bundle(stream), f"{sender.name}->{receiver.name}")


def gossip(machines: list[Machine], stream: str) -> int:
    """Everyone sends to everyone until no head changes; the number of rounds it took."""
    for round_no in range(1, MAX_GOSSIP_ROUNDS + 1):
        before = [m.head(stream) if m.has(stream) else None for m in machines]
        for a in machines:
            for b in machines:
                if a is not b:
                    send(a, b, stream)
        after = [m.head(stream) if m.has(stream) else None for m in machines]
        if after == before and len(set(after)) == 1:
            return round_no
    raise AssertionError(f"no convergence after {MAX_GOSSIP_ROUNDS} rounds of gossip: "
                         f"{[m.head(stream) for m in machines]}")


def table(tmp: Path, names: tuple[str, ...], seats: dict[str, tuple[str, ...]], *, stream: str, ruleset: str,
          setup: dict[str, Any] | None = None, dice: str = "joint", options: dict[str, str] | None = None,
          sqlite: bool = False) -> dict[str, Machine]:
    """Machines (one per key of ``seats``) for a combat pinning ``names``, created by the first name's
    machine and delivered to every other. The caller holds ``tests.trust.pbem.key_home`` open."""
    from combatlog.store.sqlite import SQLiteStore
    from combatlog.trust.keys import new_key
    from combatlog.trust.players import make_signer, pin_players

    for name in names:
        new_key(name)
    players, _signer = pin_players(list(names), names[0])
    signers = {name: make_signer(name) for name in names}
    machines = {m: Machine(m, who, signers, SQLiteStore(tmp / f"{m}.db") if sqlite else None)
                for m, who in seats.items()}
    creator = next(m for m in machines.values() if names[0] in m.players)
    create_combat(creator.store, stream, ruleset, actor=names[0], setup=setup, dice=dice, players=players,
                  signer=signers[names[0]], options=options)
    for m in machines.values():
        if m is not creator:
            send(creator, m, stream)
    return machines
