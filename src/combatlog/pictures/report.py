"""``combatlog report``: one self-contained HTML file about a combat.

No script, no network, no external file: the CSS and the SVG pictures are inline, so the file reads
the same offline, with scripts off and printed. Every string that comes from the log (names, notes,
reasons, orders, labels) is escaped by the template (``pictures.html``), since a hostile player writes them.

Contents: the header (ruleset, players and their key fingerprints, dice scheme, head hash, the
verifier's result), then round by round the sheet picture and every event with the steps it derived
(rule citation and dice, as ``explain`` shows them) and who signed it; acknowledgements; the dice
ledger with each die's verification state; the forks with their point and reason.

Linear and small, so that a long campaign can be mailed: the log is read in one pass (the verifier's:
the walk explains and draws each event from the verifier's fold as it is verified), and what repeats is
written once. A sheet is drawn where the picture changed since the last one drawn, at most one every
``gap`` rounds (at most ``MAX_SHEETS`` pictures whatever the length) and always at the last round;
``--sheets`` asks for other rounds and ``--round N`` draws that round whatever it holds. Who recorded
and signed an event is written where it changes; the rule most steps of a round cite is named once
above them; what most rounds would repeat (the usual recorder, the common rule they share) is said once
in the introduction; a die's line links to its ledger row instead of repeating it, and the ledger says
a state all its dice share once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from combatlog.pictures.svg import clean

if TYPE_CHECKING:
    from combatlog.exchange.stored import Walked
    from combatlog.exchange.verify import VerifyReport
    from combatlog.projections.fold import Folded
    from combatlog.projections.views import ReplayStep
    from combatlog.store.base import EventStore, StreamMeta

Progress = Callable[[int, int], None]

MAX_SHEETS = 20  # pictures in a whole-combat report unless --sheets asks for more
PROGRESS_STEPS = 200  # on_progress calls over a whole report, at most

CSS = """
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; color: #1a1a1a; background: #ffffff;
       margin: 0 auto; max-width: 1040px; padding: 16px 20px 40px; line-height: 1.4; font-size: 15px;
       overflow-wrap: anywhere; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 21px; border-bottom: 2px solid #1a1a1a; padding-bottom: 3px; margin-top: 34px; }
h3 { font-size: 17px; margin: 18px 0 6px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { border: 1px solid #b8b8b8; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f1ede4; }
code, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; word-break: break-all; }
.ok { color: #1b5e20; font-weight: bold; }
.bad { color: #b00000; font-weight: bold; }
.muted, .who { color: #555555; }
.picture { margin: 8px 0 14px; overflow-x: auto; }
.picture svg { max-width: 100%; height: auto; border: 1px solid #cccccc; box-sizing: border-box; display: block; }
ol.events { padding-left: 0; list-style: none; }
ol.events > li { border-top: 1px solid #dddddd; padding: 4px 0; }
ol.events li { white-space: pre-wrap; }
ol.events ul { margin: 2px 0 2px 18px; padding-left: 12px; }
#dice td:nth-child(2) { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; }
ol.events a { color: #3b4a6b; }
ol.events b, .seq { display: inline-block; min-width: 4.2em; font-weight: bold; }
ol.events i, .rule { color: #4a4a4a; font-style: italic; }
.who { display: block; margin-top: 6px; font-size: 13px; }
.dice { color: #3b4a6b; }
.signed { color: #1b5e20; }
.concealed { color: #555555; font-style: italic; }
nav ul { columns: 3; padding-left: 18px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  section.round { break-before: page; }
  .picture svg { border: none; }
  a { color: inherit; text-decoration: none; }
}
"""


def die_anchor(seq: int) -> str:
    """The id of a die's ledger row: the seq of the event that rolled it (one die per event, and short:
    a long combat links every die three times)."""
    return f"die-{seq}"


def dice_links(labels: Any, rolled: dict[str, int], shown: tuple[int, int]) -> list[tuple[str, str]]:
    """(label, anchor) of each die a step read; anchor "" where the ledger does not show it."""
    out = []
    for label in labels:
        seq = rolled.get(label)
        out.append((label, die_anchor(seq) if seq is not None and shown[0] <= seq <= shown[1] else ""))
    return out


# -- what the template shows ------------------------------------------------------------------------------


@dataclass
class StepRow:
    text: str  # "" where it would repeat the event's summary
    rule: str  # "" where it is the round's common rule
    dice: list[tuple[str, str]]  # (label, anchor): no anchor where the ledger does not show it (or, in the
    # report, where a lone step reads the die rolled on the line just above, which links to its row)


@dataclass
class EventRow:
    seq: int
    summary: str
    concealed: bool
    who: str | None  # "actor, signed by ..." where it changes from the event before, else None
    die: str | None  # a die's event: the anchor of its ledger row
    inline: StepRow | None  # a lone step, written on the event's line
    steps: list[StepRow]


@dataclass
class RoundPart:
    number: int
    title: str
    lo: int
    hi: int
    picture: Any = None  # Markup of the SVG, or None
    no_picture: tuple[str, int | None] = ("", None)  # why there is none, and the round last drawn
    common_rule: str = ""
    events: list[EventRow] = field(default_factory=list)
    plumbing: list[Any] = field(default_factory=list)  # trust events left out of ``events`` (their payloads)
    plumbing_note: str = ""  # the one line that stands for them


def who_line(row: ReplayStep, rec: Any) -> str:
    """Who recorded an event and who signed it."""
    sigs = rec.env.signatures
    placed = " (placed by a merge)" if rec.env.is_placed else ""
    return "recorded by " + row.actor + (", signed by " + ", ".join(s.signer for s in sigs) if sigs else ", unsigned") \
        + placed


def event_row(row: ReplayStep, who: str | None, is_die: bool, rolled: dict[str, int],
              shown: tuple[int, int]) -> EventRow:
    """One event as the report and the live page list it, written compactly: a die's own step repeats its
    summary and its ledger row, so the summary links to the row; a lone step goes on the event's line."""
    steps = [StepRow(s.text, s.rule, dice_links(s.dice, rolled, shown)) for s in row.steps]
    die = None
    if is_die and not row.concealed and steps and steps[0].rule.startswith("core: dice"):
        die, steps = die_anchor(row.seq), steps[1:]
    inline = None
    if len(steps) == 1:
        inline, steps = steps[0], []
        if inline.text == row.summary:
            inline.text = ""
    return EventRow(seq=row.seq, summary=row.summary, concealed=row.concealed, who=who, die=die,
                    inline=inline, steps=steps)


def say_once(parts: list[RoundPart]) -> tuple[str, str]:
    """What every round would repeat, said once in the introduction: the usual who line (who recorded and
    signed most events) and the common rule most rounds share. Returns (usual who, common rule).

    A who line is written above an event where it changes from the event before, and at a round's
    start where it is not the usual one; a round names its common rule only where it is another."""
    whos: dict[str, int] = {}
    for p in parts:
        for e in p.events:
            whos[e.who or ""] = whos.get(e.who or "", 0) + 1
    usual = max(whos.items(), key=lambda kv: kv[1])[0] if whos else ""
    for p in parts:
        before = usual
        for e in p.events:
            who = e.who or ""
            e.who = who if who != before else None
            before = who
    rules: dict[str, int] = {}
    for p in parts:
        if p.common_rule:
            rules[p.common_rule] = rules.get(p.common_rule, 0) + 1
    common, count = max(rules.items(), key=lambda kv: kv[1]) if rules else ("", 0)
    if count < 2:  # one round naming its rule says it once already
        return usual, ""
    for p in parts:
        if p.common_rule == common:
            p.common_rule = ""
    return usual, common


def sheet_rounds(spec: str, rounds: list[int]) -> set[int] | None:
    """``--sheets``: "auto" (None: where the picture changed), "all", "none" or rounds like ``1,4-6``."""
    from combatlog.errors import InvalidCommand

    spec = spec.strip().lower()
    if spec == "auto":
        return None
    if spec == "all":
        return set(rounds)
    if spec == "none":
        return set()
    chosen: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()) or len(part) > 20:
            raise InvalidCommand(f"--sheets takes auto, all, none or rounds like 1,4-6, not {clean(spec)!r}")
        a, b = int(lo), int(hi or lo)
        if b < a:
            raise InvalidCommand(f"--sheets: the range {a}-{b} runs backwards")
        if not hi and a not in rounds:
            known = f"{rounds[0]}-{rounds[-1]}" if rounds else "none"
            raise InvalidCommand(f"--sheets: no round {a} in this report (rounds: {known})")
        chosen.update(r for r in rounds if a <= r <= b)
    return chosen


class Report:
    def __init__(self, store: EventStore, meta: StreamMeta, viewer: str | None, round_no: int | None,
                 sheets: str = "auto", on_progress: Progress | None = None, *, show_all: bool = False) -> None:
        from combatlog.projections.fold import round_end, state_at

        self.store, self.meta, self.viewer, self.round_no = store, meta, viewer, round_no
        self.show_all = show_all  # the trust plumbing listed among the events, not one line per round
        self.on_progress = on_progress or (lambda done, total: None)
        self.head = state_at(store, meta)
        self.rounds = sorted(self.head.core.round_last)
        if round_no is not None:
            round_end(self.head, round_no)  # refuses a round that does not exist, naming those that do
            self.rounds = [round_no]
        self.asked = sheet_rounds(sheets, self.rounds)
        if round_no is not None:
            self.asked = {round_no} if self.asked is None else self.asked
        self.window = (self.head.core.round_first[self.rounds[0]], self.head.core.round_last[self.rounds[-1]]) \
            if self.rounds else (1, 0)  # the seqs the report shows
        # "auto": at most one picture every `gap` rounds, so at most MAX_SHEETS (+ the last round)
        self.gap = max(1, -(-len(self.rounds) // MAX_SHEETS))
        self.position = {r: i for i, r in enumerate(self.rounds)}
        self.dice_origin = ""  # where the combat's dice come from, where a die's line left it out
        self.walked = 0  # the seq of the last event walked (a walk again after a failed one goes on from it)

    # -- the header -----------------------------------------------------------------------------
    def fork_reason(self, meta: StreamMeta) -> str:
        from combatlog.events.core import Forked
        from combatlog.projections.fold import history

        for rec in history(self.store, meta, meta.fork_seq + 1, meta.fork_seq + 1):
            if type(rec.event) is Forked:
                return f": {rec.event.reason}" if rec.event.reason else " (no reason given)"
        return ""

    def parent_name(self) -> str:
        parent = self.store.get_stream(self.meta.parent) if self.meta.parent else None
        return parent.name if parent else (self.meta.parent or "")

    # -- the one pass ---------------------------------------------------------------------------
    def walk(self, events: Walked) -> tuple[list[RoundPart], list[dict[str, Any]], list[tuple[int, Any]]]:
        """Every round's part, the rolls and the acknowledgements, in one walk of ``events`` (the whole log:
        ``stored.walk_verified`` gives them). Progress is shown from where a failed walk before it stopped."""
        from combatlog.events.core import Acknowledged, DiceRolled
        from combatlog.pictures import note_sealed
        from combatlog.pictures.scene import Sealed
        from combatlog.projections.plumbing import hidden_note, is_plumbing
        from combatlog.projections.views import replay_step, roll_row
        from combatlog.rulesets.base import SCHEME_WORDS

        core = self.head.core
        total = core.head_seq
        every = max(1, -(-total // PROGRESS_STEPS))
        parts = {r: RoundPart(r, "Set-up" if r == 0 else f"Round {r}", core.round_first[r], core.round_last[r])
                 for r in self.rounds}
        starts, ends = {p.lo: p for p in parts.values()}, {p.hi: p for p in parts.values()}
        part: RoundPart | None = None  # the round being walked, if the report shows it
        window = self.window
        # a die's line says where it came from only where that is not the combat's scheme (said once)
        scheme = core.genesis.dice if core.genesis is not None else ""
        origin = f", {SCHEME_WORDS[scheme]})" if scheme in SCHEME_WORDS else ""
        rolls: list[dict[str, Any]] = []
        acks: list[tuple[int, Any]] = []
        sealed: dict[tuple[str, str], Sealed] = {}
        last_drawn: tuple[int, str] | None = None  # (round, what its picture showed)
        viewer, head_state = self.viewer, self.head.state
        shown = self.walked  # the seq up to which progress was already shown
        self.dice_origin = ""  # (set again by a walk after a failed one)
        for before, rec, folded in events:
            self.walked = rec.seq
            row = replay_step(folded, before, rec, viewer, head_state)
            ev = rec.event
            note_sealed(sealed, rec)
            if type(ev) is Acknowledged:
                acks.append((rec.seq, ev))
            if type(ev) is DiceRolled and window[0] <= rec.seq <= window[1]:
                rolls.append(roll_row(rec.seq, ev, rec.env.actor, self.head.ruleset.dice_by_piece))
            if rec.seq in starts:  # rounds are consecutive runs of seqs
                part = starts[rec.seq]
            if part is not None and not self.show_all and is_plumbing(row.type):
                part.plumbing.append(ev)  # decides nothing: told in one line at the round's end (log, explain)
            elif part is not None:  # every event's who for now: say_once keeps it where it changes
                item = event_row(row, who_line(row, rec), type(ev) is DiceRolled, self.head.core.labels, self.window)
                if type(ev) is DiceRolled and item.die and origin and ev.scheme == scheme \
                        and item.summary.endswith(origin):  # its ledger row, linked, gives the scheme too
                    item.summary = item.summary[:-len(origin)] + ")"
                    self.dice_origin = SCHEME_WORDS[scheme]
                if item.inline and part.events and part.events[-1].die:  # the line above is a die's, linked
                    above = part.events[-1].die
                    item.inline.dice = [(label, "" if to == above else to) for label, to in item.inline.dice]
                part.events.append(item)
            if rec.seq in ends:
                if ends[rec.seq].plumbing:
                    ends[rec.seq].plumbing_note = hidden_note(ends[rec.seq].plumbing, "combatlog report --all")
                last_drawn = self._picture(ends[rec.seq], folded, list(sealed.values()), last_drawn)
                self._collapse_rules(ends[rec.seq])
                part = None
            if rec.seq % every == 0 and rec.seq > shown:
                self.on_progress(rec.seq, total)
        self.on_progress(total, total)
        return [parts[r] for r in self.rounds], rolls, acks

    def _collapse_rules(self, part: RoundPart) -> None:
        """Name the rule that most of the round's steps cite once, above them, when it is at least half."""
        rules: dict[str, int] = {}
        steps = [s for e in part.events for s in ([e.inline] if e.inline else []) + e.steps]
        for s in steps:
            rules[s.rule] = rules.get(s.rule, 0) + 1
        if not rules:
            return
        common, count = max(rules.items(), key=lambda kv: kv[1])
        if count >= 2 and 2 * count >= len(steps):
            part.common_rule = common
            for s in steps:
                if s.rule == common:
                    s.rule = ""

    def _picture(self, part: RoundPart, folded: Folded, sealed: list[Any],
                 last: tuple[int, str] | None) -> tuple[int, str] | None:
        """Draw the round's sheet where asked, or where it changed (``auto``); say why where not."""
        from combatlog.pictures import draw, scene_of
        from combatlog.pictures.html import trusted

        scene = scene_of(self.store, self.meta, folded, self.viewer, with_steps=False, sealed=sealed)
        shows = repr((scene.data, scene.pending, [(s.step, s.player, s.revealed) for s in scene.sealed]))
        r = part.number
        if self.asked is not None:
            wanted, why = r in self.asked, "not asked for"
        elif last is not None and shows == last[1]:
            wanted, why = r == self.rounds[-1], "nothing drawn changed since"
        else:
            wanted = last is None or r == self.rounds[-1] or self.position[r] - self.position[last[0]] >= self.gap
            why = "the last one is at"
        if not wanted:
            part.no_picture = (why, last[0] if last is not None and why != "not asked for" else None)
            return last
        part.picture = trusted(draw(scene, prefix=f"r{r}"))
        return r, shows

    # -- the document ---------------------------------------------------------------------------
    def build(self) -> str:
        from combatlog import __version__
        from combatlog.exchange.stored import walk_verified
        from combatlog.pictures.html import render, trusted
        from combatlog.wiring import standard

        self.on_progress(0, self.head.core.head_seq)
        (parts, rolls, acks), report, failure = walk_verified(self.store, self.meta, standard(), self.walk)
        usual_who, common_rule = say_once(parts)
        dice, legend = ledger(rolls, report)
        children = sorted((m for m in self.store.list_streams() if m.parent == self.meta.id),
                          key=lambda m: (m.fork_seq, m.name))
        core, ruleset, state = self.head.core, self.head.ruleset, self.head.state
        return render(
            "report.html", css=trusted(CSS), version=__version__, meta=self.meta, viewer=self.viewer,
            ruleset=ruleset.info, genesis=core.genesis, core=core,
            now="finished" if ruleset.finished(state) else f"round {ruleset.round_of(state)}",
            report=report, failure=failure, parent=self.parent_name(),
            fork_reason=self.fork_reason(self.meta) if self.meta.parent else "",
            rounds=parts, round_no=self.round_no, acks=acks, dice=dice, legend=legend,
            forks=[(m, self.fork_reason(m).removeprefix(": ")) for m in children],
            sheets="auto" if self.asked is None else "asked", gap=self.gap, usual_who=usual_who,
            common_rule=common_rule,
            dice_origin=self.dice_origin, all_events=self.show_all,
        )


def die_state(roll: dict[str, Any], report: VerifyReport | None, pending: set[str]) -> tuple[str, str, str]:
    """What is known of one die, as (the ledger's short word, what it means, css class): verified, awaiting
    its seed, trusted as entered, or unverifiable. The ledger writes the word and explains each word once."""
    scheme = roll["scheme"]
    if report is None:
        return "not checked", "the log failed verification", "bad"
    if scheme == "manual":
        return "manual", "entered by hand: trusted, not checkable", "muted"
    if scheme == "local":
        return "local", "local randomness: honest but unverifiable", "muted"
    if roll["label"] in pending:
        return f"{scheme}: awaiting", "awaiting the seed's reveal", "muted"
    if scheme == "referee":
        return "referee: verified", "verified against the revealed referee seed", "ok"
    if scheme == "joint":
        return "joint: verified", "verified against the players' revealed nonces", "ok"
    return f"{scheme}: checked", "checked by the verifier", "ok"


def ledger(rolls: list[dict[str, Any]], report: VerifyReport | None) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The ledger's rows (each with its anchor and state) and the legend of the states they use."""
    pending = set(report.pending_dice) if report is not None else set()
    rows, legend = [], {}
    for r in rolls:
        word, meaning, cls = die_state(r, report, pending)
        legend.setdefault(word, meaning)
        rows.append({**r, "anchor": die_anchor(r["seq"]), "state": word, "cls": cls})
    return rows, list(legend.items())


def report_html(store: EventStore, meta: StreamMeta, viewer: str | None, round_no: int | None = None, *,
                sheets: str = "auto", on_progress: Progress | None = None, show_all: bool = False) -> str:
    """The report; ``on_progress(done, total)`` is called as the events are walked (total: the head seq).
    ``show_all``: the trust plumbing (chains, links, acknowledgements, referee seeds) among the events."""
    return Report(store, meta, viewer, round_no, sheets, on_progress, show_all=show_all).build()
