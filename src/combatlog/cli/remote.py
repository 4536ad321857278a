"""``combatlog remote ...``: the servers this machine pushes to and pulls from (docs/server.md)."""

from __future__ import annotations

from typing import Any, Optional

import typer

from combatlog.cli.common import app_state, echo, json_option, note, print_json, stream_argument

app = typer.Typer(help="Combat servers (combatlog serve): add, list, show an invite, remove, create a "
                  "combat there.",
                  no_args_is_help=True)


def remote_option() -> Any:
    return typer.Option(None, "--remote", metavar="NAME", help="The remote (default: the only one).")


@app.command("add")
def add(
    name: str = typer.Argument(..., help="A short name for the server (e.g. origin)."),
    url: str = typer.Argument(..., help="Its URL (https://..., or http:// on this machine)."),
    token: str = typer.Option("", "--token", help="An invite token (to read a combat you are not a player of)."),
    as_json: bool = json_option(),
) -> None:
    """Remember a server under a name (in the key home's remotes.json, owner-only).

    Example: combatlog remote add origin https://combats.example.org --token Yx3...
    """
    from combatlog.remote.config import add as add_remote
    from combatlog.remote.config import path

    remote = add_remote(name, url, token)
    from combatlog.remote.config import plain_http_elsewhere

    if plain_http_elsewhere(remote.url):
        note(f"warning: {remote.url} is plain HTTP to another machine: invite tokens and the combat can be read "
             "on the way (requests stay signed); use https:// behind a TLS proxy (docs/server.md)")
    if as_json:
        print_json({"name": remote.name, "url": remote.url, "token": bool(remote.token), "file": str(path())})
        return
    echo(f"remote {remote.name}: {remote.url}" + (" (with an invite token)" if remote.token else ""))


@app.command("list")
def list_remotes(as_json: bool = json_option()) -> None:
    """The servers remembered here (tokens are not shown).

    Example: combatlog remote list
    """
    from combatlog.remote.config import load

    remotes = load()
    if as_json:
        print_json([{"name": r.name, "url": r.url, "token": bool(r.token), "combats": sorted(r.tokens)}
                    for r in remotes.values()])
        return
    if not remotes:
        echo("no remotes (add one: combatlog remote add NAME URL)")
    for r in remotes.values():
        extra = [f"{len(r.tokens)} combats created"] if r.tokens else []
        extra += ["invite token"] if r.token else []
        echo(f"{r.name}\t{r.url}" + (f"\t({', '.join(extra)})" if extra else ""))


@app.command("show")
def show(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The remote's name (see: combatlog remote list)."),
    stream: str = stream_argument("The combat: its name or id (here, or on the server)."),
    as_json: bool = json_option(),
) -> None:
    """A combat's invite token and the URL of its live page, to give to those who may watch it.

    The token is kept in this key home's remotes.json: the one the server gave when you created the
    combat, or an invitation you added (shown only when the server says it opens this combat). Anyone
    holding it can read the whole combat: give it only to those who may.

    Example: combatlog remote show origin duel
    """
    from combatlog.remote.client import Client
    from combatlog.remote.config import choose
    from combatlog.remote.invite import show as show_invite

    st = app_state(ctx)
    invite = show_invite(st.store(), Client(choose(name), st.actor), stream)
    if as_json:
        import dataclasses

        print_json(dataclasses.asdict(invite))
        return
    for line in invite.lines():
        echo(line)


@app.command("remove")
def remove(name: str = typer.Argument(..., help="The remote's name.")) -> None:
    """Forget a server (and the invite tokens kept for it).

    Example: combatlog remote remove origin
    """
    from combatlog.remote.config import remove as remove_remote

    remove_remote(name)
    echo(f"remote {name} removed")


@app.command("create")
def create(
    ctx: typer.Context,
    stream: str = stream_argument(),
    remote: Optional[str] = remote_option(),
    public: bool = typer.Option(False, "--public", help="Anyone may read it (default: its players, and whoever "
                                                       "has its invite token)."),
    as_json: bool = json_option(),
) -> None:
    """Put a combat of this log on a server: its creator (--as) signs the request.

    The server answers with the combat's invite token (kept in remotes.json): give it to spectators.

    Example: combatlog remote create duel --remote origin --as alice
    """
    from combatlog.remote.client import Client
    from combatlog.remote.client import create as create_remote
    from combatlog.remote.config import choose

    st = app_state(ctx)
    chosen = choose(remote)
    outcome = create_remote(st.store(), Client(chosen, st.actor), stream, public=public)
    if as_json:
        print_json({"combat": outcome.combat, "action": outcome.action, "events": outcome.events,
                    "head_seq": outcome.head_seq, "token": outcome.token, "remote": chosen.name})
        return
    echo(outcome.text(chosen.name))
    echo(f"invite token: {outcome.token}")
