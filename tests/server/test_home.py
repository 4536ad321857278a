"""`GET /`: what the server is and its public combats, linked to their live pages; HTML with the live
page's headers discipline (and no script at all), or JSON when Accept prefers it (docs/server.md;
issue #20: `/` answered 404, and a person opening the server's address learnt nothing)."""

from __future__ import annotations

from pathlib import Path

from combatlog import __version__
from combatlog.server.home import home_html, wants_json
from tests.server.live import LiveServer
from tests.server.pagecheck import well_formed
from tests.server.players import combat_id, table

HOSTILE = "<script>alert(1)</script>&\"'"  # a combat name may hold any printable character but spaces


def test_the_home_page_names_the_server_and_lists_only_public_combats(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))  # "duel": private
    alice("new", HOSTILE, "--ruleset", "freeform", "--player", "alice", "--player", "bob")
    alice("remote", "create", HOSTILE, "--public")
    public_id, private_id = combat_id(alice, HOSTILE), combat_id(alice)

    page = server.request("GET", "/", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["referrer-policy"] == "no-referrer"
    text = page.body.decode()
    doc = well_formed(text)
    assert "<script" not in text  # the name is text, never markup
    assert HOSTILE in " ".join(doc.text) and f"version {__version__}" in " ".join(doc.text)
    links = [a["href"] for a in doc.find("a")]
    assert f"c/{public_id}" in links and not any(private_id in str(link) for link in links)
    assert "duel" not in " ".join(doc.text) and private_id not in text  # private combats are not even named
    assert server.request("GET", f"/c/{public_id}").status == 200  # the link opens the live page

    served = server.request("GET", "/", headers={"Accept": "application/json"})
    assert served.status == 200 and served.headers["content-type"].startswith("application/json")
    body = served.json()
    assert body["service"] == "combatlog" and body["version"] == __version__ and body["api"] == "v1/"
    assert [(c["id"], c["name"], c["page"], c["public"]) for c in body["combats"]] == [
        (public_id, HOSTILE, f"c/{public_id}", True)]
    assert server.request("POST", "/").status == 405  # nothing is written here


def test_accept_decides_between_html_and_json() -> None:
    assert wants_json("application/json") and wants_json("application/json, text/html;q=0.5")
    for accept in ("", "*/*", "text/html", "text/html,application/json;q=0.9", "application/json;q=0",
                   "application/json;q=x", "text/html;q=0.5, application/json;q=0.5"):
        assert not wants_json(accept), accept


def test_every_string_on_the_page_is_escaped() -> None:
    """Names and players as the store would give them, hostile: drawn as text (hand-made summary)."""
    text = home_html("1<b>", [{"id": "abc", "name": HOSTILE, "ruleset": "<i>rules", "head_seq": 3,
                               "players": [{"name": "\x1b[2Jbob"}]}])
    well_formed(text)
    for raw in ("<script>", "<i>rules", "1<b>", "\x1b"):
        assert raw not in text
    assert "&lt;script&gt;" in text and "&lt;i&gt;rules" in text and "\\x1b" in text
