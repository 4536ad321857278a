"""Magic Realm playouts: the three example set-ups (docs/examples/magic_realm/*.json), and two with their players
pinned, so that the plays are sealed (mr play --seal, then mr reveal): with local dice, and with joint dice, whose
seed steps (mr seed, the referee's step revealing his closing link first) are offered by the moves too."""

from tests.playouts import Setup, new

SETUPS = [
    Setup("magic_realm", "giant-goblins", (new("magic_realm", "giant-goblins", "giant-and-goblins.json"),)),
    Setup("magic_realm", "bashkars", (new("magic_realm", "bashkars", "bashkar-ambush.json"),)),
    Setup("magic_realm", "peace", (new("magic_realm", "peace", "peace-and-goblins.json"),)),
    Setup("magic_realm", "sealed-bashkars",
          (new("magic_realm", "sealed-bashkars", "bashkar-ambush.json", "--player", "carol", "--player", "dave", "--as", "carol"),),
          players=("carol", "dave")),
    Setup("magic_realm", "joint-bashkars",
          (new("magic_realm", "joint-bashkars", "bashkar-ambush.json", "--player", "carol", "--player", "dave",
               "--as", "carol", "--dice", "joint"),),
          players=("carol", "dave")),
]
