"""Write docs/pictures/*.svg: one picture per ruleset, drawn by ``combatlog sheet`` from an example combat.

Run ``python -m combatlog.pictures.gallery`` after changing a picture or a ruleset's ``describe``;
tests/pictures/test_gallery.py fails while a committed picture differs from what the command draws.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[3] / "docs"

# ruleset -> (example under docs/examples, combat name, sheet options)
GALLERY = {
    "magic_realm": ("magic_realm/giant-and-goblins.cmds", "giant-goblins", ("--round", "1")),
    "freeform": ("freeform/tavern-brawl.cmds", "tavern", ("--round", "2")),
    "classic_fantasy": ("classic_fantasy/skirmish.cmds", "skirmish", ()),
    "osric": ("osric/bridge.cmds", "bridge", ("--round", "1")),
    "argad": ("argad/band-vs-ogre-and-troll.cmds", "wall", ("--round", "2")),
}


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMBATLOG_")}
    proc = subprocess.run([sys.executable, "-m", "combatlog.cli.app", "--db", str(db), *args], cwd=DOCS.parent,
                          env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"combatlog {' '.join(args)} failed:\n{proc.stderr}")
    return proc


def draw_gallery(into: Path) -> dict[str, Path]:
    """Play each gallery example into a fresh log and draw its picture into ``into``."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for ruleset, (example, name, options) in GALLERY.items():
            db = Path(tmp) / f"{ruleset}.db"
            _cli(db, "run", "--quiet", str(DOCS / "examples" / example))
            target = into / f"{ruleset}.svg"
            _cli(db, "sheet", name, *options, "-o", str(target))
            out[ruleset] = target
    return out


def main() -> None:
    folder = DOCS / "pictures"
    folder.mkdir(exist_ok=True)
    for ruleset, path in draw_gallery(folder).items():
        print(f"wrote {path.relative_to(DOCS.parent)} ({ruleset})")


if __name__ == "__main__":
    main()
