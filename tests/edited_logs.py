"""A small log written in-process, and a way to edit one of its stored events as a cheat would edit the
database file: shared by the tests of the report and of the live page, which must both show a log that
fails verification whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def small_brawl(path: Path) -> tuple[Any, Any, int]:
    """A small freeform brawl with dice entered by hand, written in-process: (store, meta, last seq)."""
    from combatlog.rulesets.freeform import commands as c
    from combatlog.store.sqlite import SQLiteStore
    from combatlog.wiring import create_combat, execute

    store = SQLiteStore(path)
    create_combat(store, "brawl", "freeform", actor="gm", dice="manual")
    execute(store, "brawl", c.Join(name="Aldo", side="red", hp=20), actor="gm")
    execute(store, "brawl", c.Join(name="Bo", side="blue", hp=20), actor="gm")
    for rnd in (1, 2, 3):
        execute(store, "brawl", c.StartRound(), actor="gm")
        label = f"r{rnd}/Aldo/act"  # the rules' own label for it (a player may not name one of theirs)
        execute(store, "brawl", c.Act(who="Aldo", action="swings at Bo", roll="1d20"), actor="gm",
                manual_faces={label: (rnd + 5,)})
        last = execute(store, "brawl", c.ChangeHp(who="Bo", amount="3", reason="a blow"), actor="gm")
    return store, store.list_streams()[0], last.last_seq


def rewrite_event(store: Any, seq: int, change: Callable[[Any], Any]) -> None:
    """Replace the stored bytes of event ``seq`` by ``change(its envelope)``, in canonical form (a log edited
    in its database file)."""
    from combatlog.events.canonical import canonical
    from combatlog.events.envelope import decode_envelope

    body = bytes(store.conn.execute("SELECT body FROM events WHERE seq = ?", (seq,)).fetchone()[0])
    env = decode_envelope(body)
    assert canonical(env) == body
    store.conn.execute("UPDATE events SET body = ? WHERE seq = ?", (canonical(change(env)), seq))
    store.conn.commit()
