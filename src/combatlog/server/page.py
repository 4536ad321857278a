"""The live page of a combat: ``GET /c/{id}`` (docs/server.md, "The live page").

A plain HTML page, whole without scripts: the sheet picture of the current round (the drawing of
``combatlog sheet``), who must decide what (as ``status`` lists it), the timeline with each event's
steps (rule and dice, as ``explain``), the dice ledger and the verification state.

What it never shows: it is drawn for a **spectator** (``SPECTATOR``, a name no pinned player can
have: pinned names are letters, digits, ``_ . -``), so every ruleset conceals every player's hidden
plays and sealed orders are drawn face down (the server holds only their commitments anyway). Every
string from the log goes through ``pictures.report.h`` or the SVG's own escaping: control characters
shown as escapes, ``& < > " '`` escaped.

With scripts, one small inline script (allowed by its hash in the Content-Security-Policy, the only
script the page may run) listens to the combat's event stream and replaces the content with the
server's own fragment (``?fragment=1``) when an event arrives. Reading needs what the API needs: a
public combat, or the invite token as ``?token=`` (kept in the page's own links and stream URL; the
page sends ``Referrer-Policy: no-referrer`` so that it never leaks to another site).

The fragment is cached per combat by head hash: the page of an unchanged combat is not redrawn, and
the verification (``verify_stream``) runs once per head.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from combatlog.pictures.report import CSS, anchor, die_state, h
from combatlog.server.errors import ApiError

if TYPE_CHECKING:
    from combatlog.exchange.verify import VerifyReport
    from combatlog.server.routes import Api
    from combatlog.store.base import EventStore, StreamMeta

log = logging.getLogger("combatlog.server")

# The viewer the page is drawn for: not a possible pinned player name (see the module's docstring).
SPECTATOR = "(a spectator)"
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
    from combatlog.projections.fold import state_at

    head = state_at(store, meta)
    core, ruleset, state = head.core, head.ruleset, head.state
    where = "finished" if ruleset.finished(state) else f"round {ruleset.current_round(state)}"
    out = [f'<div class="combat" data-head="{core.head_seq}">',
           f"<header><h1>Combat {h(meta.name)}</h1>",
           f'<p class="muted">{h(ruleset.info.title)}; now {h(where)}, after event #{core.head_seq}. Shown as a '
           "spectator sees it: hidden plays concealed, sealed orders face down.</p></header>"]
    report, failure = _verify(store, meta)
    out += _verification(store, meta, report, failure)
    out += _picture(store, meta, head)
    out += _pending(store, meta, head)
    out += _timeline(store, meta, head)
    out += _dice(store, meta, report)
    out.append("</div>")
    return "".join(out)


def _verify(store: EventStore, meta: StreamMeta) -> tuple[VerifyReport | None, str]:
    from combatlog.errors import CombatlogError
    from combatlog.exchange.bundle import verify_stream

    try:
        return verify_stream(store, meta), ""
    except CombatlogError as exc:
        return None, str(exc)


def _verification(store: EventStore, meta: StreamMeta, report: VerifyReport | None, failure: str) -> list[str]:
    out = ['<section id="verification"><h2>Verification</h2><dl class="facts">']
    if report is None:
        head = store.head(meta.id)
        out.append(f"<dt>Head</dt><dd>event #{head.seq}, hash <code>{h(head.hash)}</code></dd>"
                   f'<dt>Result</dt><dd><span class="bad">VERIFICATION FAILED</span>: {h(failure)}</dd></dl></section>')
        return out
    d = report.dice
    out.append(f"<dt>Head</dt><dd>event #{report.head_seq}, hash <code>{h(report.head_hash)}</code></dd>")
    out.append(f"<dt>Signatures</dt><dd>{report.signatures} checked</dd>")
    out.append('<dt>Result</dt><dd><span class="ok">verified</span>: every hash, the chain, every signature by its '
               f"own player and the rules; dice: {d.verified} verified against revealed seeds, {d.pending} awaiting "
               f"a reveal, {d.manual} entered by hand, {d.local} local (unverifiable)"
               + ("" if report.rules_digest_matches else "; the rules digest differs from this server's version")
               + "</dd>")
    if report.notes:
        out.append("<dt>Notes</dt><dd><ul>" + "".join(f"<li>{h(n)}</li>" for n in report.notes) + "</ul></dd>")
    out.append("</dl></section>")
    return out


def _picture(store: EventStore, meta: StreamMeta, head: Any) -> list[str]:
    from combatlog.pictures import sheet_svg

    svg = sheet_svg(store, meta, head, SPECTATOR, prefix="live")
    rnd = head.ruleset.round_of(head.state)
    return [f'<section id="sheet"><h2>The sheet</h2><figure class="picture"><figcaption>The state after event '
            f"#{head.core.head_seq} ({'set-up' if rnd == 0 else f'round {rnd}'})</figcaption>{svg}</figure></section>"]


def _pending(store: EventStore, meta: StreamMeta, head: Any) -> list[str]:
    pending = head.ruleset.pending(head.state)
    out = ['<section id="pending" class="pending"><h2>Waiting for</h2>']
    if not pending:
        out.append('<p class="muted">Nothing pending.</p></section>')
        return out
    referee = "gm"
    if any(p.who == "gm" for p in pending):
        from combatlog.trust.mine import referee_of

        referee = referee_of(store, meta)
    out.append("<ul>")
    for p in pending:
        who = f"gm ({h(referee)}: the referee's step)" if p.who == "gm" and referee != "gm" else h(p.who)
        opts = f' <span class="muted">[{h(" | ".join(p.options))}]</span>' if p.options else ""
        rule = f' <span class="rule">({h(p.rule)})</span>' if p.rule else ""
        out.append(f'<li data-who="{h(p.who)}"><strong>{who}</strong>: {h(p.what)}{opts}{rule}</li>')
    out.append("</ul></section>")
    return out


def _timeline(store: EventStore, meta: StreamMeta, head: Any) -> list[str]:
    from combatlog.projections.views import timeline, walk

    signers = {r["seq"]: r["signed_by"] for r in timeline(store, meta, SPECTATOR)}
    out = ['<section id="timeline"><h2>Timeline</h2><ol class="events">']
    for r in walk(store, meta, 1, None, SPECTATOR, head):
        signed = signers.get(r.seq) or []
        sig = (f' <span class="signed">signed by {h(", ".join(signed))}</span>' if signed
               else ' <span class="muted">unsigned</span>')
        cls = ' class="concealed"' if r.concealed else ""
        out.append(f'<li id="seq-{r.seq}"><span class="seq">#{r.seq}</span> <span class="muted">{h(r.actor)}</span> '
                   f"<span{cls}>{h(r.summary)}</span>{sig}")
        if r.steps:
            out.append("<ul>")
            for s in r.steps:
                dice = "".join(f' <a class="dice" href="#{anchor(d)}">[{h(d)}]</a>' for d in s.dice)
                out.append(f'<li>{h(s.text)} <span class="rule">({h(s.rule)})</span>{dice}</li>')
            out.append("</ul>")
        out.append("</li>")
    out.append("</ol></section>")
    return out


def _dice(store: EventStore, meta: StreamMeta, report: VerifyReport | None) -> list[str]:
    from combatlog.projections.views import dice_ledger

    rolls = dice_ledger(store, meta)["rolls"]
    pending = set(report.pending_dice) if report is not None else set()
    out = ['<section id="dice"><h2>Dice ledger</h2>']
    if not rolls:
        out.append('<p class="muted">No dice rolled.</p></section>')
        return out
    out.append("<table><thead><tr><th>seq</th><th>label</th><th>dice</th><th>faces</th><th>total</th>"
               "<th>scheme</th><th>rolled by</th><th>verification</th></tr></thead><tbody>")
    for r in rolls:
        text, cls = die_state(r, report, pending)
        out.append(f'<tr id="{anchor(r["label"])}"><td><a href="#seq-{r["seq"]}">#{r["seq"]}</a></td>'
                   f'<td class="mono">{h(r["label"])}</td><td>{h(r["notation"])}</td>'
                   f'<td>{h(", ".join(str(f) for f in r["faces"]))}</td><td>{h(r["total"])}</td>'
                   f'<td>{h(r["scheme"])}</td><td>{h(r["by"] or "")}</td><td class="{cls}">{h(text)}</td></tr>')
    out.append("</tbody></table></section>")
    return out


# -- the documents ----------------------------------------------------------------------------------------


def document(title: str, body: str, script: bool = False) -> str:
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{h(title)}</title><style>{PAGE_CSS}</style></head><body>{body}"
            + (f"<script>{SCRIPT}</script>" if script else "") + "</body></html>\n")


def page_html(combat_id: str, name: str, head_seq: int, content: str, token: str) -> str:
    """The whole page: the fragment, the live-update switch (the script's URLs, token kept) and links."""
    query = f"?token={quote(token, safe='')}" if token else ""
    here = f"{quote(combat_id, safe='')}{query}"
    fragment_url = here + ("&" if query else "?") + "fragment=1"
    stream_url = f"../v1/combats/{quote(combat_id, safe='')}/stream" + (query or "?")  # the script adds since=
    body = (f'<nav aria-label="this page"><p id="live" data-stream="{h(stream_url)}" data-fragment="{h(fragment_url)}" '
            f'data-head="{head_seq}"><span id="live-state" class="muted">Not live: <a href="{h(here)}">reload</a> '
            "for new events (with scripts on, this page updates itself).</span></p></nav>"
            f'<main id="content">{content}</main>'
            '<footer><p class="muted">Drawn by combatlog from the server\'s log, as a spectator sees it. Verify it '
            "yourself: <code>combatlog pull</code> checks every event.</p></footer>")
    return document(f"combatlog: {name}", body, script=True)


def error_html(status: int, code: str, message: str) -> str:
    return document(f"combatlog: {status}", f"<main><h1>{status}: {h(code)}</h1><p>{h(message)}</p></main>")


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
