"""``combatlog report``: one self-contained HTML file about a combat.

No script, no network, no external file: the CSS and the SVG pictures are inline, so the file reads
the same offline, with scripts off and printed. Every string that comes from the log (names, notes,
reasons, orders, labels) is escaped, since a hostile player writes them.

Contents: the header (ruleset, players and their key fingerprints, dice scheme, head hash, the
verifier's result), then round by round the sheet picture and every event with the steps it derived
(rule citation and dice, as ``explain`` shows them) and who signed it; acknowledgements; the dice
ledger with each die's verification state; the forks with their point and reason.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from combatlog.pictures.svg import clean

if TYPE_CHECKING:
    from combatlog.exchange.verify import VerifyReport
    from combatlog.store.base import EventStore, StreamMeta

CSS = """
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; color: #1a1a1a; background: #ffffff;
       margin: 0 auto; max-width: 1040px; padding: 16px 20px 40px; line-height: 1.4; font-size: 15px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 21px; border-bottom: 2px solid #1a1a1a; padding-bottom: 3px; margin-top: 34px; }
h3 { font-size: 17px; margin: 18px 0 6px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; }
th, td { border: 1px solid #b8b8b8; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f1ede4; }
code, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 13px; word-break: break-all; }
.ok { color: #1b5e20; font-weight: bold; }
.bad { color: #b00000; font-weight: bold; }
.muted { color: #555555; }
.picture { margin: 8px 0 14px; overflow-x: auto; }
.picture svg { max-width: 100%; height: auto; border: 1px solid #cccccc; }
ol.events { padding-left: 0; list-style: none; }
ol.events > li { border-top: 1px solid #dddddd; padding: 4px 0; }
ol.events ul { margin: 2px 0 2px 18px; padding-left: 12px; }
.seq { display: inline-block; min-width: 4.2em; font-weight: bold; }
.rule { color: #4a4a4a; font-style: italic; }
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


def h(value: Any) -> str:
    """A value from the log as HTML text or attribute value."""
    return html.escape(clean(value), quote=True)


def anchor(label: str) -> str:
    """An id for a die's row: letters, digits and hyphens (labels hold slashes and #), and a short hash
    of the label so that ``a/b`` and ``a-b`` never share one."""
    import hashlib

    digest = hashlib.sha256(label.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return "die-" + "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in clean(label)) + "-" + digest


class Report:
    def __init__(self, store: EventStore, meta: StreamMeta, viewer: str | None, round_no: int | None) -> None:
        from combatlog.projections.fold import round_end, state_at

        self.store, self.meta, self.viewer, self.round_no = store, meta, viewer, round_no
        self.head = state_at(store, meta)
        self.rounds = sorted(self.head.core.round_last)
        if round_no is not None:
            round_end(self.head, round_no)  # refuses a round that does not exist, naming those that do
            self.rounds = [round_no]
        self.out: list[str] = []

    # -- the parts ------------------------------------------------------------------------------
    def verify(self) -> tuple[VerifyReport | None, str]:
        from combatlog.errors import CombatlogError
        from combatlog.exchange.bundle import verify_stream

        try:
            return verify_stream(self.store, self.meta), ""
        except CombatlogError as exc:
            return None, str(exc)

    def header(self, report: VerifyReport | None, failure: str) -> None:
        core, ruleset = self.head.core, self.head.ruleset
        g = core.genesis
        o = self.out
        o.append(f"<header><h1>Combat {h(self.meta.name)}</h1>")
        o.append(f'<p class="muted">{h(ruleset.info.title)}: a report written by combatlog from the log '
                 f"(stream <code>{h(self.meta.id)}</code>), "
                 + ("showing everything (the gm view)" if self.viewer is None
                    else f"showing only what {h(self.viewer)} may see") + ".</p>")
        o.append('<dl class="facts">')
        fact = lambda k, v: o.append(f"<dt>{k}</dt><dd>{v}</dd>")  # noqa: E731
        fact("Ruleset", f"{h(ruleset.info.name)} version {h(g.ruleset_version if g else ruleset.info.version)} "
                        f"({h(ruleset.info.citation)}); rules digest <code>{h(g.rules_digest if g else '')}</code>")
        if g is not None:
            fact("Dice scheme", h(g.dice) + (f"; options: {h(', '.join(f'{k}={v}' for k, v in g.options.items()))}"
                                            if g.options else ""))
            if g.players:
                fact("Players", "<ul>" + "".join(
                    f"<li>{h(p.name)}: key fingerprint <code>{h(p.fingerprint or 'none')}</code></li>"
                    for p in g.players) + "</ul>")
            else:
                fact("Players", "none pinned (no signatures: one table or one referee)")
        fact("Head", f"seq {core.head_seq}, hash <code>{h(core.head_hash)}</code>")
        state = self.head.state
        fact("Now", "finished" if ruleset.finished(state) else f"round {ruleset.round_of(state)}")
        if self.meta.parent:
            parent = self.store.get_stream(self.meta.parent)
            fact("Fork of", f"{h(parent.name if parent else self.meta.parent)} after seq {self.meta.fork_seq}"
                            + self._fork_reason(self.meta))
        if report is not None:
            d = report.dice
            text = (f'<span class="ok">verified</span>: events {report.first_seq}-{report.head_seq}, every hash, '
                    f"the chain and the rules' invariants; dice: {d.verified} verified against revealed seeds, "
                    f"{d.pending} awaiting a reveal, {d.manual} entered by hand, {d.local} local (unverifiable)"
                    + (f", {d.unbound} joint dice read by no rule" if d.unbound else "")
                    + (f"; {report.signatures} signatures checked" if report.signatures else "")
                    + ("" if report.rules_digest_matches else "; the rules digest differs from this version's"))
            if report.notes:
                text += "<ul>" + "".join(f"<li>{h(n)}</li>" for n in report.notes) + "</ul>"
        else:
            text = f'<span class="bad">VERIFICATION FAILED</span>: {h(failure)}'
        fact("Verification", text)
        o.append("</dl></header>")

    def _fork_reason(self, meta: StreamMeta) -> str:
        from combatlog.events.core import Forked
        from combatlog.projections.fold import history

        for rec in history(self.store, meta, meta.fork_seq + 1, meta.fork_seq + 1):
            if type(rec.event) is Forked:
                return f": {h(rec.event.reason)}" if rec.event.reason else " (no reason given)"
        return ""

    def contents(self) -> None:
        items = [f'<li><a href="#round-{r}">{"Set-up" if r == 0 else f"Round {r}"}</a></li>' for r in self.rounds]
        items += ['<li><a href="#acknowledgements">Acknowledgements</a></li>',
                  '<li><a href="#dice">Dice ledger</a></li>', '<li><a href="#forks">Forks</a></li>']
        self.out.append(f'<nav aria-label="contents"><h2>Contents</h2><ul>{"".join(items)}</ul></nav>')

    def rounds_part(self) -> None:
        from combatlog.pictures import scene_of, draw
        from combatlog.projections.fold import state_at
        from combatlog.projections.views import timeline, walk

        rows = {r["seq"]: r for r in timeline(self.store, self.meta, self.viewer)}
        core = self.head.core
        for rnd in self.rounds:
            lo, hi = core.round_first[rnd], core.round_last[rnd]
            o = self.out
            title = "Set-up" if rnd == 0 else f"Round {rnd}"
            o.append(f'<section class="round" id="round-{rnd}" aria-labelledby="round-{rnd}-h">'
                     f'<h2 id="round-{rnd}-h">{title}</h2>')
            folded = state_at(self.store, self.meta, hi)
            scene = scene_of(self.store, self.meta, folded, self.viewer)
            svg = draw(scene, prefix=f"r{rnd}")
            o.append(f'<figure class="picture"><figcaption>The state at the end of {title.lower()} '
                     f"(seq {hi})</figcaption>{svg}</figure>")
            o.append(f"<h3>Events {lo}-{hi}, with the steps they derived</h3>")
            o.append('<ol class="events">')
            for r in walk(self.store, self.meta, lo, hi, self.viewer, self.head):
                row = rows.get(r.seq, {})
                signed = row.get("signed_by") or []
                sig = f' <span class="signed">signed by {h(", ".join(signed))}</span>' if signed else \
                    ' <span class="muted">unsigned</span>'
                cls = ' class="concealed"' if r.concealed else ""
                o.append(f'<li id="seq-{r.seq}"><span class="seq">#{r.seq}</span> <span class="muted">'
                         f"{h(r.actor)}</span> <span{cls}>{h(r.summary)}</span>{sig}")
                if r.steps:
                    o.append("<ul>")
                    for s in r.steps:
                        dice = "".join(f' <a class="dice" href="#{anchor(d)}">[{h(d)}]</a>' for d in s.dice)
                        o.append(f'<li>{h(s.text)} <span class="rule">({h(s.rule)})</span>{dice}</li>')
                    o.append("</ul>")
                o.append("</li>")
            o.append("</ol></section>")

    def acknowledgements(self, report: VerifyReport | None) -> None:
        from combatlog.events.core import Acknowledged
        from combatlog.projections.fold import history

        o = self.out
        o.append('<section id="acknowledgements"><h2>Acknowledgements</h2>')
        acks = [(rec.seq, rec.event) for rec in history(self.store, self.meta) if type(rec.event) is Acknowledged]
        if acks:
            o.append("<table><thead><tr><th>seq</th><th>player</th><th>acknowledges the log up to</th>"
                     "<th>hash</th></tr></thead><tbody>")
            for seq, ev in acks:
                o.append(f'<tr><td><a href="#seq-{seq}">#{seq}</a></td><td>{h(ev.player)}</td><td>#{ev.upto}</td>'
                         f'<td class="mono">{h(ev.hash)}</td></tr>')
            o.append("</tbody></table>")
        else:
            o.append('<p class="muted">No acknowledgement in this log.</p>')
        if report is not None and report.acknowledged:
            o.append("<p>Last seq each pinned player signed or acknowledged: "
                     + ", ".join(f"{h(p)} #{n}" for p, n in report.acknowledged.items()) + ".</p>")
        o.append("</section>")

    def dice(self, report: VerifyReport | None) -> None:
        from combatlog.projections.views import dice_ledger

        ledger = dice_ledger(self.store, self.meta)
        rolls = ledger["rolls"]
        if self.round_no is not None:
            lo, hi = self.head.core.round_first[self.round_no], self.head.core.round_last[self.round_no]
            rolls = [r for r in rolls if lo <= r["seq"] <= hi]
        pending = set(report.pending_dice) if report is not None else set()
        o = self.out
        o.append('<section id="dice"><h2>Dice ledger</h2>')
        if self.round_no is not None:
            o.append(f'<p class="muted">The dice of round {self.round_no} only.</p>')
        if not rolls:
            o.append('<p class="muted">No dice rolled.</p></section>')
            return
        o.append("<table><thead><tr><th>seq</th><th>label</th><th>dice</th><th>faces</th><th>total</th>"
                 "<th>scheme</th><th>rolled by</th><th>verification</th></tr></thead><tbody>")
        for r in rolls:
            state, cls = die_state(r, report, pending)
            o.append(f'<tr id="{anchor(r["label"])}"><td><a href="#seq-{r["seq"]}">#{r["seq"]}</a></td>'
                     f'<td class="mono">{h(r["label"])}</td><td>{h(r["notation"])}</td>'
                     f'<td>{h(", ".join(str(f) for f in r["faces"]))}</td><td>{h(r["total"])}</td>'
                     f'<td>{h(r["scheme"])}</td><td>{h(r["by"] or "")}</td><td class="{cls}">{h(state)}</td></tr>')
        o.append("</tbody></table></section>")

    def forks(self) -> None:
        o = self.out
        o.append('<section id="forks"><h2>Forks</h2>')
        children = [m for m in self.store.list_streams() if m.parent == self.meta.id]
        if self.meta.parent:
            parent = self.store.get_stream(self.meta.parent)
            o.append(f"<p>This combat is a fork of {h(parent.name if parent else self.meta.parent)} after seq "
                     f"{self.meta.fork_seq}{self._fork_reason(self.meta)}.</p>")
        if children:
            o.append("<table><thead><tr><th>fork</th><th>after seq</th><th>reason</th></tr></thead><tbody>")
            for m in sorted(children, key=lambda m: (m.fork_seq, m.name)):
                reason = self._fork_reason(m).removeprefix(": ")
                o.append(f"<tr><td>{h(m.name)} <code>{h(m.id)}</code></td><td>#{m.fork_seq}</td>"
                         f"<td>{reason}</td></tr>")
            o.append("</tbody></table>")
        elif not self.meta.parent:
            o.append('<p class="muted">No fork of this combat in this log.</p>')
        o.append("</section>")

    # -- the document ---------------------------------------------------------------------------
    def build(self) -> str:
        report, failure = self.verify()
        self.header(report, failure)
        self.contents()
        self.rounds_part()
        self.acknowledgements(report)
        self.dice(report)
        self.forks()
        from combatlog import __version__

        title = f"combatlog report: {self.meta.name}"
        return ("<!DOCTYPE html>\n"
                f'<html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<meta name=\"generator\" content=\"combatlog {h(__version__)}\">"
                f"<title>{h(title)}</title><style>{CSS}</style></head><body>"
                + "".join(self.out)
                + f'<footer><p class="muted">Written by combatlog {h(__version__)} from the log. This file needs no '
                  "network and runs no script.</p></footer></body></html>\n")


def die_state(roll: dict[str, Any], report: VerifyReport | None, pending: set[str]) -> tuple[str, str]:
    """What is known of one die: verified, awaiting its seed, trusted as entered, or unverifiable."""
    if report is None:
        return "not checked: the log failed verification", "bad"
    scheme = roll["scheme"]
    if scheme == "manual":
        return "entered by hand: trusted, not checkable", "muted"
    if scheme == "local":
        return "local randomness: honest but unverifiable", "muted"
    if roll["label"] in pending:
        return "awaiting the seed's reveal", "muted"
    if scheme == "referee":
        return "verified against the revealed referee seed", "ok"
    if scheme == "joint":
        return "verified against the players' revealed nonces", "ok"
    return f"{scheme}: checked by the verifier", "ok"


def report_html(store: EventStore, meta: StreamMeta, viewer: str | None, round_no: int | None = None) -> str:
    return Report(store, meta, viewer, round_no).build()
