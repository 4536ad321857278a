"""Freeform playouts: three participants, two sides, no rulebook."""

from tests.playout_setups import Setup, new

SETUPS = [
    Setup("freeform", "brawl", (
        new("freeform", "brawl"),
        ("freeform", "join", "brawl", "Aldo", "--side", "red", "--hp", "12"),
        ("freeform", "join", "brawl", "Bo", "--side", "blue", "--hp", "10"),
        ("freeform", "join", "brawl", "Cy", "--side", "blue", "--hp", "6"),
    )),
]
