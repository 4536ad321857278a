"""Generic views, each a fold over the log: timeline, dice ledger, explain, replay."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from combatlog.errors import InvalidCommand, NotFound
from combatlog.events.core import DiceRolled
from combatlog.events.envelope import Recorded
from combatlog.projections.fold import Folded, history, round_end, state_at
from combatlog.rulesets.base import Step
from combatlog.store.base import EventStore, StreamMeta


class ReplayStep(msgspec.Struct, kw_only=True):
    seq: int
    type: str
    actor: str
    summary: str
    steps: list[Step]
    round: int
    concealed: bool = False


def dice_step(rec: Recorded) -> Step | None:
    """Every roll appears in explain with its label, scheme and faces."""
    ev = rec.event
    if type(ev) is not DiceRolled:
        return None
    from combatlog.rulesets.base import dice_words

    return Step(seq=rec.seq, rule=f"core: dice ({ev.scheme})", dice=(ev.label,), text=dice_words(ev))


def walk(store: EventStore, meta: StreamMeta, from_seq: int = 1, to_seq: int | None = None,
         viewer: str | None = None, head: Folded | None = None) -> Iterator[ReplayStep]:
    """Replay ``meta`` event by event, with the steps each event derived."""
    for step, _rec, _folded in walk_folded(store, meta, from_seq, to_seq, viewer, head):
        yield step


def walk_folded(store: EventStore, meta: StreamMeta, from_seq: int = 1, to_seq: int | None = None,
                viewer: str | None = None, head: Folded | None = None,
                ) -> Iterator[tuple[ReplayStep, Recorded, Folded]]:
    """``walk``, with each event's record and the fold just after it (one object, updated in place: read
    it before asking for the next event). One pass for readers that need the state along the way."""
    start = state_at(store, meta, from_seq - 1) if from_seq > 1 else None
    folded = start if start is not None else fold_start(store, meta)
    head_state = head.state if head is not None else None
    for rec in history(store, meta, from_seq, to_seq):
        before = folded.state
        folded.apply(rec)
        yield replay_step(folded, before, rec, viewer, head_state), rec, folded


def replay_step(folded: Folded, before: Any, rec: Recorded, viewer: str | None, head_state: Any) -> ReplayStep:
    """What ``rec`` did, as ``walk`` shows it: ``folded`` is the fold just after it, ``before`` the rules'
    state just before it; ``head_state`` (the head's), where given, decides what ``viewer`` may not see."""
    ruleset = folded.ruleset
    concealed = head_state is not None and ruleset.conceals(rec.event, head_state, viewer)
    steps: list[Step] = []
    if not concealed:
        if (ds := dice_step(rec)) is not None:
            steps.append(ds)
        if before is not None:
            steps.extend(ruleset.explain(before, rec.event, folded.state, rec.seq))
    return ReplayStep(
        seq=rec.seq, type=rec.env.type, actor=rec.env.actor,
        summary="(concealed until every side has played)" if concealed else ruleset.summarize(rec.event),
        # the genesis is round 0, the set-up, in every ruleset (``Folded.apply``), as --round 0 selects it
        steps=steps, round=0 if rec.seq == 1 else ruleset.round_of(folded.state), concealed=concealed,
    )


def fold_start(store: EventStore, meta: StreamMeta) -> Folded:
    from combatlog.projections.fold import empty
    from combatlog.rulesets import load_ruleset

    return empty(load_ruleset(meta.ruleset))


def round_range(store: EventStore, meta: StreamMeta, round_no: int) -> tuple[int, int]:
    head = state_at(store, meta)
    last = round_end(head, round_no)
    return head.core.round_first[round_no], last


def seq_window(name: str, head_seq: int, lo: int | None, hi: int | None) -> tuple[int, int | None]:
    """``--from``/``--to`` checked against the log: seqs start at 1, the window is not empty and
    ends within the log, so a replay never prints nothing without saying why."""
    if lo is not None and hi is not None and lo > hi:
        raise InvalidCommand(f"--from {lo} is after --to {hi}: nothing to replay (give --from <= --to)")
    for option, seq in (("--from", lo), ("--to", hi)):
        if seq is not None and seq < 1:
            raise InvalidCommand(f"{option} {seq}: seq numbers start at 1 (#1 creates {name})")
        if seq is not None and seq > head_seq:
            raise NotFound(f"{option} {seq}: {name} has no event {seq} (its last is {head_seq})")
    return lo or 1, hi


def no_steps(name: str, round_no: int | None, lo: int, hi: int) -> str:
    """What ``explain`` says when nothing in its range derived a step (instead of printing nothing)."""
    if round_no == 0:
        return (f"round 0 of {name} is the set-up before round 1 (#{lo}-#{hi}): its events derive no steps; "
                f"`combatlog log {name}` lists them")
    where = f"round {round_no}" if round_no is not None else "the log"
    return f"nothing in {where} of {name} (#{lo}-#{hi}) derived a step; `combatlog log {name}` lists its events"


def timeline(store: EventStore, meta: StreamMeta, viewer: str | None = None,
             with_events: bool = False) -> list[dict[str, Any]]:
    """Every event as a row (``log --json``); ``with_events`` adds the decoded payload under ``event``,
    for text views (not JSON-able)."""
    head = state_at(store, meta)
    ruleset = head.ruleset
    rows = []
    placed_batch: tuple[str, int] = ("", 0)  # (command id, where its first event was decided) of a placed batch
    for rec in history(store, meta):
        concealed = ruleset.conceals(rec.event, head.state, viewer)
        rows.append({
            "seq": rec.seq, "type": rec.env.type, "actor": rec.env.actor, "recorded_at": rec.env.recorded_at,
            "command_id": rec.env.command_id, "hash": rec.env.hash, "stream": rec.env.stream,
            "summary": "(concealed until every side has played)" if concealed else ruleset.summarize(rec.event),
            "data": None if concealed else msgspec.to_builtins(rec.event),
            "signed_by": [s.signer for s in rec.env.signatures],
        })
        if rec.env.is_placed:  # a decision a merge placed here: where its author made (and signed) it
            rows[-1]["placed_from"] = rec.env.placed.seq  # type: ignore[union-attr]
            # the head its author decided on: the one before his batch's first event (a later event of the
            # batch, his die then his act, followed his own die there, not what now stands before it)
            if placed_batch[0] != rec.env.command_id:
                placed_batch = (rec.env.command_id, rec.env.placed.seq - 1)  # type: ignore[union-attr]
            rows[-1]["decided_on"] = placed_batch[1]
        if with_events:
            rows[-1]["event"] = rec.event
    return rows


def roll_row(seq: int, ev: DiceRolled, actor: str = "", by_piece: bool = False) -> dict[str, Any]:
    """One roll as the dice ledger lists it: ``by`` who rolled it, ``for`` the piece it was rolled for
    where the ruleset records that in the event's ``by`` (``Ruleset.dice_by_piece``: then ``by`` is the
    event's ``actor``, who issued the command that drew it), else empty."""
    piece = ev.by if by_piece and actor and ev.by != actor else ""
    return {"seq": seq, "label": ev.label, "notation": ev.notation, "faces": list(ev.faces), "total": ev.total,
            "scheme": ev.scheme, "by": actor if piece else ev.by, "for": piece, "purpose": ev.purpose,
            "seed_ref": ev.seed_ref}


def dice_ledger(store: EventStore, meta: StreamMeta) -> dict[str, Any]:
    """Every roll with label, scheme and who; per-roller statistics."""
    from combatlog.rulesets import load_ruleset

    by_piece = load_ruleset(meta.ruleset).dice_by_piece
    rolls: list[dict[str, Any]] = []
    stats: dict[str, dict[str, Any]] = {}
    for rec in history(store, meta):
        ev = rec.event
        if type(ev) is not DiceRolled:
            continue
        rolls.append(roll_row(rec.seq, ev, rec.env.actor, by_piece))
        s = stats.setdefault(rolls[-1]["by"] or "?", {"rolls": 0, "dice": 0, "by_sides": {}})
        s["rolls"] += 1
        s["dice"] += ev.count
        side = s["by_sides"].setdefault(str(ev.sides), {"dice": 0, "sum": 0, "top_faces": 0, "ones": 0})
        side["dice"] += ev.count
        side["sum"] += sum(ev.faces)
        side["top_faces"] += sum(1 for f in ev.faces if f == ev.sides)  # dice showing their highest face
        side["ones"] += sum(1 for f in ev.faces if f == 1)
    for s in stats.values():
        for sides, side in s["by_sides"].items():
            side["max"], side["min"] = side["top_faces"], side["ones"]  # the old names, until the next release
            # mean in hundredths, as an int: the JSON contract carries no floats
            side["mean_x100"] = round(100 * side["sum"] / side["dice"]) if side["dice"] else 0
            side["expected_mean_x100"] = round(100 * (int(sides) + 1) / 2)
    return {"rolls": rolls, "by_roller": stats}
