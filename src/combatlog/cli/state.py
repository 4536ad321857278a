"""The state every command of one invocation shares (its log, its actor), without click or typer: the
fast path of ``status`` (cli/fast.py) uses it as the typer commands do (cli/common.py re-exports it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combatlog.errors import InvalidCommand

if TYPE_CHECKING:
    from combatlog.commands.handler import Signer
    from combatlog.projections.fold import Folded
    from combatlog.store.base import EventStore, StreamMeta


class Interrupted(Exception):
    """Ctrl-C while a command ran: carried past typer, which would turn it into an exit status returned like a
    command's result (cli/root.py), to ``app.main``, which exits with 130."""


def default_actor() -> str:
    """Who acts when --as is not given: the only secret key in the key home (this machine is that
    player's), else gm."""
    from combatlog.trust.keys import only_secret_key

    return only_secret_key() or "gm"


# Plain classes, not dataclasses: ``status`` imports this module, and dataclasses imports inspect (about a
# tenth of its start-up).
class RunMemo:
    """What the lines of one run FILE share, so that a line does not redo what the previous one did."""

    __slots__ = ("heads", "streams", "signers", "resumed", "skipped")

    def __init__(self) -> None:
        self.heads: dict[str, Folded] = {}  # stream id -> its state at its head
        self.streams: dict[str, StreamMeta] = {}  # exact name or id -> the combat
        self.signers: dict[str, Signer | None] = {}  # stream id -> the actor's signer
        # stream id -> the last seq of the run's latest line found already recorded there, until a line records
        self.resumed: dict[str, int] = {}
        self.skipped = 0  # lines found already recorded (a retry), said even with --quiet (runner.py)

    def noted(self, stream_id: str, duplicate: bool, last_seq: int) -> None:
        """A line of the run was recorded (or found already recorded, ``duplicate``) in ``stream_id``."""
        if duplicate:
            self.resumed[stream_id] = last_seq
            self.skipped += 1
        else:
            self.resumed.pop(stream_id, None)  # checked once, at the first line that records (check_resumed)

    def check_resumed(self, store: EventStore, meta: StreamMeta, command_id: str | None, actor: str) -> None:
        """Refuse to record a line after lines found already recorded when the log holds, right after them,
        another line of a command file run by this actor: the file was edited after it ran.

        Each line's command id chains the lines before it (runner.py), so a line changed after it ran is new,
        and so is every line after it: they would all be recorded a second time. A line fixed after it failed,
        or lines added at the end, follow the last recorded line with nothing after it (or with commands typed
        by hand since), and run."""
        after = self.resumed.get(meta.id)
        if after is None or command_id is None or store.command_result(meta.id, command_id) is not None:
            return
        from combatlog.events.envelope import decode_envelope

        rows = store.read_stream(meta.id, after + 1, after + 1)
        if not rows:
            return
        env = decode_envelope(rows[0].body)
        if env.command_id.startswith("run:") and env.actor == actor:
            raise InvalidCommand(
                f"{meta.name} has this file's lines recorded up to #{after}, and #{after + 1} ({env.type}) was "
                f"recorded by another line of a command file run by {actor}, not by this one: was this line, or "
                "one before it, changed after it ran (or is another run of this file recording it now)? Nothing was "
                "recorded (running on would record the rest of the file twice). Restore the line as it ran, or put "
                "new commands in a file of their own (--fresh records every line anew)")


class AppState:
    __slots__ = ("db", "actor", "command_id", "_store", "run", "borrowed")

    def __init__(self, db: str | None = None, actor: str = "gm", command_id: str | None = None, _store: Any = None,
                 run: RunMemo | None = None, borrowed: bool = False) -> None:
        self.db = db
        self.actor = actor
        self.command_id = command_id
        self._store = _store
        self.run = run  # set while run FILE plays its lines
        self.borrowed = borrowed  # the store belongs to an enclosing run FILE, which closes it

    def __repr__(self) -> str:
        return f"AppState(db={self.db!r}, actor={self.actor!r}, command_id={self.command_id!r})"

    def store(self) -> EventStore:
        if self._store is None:
            if self.db and self.db.startswith(("http://", "https://")):  # a combat server: its local replica
                from combatlog.remote.replica import open_replica

                self._store = open_replica(self.db, self.actor)
            else:
                from combatlog.store import open_store

                self._store = open_store(self.db)
        return self._store  # type: ignore[no-any-return]

    def for_line(self, db: str | None, actor: str, command_id: str | None) -> AppState | None:
        """The state of one line of run FILE: this run's open log and memo, when the line uses the same log as
        the same player (else None: the line opens its own)."""
        if self.run is None or (db, actor) != (self.db, self.actor):
            return None
        if (db or "").startswith(("http://", "https://")):
            return None  # a replica of a server is opened, and synced, by each line, as by each command
        return AppState(db=db, actor=actor, command_id=command_id, _store=self.store(), run=self.run,
                        borrowed=True)

    def resolve(self, ref: str) -> StreamMeta:
        """The combat ``ref`` names. In a run, remembered when ``ref`` is its exact name or id (neither ever
        changes; a prefix is looked up each time, as a combat created since could make it ambiguous)."""
        from combatlog.projections.streams import resolve_stream

        if self.run is None:
            return resolve_stream(self.store(), ref)
        meta = self.run.streams.get(ref)
        if meta is None:
            meta = resolve_stream(self.store(), ref)
            if ref in (meta.name, meta.id):
                self.run.streams[ref] = meta
        return meta

    def close(self) -> None:
        if self._store is not None and not self.borrowed:
            self._store.close()
            self._store = None



def read_state_of(st: AppState, stream: str, *, at: int | None = None,
                  round_no: int | None = None) -> tuple[StreamMeta, Folded]:
    """The folded state of ``stream`` at a seq, at the end of a round, or at its head."""
    from combatlog.projections.fold import round_end, state_at
    from combatlog.projections.streams import resolve_stream

    if at is not None and round_no is not None:
        raise InvalidCommand("give --at or --round, not both")
    store = st.store()
    meta = resolve_stream(store, stream)
    if round_no is not None:
        seq = round_end(state_at(store, meta), round_no)
        return meta, state_at(store, meta, seq)
    return meta, state_at(store, meta, at)


def log_exists(url: str) -> bool:
    """Whether the log at ``url`` is there to read, without creating a SQLite file."""
    from pathlib import Path

    return (url.startswith(("postgresql://", "postgres://", "http://", "https://")) or url in ("memory:", ":memory:")
            or Path(url).exists())
