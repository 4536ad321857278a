"""Argad playouts: the two example set-ups (docs/examples/argad/), local dice, no players pinned."""

from tests.playout_setups import Setup, new

SETUPS = [
    Setup("argad", "goblins", (new("argad", "goblins", "warrior-vs-goblins.json"),)),
    Setup("argad", "wall", (new("argad", "wall", "band-vs-ogre-and-troll.json"),)),
]
