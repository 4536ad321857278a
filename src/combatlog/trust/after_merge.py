"""After a merge: what each player has seen of the log, and which of his decisions he still owes.

A merge (``exchange/merge.py``) keeps one branch, *places* the other branch's decisions after it where
they still stand (``Envelope.placed``: the author's signature stays valid for the place he decided
at), and keeps the rest in the store's ``superseded`` table. Three facts follow for a player:

- **What he holds.** An event he signed in the log (not placed: a placed event is where the merge
  put it, not where he signed it) shows he held the log below it. A placed decision of his shows he
  held the log up to where he made it (``placed.seq - 1``, when ``placed.prev`` is that event's hash).
  A superseded decision of his shows he held the log up to where his branch parted from the kept one.
  The highest of these is what he holds: ``mail`` and ``export --for`` send the events after it, and
  ``mail`` narrates only those.
- **His placed decisions** are not news to him: a mail tells each in one line.
- **What he owes.** A decision of his that sits in ``superseded``, has no event of the same command id
  in the log, and after whose parting point he has signed nothing in the log (so his machine has not
  yet seen the merge, or it refused to re-apply it) is his to make again: his machine re-applies it
  when he imports the merge (the same command id), else he decides it again. Unless the rules would
  refuse it now (re-decided on the log as it stands: the winner's move made it illegal): then it cannot
  be made again, and he is told why instead, once, and nobody waits for it.

Acknowledgements and chain links are never owed: the seed step they belong to asks for them itself.

**Told once, with one reason.** Why a decision cannot be made again is the reason the merge gave, kept in
this machine's store when the merge ran (or when first computed here, for a merge another machine made),
never re-decided on a later head (where it would read otherwise, or even seem allowed in another round). Its
author is told once on a machine: by the import that merged it, by ``status --mine``, or by the first mail
for him that says it; later ones do not repeat it. These notes are local (``secrets``, never exported).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from combatlog.errors import CombatlogError
from combatlog.events.envelope import Envelope, decode_envelope
from combatlog.projections.plumbing import is_plumbing
from combatlog.store.base import EventStore, StreamMeta

RULE_OWED = "trust: concurrent moves"


class PlacedDecision(msgspec.Struct, frozen=True):  # (not a dataclass: status imports this module)
    """A decision a merge placed after the kept branch: its events in the log and where it was made."""

    actor: str
    first: int  # its first and last seq in the log
    last: int
    decided_as: int  # the seq it had where its author made it
    what: str  # the ruleset's sentence for its first event


class Owed(msgspec.Struct, frozen=True):
    """A decision its author still owes: not kept by a merge, not placed, not re-applied."""

    player: str
    what: str  # the ruleset's sentence for its first event
    was: int  # its seq in the branch that was not kept
    merge_at: int  # the seq after which the branches parted
    command_id: str
    # Why the rules would refuse the decision now, re-decided on the log as it stands ('' when they would accept
    # it, or when it records no command to re-decide): then it cannot be made again, and nobody owes it.
    refused: str = ""
    told: bool = False  # the author was already told on this machine (a dropped decision is said once)

    @property
    def owed(self) -> bool:
        return not self.refused

    def line(self, reader: str | None, *, in_mail: bool = False) -> str:
        """The words for the owing player (``reader``; ``in_mail``: in a mail that carries the merge), or for
        anyone else: no hash, no internal id."""
        if self.refused:  # said once, so that nobody waits for it: not "decide it again"
            whose = "your decision" if reader == self.player else f"{self.player}'s decision"
            return (f"{whose} \u201c{self.what}\u201d (was #{self.was}) was not kept by the merge at #{self.merge_at} "
                    f"and cannot be made again now: {self.refused}; nobody owes it")
        if reader == self.player:
            how = ("importing this mail applies it again on your machine, if the rules still allow it" if in_mail
                   else "import the mail that brought that merge if you have not (your machine then applies it "
                        "again, if the rules still allow it)")
            return (f"your decision \u201c{self.what}\u201d (was #{self.was}) was not kept by the merge at "
                    f"#{self.merge_at} and could not be placed after it: {how}; else decide it again")
        return (f"{self.player}'s decision \u201c{self.what}\u201d (was #{self.was}) was not kept by the merge at "
                f"#{self.merge_at} and could not be placed after it: {self.player} applies it again by importing "
                "that merge, or decides it again")


class AfterMerge:
    """One pass over a stream's log and its superseded events (see the module's docstring)."""

    def __init__(self, store: EventStore, meta: StreamMeta) -> None:
        self.store, self.meta = store, meta
        unique = {r.hash: r.body for r in store.superseded(meta.id)}  # kept twice by two merges: once here
        self.superseded = sorted((decode_envelope(body) for body in unique.values()), key=lambda e: e.seq)
        self._log: list[Envelope] | None = None  # read when first needed: ``owed`` of a log never merged needs none

    @property
    def log(self) -> list[Envelope]:
        if self._log is None:
            self._read_log()
        return self._log  # type: ignore[return-value]

    def _read_log(self) -> None:
        from combatlog.projections.fold import lineage

        log: list[Envelope] = []
        for seg, low, high in lineage(self.store, self.meta):
            log += [decode_envelope(r.body) for r in self.store.read_stream(seg.id, low, high)]
        log.sort(key=lambda e: e.seq)
        self._log = log
        self._hash_at = {e.seq: e.hash for e in log}
        self._in_log = set(self._hash_at.values())
        # Events off the log, by hash, to walk a branch back to where it parted: superseded events, and
        # placed events as their authors made them (a run of one author's decisions is placed whole).
        self._off_log: dict[str, Envelope] = {e.hash: e for e in self.superseded}
        for env in log:
            if env.is_placed:
                original = env.original()
                self._off_log[original.hash] = original
        self._signed: dict[str, int] = {}
        for env in log:
            if not env.is_placed:
                self._signed[env.actor] = max(self._signed.get(env.actor, 0), env.seq)

    # -- what a player holds ----------------------------------------------------------------------
    def held_through(self, prev: str, seq: int) -> int | None:
        """The last seq of this log held by whoever held the event ``prev`` at ``seq`` (None: unknown)."""
        if self._log is None:  # the walk below uses what reading the log derives
            self._read_log()
        for _ in range(len(self._off_log) + 1):  # bounded: each step goes one event back
            if self._hash_at.get(seq) == prev:
                return seq
            env = self._off_log.get(prev)
            if env is None or env.seq != seq:
                return None
            prev, seq = env.prev, env.seq - 1
        return None

    def held(self, player: str) -> tuple[int, str]:
        """(the last seq of this log ``player`` is known to hold, why: ``signed``, ``placed`` or ``parted``)."""
        log = self.log
        best, why = self._signed.get(player, 0), "signed"
        for env in log:
            if env.actor == player and env.is_placed:
                at = self.held_through(env.placed.prev, env.placed.seq - 1)  # type: ignore[union-attr]
                if at is not None and at > best:
                    best, why = at, "placed"
        for env in self.superseded:
            if env.actor == player:
                at = self.held_through(env.prev, env.seq - 1)
                if at is not None and at > best:
                    best, why = at, "parted"
        return best, why

    # -- placed decisions -------------------------------------------------------------------------
    def placed_of(self, player: str, after: int, ruleset: Any) -> list[PlacedDecision]:
        """``player``'s placed decisions after seq ``after``, one per command."""
        out: list[PlacedDecision] = []
        for batch in _batches(e for e in self.log if e.seq > after and e.is_placed and e.actor == player):
            first = batch[0]
            out.append(PlacedDecision(actor=player, first=first.seq, last=batch[-1].seq,
                                      decided_as=first.placed.seq,  # type: ignore[union-attr]
                                      what=_what(ruleset, batch)))
        return out

    # -- what is owed -----------------------------------------------------------------------------
    def _not_in_log(self) -> Iterator[tuple[list[Envelope], int]]:
        """Each superseded decision the log does not hold (not placed, re-applied or kept again by a later merge;
        not plumbing, which its step asks for again), once, with the last seq its branch shared with the log."""
        in_log = {(e.actor, e.command_id) for e in self.log}
        seen: set[tuple[str, str]] = set()
        for batch in _batches(self.superseded):
            first = batch[0]
            key = (first.actor, first.command_id)
            if key in seen or key in in_log or any(e.hash in self._in_log for e in batch) \
                    or all(is_plumbing(e.type) for e in batch):
                continue
            seen.add(key)
            parted = self.held_through(first.prev, first.seq - 1)
            yield batch, parted if parted is not None else first.seq - 1

    def owed(self, ruleset: Any, folded: Any = None) -> list[Owed]:
        """Every decision still owed by its author, in the order it was made. With ``folded`` (the log's head),
        each is re-decided there: one the rules would refuse now carries why (``Owed.refused``), and is owed by
        nobody (the caller says so once)."""
        if not self.superseded:
            return []  # nothing was ever replaced by a merge: the log is not read (status asks on every call)
        out: list[Owed] = []
        for batch, merge_at in self._not_in_log():
            first = batch[0]
            if self._signed.get(first.actor, 0) > merge_at:
                continue  # he signed on the kept branch: his machine has seen the merge and settled it
            out.append(Owed(player=first.actor, what=_what(ruleset, batch), was=first.seq, merge_at=merge_at,
                            command_id=first.command_id, refused=self._reason(first, folded),
                            told=told(self.store, self.meta.id, first.actor, first.command_id)))
        return out

    def _reason(self, first: Envelope, folded: Any) -> str:
        """Why ``first``'s decision cannot be made again: the reason the merge gave (kept here), else the one the
        rules give now, kept from then on ('' while they would accept it: it is owed)."""
        kept = self.store.get_secret(_reason_note(self.meta.id, first.command_id))
        if kept is not None:
            return kept.decode("utf-8", "replace")
        reason = _refusal(folded, first) if folded is not None else ""
        if reason:
            keep_reason(self.store, self.meta.id, first.command_id, reason)
        return reason

    # -- what the timeline says of what a merge did not keep --------------------------------------------------
    def not_kept(self, ruleset: Any) -> list[NotKept]:
        """Every decision a merge superseded that is not in the log (dropped, or still owed), with the dice it
        rolled: the timeline shows each where its branch parted, so a first roll is never only in ``superseded``."""
        if not self.superseded:
            return []
        out: list[NotKept] = []
        for batch, after in self._not_in_log():
            first = batch[0]
            rolls = [f"{d.label} {d.notation} = {', '.join(map(str, d.faces))}"
                     for d in (e.payload() for e in batch if e.type == _DICE_TAG)]
            out.append(NotKept(player=first.actor, what=_what(ruleset, batch), was=first.seq, after=after,
                               rolls=rolls))
        return out


class NotKept(msgspec.Struct, frozen=True):
    """A decision a merge superseded and the log does not hold: where its branch parted, and its dice."""

    player: str
    what: str
    was: int
    after: int  # the last seq its branch shared with the log
    rolls: list[str]

    def line(self) -> str:
        dice = f"; its roll{'s' if len(self.rolls) > 1 else ''}: {'; '.join(self.rolls)}" if self.rolls else ""
        return (f"{self.player}'s \u201c{self.what}\u201d (was #{self.was}), made on #{self.after}, was not kept by a "
                f"merge{dice}")


_DICE_TAG = "core.dice_rolled"


# -- this machine's notes: the reason a merge gave, and to whom it was told ------------------------------------

def _reason_note(stream_id: str, command_id: str) -> str:
    return f"not-kept:{stream_id}:{command_id}"


def _told_note(stream_id: str, player: str, command_id: str) -> str:
    return f"told:{stream_id}:{player}:{command_id}"


def keep_reason(store: EventStore, stream_id: str, command_id: str, reason: str) -> None:
    """The reason a decision was not kept, as the merge (or the first reading here) gave it: kept, never replaced."""
    if store.get_secret(_reason_note(stream_id, command_id)) is None:
        store.put_secret(_reason_note(stream_id, command_id), reason.encode("utf-8"))


def told(store: EventStore, stream_id: str, player: str, command_id: str) -> bool:
    return store.get_secret(_told_note(stream_id, player, command_id)) is not None


def mark_told(store: EventStore, stream_id: str, player: str, command_id: str) -> None:
    """``player`` has been told on this machine that his decision ``command_id`` was not kept."""
    store.put_secret(_told_note(stream_id, player, command_id), b"1")


def held_by(store: EventStore, meta: StreamMeta) -> dict[str, int]:
    """Per pinned player, the last seq of ``meta`` they hold (``exchange/outbox.since_for``'s input)."""
    from combatlog.trust.players import genesis_of

    genesis = genesis_of(store, meta)
    if genesis is None or not genesis.players:
        return {}
    seen = AfterMerge(store, meta)
    return {p.name: seen.held(p.name)[0] for p in genesis.players}


def _refusal(folded: Any, first: Envelope) -> str:
    refused = refusal(folded, first)
    return refused.message if refused is not None else ""


def refusal(folded: Any, first: Envelope) -> CombatlogError | None:
    """Why the rules would refuse, on ``folded`` (the log as it stands), the command recorded on ``first`` (a
    batch's first envelope), issued again by its author: authority and ``decide`` as the write path runs them,
    dice drawn as placeholders (only whether the rules accept it matters here). None when they accept it, or
    when the batch records no command (a core command: a note, a seal) or the command cannot be read."""
    from combatlog.commands.authority import check_authority, roles_of
    from combatlog.commands.record import decode_record
    from combatlog.dice.port import DicePort

    if first.command is msgspec.UNSET or folded.state is None:
        return None
    ruleset = folded.ruleset
    try:
        command = decode_record(ruleset.info.name, ruleset.command_types, first.command)  # type: ignore[arg-type]
    except CombatlogError:
        return None
    port = DicePort(scheme="manual", actor=first.actor, labels_taken=folded.core.labels, collect_missing=True,
                    owns_label=ruleset.owns_label, ruleset=ruleset.info.name)
    try:
        check_authority(ruleset, folded.state, roles_of(ruleset, folded.core.genesis, folded.core.creator),
                        command, first.actor)
        ruleset.decide(folded.state, command, port)
    except CombatlogError as exc:
        return exc
    except Exception:  # a command these rules cannot even run: not a refusal to report as theirs
        return None
    return None


def _what(ruleset: Any, batch: list[Envelope]) -> str:
    """The ruleset's sentence for a decision (its first event that is not plumbing)."""
    env = next((e for e in batch if not is_plumbing(e.type)), batch[0])
    try:
        return str(ruleset.summarize(env.payload()))
    except (CombatlogError, msgspec.MsgspecError):  # a type this engine cannot read: its name says what it was
        return env.type


def _batches(envs: Any) -> Iterator[list[Envelope]]:
    """Runs of consecutive events of one command (same actor and command id)."""
    run: list[Envelope] = []
    for env in envs:
        if run and ((run[-1].actor, run[-1].command_id) != (env.actor, env.command_id) or env.seq != run[-1].seq + 1):
            yield run
            run = []
        run.append(env)
    if run:
        yield run
