"""Re-deciding recorded commands: the legality of every event, re-derived on every machine.

Each ruleset command's batch carries the command on its first envelope (``commands/record.py``).
For each batch the verifier hands this module the state before it and the batch's envelopes;
it checks that the actor was allowed to issue the command (``commands/authority.py``), re-runs
the ruleset's ``decide`` with the batch's own dice (``ReplayPort``: the rules draw the labels
and notations they draw, the faces are the recorded ones, checked against their seeds
elsewhere), and refuses the batch unless ``decide`` accepts the command and produces exactly
the recorded events, byte for byte. A forged event (a chit the character lacks, a strike by
the dead, a ruling by a player) therefore fails here without any second, hand-written check.

In a log that records commands (engine 0.2 and later), an event of the ruleset that no
recorded command produced is refused. Core events (dice, seeds, notes, sealed orders,
acknowledgements, chains) are checked by the core and the trust layer event by event.

The dice-use checks (``Ruleset.dice_uses``, in ``verify.py``) of the events inside a batch wait for
the batch's end: a batch that re-decides and drew no die needs none (its events are the rules' own
output for a decision that drew nothing, so they read no die), which spares Magic Realm and Classic
Fantasy a second fold of most events. A batch that drew dice has them run at its end, in order; a
batch that fails, at any check, has them run first, so a forged die is named as precisely as when
each event was checked on arrival.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import msgspec

from combatlog.commands.authority import check_authority, roles_of
from combatlog.commands.record import decode_record, must_record
from combatlog.dice.notation import Dice, parse_dice
from combatlog.dice.port import DicePort, Roll, check_label, check_scheme, with_drawn
from combatlog.errors import CombatlogError, IllegalCommand
from combatlog.events.base import tag_of
from combatlog.events.canonical import canonical
from combatlog.events.core import DiceRolled, Forked
from combatlog.events.envelope import Recorded
from combatlog.exchange.typed_line import NOT_DECODED
from combatlog.projections.fold import Folded

Fail = Callable[[str, str], None]
CheckUses = Callable[[Recorded, Any, str], None]  # (event, the rules' state before it, where)


class ReplayMismatch(Exception):
    """The rules ask for a die the batch does not hold, or hold differently."""


class _DrawnBefore:
    """The labels drawn before ``first_seq`` (the core's label map already holds the batch's own)."""

    __slots__ = ("labels", "first_seq")

    def __init__(self, labels: dict[str, int], first_seq: int) -> None:
        self.labels, self.first_seq = labels, first_seq

    def __contains__(self, label: object) -> bool:
        seq = self.labels.get(label)  # type: ignore[call-overload]
        return seq is not None and seq < self.first_seq


class ReplayPort(DicePort):
    """A dice port that hands ``decide`` the faces a batch recorded, under the labels the rules draw.

    verify builds one for every recorded command, most of which draw no die, so it sets only what a replay
    reads; the write path's state (a key source, typed-in faces, faces missing) is never filled by a replay
    and stays the empty, immutable class defaults below instead of fresh copies."""

    _key_source = None
    _manual: Mapping[str, tuple[int, ...]] = MappingProxyType({})
    _collect = False
    missing: Sequence[tuple[str, Dice]] = ()

    def __init__(self, recorded: dict[str, DiceRolled], *, scheme: str, actor: str, labels: dict[str, int],
                 first_seq: int, ruleset: Any = None) -> None:
        self.scheme = check_scheme(scheme)
        if ruleset is not None:  # a label a player chose may not be one the rules draw (``DicePort.rule_label``)
            self.owns_label, self.ruleset = ruleset.owns_label, ruleset.info.name
        self.actor = actor
        self._taken = _DrawnBefore(labels, first_seq)
        self.drawn: list[DiceRolled] = []
        self._drawn_labels: set[str] = set()
        self._recorded = recorded

    def recorded(self, label: str) -> tuple[int, ...] | None:
        """The faces the batch recorded under ``label`` (a ruleset may skip a step's rehearsal when the
        faces its dice would get are known: Magic Realm's rehearsal.py)."""
        die = self._recorded.get(label)
        return None if die is None else tuple(die.faces)

    def roll(self, label: str, notation: str | Dice, *, purpose: str = "", by: str | None = None) -> Roll:
        check_label(label)
        dice = parse_dice(notation) if isinstance(notation, str) else notation
        if label in self._taken or label in self._drawn_labels:
            raise IllegalCommand(f"dice label {label!r} was already drawn", rule="core: a label is drawn once")
        die = self._recorded.get(label)
        if die is None:
            raise ReplayMismatch(f"the rules draw die {label!r} ({dice}) here, and the batch holds no such die")
        if die.notation != str(dice):
            raise ReplayMismatch(f"the rules roll {dice} for {label!r}, the batch recorded {die.notation}")
        event = DiceRolled(label=label, notation=str(dice), count=dice.count, sides=dice.sides,
                           modifier=dice.modifier, faces=die.faces, total=dice.total(die.faces), scheme=die.scheme,
                           seed_ref=die.seed_ref, by=by or self.actor, purpose=purpose)
        self.drawn.append(event)
        self._drawn_labels.add(label)
        return Roll(label, dice, die.faces, event.total, event)


_AFTER_ANY_SEQ = 2**62  # a first seq after every label's: all of them drawn before


class _Batch:
    __slots__ = ("command", "name", "state", "first_seq", "command_id", "actor", "recs", "where", "deferred", "drew")

    def __init__(self, command: Any, name: str, state: Any, rec: Recorded, where: str) -> None:
        self.command, self.name, self.state = command, name, state
        self.first_seq, self.command_id, self.actor = rec.seq, rec.env.command_id, rec.env.actor
        self.recs: list[Recorded] = []
        self.where = where
        self.deferred: list[tuple[Recorded, Any, str]] = []  # dice-use checks waiting for the batch's end
        self.drew = False  # holds a die


class Redecider:
    """Fed every envelope before it is folded; re-decides each recorded command when its batch ends."""

    def __init__(self, folded: Folded, fail: Fail, check_uses: CheckUses) -> None:
        self.folded, self.fail, self.check_uses = folded, fail, check_uses
        self.batch: _Batch | None = None
        self.closing: _Batch | None = None  # the batch being re-decided
        self.last_command_id: str | None = None
        self.batches = 0  # re-decided
        self.skipped = False  # rules differ from the log's: re-deciding was not possible
        self._roles: Any = None  # the genesis's roles, the same for every batch
        self._ports: dict[str, ReplayPort] = {}  # actor -> the dice port of his batches that hold no die

    def run_deferred(self) -> None:
        """Run the dice-use checks the open (or closing) batch put off; each may fail with its own message."""
        for batch in (self.closing, self.batch):
            if batch is not None:
                self.run_deferred_of(batch)

    def required(self) -> bool:
        genesis = self.folded.core.genesis
        return genesis is not None and must_record(genesis)

    def feed(self, rec: Recorded, where: str, command: Any = NOT_DECODED) -> None:
        """Take ``rec`` (not yet folded): close the batch it ends, open the one it begins, and run or put
        off its dice-use checks. ``command``: its command record, if the verifier decoded it already (as
        ``decode_record`` does here, with this fold's ruleset)."""
        env = rec.env
        if self.batch is not None and env.command_id != self.batch.command_id:
            # a fork may begin inside its parent's batch: the parent's part is then a prefix of the batch
            self.close(cut_by_fork=type(rec.event) is Forked)
        if env.command is not msgspec.UNSET:
            if self.batch is not None or env.command_id == self.last_command_id:
                self.fail(where, f"seq {env.seq}: a command record inside a batch (it belongs on the batch's first "
                                 "event only)")
            ruleset = self.folded.ruleset
            if self.folded.state is None:
                self.fail(where, f"seq {env.seq}: a recorded command before the combat began")
            if command is NOT_DECODED:
                try:
                    command = decode_record(ruleset.info.name, ruleset.command_types, env.command)  # type: ignore[arg-type]
                except CombatlogError as exc:
                    self.fail(where, f"seq {env.seq}: {exc.message}")
                    raise
            name = type(command).__name__
            self.batch = _Batch(command, name, self.folded.state, rec, where)
        self.last_command_id = env.command_id
        rules_event = not env.type.startswith("core.") and self.folded.state is not None
        if self.batch is not None:
            if env.actor != self.batch.actor:  # the command's authority was checked for its first actor only
                self.fail(where, f"seq {env.seq}: an event by {env.actor} inside {self.batch.actor}'s command "
                                 f"(seq {self.batch.first_seq}): one command's events have one author")
            self.batch.recs.append(rec)
            if type(rec.event) is DiceRolled:
                self.batch.drew = True
            elif rules_event and self.skipped:
                self.check_uses(rec, self.folded.state, where)
            elif rules_event:
                self.batch.deferred.append((rec, self.folded.state, where))
            return
        if rules_event:
            self.check_uses(rec, self.folded.state, where)
        if type(rec.event) is DiceRolled and self.folded.ruleset.owns_label(rec.event.label) and self.required():
            # a free roll (no recorded command drew it) under a label the rules draw: their own roll would be
            # refused "already drawn" for ever (a frozen combat), or move to another label
            self.fail(where, f"seq {env.seq}: a free roll under {rec.event.label!r}, a label the "
                             f"{self.folded.ruleset.info.name} rules draw their own dice under: no player may take "
                             "it (core: the rules own their labels)")
        if not env.type.startswith("core.") and self.required():
            self.fail(where, f"seq {env.seq}: {env.type} was produced by no recorded command: an event of the rules "
                             "exists only as what a command's decision produced, and every machine re-decides it")

    def close(self, *, cut_by_fork: bool = False) -> None:
        """Re-decide the open batch, if any (at a batch's end, and at the end of the chain). A batch a
        fork cut must be the beginning of what the rules produce; any other must be all of it."""
        batch, self.batch = self.batch, None
        if batch is None or self.skipped:
            return
        self.closing = batch
        try:
            self._redecide(batch, cut_by_fork)
        finally:
            self.closing = None
        if batch.drew:  # its dice: each bound to the event that reads it, as on arrival
            self.run_deferred_of(batch)

    def run_deferred_of(self, batch: _Batch) -> None:
        deferred, batch.deferred = batch.deferred, []
        for rec, state, where in deferred:
            self.check_uses(rec, state, where)

    def _port_without_dice(self, actor: str) -> ReplayPort:
        """The dice port of a batch that holds no die, one per actor for the whole verify: any die the rules draw
        from it is refused (the batch holds none) before the port changes, so it stays as made. Every label the
        core has seen is drawn before such a batch (it drew none), so the core's live label map is the labels
        taken."""
        port = self._ports.get(actor)
        if port is None:
            core = self.folded.core
            scheme = core.genesis.dice if core.genesis else "local"
            port = self._ports[actor] = ReplayPort({}, scheme=scheme, actor=actor, labels=core.labels,
                                                   first_seq=_AFTER_ANY_SEQ, ruleset=self.folded.ruleset)
        return port

    def _redecide(self, batch: _Batch, cut_by_fork: bool) -> None:
        ruleset, core = self.folded.ruleset, self.folded.core
        # (``drew`` says whether the batch holds a die: most commands draw none)
        if batch.drew:
            dice = {r.event.label: r.event for r in batch.recs if type(r.event) is DiceRolled}
            port = ReplayPort(dice, scheme=next(iter(dice.values())).scheme, actor=batch.actor, labels=core.labels,
                              first_seq=batch.first_seq, ruleset=ruleset)
        else:
            dice, port = {}, self._port_without_dice(batch.actor)
        if self._roles is None:
            self._roles = roles_of(ruleset, core.genesis, core.creator)
        roles = self._roles
        try:
            check_authority(ruleset, batch.state, roles, batch.command, batch.actor)
            events = ruleset.decide(batch.state, batch.command, port)
            if dice and any(d.scheme == "manual" for d in dice.values()):
                check_authority(ruleset, batch.state, roles, batch.command, batch.actor, manual_dice=True)
        except ReplayMismatch as exc:
            self.fail(batch.where, f"{_what(batch, ruleset)} does not re-decide to the recorded events: {exc}")
            return
        except CombatlogError as exc:
            self.fail(batch.where, f"{_what(batch, ruleset)} is refused by the rules on re-deciding: {exc.message}")
            return
        except Exception as exc:  # a crafted command the rules cannot even read
            self.fail(batch.where, f"{_what(batch, ruleset)}: the rules cannot re-decide it: {type(exc).__name__}: {exc}")
            return
        produced = with_drawn(port.drawn, events)
        recorded = batch.recs
        for i in range(len(recorded) if cut_by_fork else max(len(produced), len(recorded))):
            mine = produced[i] if i < len(produced) else None
            theirs = recorded[i] if i < len(recorded) else None
            if mine is None or theirs is None or tag_of(type(mine)) != theirs.env.type \
                    or canonical(mine) != bytes(theirs.env.data):
                self.fail(batch.where, f"{_what(batch, ruleset)} does not re-decide to the recorded events: "
                                       f"{_difference(mine, theirs)}")
        self.batches += 1


def decide_again(ruleset: Any, state: Any, recs: Sequence[Recorded], *, core: Any, roles: Any) -> str:
    """Whether ``ruleset`` decides the command recorded on ``recs``' first envelope, on ``state``, with the batch's
    own dice, to exactly the events ``recs`` hold: '' when it does, else why not, in words. verify asks it of
    today's rules for a log read under a kept earlier revision's (``Ruleset.kept_revisions``), where the
    revision's rules decided it as it was played: where today's rules would refuse it, or decide otherwise."""
    first = recs[0]
    try:
        command = decode_record(ruleset.info.name, ruleset.command_types, first.env.command)  # type: ignore[arg-type]
    except CombatlogError as exc:
        return f"today's rules cannot read the command: {exc.message}"
    dice = {r.event.label: r.event for r in recs if type(r.event) is DiceRolled}
    scheme = next(iter(dice.values())).scheme if dice else (core.genesis.dice if core.genesis else "local")
    port = ReplayPort(dice, scheme=scheme, actor=first.env.actor, labels=core.labels, first_seq=first.seq,
                      ruleset=ruleset)
    try:
        check_authority(ruleset, state, roles, command, first.env.actor)
        events = ruleset.decide(state, command, port)
    except ReplayMismatch as exc:
        return f"{type(command).__name__} does not decide to the recorded events today: {exc}"
    except CombatlogError as exc:
        return f"today's rules refuse {type(command).__name__}: {exc.message}"
    except Exception as exc:  # (today's rules cannot even read it)
        return f"today's rules cannot decide {type(command).__name__}: {type(exc).__name__}: {exc}"
    produced = with_drawn(port.drawn, events)
    for i in range(max(len(produced), len(recs))):
        mine = produced[i] if i < len(produced) else None
        theirs = recs[i] if i < len(recs) else None
        if mine is None or theirs is None or tag_of(type(mine)) != theirs.env.type \
                or canonical(mine) != bytes(theirs.env.data):
            return f"today's rules decide {type(command).__name__} otherwise: {_difference(mine, theirs)}"
    return ""


def _what(batch: _Batch, ruleset: Any) -> str:
    """The batch as a refusal names it (built only for one: verify re-decides every command)."""
    last = batch.recs[-1].seq
    span = f"seq {batch.first_seq}" + (f"-{last}" if last != batch.first_seq else "")
    return f"{span}: {batch.actor}'s {ruleset.info.name} {batch.name}"


def _difference(mine: Any, theirs: Recorded | None) -> str:
    if theirs is None:
        return f"the rules also produce {tag_of(type(mine))}, which the log lacks"
    if mine is None:
        return f"seq {theirs.seq} ({theirs.env.type}) is not what the rules produce (they produce nothing more)"
    return (f"seq {theirs.seq} records {theirs.env.type} {bytes(theirs.env.data)[:160].decode(errors='replace')}, "
            f"the rules produce {tag_of(type(mine))} {canonical(mine)[:160].decode(errors='replace')}")
