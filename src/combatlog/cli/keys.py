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
from combatlog.cli.output import note
from combatlog.errors import InvalidCommand

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
        print_json([{"name": k.name, "fingerprint": k.fingerprint, "public_key": k.public_key, "secret": k.secret,
                     "damaged": k.damaged or None} for k in keys])
        return
    if not keys:
        echo(f"no keys in {key_home()} yet (make yours: combatlog keys new NAME)")
    for k in keys:
        held = "secret + public" if k.secret else "public only" if k.fingerprint else "no usable key"
        echo(f"{k.name:<20} {k.fingerprint or '-':<24}  {held}" + (f"; damaged: {k.damaged}" if k.damaged else ""))


@app.command("export")
def export(
    name: str = typer.Argument(..., help="Whose public key."),
    output: Optional[Path] = typer.Option(None, "-o", "--output",
                                          help="Write to this file instead of stdout: a new file (see --force), "
                                               "never one in the key home."),
    force: bool = typer.Option(False, "--force",
                               help="With -o: replace an existing file that holds a public key (nothing else)."),
) -> None:
    """Print a player's public key to send to the other players.

    Two lines: a # comment with its fingerprint, then the key line (combatlog-key v1 NAME ed25519 BASE64).

    Example: combatlog keys export alice -o alice.pub
    """
    from combatlog.trust.keys import fingerprint, key_line, load_public

    raw = load_public(name)
    text = f"# {name} {fingerprint(raw)}: compare this fingerprint with {name} out of band\n{key_line(name, raw)}\n"
    if output is None:
        sys.stdout.write(text)
        return
    _write_export(output, text, force)
    echo(f"wrote the public key of {name} ({fingerprint(raw)}) to {output}")


def _write_export(output: Path, text: str, force: bool) -> None:
    """Write ``text`` to ``output``, a new file unless ``force`` and it holds a public key. `-o` once
    replaced any file, the secret key itself included, and the secret key was lost."""
    from combatlog.outfile import check_target, write_whole

    _refuse_key_home(output)
    check_target(output, "alice.pub")
    if output.exists() and (not output.is_file() or output.parent == Path("/dev")):
        # a device: nothing to lose (-o /dev/stdout is a regular file when stdout is redirected to one)
        write_whole(output, lambda path: path.write_text(text, encoding="ascii"))
        return
    if output.exists() or output.is_symlink():
        if not force:
            raise InvalidCommand(f"-o {output}: the file exists; keys export never overwrites a file "
                                 f"(--force replaces a file that holds a public key)")
        if not _holds_public_key(output):
            raise InvalidCommand(f"-o {output}: the file exists and holds no public key; --force replaces only "
                                 f"a public key file")
        write_whole(output, lambda path: path.write_text(text, encoding="ascii"))
        return
    _write_new(output, text)


def _refuse_key_home(output: Path) -> None:
    """No -o into the keys folder (a file there is a key, under the name of the file: writing one would
    import a key unchecked) nor over any file of the key home, --force or not."""
    from combatlog.trust.keys import key_home, keys_dir

    target = output.resolve()
    if _is_within(target, keys_dir().resolve()) or (_is_within(target, key_home().resolve()) and target.exists()):
        raise InvalidCommand(f"-o {output}: is in the key home {key_home()}; keys export never writes there "
                             f"(write the public key elsewhere, e.g. -o {output.name.rsplit('.', 1)[0]}.pub)")


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _holds_public_key(path: Path) -> bool:
    from combatlog.trust.keys import find_key_line

    try:
        find_key_line(path.read_bytes().decode("utf-8", errors="replace"))
    except (OSError, InvalidCommand):
        return False
    return True


def _write_new(output: Path, text: str) -> None:
    """Create ``output`` and write ``text``; if it appeared meanwhile it is left alone, and a failed write
    leaves no file."""
    from combatlog.outfile import cannot_write

    try:
        handle = open(output, "x", encoding="ascii")
    except FileExistsError:
        raise InvalidCommand(f"-o {output}: the file exists; keys export never overwrites a file") from None
    except OSError as exc:
        raise cannot_write(output, exc) from None
    try:
        with handle:
            handle.write(text)
    except OSError as exc:
        output.unlink(missing_ok=True)
        raise cannot_write(output, exc) from None


@app.command("import")
def import_key(
    file: str = typer.Argument(..., help="A file written by `keys export`, or a mail holding its key line "
                                         "(quoted with '> ' or not), or - for stdin."),
    name: str = typer.Option("", "--name", help="Keep it under this name instead of the one in the file."),
    as_json: bool = json_option(),
) -> None:
    """Keep another player's public key, so you can pin it in a new combat (--player NAME).

    The text must hold exactly one key line (combatlog-key v1 NAME ed25519 BASE64); other lines are
    ignored. Compare the fingerprint shown with its owner by another channel (phone, chat) once.

    Example: combatlog keys import bob.pub
    """
    from combatlog.errors import NotFound
    from combatlog.trust.keys import import_public, other_names_of

    try:  # a mail may hold any text around the key line, which is ASCII
        text = sys.stdin.read() if file == "-" else Path(file).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise NotFound(f"cannot read {file}: {exc.strerror or exc}") from None
    info = import_public(text, name or None, "standard input" if file == "-" else file)
    others = other_names_of(info)
    if others:
        note(f"warning: this key ({info.fingerprint}) is already known as {', '.join(others)}: one player under "
             f"several names would count as several players in a combat")
    if as_json:
        print_json({"name": info.name, "fingerprint": info.fingerprint, "public_key": info.public_key,
                    "also_known_as": others})
        return
    echo(f"imported {info.name}: {info.fingerprint} (check it with {info.name} out of band)")
