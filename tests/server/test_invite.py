"""`combatlog remote show NAME STREAM`: the invite token and the live page's URL, from the key home's
remotes.json, to whoever holds them there and nobody else (docs/server.md, "The CLI as a replica";
issue #20: no command printed them, and `remote list` hides tokens, which it still does)."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

from tests.server.live import LiveServer
from tests.server.players import combat_id, table
from tests.trust.pbem import Seat


def _fetch(server: LiveServer, url: str):  # type: ignore[no-untyped-def]
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == server.url
    return server.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))


def test_the_creator_sees_the_token_and_a_page_url_that_opens(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    kept = json.loads((alice.home / "remotes.json").read_text())["remotes"]["origin"]["tokens"][cid]
    shown = alice("remote", "show", "origin", "duel")
    assert f"duel ({cid}) on origin ({server.url})" in shown.out
    assert f"invite token: {kept}" in shown.out
    page = f"{server.url}/c/{cid}?token={kept}"
    assert f"live page:    {page}" in shown.out
    as_json = alice("remote", "show", "origin", "duel", "--json").json()
    assert as_json == {"remote": "origin", "url": server.url, "combat": "duel", "id": cid, "token": kept,
                       "page": page, "source": "created here"}
    opened = _fetch(server, page)
    assert opened.status == 200 and b"Combat duel" in opened.body
    assert _fetch(server, f"{server.url}/c/{cid}").status == 401  # the token is what opens it
    # `remote list` still hides it
    for listed in (alice("remote", "list").out, alice("remote", "list", "--json").out):
        assert kept not in listed

    # a spectator invited with the token: the combat is not in their log; found on the server by name
    carol = Seat("carol", tmp_path)
    carol("remote", "add", "watch", server.url, "--token", kept)
    invited = carol("remote", "show", "watch", "duel", "--json").json()
    assert invited["token"] == kept and invited["source"] == "invitation" and invited["id"] == cid
    assert invited["page"] == f"{server.url}/c/{cid}?token={kept}"


def test_no_token_here_means_none_is_shown(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"))
    cid = combat_id(alice)
    bob("pull", "duel")
    refused = bob("remote", "show", "origin", "duel", ok=False)
    assert refused.code != 0 and "no invite token for duel" in refused.err
    assert "the combat's creator (alice)" in refused.err and "invite token:" not in refused.out
    # an invitation to another combat is not passed off as this one's (the server says it does not open it)
    alice("new", "other", "--ruleset", "freeform", "--player", "alice", "--player", "bob")
    alice("push", "other")
    other_token = json.loads((alice.home / "remotes.json").read_text())["remotes"]["origin"]["tokens"]
    other_token = next(t for c, t in other_token.items() if c != cid)
    bob("remote", "add", "origin", server.url, "--token", other_token)
    refused = bob("remote", "show", "origin", "duel", ok=False)
    assert refused.code != 0 and other_token not in refused.out + refused.err
    assert bob("remote", "show", "origin", "other", "--json").json()["token"] == other_token
    # an unknown remote
    unknown = bob("remote", "show", "elsewhere", "duel", ok=False)
    assert unknown.code != 0 and "no remote 'elsewhere'" in unknown.err


def test_a_public_combat_needs_no_token(tmp_path: Path, server: LiveServer) -> None:
    alice, bob = table(tmp_path, server.url, ("alice", "bob"), create=False)
    alice("remote", "create", "duel", "--public")
    cid = combat_id(alice)
    shown = bob("remote", "show", "origin", "duel", "--json").json()
    assert shown["source"] == "public" and shown["token"] == "" and shown["page"] == f"{server.url}/c/{cid}"
    assert "(none needed: the combat is public)" in bob("remote", "show", "origin", "duel").out
    assert _fetch(server, shown["page"]).status == 200
