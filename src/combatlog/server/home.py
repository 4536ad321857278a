"""``GET /``: what this server is (combatlog, its version) and its public combats, each linked to its
live page; JSON instead of HTML when the Accept header prefers it (docs/server.md, "The API").

Kept apart from the live page (server/page.py) and as plain as it: no script at all, so its
Content-Security-Policy allows none; every string from the store escaped with ``pictures.report.h``
(control characters as visible escapes); links relative, so the page works under a proxy's prefix.
Private combats are never listed, not even by count: their names are their players' business.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from combatlog.server.errors import ApiError

if TYPE_CHECKING:
    from combatlog.server.routes import Api

CSP = ("default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-store", "X-Frame-Options": "DENY", "Vary": "Accept"}
STYLE = ("body{font:15px/1.45 system-ui,sans-serif;max-width:52em;margin:2em auto;padding:0 1em;color:#222}"
         "table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left}"
         ".muted{color:#666}code{font-size:90%}")


def wants_json(accept: str) -> bool:
    """Whether the Accept header ranks application/json above HTML (a browser's ``*/*`` gets HTML)."""
    best = {"json": 0.0, "html": 0.0}
    for part in accept.split(",")[:32]:
        media, *params = (x.strip().lower() for x in part.split(";"))
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = min(1.0, max(0.0, float(param[2:])))
                except ValueError:
                    q = 0.0
        kind = {"application/json": "json", "text/html": "html", "application/xhtml+xml": "html"}.get(media)
        if kind:
            best[kind] = max(best[kind], q)
    return best["json"] > 0 and best["json"] > best["html"]


def home_html(version: str, combats: list[dict[str, Any]]) -> str:
    from combatlog.pictures.html import render, trusted

    rows = [{"href": quote(c["id"], safe=""), "name": c["name"], "ruleset": c["ruleset"], "head_seq": c["head_seq"],
             "players": ", ".join(p["name"] for p in c["players"])} for c in combats]
    return render("document.html", title="combatlog server", css=trusted(STYLE),
                  body=trusted(render("home.html", version=version, combats=rows)), script=None)


def error_html(status: int, code: str, message: str) -> str:
    from combatlog.pictures.html import render, trusted

    return render("document.html", title=f"combatlog: {status}", css=trusted(STYLE),
                  body=trusted(render("error.html", status=status, code=code, message=message)), script=None)


class Home:
    """``GET /`` with the API's per-address rate limit; the store read on the store's thread."""

    def __init__(self, api: Api) -> None:
        self.api = api

    def _public(self) -> list[dict[str, Any]]:
        combats = [self.api._summary(a) for a in self.api.worker.registry.all() if a.public]
        return sorted(combats, key=lambda c: (c["name"], c["id"]))

    async def view(self, request: Request) -> Response:
        from combatlog import __version__

        as_json = wants_json(request.headers.get("accept", ""))
        try:
            await self.api._call(request)
            combats = await self.api._run(self._public)
        except ApiError as exc:
            if as_json:
                return JSONResponse(exc.body(), status_code=exc.status, headers={**exc.headers, "Vary": "Accept"})
            return HTMLResponse(error_html(exc.status, exc.code, exc.message), status_code=exc.status,
                                headers={**exc.headers, **HEADERS})
        if as_json:
            return JSONResponse({"service": "combatlog", "version": __version__, "api": "v1/",
                                 "combats": [{**c, "page": f"c/{c['id']}"} for c in combats]},
                                headers={"Cache-Control": "no-store", "Vary": "Accept"})
        return HTMLResponse(home_html(__version__, combats), headers=HEADERS)
