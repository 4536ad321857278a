"""``combatlog remote show NAME STREAM``: a combat's invite token and the URL of its live page.

The token is a reader's key to the whole combat, so it is shown only from where it is kept: the
remotes file of this key home (owner-only), where ``push``/``remote create`` put the token the server
returned to the creator, and ``remote add --token`` an invitation. The server keeps tokens hashed and
gives one out once, to the creator; nobody else can get it from the server. An invitation is shown
for a combat only when the server says it opens that combat (it may be another combat's).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from combatlog.errors import NotFound
from combatlog.remote.client import Client, find
from combatlog.store.base import EventStore


@dataclass
class Invite:
    remote: str
    url: str
    combat: str  # its name, as this log or the server knows it
    id: str
    token: str  # "" for a public combat this key home holds no token of
    page: str  # the live page's URL, with the token when there is one
    source: str  # created here | invitation | public

    def lines(self) -> list[str]:
        token = self.token or "(none needed: the combat is public)"
        return [f"{self.combat} ({self.id}) on {self.remote} ({self.url})",
                f"invite token: {token}",
                f"live page:    {self.page}"]


def page_url(remote_url: str, combat_id: str, token: str) -> str:
    return f"{remote_url.rstrip('/')}/c/{quote(combat_id, safe='')}" + (f"?token={quote(token, safe='')}" if token
                                                                         else "")


def show(store: EventStore, client: Client, ref: str) -> Invite:
    """The invite of ``ref`` (a combat of this log, or one on the server by name or id)."""
    remote = client.remote
    meta, combat_id = find(store, client, ref)
    name = meta.name if meta is not None else ref
    if remote.tokens.get(combat_id):  # the server gave it to this machine when it created the combat
        token = remote.tokens[combat_id]
        return Invite(remote.name, remote.url, name, combat_id, token, page_url(remote.url, combat_id, token),
                      "created here")
    if remote.token and _opens(client, combat_id, remote.token):
        return Invite(remote.name, remote.url, name, combat_id, remote.token,
                      page_url(remote.url, combat_id, remote.token), "invitation")
    info = client.info(combat_id)
    if info is None:
        raise NotFound(f"{remote.name} does not have {ref} (push creates it there, and keeps its invite token here)")
    if info.get("public") is True:
        return Invite(remote.name, remote.url, str(info.get("name") or name), combat_id, "",
                      page_url(remote.url, combat_id, ""), "public")
    creator = str(info.get("creator") or "its creator")
    raise NotFound(f"no invite token for {name} ({combat_id}) from {remote.name} in this key home: the server gives "
                   f"it once, to the combat's creator ({creator}), whose `combatlog remote show {remote.name} {name}` "
                   "prints it")


def _opens(client: Client, combat_id: str, token: str) -> bool:
    """Whether ``token`` alone (no signature) lets the server's reader in: it is this combat's (or the
    combat is public)."""
    probe = Client(client.remote, None, client.timeout)
    resp = probe.request("GET", f"/v1/combats/{combat_id}", token=token)
    return resp.status == 200
