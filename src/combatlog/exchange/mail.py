"""A message a person reads: what happened, where their side stands, what they must decide, and the bundle.

``mail_body`` writes, for one player:

1. what happened since they last signed or acknowledged (the explain view:
   each event in a sentence, each derived step with its rule and its dice);
2. the state as their side sees it (the ruleset's ``render`` with them as viewer);
3. what the combat waits for (the ruleset's ``pending``), theirs first, each
   with the legal moves that answer it (trust/offers.py), as command lines;
4. the bundle of exactly those events, ASCII-armoured (``armour.py``), which
   ``combatlog import`` finds in the message however it was saved or quoted.

Three formats: ``text`` (an email body), ``markdown`` and ``bbcode`` (forum
posts). Everything that comes from the log is escaped for the format (a note
cannot add a link, an image or a fake heading), and a combat's text cannot
forge an armoured block: the markers are broken up everywhere but in the block.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Callable, Iterable
from typing import Any
from dataclasses import dataclass, field

from combatlog.errors import InvalidCommand
from combatlog.exchange.armour import MAX_BUNDLE_BYTES, armour
from combatlog.exchange.bundle import export_lines
from combatlog.projections.fold import state_at
from combatlog.projections.plumbing import folded_line, is_plumbing
from combatlog.projections.views import walk_folded
from combatlog.store.base import EventStore, StreamMeta
from combatlog.text import one_line, printable
from combatlog.trust.after_merge import RULE_OWED, AfterMerge, Owed
from combatlog.trust.mine import REFEREE, piece_taker, referee_of, step_taker, takers, unplayed_mover
from combatlog.trust.offers import SHOWN_PER_PIECE, answering, legal_by_piece, proposes_moves

FORMATS = ("text", "markdown", "bbcode")
WIDTH = 72
MAX_NARRATED = 200  # events told in sentences; the bundle always holds them all


@dataclass
class Todo:
    """Something the combat waits for, and the commands that do it."""

    who: str
    what: str
    rule: str = ""
    options: tuple[str, ...] = ()
    commands: list[str] = field(default_factory=list)
    yours: bool = False
    referees: bool = False  # a step of the referee's (``pending``'s "gm")


def _legal_lines(stream: str, moves: list[Any]) -> list[str]:
    """The command lines of ``moves`` (legal moves that answer one decision); more than ``SHOWN_PER_PIECE``
    are given as the ``combatlog moves`` line that lists them."""
    if len(moves) > SHOWN_PER_PIECE:
        return [shlex.join(("combatlog", "moves", stream))]
    return [shlex.join(("combatlog", *m.argv)) for m in moves]


def is_yours(who: str, player: str) -> bool:
    return who == player or who.startswith(f"{player} (")


def mail_body(store: EventStore, meta: StreamMeta, player: str, *, since: int, fmt: str = "text",
              extra: Iterable[Todo] = (), known: Callable[[str], bool] | None = None, acknowledged: bool = True,
              mine: Iterable[Todo] | None = None, out: str = "", told: list[Any] | None = None) -> str:
    """The message for ``player``: everything after ``since``, their view, their decisions, the bundle
    (the arguments: ``_compose``; ``told`` receives the dropped decisions it tells him of, for the caller to
    mark once the message is written)."""
    if fmt not in FORMATS:
        raise InvalidCommand(f"--format {fmt!r}: choose {', '.join(FORMATS)}")
    message = _compose(store, meta, player, since=since, extra=extra, known=known, acknowledged=acknowledged,
                       mine=mine, out=out)
    if told is not None:
        told.extend(message.dropped)
    return message.doc.render(fmt, message.block)


def mail_json(store: EventStore, meta: StreamMeta, player: str, *, since: int, fmt: str = "text",
              extra: Iterable[Todo] = (), known: Callable[[str], bool] | None = None, acknowledged: bool = True,
              mine: Iterable[Todo] | None = None, out: str = "", told: list[Any] | None = None) -> dict[str, object]:
    """The same message as structured parts (``mail --json``, docs/guide.md "JSON output"): the sections
    as the body tells them, the decisions with their command lines, the armoured bundle, and the body."""
    if fmt not in FORMATS:
        raise InvalidCommand(f"--format {fmt!r}: choose {', '.join(FORMATS)}")
    m = _compose(store, meta, player, since=since, extra=extra, known=known, acknowledged=acknowledged, mine=mine,
                 out=out)
    if told is not None:
        told.extend(m.dropped)
    sections: list[dict[str, object]] = []
    for kind, value in m.doc.parts:
        if kind == "title":
            continue
        if kind == "heading" or not sections:
            sections.append({"heading": value if kind == "heading" else "", "parts": []})
            if kind == "heading":
                continue
        part: dict[str, object] = {"kind": kind}
        if kind == "items":
            part["items"] = [{"text": text, "details": subs, "commands": commands}
                             for text, subs, commands in value]  # type: ignore[attr-defined]
        else:
            part["text"] = value
        sections[-1]["parts"].append(part)  # type: ignore[attr-defined]
    return {"stream": meta.name, "id": meta.id, "for": player, "format": fmt, "since": since,
            "head_seq": m.head_seq, "subject": m.doc.parts[0][1], "sections": sections,
            "yours": [_todo_json(t) for t in m.mine], "others": [_todo_json(t) for t in m.others],
            "bundle": m.block, "body": m.doc.render(fmt, m.block)}


def _todo_json(t: Todo) -> dict[str, object]:
    return {"who": t.who, "what": t.what, "rule": t.rule, "options": list(t.options), "commands": list(t.commands)}


@dataclass
class _Message:
    doc: _Doc
    block: str
    head_seq: int
    mine: list[Todo]
    others: list[Todo]
    dropped: list[Owed]  # the player's decisions a merge dropped that this message tells him of


def _compose(store: EventStore, meta: StreamMeta, player: str, *, since: int, extra: Iterable[Todo] = (),
             known: Callable[[str], bool] | None = None, acknowledged: bool = True,
             mine: Iterable[Todo] | None = None, out: str = "") -> _Message:
    """The message for ``player``, in parts: everything after ``since``, their view, their decisions, the bundle.

    ``extra`` adds what the trust layer knows they owe (sealed steps, an acknowledgement); ``known``
    says whether a command line names a real command (the CLI's own tree), so no hint misleads.
    ``acknowledged`` says that ``since`` is the last seq the player signed or acknowledged (not one given).
    ``mine``, when given, is what the player must decide now with complete command lines (``status --mine``):
    it replaces the ruleset's pending entries that name the player. ``out``: why the player has nothing more
    to decide in this fight (his characters are dead or gone), told once.

    After a merge (``trust/after_merge.py``) the player's own placed decisions are told in one line each,
    not as news, and the decisions the merge could neither keep nor place are listed as owed: his first.
    """
    head = state_at(store, meta)
    seen = AfterMerge(store, meta)
    ruleset, state = head.ruleset, head.state
    head_seq = head.core.head_seq
    bundle = b"".join(line + b"\n" for line in export_lines(store, meta, since))
    if len(bundle) > MAX_BUNDLE_BYTES:
        raise InvalidCommand(f"the bundle for {player} is {len(bundle)} bytes, more than a message carries "
                             f"({MAX_BUNDLE_BYTES}): send a file (combatlog export {meta.name} --for {player} -o FILE)")
    doc = _Doc()
    doc.title(f"combatlog: {meta.name} ({ruleset.info.title}), for {player}")
    basis = f"#{since}"
    if acknowledged:
        held, why = seen.held(player)
        basis += {"placed": ", where you made your last decision (the merge placed it later)",
                  "parted": ", where your branch parted from the one the merge kept"}.get(
            why if held == since else "signed", ", the last event you signed or acknowledged")
    if since >= head_seq:
        doc.para(f"Nothing new since {basis}. The block below changes nothing; it confirms where the log stands.")
    else:
        doc.para(f"Events #{since + 1}-#{head_seq} since {basis}" if since
                 else f"The whole combat, events #1-#{head_seq}")
        doc.para(f"Head: #{head_seq} ({head.core.head_hash[:32]}...). Where it is: "
                 + ("finished" if ruleset.finished(state) else f"round {ruleset.round_of(state)}") + ".")
        doc.heading("What happened")
        first = max(since + 1, head_seq - MAX_NARRATED + 1)
        if first > since + 1:
            doc.para(f"{first - since - 1} earlier events are in the bundle; after importing it, "
                     f"`combatlog explain {meta.name}` tells them all.")
        items, plumbing = [], []
        placed = {d.first: d for d in seen.placed_of(player, first - 1, ruleset)}
        own_until = 0
        for row, rec, _after in walk_folded(store, meta, first, None, player, head):
            if is_plumbing(row.type):  # told in one line below, never a hash in a person's mail
                plumbing.append(rec.event)
                continue
            if row.seq <= own_until:
                continue  # the rest of the reader's own placed decision
            decision = placed.get(row.seq)
            if decision is not None:  # his own decision is no news to him: where the merge put it, in a line
                own_until = decision.last
                items.append((f"#{_span(decision.first, decision.last)} yours: {decision.what}; you decided it on "
                              f"#{decision.decided_as - 1} (as #{decision.decided_as}), the merge placed it here",
                              [], []))
                continue
            line, subs = f"#{row.seq} [round {row.round}] {row.actor}: {row.summary}", []
            for step in row.steps:
                dice = f" [dice: {', '.join(step.dice)}]" if step.dice and not step.rule.startswith("core: dice") else ""
                if step.text == row.summary:  # the step says what the summary says: cite its rule there
                    line += f" ({step.rule}){dice}"
                else:
                    subs.append(f"{step.text} ({step.rule}){dice}")
            items.append((line, subs, []))
        doc.items(items)
        if plumbing:
            doc.para(f"{'Also' if items else 'Only'} trust plumbing the bundle carries: {folded_line(plumbing)}.")
    doc.heading("Your side now")
    doc.pre(ruleset.render(state, player))
    # ``pending`` names the referee's steps "gm": the mail also names who takes them in this combat, as
    # ``status`` does (with pinned players but no gm: the creator; trust/mine.py)
    pending = ruleset.pending(state)
    referee = referee_of(store, meta) if any(p.who == REFEREE for p in pending) else REFEREE
    mover = unplayed_mover(head)
    # the command lines of each decision: the legal moves that answer it, as status gives them (``mine``, when
    # given, replaces the player's own; another's are shown without them); none where the rules list no moves
    legal = None
    if mine is None and proposes_moves(head):
        from combatlog.wiring import deciding

        legal = legal_by_piece(store, meta, head, wiring=deciding())
    named = takers(store, meta, head, pending) if legal is not None else [("", None)] * len(pending)
    todos = []
    for p, (_name, players) in zip(pending, named):
        # a piece's decision under its players' names, as status --mine has it (``Ruleset.players_of``); a
        # piece no player plays under its referee's (``piece_taker``) and his to move, or anyone's without one
        owners = ruleset.players_of(state, p.who) if p.who != REFEREE else None
        who = piece_taker(owners, p.who, mover) if owners is not None else step_taker(p.who, referee)
        yours = (is_yours(referee if p.who == REFEREE else p.who, player) or bool(owners and player in owners)
                 or (owners == () and mover in (player, "")))
        commands = _legal_lines(meta.name, answering(p, players, legal)[0]) if legal is not None else []
        todos.append(Todo(who, p.what, p.rule, p.options, commands, yours, referees=p.who == REFEREE))
    if mine is not None:
        todos = list(mine) + [t for t in todos if not t.yours]
    todos += list(extra)
    merged = seen.owed(ruleset, head)
    owed = [Todo(o.player, o.line(player, in_mail=True), RULE_OWED, yours=o.player == player)
            for o in merged if o.owed]
    # the rules refused them at the merge: not owed; said until he has been told (trust/after_merge.py)
    dropped = [o for o in merged if not o.owed and o.player == player and not o.told]
    todos = [t for t in owed if t.yours] + todos + [t for t in owed if not t.yours]
    for todo in todos:
        if known is not None:
            todo.commands = [c for c in todo.commands if known(c)]
        if not todo.yours and (mine is not None or todo.referees):
            # another's call: shown, not offered (where the ruleset knows who plays what, a command with
            # --as YOU for another player's character would mislead; freeform has no owners to tell)
            todo.commands = []
    yours = [t for t in todos if t.yours]
    others = [t for t in todos if not t.yours]
    doc.heading("What you must decide now")
    for o in dropped:  # told once, before what he must decide: nothing to do for it
        doc.para(o.line(player, in_mail=True)[0].upper() + o.line(player, in_mail=True)[1:] + ".")
    if out and not yours:  # his characters are out: said once, not "waiting for" the others' moves
        doc.para(f"Nothing: {out}." + (" The combat goes on without you:" if others else ""))
    elif not yours:
        doc.para("Nothing is addressed to you by name." + (" The combat waits for:" if others else ""))
    doc.items([_todo_item(t) for t in yours])
    if others and yours:
        doc.para("The combat also waits for:")
    doc.items([_todo_item(t) for t in others])
    doc.heading("The bundle")
    doc.para("Save this message (or copy it) and run `combatlog import FILE`, or `combatlog import -` and paste "
             "it. The block holds the events themselves, signed; the text above is for reading and proves nothing.")
    first_seq, last_seq = since + 1, head_seq
    return _Message(doc, armour(bundle, combat=meta.name, first=first_seq, last=last_seq), head_seq, yours, others,
                    dropped)


def _span(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}-#{last}"


def _todo_item(t: Todo) -> tuple[str, list[str], list[str]]:
    text = f"{t.who}: {t.what}" + (f" ({t.rule})" if t.rule else "")
    subs = [f"options: {' | '.join(t.options)}"] if t.options and not t.commands else []
    return text, subs, t.commands


# -- the three formats ------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&-])")
_BB_TAG = re.compile(r"[\[\]]")
_FORGED = re.compile(r"-----(BEGIN|END) COMBATLOG")


def _defuse(text: str) -> str:
    """Text from the log cannot carry an armoured block's markers (the reader's import would find them)."""
    return _FORGED.sub(lambda m: f"----- {m.group(1)} COMBATLOG", text)


class _Doc:
    def __init__(self) -> None:
        self.parts: list[tuple[str, object]] = []

    def title(self, text: str) -> None:
        self.parts.append(("title", text))

    def heading(self, text: str) -> None:
        self.parts.append(("heading", text))

    def para(self, text: str) -> None:
        self.parts.append(("para", text))

    def items(self, items: list[tuple[str, list[str], list[str]]]) -> None:
        if items:
            self.parts.append(("items", items))

    def pre(self, text: str) -> None:
        self.parts.append(("pre", text))

    def render(self, fmt: str, block: str) -> str:
        out: list[str] = []
        for kind, value in self.parts:
            out += getattr(self, f"_{fmt}")(kind, value)
        body = _defuse("\n".join(out).rstrip("\n") + "\n")
        if fmt == "markdown":
            return body + "\n```\n" + block + "```\n"
        if fmt == "bbcode":
            return body + "\n[code]\n" + block + "[/code]\n"
        return body + "\n" + block

    # plain text, for an email body: lines of at most WIDTH characters where the text allows
    @staticmethod
    def _text(kind: str, value: object) -> list[str]:
        if kind == "title":
            text = one_line(str(value))
            return [text, "=" * min(len(text), WIDTH), ""]
        if kind == "heading":
            text = one_line(str(value))
            return [text, "-" * min(len(text), WIDTH), ""]
        if kind == "para":
            return _wrap(one_line(str(value))) + [""]
        if kind == "pre":
            return [printable(line) for line in str(value).splitlines()] + [""]
        out: list[str] = []
        for text, subs, commands in value:  # type: ignore[attr-defined]
            out += _wrap(one_line(text), "- ", "  ")
            for sub in subs:
                out += _wrap(one_line(sub), "    ", "  ")
            out += [f"      {one_line(c)}" for c in commands]
        return out + [""]

    # Markdown, for forums: everything from the log escaped; commands and state in fenced blocks
    @staticmethod
    def _markdown(kind: str, value: object) -> list[str]:
        if kind == "title":
            return [f"# {_md(str(value))}", ""]
        if kind == "heading":
            return [f"## {_md(str(value))}", ""]
        if kind == "para":
            return [_md(str(value)), ""]
        if kind == "pre":
            return _fence([printable(line) for line in str(value).splitlines()]) + [""]
        out: list[str] = []
        for text, subs, commands in value:  # type: ignore[attr-defined]
            out.append(f"- {_md(text)}")
            out += [f"  - {_md(sub)}" for sub in subs]
            if commands:
                out += ["", *("  " + line for line in _fence([one_line(c) for c in commands])), ""]
        return out + [""]

    # BBCode, for forums: brackets from the log cannot open a tag; code blocks cannot be closed early
    @staticmethod
    def _bbcode(kind: str, value: object) -> list[str]:
        if kind == "title":
            return [f"[size=150][b]{_bb(str(value))}[/b][/size]", ""]
        if kind == "heading":
            return [f"[b]{_bb(str(value))}[/b]", ""]
        if kind == "para":
            return [_bb(str(value)), ""]
        if kind == "pre":
            return ["[code]", *(_bb_code(printable(line)) for line in str(value).splitlines()), "[/code]", ""]
        out = ["[list]"]
        for text, subs, commands in value:  # type: ignore[attr-defined]
            out.append(f"[*]{_bb(text)}")
            if subs:
                out += ["[list]", *(f"[*]{_bb(sub)}" for sub in subs), "[/list]"]
            if commands:
                out += ["[code]", *(_bb_code(one_line(c)) for c in commands), "[/code]"]
        return out + ["[/list]", ""]


def _wrap(text: str, first: str = "", rest: str = "") -> list[str]:
    return textwrap.wrap(text, width=WIDTH, initial_indent=first, subsequent_indent=first.replace("-", " ") + rest
                         if first else rest, break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def _md(text: str) -> str:
    """Inline Markdown that shows ``text`` as it is: every character Markdown or HTML would read escaped."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def _fence(lines: list[str]) -> list[str]:
    """A fenced code block longer than any run of backticks inside it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *lines, fence]


def _bb(text: str) -> str:
    return _BB_TAG.sub(lambda m: "(" if m.group() == "[" else ")", one_line(text))


def _bb_code(text: str) -> str:
    """A line inside [code]: it cannot close the block."""
    return re.sub(r"\[(/?)(code)", r"[\1 \2", text, flags=re.IGNORECASE)
