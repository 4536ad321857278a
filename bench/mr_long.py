"""One long Magic Realm combat, built in-process through ``execute`` (for bench_verify.py).

Nobody dies and the combat never ends: the Witch King and the Sorceror each own a Book of Lore
holding Fiery Blast, and every round each casts it from the book at the other (time 0: both come to
life, neither cancels the other, MR 8.4.3) and then places no attack, so the spell expires unused
(MR 8.4.4) and its Spell card returns to the book; no Magic chit is played, so nothing fatigues. A
round with a spell is not quiet, so the "two rounds without harm, fatigue or spells" end never comes
(MR tables, end of combat). The clearing holds only the two characters: the only die is each round's
Attention chit order (``rN/attention/1``, entered by hand), and no denizen is left to lure or assign.

A round is deploy x2, action (cast) x2, melee, target x2, play x2, resolve: 11 events. Each round's
state is saved as a snapshot so that building 10,000 events does not re-fold the log for every command
(``execute`` keeps one only every 500 events); at the end only those ``execute`` would have kept are left,
as in a combat played command by command.
"""

from __future__ import annotations

from typing import Any

SETUP: dict[str, Any] = {
    "clearing": {"name": "Ruins 5", "type": "woods", "color_magic": "purple"},
    "first_round_of_day": False,
    "characters": [
        {"id": id_, "character": name, "player": player, "level": 4, "spells": ["Fiery Blast"],
         "artifacts": [{"name": "Book of Lore", "magic_type": "IV", "spells": ["Fiery Blast"]}]}
        for id_, name, player in (("wking", "Witch King", "alice"), ("sorc", "Sorceror", "bob"))
    ],
    "denizens": [],
}
OTHER = {"wking": "sorc", "sorc": "wking"}


def api() -> tuple[Any, Any, Any]:
    """``create_combat``, ``execute`` and ``verify_stream`` of the checkout imported: from the composition root
    (combatlog.wiring) where it has them, else (commit 948291d, the "before" of docs/benchmarks.md) from their
    own modules, which then defaulted to the standard wiring."""
    try:
        from combatlog.wiring import create_combat, execute, verify_stream
    except ImportError:
        from combatlog.commands.handler import create_combat, execute
        from combatlog.exchange.bundle import verify_stream
    return create_combat, execute, verify_stream


def build(store: Any, name: str, events: int) -> None:
    """Create ``name`` and play rounds until it holds at least ``events`` events (one combat)."""
    from combatlog.projections.fold import save_snapshot
    from combatlog.projections.streams import resolve_stream
    from combatlog.rulesets.magic_realm import commands as c

    create_combat, execute, _verify = api()
    create_combat(store, name, "magic_realm", actor="gm", setup=SETUP, dice="manual")
    meta = resolve_stream(store, name)

    def do(command: Any, faces: dict[str, tuple[int, ...]] | None = None) -> Any:
        return execute(store, name, command, actor="gm", manual_faces=faces or {})

    out = None
    round_ = 1
    while out is None or out.last_seq < events:
        for who in OTHER:
            do(c.Deploy(character=who))
        for who in OTHER:
            do(c.Act(character=who, kind="cast", spell="Fiery Blast", items=("Book of Lore",)))
        # one die over the two Attention chits; alternate who selects targets first
        out = do(c.StartMelee(), {f"r{round_}/attention/1": (1 + round_ % 2,)})
        for who in out.folded.state.attention:
            do(c.Target(character=who, spell_targets=(OTHER[who],)))
        for who in OTHER:
            do(c.Play(character=who))
        out = do(c.Resolve())
        state = out.folded.state
        if state.ended or state.round != round_ + 1:
            raise SystemExit(f"the long Magic Realm combat stopped in round {round_}: {state.end_reason}")
        save_snapshot(store, meta, out.folded)
        round_ += 1
    _keep_the_write_paths_snapshots(store, meta.id)


def _keep_the_write_paths_snapshots(store: Any, stream_id: str) -> None:
    """Only the snapshots the write path would have kept (the first command end past every SNAPSHOT_EVERY events),
    as in a combat played command by command."""
    from combatlog.projections.fold import SNAPSHOT_EVERY

    seqs = [seq for (seq,) in store.conn.execute("SELECT seq FROM snapshots WHERE stream = ? ORDER BY seq",
                                                  (stream_id,))]
    kept, last = set(), 0
    for seq in seqs:
        if seq // SNAPSHOT_EVERY > last // SNAPSHOT_EVERY:
            kept.add(seq)
            last = seq
    store.conn.executemany("DELETE FROM snapshots WHERE stream = ? AND seq = ?",
                           [(stream_id, seq) for seq in seqs if seq not in kept])
    store.conn.commit()
