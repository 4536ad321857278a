"""``export --format text``: a readable rendering of a combat for email bodies and forums.

Deterministic (the same log always gives the same bytes: no clock, no local
paths), UTF-8, every line at most ``WIDTH`` characters. The grammar:

    combatlog text v1
    [Tag "value"]                    header tags, one per line, fixed order
    (blank line)
    #SEQ [R<round>] ACTOR: SUMMARY   one line per event (wrapped lines start with 4 spaces)
        -> TEXT (RULE)               a derived step, when it says more than the summary
    ( variation NAME forks after #SEQ: REASON
    ...                              a fork's events, nested the same way
    )
    (blank line)
    a closing paragraph saying that the JSON Lines export is the authority

Hashes are shown by their first 32 hex digits (128 bits), enough to compare by
eye; the text proves nothing by itself, and says so.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from combatlog.events.envelope import Recorded, decode_recorded
from combatlog.projections.fold import Folded, empty, lineage, state_at
from combatlog.rulesets import load_ruleset
from combatlog.store.base import EventStore, StreamMeta

WIDTH = 72
SHOWN_HEX = 32
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _clean(text: str) -> str:
    return _CONTROL.sub(" ", text)


def _wrap(text: str, indent: str = "", hang: str = "    ") -> list[str]:
    return textwrap.wrap(_clean(text), width=WIDTH, initial_indent=indent, subsequent_indent=indent + hang,
                         break_long_words=True, break_on_hyphens=False, drop_whitespace=True) or [indent]


def _tag(name: str, value: str) -> list[str]:
    value = _clean(value).replace("\\", "\\\\").replace('"', '\\"')
    room = WIDTH - len(name) - 5
    if len(value) > room:
        value = value[: room - 3] + "..."
    return [f'[{name} "{value}"]']


class _Renderer:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.children: dict[str, list[StreamMeta]] = {}
        for meta in store.list_streams():
            if meta.parent:
                self.children.setdefault(meta.parent, []).append(meta)
        for kids in self.children.values():
            kids.sort(key=lambda m: (m.fork_seq, m.name, m.id))
        self.lines: list[str] = []
        self.events = 0
        self.signed = 0

    def event(self, folded: Folded, rec: Recorded, depth: int) -> None:
        indent = "  " * depth
        before = folded.state
        folded.apply(rec)
        ruleset = folded.ruleset
        summary = ruleset.summarize(rec.event)
        rnd = ruleset.round_of(folded.state) if folded.state is not None else 0
        head = f"#{rec.seq}" + (f" R{rnd}" if rnd else "") + f" {rec.env.actor}: "
        self.lines += _wrap(head + summary, indent)
        if before is not None:
            for step in ruleset.explain(before, rec.event, folded.state, rec.seq):
                if step.text.strip() == summary.strip():
                    continue
                self.lines += _wrap(f"-> {step.text} ({step.rule})", indent + "    ")
        self.events += 1
        self.signed += bool(rec.env.signatures)

    def variations(self, stream_id: str, after_seq: int, skip: set[str], depth: int) -> None:
        for child in self.children.get(stream_id, []):
            if child.fork_seq != after_seq or child.id in skip:
                continue
            rows = self.store.read_stream(child.id, child.fork_seq + 1)
            first = decode_recorded(rows[0].body) if rows else None
            reason = getattr(first.event, "reason", "") if first else ""
            self.lines += _wrap(f"( variation {child.name} forks after #{child.fork_seq}"
                                + (f": {reason}" if reason else ""), "  " * depth)
            folded = state_at(self.store, child, child.fork_seq)
            for row in rows:
                rec = decode_recorded(row.body, row.position)
                self.event(folded, rec, depth + 1)
                self.variations(child.id, rec.seq, set(), depth + 1)
            self.lines.append("  " * depth + ")")


def render_text(store: EventStore, meta: StreamMeta, since: int = 0) -> tuple[str, int]:
    """The text of ``meta`` (events after ``since``) and how many main-line events it shows."""
    head = state_at(store, meta)
    genesis = head.core.genesis
    assert genesis is not None
    ruleset = load_ruleset(meta.ruleset)
    segments = lineage(store, meta)
    r = _Renderer(store)
    folded = empty(ruleset)
    skip = {seg.id for seg, _lo, _hi in segments}
    body_start = len(r.lines)
    for seg, low, high in segments:
        for row in store.read_stream(seg.id, low, high):
            rec = decode_recorded(row.body, row.position)
            if rec.seq <= since:
                folded.apply(rec)
                continue
            r.event(folded, rec, 0)
            r.variations(seg.id, rec.seq, skip, 0)
    body = r.lines[body_start:]
    mode = genesis.options.get("joint_dice", "strict") if genesis.dice == "joint" else ""
    tags: list[str] = []
    tags += _tag("Combat", head.core.name or meta.name)
    tags += _tag("Stream", meta.id)
    tags += _tag("Ruleset", f"{genesis.ruleset} v{genesis.ruleset_version}")
    tags += _tag("RulesDigest", f"sha256:{genesis.rules_digest[:SHOWN_HEX]}")
    tags += _tag("Dice", genesis.dice + (f" ({mode})" if mode else ""))
    for i, p in enumerate(genesis.players, start=1):
        tags += _tag(f"Player{i}", f"{p.name} {p.fingerprint}")
    if not genesis.players:
        tags += _tag("Players", "none pinned (events are not signed)")
    fork = segments[-1][0] if len(segments) > 1 else None
    if fork is not None and fork.parent:
        parent = store.get_stream(fork.parent)
        pname = parent.name if parent else fork.parent
        tags += _tag("ForkOf", f"{pname} after #{fork.fork_seq}")
    else:
        tags += _tag("ForkOf", "-")
    shown = f"{since + 1}-{head.core.head_seq}" if since < head.core.head_seq else "none"
    tags += _tag("Events", shown + (f" (after #{since})" if since else ""))
    tags += _tag("Head", f"#{head.core.head_seq} sha256:{head.core.head_hash[:SHOWN_HEX]}")
    if genesis.players:
        tags += _tag("Signed", f"{r.signed} of {r.events} events shown")
    footer = _wrap(
        "This text is for people and proves nothing by itself. The authority is the JSON Lines export "
        f"(combatlog export {meta.name} -o FILE.jsonl), which every player checks with: combatlog verify "
        "FILE.jsonl. Hashes above show their first 32 hex digits.", hang="")
    lines = ["combatlog text v1", *tags, "", *body, "", *footer]
    return "\n".join(lines) + "\n", r.events


def export_text(store: EventStore, meta: StreamMeta, path: Path, *, since: int = 0) -> int:
    from combatlog.errors import InvalidCommand

    head_seq = store.head(meta.id).seq
    if since < 0 or since > head_seq:
        raise InvalidCommand(f"--since {since}: {meta.name} has events 1-{head_seq}")
    text, count = render_text(store, meta, since)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    return count
