"""Issue 37 item 7, views and verify agree: a snapshot edited in one's own log file is never drawn, and
``verify`` names it.

A snapshot is a row of the local database, as writable as any other by whoever holds the file: the views of a
combat of real size (up to ``FOLD_WHOLE_UP_TO`` events) are folded from its events alone, and ``verify`` (and the
report, which verifies as it walks) compares every snapshot this build would read with the fold at its seq
(``projections/fold.py``'s docstring).
"""

from __future__ import annotations

import sqlite3

from combatlog.projections.fold import FOLD_WHOLE_UP_TO, save_snapshot, state_at
from combatlog.projections.streams import resolve_stream
from combatlog.store.sqlite import SQLiteStore
from tests.conftest import Cli

GRIMSBY = b'"name":"Grimsby","side":"bruisers","hp":9,'


def _doctor(cli: Cli) -> int:
    """The tavern brawl played, a snapshot of its end saved as the write path saves one, then edited in the
    file with sqlite3: Grimsby back at 99 hp and the fight not over. The snapshot's seq."""
    cli("run", "docs/examples/freeform/tavern-brawl.cmds")
    store = SQLiteStore(cli.db)
    try:
        meta = resolve_stream(store, "tavern")
        head = state_at(store, meta)
        save_snapshot(store, meta, head)
    finally:
        store.close()
    assert head.core.head_seq <= FOLD_WHOLE_UP_TO
    with sqlite3.connect(cli.db) as conn:
        (blob,) = conn.execute("SELECT blob FROM snapshots WHERE seq = ?", (head.core.head_seq,)).fetchone()
        assert GRIMSBY in blob and b'"ended":true' in blob
        doctored = blob.replace(GRIMSBY, GRIMSBY.replace(b'"hp":9,', b'"hp":99,')).replace(
            b'"ended":true', b'"ended":false').replace(b'"in_round":false', b'"in_round":true')
        conn.execute("UPDATE snapshots SET blob = ? WHERE seq = ?", (doctored, head.core.head_seq))
    conn.close()
    return head.core.head_seq


def test_a_doctored_snapshot_is_not_drawn_and_verify_names_it(cli: Cli) -> None:
    seq = _doctor(cli)
    show = cli("show", "tavern", "--json").json()
    grimsby = next(p for p in show["state"]["participants"] if p["name"] == "Grimsby")
    assert grimsby["hp"] == 9 and show["finished"] is True
    assert "finished" in cli("status", "tavern").out
    assert cli("status", "tavern", "--json").json()  # (the fast path too)
    sheet = cli("sheet", "tavern", "-o", "-").out
    assert "Grimsby: 9 of 14 hp" in sheet and "99 of 14" not in sheet
    report = cli("report", "tavern", "-o", "-").out  # (it verifies as it walks: the snapshot is checked too)
    assert "VERIFICATION FAILED" in report and f"snapshot of the state after seq {seq}" in report
    refused = cli("verify", "tavern", ok=False)
    assert refused.code != 0
    said = refused.out + refused.err
    assert f"snapshot of the state after seq {seq}" in said and f"tavern#{seq}" in said, said


def test_an_honest_snapshot_verifies(cli: Cli) -> None:
    cli("run", "docs/examples/freeform/tavern-brawl.cmds")
    store = SQLiteStore(cli.db)
    try:
        meta = resolve_stream(store, "tavern")
        save_snapshot(store, meta, state_at(store, meta, 20))
        save_snapshot(store, meta, state_at(store, meta))
    finally:
        store.close()
    assert cli("verify", "tavern").out.startswith("ok: tavern")
