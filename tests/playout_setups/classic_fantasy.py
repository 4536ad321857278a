"""Classic Fantasy playouts: the example duel and skirmish (docs/examples/classic_fantasy/), local dice."""

from tests.playouts import Setup, new

SETUPS = [
    Setup("classic_fantasy", "duel", (new("classic_fantasy", "duel", "duel.json"),)),
    Setup("classic_fantasy", "skirmish", (new("classic_fantasy", "skirmish", "skirmish.json"),)),
]
