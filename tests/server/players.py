"""Players at a server: each a ``Seat`` (own log, own key home) with the server as remote ``origin``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.trust.pbem import Seat, seat_keys, seats_built_once

# The URL the seats are first given, while built once per run (``table``): each test points them at its own server.
_NOWHERE = "http://127.0.0.1:9"


def table(root: Path, url: str, names: tuple[str, ...] = ("alice", "bob", "carol"), *, stream: str = "duel",
          dice: str = "joint", create: bool = True) -> list[Seat]:
    """Seats with keys, every public key imported by every other seat; the first seat creates
    ``stream`` pinning them all and, with ``create``, puts it on the server.

    The seats (keys, ``remote add``, ``new``) are made by the real CLI once per test run for the same names,
    stream and dice, and copied into ``root`` (tests/trust/pbem.py ``seats_built_once``): every server test
    starts from such a table, ~25 of them, 3-4 CLI calls each. The copies' remote is then set to ``url`` and
    the push, which is what the server sees, is each test's own. A run's tables share one combat id: no two
    of them meet on one server."""

    def build(folder: Path) -> list[Seat]:
        seats = [Seat(name, folder) for name in names]
        seat_keys(folder, seats, everyone_imports=True)
        for seat in seats:
            seat("remote", "add", "origin", _NOWHERE)
        first = seats[0]
        first("new", stream, "--ruleset", "freeform", "--dice", dice,
              *[a for s in seats for a in ("--player", s.name)])
        return seats

    seats = list(seats_built_once(root, "server-table-" + "-".join((stream, dice, *names)), build))
    for seat in seats:  # the remote ``remote add`` wrote, at this test's server
        remotes = seat.home / "remotes.json"
        config = json.loads(remotes.read_text())
        assert config["remotes"]["origin"]["url"] == _NOWHERE and not config["remotes"]["origin"]["tokens"]
        config["remotes"]["origin"]["url"] = url.rstrip("/")
        remotes.write_text(json.dumps(config))
    if create:
        seats[0]("push", stream)
    return seats


def combat_id(seat: Seat, stream: str = "duel") -> str:
    rows = seat("list", "--json").json()
    return next(r["id"] for r in rows if r["name"] == stream)  # type: ignore[union-attr,index]
