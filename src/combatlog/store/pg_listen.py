"""Hearing appends made by any process on a PostgreSQL log: ``LISTEN combatlog_events``.

Every statement that inserts events sends, when its transaction commits, one notification per
stream (migration 4 in pg_schema.py): ``SCHEMA STREAM SEQ``. ``EventListener`` keeps a connection of
its own (a listening connection must not run the store's queries) on a daemon thread, and calls
``on_event(stream, seq)`` for each notification of its own schema (the URL's search_path: several
logs in one database each hear only theirs).

A lost connection is reopened, after a pause that doubles up to ``MAX_PAUSE_S``; notifications sent
while it was down are lost, so ``on_connected()`` is called after every (re)connection, once
LISTEN is in force: the caller then re-reads what it waits on. The thread never stops on an error.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from combatlog.store.pg_schema import NOTIFY_CHANNEL
from combatlog.store.postgres import _psycopg, redact

log = logging.getLogger("combatlog.store")

MAX_PAUSE_S = 5.0
WAKE_S = 0.5  # how often the thread looks at its stop flag while no notification comes


class EventListener:
    def __init__(self, url: str, on_event: Callable[[str, int], None],
                 on_connected: Callable[[], None] = lambda: None) -> None:
        self.url, self.on_event, self.on_connected = url, on_event, on_connected
        self.connected = threading.Event()  # set while LISTEN is in force
        self.heard = 0  # notifications of this schema, for tests and figures
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="combatlog-listen", daemon=True)

    def start(self) -> EventListener:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        pg = _psycopg()
        pause = 0.1
        while not self._stop.is_set():
            try:
                with pg.connect(self.url, autocommit=True, connect_timeout=10,
                                application_name="combatlog-listen") as conn:
                    schema = conn.execute("SELECT current_schema()").fetchone()[0]
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    self.connected.set()
                    pause = 0.1
                    self.on_connected()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=WAKE_S):
                            self._deliver(schema, note)
            except pg.Error as exc:
                log.warning("listening for appends on %s: %s; reconnecting", redact(self.url),
                            str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
            except Exception:  # a callback's bug must not end the thread: log it and go on
                log.exception("listening for appends on %s", redact(self.url))
            finally:
                self.connected.clear()
            self._stop.wait(pause)
            pause = min(pause * 2, MAX_PAUSE_S)

    def _deliver(self, schema: str | None, note: Any) -> None:
        parts = str(note.payload).split(" ")
        if len(parts) != 3 or parts[0] != schema or not parts[2].isdigit():
            return
        self.heard += 1
        self.on_event(parts[1], int(parts[2]))
