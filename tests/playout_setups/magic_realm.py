"""Magic Realm playouts: the three example set-ups (docs/examples/magic_realm/*.json), and two with their players
pinned, so that the plays are sealed (mr play --seal, then mr reveal): with local dice, and with joint dice, whose
seed steps (mr seed, the referee's step revealing his closing link first) are offered by the moves too; and two
characters alone, pinned, with nobody else to fight: each round may be passed by one vote per player (version 3),
or played step by step, or turn into a fight between them."""

from pathlib import Path

from tests.playouts import Setup, new

QUIET = str(Path(__file__).with_name("magic_realm_quiet.json"))
PINNED = ("--player", "carol", "--player", "dave", "--as", "carol")

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
    Setup("magic_realm", "quiet-pinned", (new("magic_realm", "quiet-pinned", "", "--setup", QUIET, *PINNED),),
          players=("carol", "dave")),
    Setup("magic_realm", "quiet-joint",
          (new("magic_realm", "quiet-joint", "", "--setup", QUIET, *PINNED, "--dice", "joint"),),
          players=("carol", "dave")),
]
