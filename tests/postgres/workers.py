"""Writer and follower processes for the concurrency test (run as ``python workers.py ROLE ...``).

writer URL NAME COUNT OUT: creates its own combat, then alternates between its
own stream (single notes and batches of three) and the shared ``arena`` combat,
retrying on ConcurrencyConflict as a real client would. ``--slow`` makes its
appends dawdle (pg_sleep) after taking their positions and before committing,
to widen the window in which an event has a position but is not yet visible;
without it the writer uses the store's one-statement append as in production.

follower URL DONE OUT: follows the global order with ``read_all(after)`` pages
until the DONE file exists and a read comes back empty; writes every row seen.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path


def _dawdle(cur) -> None:  # type: ignore[no-untyped-def]
    """Positions taken, commit not yet done: sleep there for 0.5-4 ms."""
    cur.execute("SELECT pg_sleep(%s)", (random.uniform(0.0005, 0.004),))


def writer(url: str, name: str, count: int, out: Path, slow: bool = False) -> None:
    from combatlog.commands.core import AddNote
    from combatlog.commands.handler import new_command_id
    from combatlog.wiring import create_combat, execute
    from combatlog.errors import ConcurrencyConflict
    from combatlog.events.core import Noted
    from combatlog.events.envelope import encode_envelope, seal
    from combatlog.store import open_store
    from combatlog.store.base import NewRow

    store = open_store(url)
    if slow:
        store.hold_before_commit = _dawdle  # type: ignore[attr-defined]
    own = create_combat(store, f"own-{name}", "freeform", actor=name).stream.id
    arena = store.list_streams()
    arena_id = next(m.id for m in arena if m.name == "arena")
    appended: list[tuple[str, int, int]] = []
    conflicts = 0
    for i in range(count):
        while True:
            try:
                if i % 2:
                    res = execute(store, arena_id, AddNote(text=f"{name} {i}"), actor=name)
                    appended.append((arena_id, res.first_seq, res.last_seq))
                elif i % 4 == 0:  # a batch of three sealed straight onto the store
                    head = store.head(own)
                    cid, prev, rows = new_command_id(), head.hash, []
                    for k in range(3):
                        env = seal(stream=own, seq=head.seq + 1 + k, prev=prev, event=Noted(text=f"{name} {i}.{k}"),
                                   actor=name, command_id=cid)
                        rows.append(NewRow(env.seq, env.type, env.hash, encode_envelope(env)))
                        prev = env.hash
                    r = store.append(own, rows, expected_version=head.seq, command_id=cid)
                    appended.append((own, r.first_seq, r.last_seq))
                else:
                    res = execute(store, own, AddNote(text=f"{name} {i}"), actor=name)
                    appended.append((own, res.first_seq, res.last_seq))
                break
            except ConcurrencyConflict as exc:
                assert exc.actual > exc.expected, exc
                conflicts += 1
    store.close()
    out.write_text(json.dumps({"own": own, "appended": appended, "conflicts": conflicts}))


def follower(url: str, done: Path, out: Path, timeout: float = 60.0) -> None:
    from combatlog.store import open_store

    store = open_store(url)
    seen: list[tuple[int, str, int, str]] = []
    after = 0
    pages_while_writing = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        finished = done.exists()  # checked before the read: an empty read after it means we have it all
        page = store.read_all(after, limit=7)
        if page:
            seen += [(r.position, r.stream, r.seq, r.hash) for r in page]
            after = page[-1].position
            if not finished:
                pages_while_writing += 1
        elif finished:
            break
        else:
            time.sleep(0.001)
    store.close()
    out.write_text(json.dumps({"seen": seen, "pages_while_writing": pages_while_writing}))


if __name__ == "__main__":
    role, args = sys.argv[1], sys.argv[2:]
    slow = "--slow" in args
    args = [a for a in args if a != "--slow"]
    if role == "writer":
        writer(args[0], args[1], int(args[2]), Path(args[3]), slow)
    elif role == "follower":
        follower(args[0], Path(args[1]), Path(args[2]))
    else:
        raise SystemExit(f"unknown role {role}")
