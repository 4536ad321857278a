"""Players at a server: each a ``Seat`` (own log, own key home) with the server as remote ``origin``."""

from __future__ import annotations

from pathlib import Path

from tests.trust.pbem import Seat, seat_keys


def table(root: Path, url: str, names: tuple[str, ...] = ("alice", "bob", "carol"), *, stream: str = "duel",
          dice: str = "joint", create: bool = True) -> list[Seat]:
    """Seats with keys, every public key imported by every other seat; the first seat creates
    ``stream`` pinning them all and, with ``create``, puts it on the server."""
    seats = [Seat(name, root) for name in names]
    seat_keys(root, seats, everyone_imports=True)
    for seat in seats:
        seat("remote", "add", "origin", url)
    first = seats[0]
    first("new", stream, "--ruleset", "freeform", "--dice", dice, *[a for s in seats for a in ("--player", s.name)])
    if create:
        first("push", stream)
    return seats


def combat_id(seat: Seat, stream: str = "duel") -> str:
    rows = seat("list", "--json").json()
    return next(r["id"] for r in rows if r["name"] == stream)  # type: ignore[union-attr,index]
