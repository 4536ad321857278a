"""``combatlog keys ...``: player key pairs for signed play by email.

Signing itself is wired in ``cli/common.py`` (``SIGNER_FACTORY``): every write
command run ``--as PLAYER`` on a combat that pins players is signed with that
player's key, and refused when the key is not held here.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from combatlog.cli.common import echo, json_option, print_json

app = typer.Typer(help="Player keys (Ed25519) for signed play by email: new, list, export, import.",
                  no_args_is_help=True)


@app.command("new")
def new(
    name: str = typer.Argument(..., help="The player's name, as it will be pinned in combats (e.g. alice)."),
    as_json: bool = json_option(),
) -> None:
    """Make a key pair for a player in the key home (COMBATLOG_HOME, default ~/.config/combatlog).

    The secret key never leaves this machine; send the public part with `keys export`.

    Example: combatlog keys new alice
    """
    from combatlog.trust.keys import keys_dir, new_key

    info = new_key(name)
    if as_json:
        print_json({"name": info.name, "fingerprint": info.fingerprint, "public_key": info.public_key,
                    "dir": str(keys_dir())})
        return
    echo(f"key {info.name}: {info.fingerprint}")
    echo(f"  kept in {keys_dir()} (owner-only); send the public part: combatlog keys export {info.name}")


@app.command("list")
def list_keys(as_json: bool = json_option()) -> None:
    """List the keys in the key home: yours (with a secret key) and the ones you imported.

    Example: combatlog keys list
    """
    from combatlog.trust.keys import key_home, list_keys as all_keys

    keys = all_keys()
    if as_json:
        print_json([{"name": k.name, "fingerprint": k.fingerprint, "public_key": k.public_key, "secret": k.secret}
                    for k in keys])
        return
    if not keys:
        echo(f"no keys in {key_home()} yet (make yours: combatlog keys new NAME)")
    for k in keys:
        echo(f"{k.name:<20} {k.fingerprint}  {'secret + public' if k.secret else 'public only'}")


@app.command("export")
def export(
    name: str = typer.Argument(..., help="Whose public key."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write to this file instead of stdout."),
) -> None:
    """Print a player's public key as one line to send to the other players.

    Example: combatlog keys export alice -o alice.pub
    """
    from combatlog.trust.keys import fingerprint, key_line, load_public

    raw = load_public(name)
    text = f"# {name} {fingerprint(raw)}: compare this fingerprint with {name} out of band\n{key_line(name, raw)}\n"
    if output is None:
        sys.stdout.write(text)
        return
    from combatlog.outfile import write_whole

    write_whole(output, lambda path: path.write_text(text, encoding="ascii"), "alice.pub")
    echo(f"wrote the public key of {name} ({fingerprint(raw)}) to {output}")


@app.command("import")
def import_key(
    file: str = typer.Argument(..., help="A file written by `keys export` (or - for stdin)."),
    name: str = typer.Option("", "--name", help="Keep it under this name instead of the one in the file."),
    as_json: bool = json_option(),
) -> None:
    """Keep another player's public key, so you can pin it in a new combat (--player NAME).

    Compare the fingerprint shown with its owner by another channel (phone, chat) once.

    Example: combatlog keys import bob.pub
    """
    from combatlog.errors import NotFound
    from combatlog.trust.keys import import_public

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise NotFound(f"cannot read {file}: {exc}") from None
    info = import_public(text, name or None)
    if as_json:
        print_json({"name": info.name, "fingerprint": info.fingerprint, "public_key": info.public_key})
        return
    echo(f"imported {info.name}: {info.fingerprint} (check it with {info.name} out of band)")
