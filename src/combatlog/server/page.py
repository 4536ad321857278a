"""The live page of a combat: ``GET /c/{id}`` (docs/server.md, "The live page").

A plain HTML page, whole without scripts: whose move it is (as ``status`` lists it), the sheet picture
of the current round (the drawing of ``combatlog sheet``), the timeline by round, newest round first, in
the words of ``explain`` (rules and dice; trust plumbing in one line per round), the dice ledger and,
last, the verification state.

What it never shows: it is drawn for a **spectator** (``SPECTATOR``, a name no pinned player can
have: pinned names are letters, digits, ``_ . -``), so every ruleset conceals every player's hidden
plays and sealed orders are drawn face down (the server holds only their commitments anyway). The HTML
comes from Jinja2 templates with autoescape (``combatlog/templates``, ``pictures.html``): every string
from the log, and in the SVG by the picture's own escaping, has its control characters shown as escapes
and ``& < > " '`` escaped. The script is written as is, so its hash in the CSP stays true.

With scripts, one small inline script (allowed by its hash in the Content-Security-Policy, the only
script the page may run) listens to the combat's event stream and replaces the content with the
server's own fragment (``?fragment=1``) when an event arrives. Reading needs what the API needs: a
public combat, or the invite token as ``?token=`` (kept in the page's own links and stream URL; the
page sends ``Referrer-Policy: no-referrer`` so that it never leaks to another site).

The fragment is cached per combat by head hash: the page of an unchanged combat is not redrawn, and
the log is read once per head, by the verifier: the timeline and the ledger are drawn from each event as
it is checked and folded (``exchange/stored.py``'s ``walk_verified``, as the report does). A log that
fails verification is then walked again, whole and unchecked, and shown with the verifier's words.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from combatlog.pictures.report import CSS
from combatlog.server.errors import ApiError

if TYPE_CHECKING:
    from combatlog.exchange.stored import Walked
    from combatlog.server.routes import Api
    from combatlog.store.base import EventStore, StreamMeta

log = logging.getLogger("combatlog.server")

# The viewer the page is drawn for: not a possible pinned player name (see the module's docstring).
SPECTATOR = "(a spectator)"


def _where(ruleset: Any, state: Any) -> str:
    """The header's "where", agreeing with the sheet under it (drawn at the last event's round): between two
    rounds, the round that ended and the one to come."""
    if ruleset.finished(state):
        return "finished"
    now, last = ruleset.current_round(state), ruleset.round_of(state)
    return f"round {now}" if now == last or last == 0 else f"round {last} over, round {now} next"
CACHE_SIZE = 64  # combats whose last fragment is kept

PAGE_CSS = CSS + """
#live-state { font-size: 13px; }
.pending li { margin: 2px 0; }
.grid { display: grid; grid-template-columns: 1fr; gap: 0 24px; }
"""

# The page's only script. It reads its URLs from data attributes (so that its text, and its hash in
# the CSP, never change), and writes only the server's own escaped fragment, and plain text.
SCRIPT = """(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live || !window.EventSource || !window.fetch) { return; }
  var stream = live.getAttribute("data-stream");
  var fragment = live.getAttribute("data-fragment");
  var head = live.getAttribute("data-head");
  var state = document.getElementById("live-state");
  var busy = false, again = false, source = null;
  function say(text) { if (state) { state.textContent = text; } }
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(fragment, { cache: "no-store", credentials: "same-origin", redirect: "error" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
      .then(function (text) {
        var content = document.getElementById("content");
        if (content) { content.innerHTML = text; }
        say("Live: updated at event #" + head + ".");
      })
      .catch(function (e) { say("Live update failed (" + e.message + "): reload the page."); })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  function connect() {
    source = new EventSource(stream + (/[?]$/.test(stream) ? "" : "&") + "since=" + encodeURIComponent(head));
    source.addEventListener("open", function () { say("Live: waiting for new events."); });
    source.addEventListener("event", function (e) {
      if (/^[0-9]+$/.test(e.lastEventId)) { head = e.lastEventId; }
      refresh();
    });
    source.addEventListener("end", function (e) {
      source.close();
      try { var n = JSON.parse(e.data).head_seq; if (typeof n === "number") { head = String(n); } } catch (x) {}
      setTimeout(connect, 500);
    });
    source.onerror = function () {
      source.close();
      say("Live: connection lost; trying again.");
      setTimeout(connect, 5000);
    };
  }
  say("Live: connecting to the event stream.");
  connect();
})();"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")

CSP = ("default-src 'none'; " f"script-src '{SCRIPT_HASH}'; " "style-src 'unsafe-inline'; connect-src 'self'; "
       "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-store", "X-Frame-Options": "DENY"}


# -- the fragment: everything a viewer reads, drawn from the store ---------------------------------------


def fragment(store: EventStore, meta: StreamMeta) -> str:
    """The page's content for a spectator (no token in it: it is cached and shared by every reader)."""
    from combatlog.exchange.stored import walk_verified
    from combatlog.pictures import draw, scene_of
    from combatlog.pictures.html import render, trusted
    from combatlog.pictures.report import ledger
    from combatlog.projections.fold import state_at
    from combatlog.wiring import standard

    head = state_at(store, meta)
    core, ruleset, state = head.core, head.ruleset, head.state
    # one pass over the log: each event as the verifier checks and folds it (a failing log: walk_verified)
    walked, report, failure = walk_verified(store, meta, standard(), lambda events: _timeline(events, head))
    dice, legend = ledger(walked.rolls, report)
    rnd = ruleset.round_of(state)
    scene = scene_of(store, meta, head, SPECTATOR, sealed=walked.sealed, steps=walked.steps, with_pending=False)
    return render(
        "page_fragment.html", name=meta.name, title=ruleset.info.title, head_seq=core.head_seq,
        head_hash=core.head_hash, where=_where(ruleset, state),
        report=report, failure=failure, round_title="set-up" if rnd == 0 else f"round {rnd}",
        picture=trusted(draw(scene, prefix="live")),
        pending=_pending(store, meta, head), rounds=walked.rounds, dice=dice, legend=legend,
    )


def _pending(store: EventStore, meta: StreamMeta, head: Any) -> list[dict[str, Any]]:
    """What the combat waits for, each named as ``status``, the mail and the sheet name who takes it ("bob
    (orc1)", "gm (alice: the referee's step)": trust/mine.py ``takers``); ``who`` stays the name ``pending``
    gives (the item's ``data-who``)."""
    from combatlog.trust.mine import takers

    pending = head.ruleset.pending(head.state)
    return [{"who": p.who, "name": name, "what": p.what, "options": list(p.options), "rule": p.rule}
            for p, (name, _players) in zip(pending, takers(store, meta, head, pending))]


class Timeline(NamedTuple):
    rounds: list[dict[str, Any]]  # newest first
    rolls: list[dict[str, Any]]  # the dice ledger's rows
    sealed: list[Any]  # the sealed orders, for the sheet (``pictures.sealed_orders``)
    steps: list[Any]  # the current round's steps, for the sheet (``pictures.round_steps``)


def _timeline(events: Walked, head: Any) -> Timeline:
    """The events as the spectator may read them, grouped by round, newest round first, each in the words of
    ``explain`` (its first derived step, not the command's summary); the trust plumbing of a round in one
    line. And, from the same walk of ``events`` (the whole log, with the fold after each), the rolls and
    what the sheet needs from the log, so that the sheet does not read it again."""
    from msgspec.structs import replace

    from combatlog.events.core import DiceRolled
    from combatlog.pictures import note_sealed
    from combatlog.pictures.report import event_row, who_line
    from combatlog.projections.plumbing import folded_line, is_plumbing
    from combatlog.projections.views import replay_step, roll_row

    rounds: dict[int, dict[str, Any]] = {}
    rolls: list[dict[str, Any]] = []
    shown = (1, head.core.head_seq)
    sealed: dict[tuple[str, str], Any] = {}
    sheet_steps: list[Any] = []
    sheet_from = head.core.round_first.get(head.ruleset.round_of(head.state), 1)  # the round the sheet shows
    for before, rec, folded in events:
        row = replay_step(folded, before, rec, SPECTATOR, head.state)
        note_sealed(sealed, rec)
        if rec.seq >= sheet_from and not row.concealed:
            sheet_steps.extend(row.steps)
        group = rounds.setdefault(row.round, {"round": row.round, "rows": [], "plumbing": [], "who": None})
        is_die = type(rec.event) is DiceRolled
        if is_die:
            rolls.append(roll_row(rec.seq, rec.event, rec.env.actor, head.ruleset.dice_by_piece))
        if is_plumbing(row.type):
            group["plumbing"].append(rec.event)
            continue
        told = not is_die and not row.concealed and _told_by_its_step(row)
        if told:  # explain's words: the rules step says what happened, better than the command's summary
            steps = sorted(row.steps, key=lambda step: step.rule.startswith("trust:"))  # stable: rules first
            row = replace(row, summary=steps[0].text, steps=steps)
        who = who_line(row, rec)
        item = event_row(row, who if who != group["who"] else None, is_die, head.core.labels, shown)
        if told and item.steps and item.steps[0].text == item.summary:
            first = item.steps.pop(0)
            item.inline = type(first)("", first.rule, first.dice)
        group["rows"].append(item)
        group["who"] = who  # said again at the top of each round: the rounds are shown newest first
    out = []
    for n in sorted(rounds, reverse=True):
        group = rounds[n]
        group["title"] = "Set-up" if n == 0 else f"Round {n}"
        group["plumbing"] = folded_line(group["plumbing"])
        out.append(group)
    return Timeline(out, rolls, list(sealed.values()), sheet_steps)


def _told_by_its_step(row: Any) -> bool:
    """Whether the event's first rules step can stand for it: its only one, or one that tells the same
    act in more words ("bk lures goblin-1 (Axe Goblin) onto Black Knight" for "bk lures goblin-1->bk").
    A step of many ("Melee Step of round 1 resolved") keeps its summary as the heading."""
    rules = [s for s in row.steps if not s.rule.startswith("trust:")]
    if not rules:
        return False
    return len(rules) == 1 or rules[0].text.lower().split()[:2] == row.summary.lower().split()[:2]


# -- the documents ----------------------------------------------------------------------------------------


def document(title: str, body: str, script: bool = False) -> str:
    from combatlog.pictures.html import render, trusted

    return render("document.html", title=title, css=trusted(PAGE_CSS), body=trusted(body),
                  script=trusted(SCRIPT) if script else None)


def page_html(combat_id: str, name: str, head_seq: int, content: str, token: str) -> str:
    """The whole page: the fragment, the live-update switch (the script's URLs, token kept) and links."""
    from combatlog.pictures.html import render, trusted

    query = f"?token={quote(token, safe='')}" if token else ""
    here = f"{quote(combat_id, safe='')}{query}"
    fragment_url = here + ("&" if query else "?") + "fragment=1"
    stream_url = f"../v1/combats/{quote(combat_id, safe='')}/stream" + (query or "?")  # the script adds since=
    body = render("page.html", stream_url=stream_url, fragment_url=fragment_url, head_seq=head_seq, here=here,
                  content=trusted(content))  # the fragment: our own template's escaped output
    return document(f"combatlog: {name}", body, script=True)


def error_html(status: int, code: str, message: str) -> str:
    from combatlog.pictures.html import render

    return document(f"combatlog: {status}", render("error.html", status=status, code=code, message=message))


# -- the route --------------------------------------------------------------------------------------------


class Page:
    """``GET /c/{id}`` on the API's store thread, with the API's access rules."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self._cache: OrderedDict[str, tuple[str, str]] = OrderedDict()  # combat id -> (head hash, fragment)
        self._lock = threading.Lock()

    def _render(self, combat_id: str, call: Any) -> tuple[str, int, str, str]:
        """(name, head seq, fragment, token to keep), on the store's thread after the read check."""
        access = self.api._access(combat_id)
        self.api._may_read(access, call)
        store = self.api.worker.store
        meta = store.get_stream(combat_id)
        head = store.head(combat_id)
        with self._lock:
            cached = self._cache.get(combat_id)
        if cached is not None and cached[0] == head.hash:
            content = cached[1]
        else:
            content = fragment(store, meta)
            with self._lock:
                self._cache[combat_id] = (head.hash, content)
                self._cache.move_to_end(combat_id)
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        keep = call.token if call.token and access.token_matches(call.token) else ""
        return meta.name, head.seq, content, keep

    async def view(self, request: Request) -> Response:
        from combatlog.server.routes import _combat_id, _flag

        try:
            call = await self.api._call(request)
            only_fragment = _flag(request.query_params.get("fragment", "0"), "fragment")
            combat_id = _combat_id(request)
            name, seq, content, token = await self.api._run(self._render, combat_id, call)
        except ApiError as exc:
            return HTMLResponse(error_html(exc.status, exc.code, exc.message), status_code=exc.status,
                                headers={**exc.headers, **HEADERS})
        except Exception:  # a drawing bug must not answer a bare 500 without the page's headers
            log.exception("the live page of %s failed", request.url.path[:200])
            return HTMLResponse(error_html(500, "internal", "the page could not be drawn; nothing was changed"),
                                status_code=500, headers=HEADERS)
        if only_fragment:
            return HTMLResponse(content, headers=HEADERS)
        return HTMLResponse(page_html(combat_id, name, seq, content, token), headers=HEADERS)
