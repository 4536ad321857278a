"""OSRIC playouts: the example combats (docs/examples/osric/) at one table (the referee's log, declarations
in clear), and the ford with pinned players (alice the party, bob the orcs, the creator referees), whose
declarations are sealed (rN/declare), with local and with joint dice."""

from pathlib import Path

from tests.playout_setups import Setup, new

PINNED = str(Path(__file__).with_name("osric_ford_players.json"))
PLAYERS = ("--player", "gm", "--player", "alice", "--player", "bob", "--as", "gm")

SETUPS = [
    Setup("osric", "ford", (new("osric", "ford", "ford.json"),)),
    Setup("osric", "bridge", (new("osric", "bridge", "bridge.json"),)),
    Setup("osric", "sealed", (new("osric", "sealed", "", "--setup", PINNED, *PLAYERS),), players=("gm", "alice", "bob")),
]
