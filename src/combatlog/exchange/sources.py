"""Where bundles come from: files, a folder of mail, standard input; export files, messages, saved emails.

Each input yields the bundles found in it, in order, each with a label for
people (``mail.eml, block 2 (line 40)``):

- a JSON Lines export (it starts with ``{``, or its name ends in ``.jsonl``): one bundle, the file itself;
- a saved email (``.eml``, or text that starts with mail headers): its text
  parts (quoted-printable or base64, any charset, through the stdlib ``email``
  package; HTML parts only when the text parts hold no block) are searched for
  armoured blocks, and an attached export is taken whole;
- anything else (a pasted message, a forum post in Markdown or BBCode, quoted
  with ``> `` or not): searched for armoured blocks.

Nothing here is trusted: sizes are bounded before reading (``MAX_MESSAGE_BYTES``
a message, ``MAX_FILE_BYTES`` an export, ``MAX_INBOX_FILES`` files a folder,
``MAX_PARTS`` parts an email), what the armoured blocks of one message inflate
to is one running budget (``armour.MAX_MESSAGE_INFLATED``, across all the text
parts of an email), and all the bundles of one import together hold at most
``MAX_IMPORT_BYTES`` (a ``Budget`` shared by its inputs): past it, an input is
refused before it is read. Every bundle is verified by the importer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from combatlog.errors import CombatlogError, InvalidCommand, NotFound, VerificationFailed
from combatlog.exchange.armour import MAX_MESSAGE_INFLATED, find_blocks, has_block
from combatlog.exchange.bundle import MAX_FILE_BYTES, read_limited

MAX_MESSAGE_BYTES = 64 << 20  # a pasted message or a saved email
MAX_INBOX_FILES = 1000
MAX_PARTS = 200  # MIME parts of one email
MAX_DEPTH = 16  # multipart nesting
MAX_IMPORT_BYTES = MAX_FILE_BYTES  # the bundles of one import, together (files, blocks inflated, attachments)
STDIN = "-"
_MAIL_HEADER = re.compile(rb"^(?:From|To|Subject|Date|Message-ID|MIME-Version|Content-Type|Received|Return-Path|"
                          rb"Delivered-To|Reply-To|X-[A-Za-z0-9-]+)[ \t]*:", re.IGNORECASE)


@dataclass(frozen=True)
class Incoming:
    """One bundle found in an input, or why that input (or block) cannot be read."""

    where: str  # for people and errors
    proof: Path  # an equivocation proof is written beside this path
    data: bytes | None  # the bundle's bytes (JSON Lines)
    error: CombatlogError | None = None
    inflated: bool = False  # from an armoured block (counted against the budget as it was inflated)


class Budget:
    """The bytes of bundles one import may still hold: counted as they are read or inflated."""

    def __init__(self, limit: int = MAX_IMPORT_BYTES) -> None:
        self.left = limit

    def spend(self, size: int) -> None:
        self.left = max(0, self.left - size)

    def refusal(self, where: str) -> VerificationFailed:
        return VerificationFailed(f"the bundles of one import hold at most {MAX_IMPORT_BYTES} bytes together: "
                                  "this input is past that (import it in another run)", where=where)


def inbox_files(folder: Path) -> list[Path]:
    """The files of an inbox folder, by name: not recursive, hidden files and equivocation proofs skipped."""
    if not folder.is_dir():
        raise NotFound(f"--inbox {folder}: no such folder")
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise NotFound(f"--inbox {folder}: cannot read it: {exc.strerror}") from None
    files = [p for p in entries if not p.name.startswith(".") and ".equivocation-" not in p.name and p.is_file()]
    if len(files) > MAX_INBOX_FILES:
        raise InvalidCommand(f"--inbox {folder}: {len(files)} files; an inbox holds at most {MAX_INBOX_FILES} "
                             "(move the ones already imported away)")
    return files


def read_input(name: str, stdin: Callable[[], BinaryIO] | None = None,
               budget: Budget | None = None) -> list[Incoming]:
    """The bundles in one input: a path, or ``-`` for standard input (``stdin()`` gives it, as bytes).

    ``budget``: shared by the inputs of one import (each input alone may hold ``MAX_IMPORT_BYTES``)."""
    budget = budget if budget is not None else Budget()
    limit = min(MAX_FILE_BYTES, budget.left)
    if name == STDIN:
        if stdin is None:
            raise InvalidCommand("- names standard input, which is not available here")
        data = stdin().read(limit + 1)
        if len(data) > limit:
            error = budget.refusal("standard input") if limit < MAX_FILE_BYTES else VerificationFailed(
                f"more than {MAX_FILE_BYTES} bytes on standard input", where="standard input")
            return [Incoming("standard input", Path("stdin"), None, error)]
        return _counted(_bundles_in(data, "standard input", Path("stdin"), suffix="", budget=budget), budget)
    path = Path(name)
    try:
        if path.is_file() and path.stat().st_size > MAX_MESSAGE_BYTES and not _starts_like_export(path):
            raise VerificationFailed(f"{path.stat().st_size} bytes: a message is at most {MAX_MESSAGE_BYTES} bytes "
                                     "(an export file may be larger)", where=name)
        if path.is_file() and path.stat().st_size > limit and limit < MAX_FILE_BYTES:
            raise budget.refusal(name)
        data = read_limited(path, limit)
    except CombatlogError as exc:
        return [Incoming(name, path, None, exc)]
    return _counted(_bundles_in(data, name, path, suffix=path.suffix.lower(), budget=budget), budget)


def _counted(found: Iterator[Incoming], budget: Budget) -> list[Incoming]:
    """The bundles of an input, refused past the import's budget (an export file or an attachment
    is counted here; inflated blocks were counted as they were inflated)."""
    out = []
    for item in found:
        if item.data is not None and not item.inflated:
            if len(item.data) > budget.left:
                item = Incoming(item.where, item.proof, None, budget.refusal(item.where))
            else:
                budget.spend(len(item.data))
        out.append(item)
    return out


def _starts_like_export(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(1) == b"{"
    except OSError:
        return False


def _bundles_in(data: bytes, where: str, proof: Path, *, suffix: str, budget: Budget) -> Iterator[Incoming]:
    if data[:1] == b"{" or suffix == ".jsonl":  # an export file: the importer says what is wrong with it
        yield Incoming(where, proof, data)
        return
    if len(data) > MAX_MESSAGE_BYTES:
        yield Incoming(where, proof, None, VerificationFailed(
            f"{len(data)} bytes: a message is at most {MAX_MESSAGE_BYTES} bytes", where=where))
        return
    if suffix == ".eml" or _MAIL_HEADER.match(data.lstrip(b"\r\n")[:200]):
        message = _Message(budget)
        found = list(_email_bundles(data, where, proof, message))
        if not found:  # text that only looked like an email (a pasted message starting "Subject: ...")
            found = list(_text_bundles(_decode_text(data), where, proof, message))
    else:
        found = list(_text_bundles(_decode_text(data), where, proof, _Message(budget)))
    if not found:
        yield Incoming(where, proof, None, InvalidCommand(
            f"{where}: no combatlog bundle found (neither an export file nor a message with a "
            "-----BEGIN COMBATLOG BUNDLE----- block)"))
    yield from found


def _decode_text(data: bytes, charset: str = "utf-8") -> str:
    try:
        return data.decode(charset, errors="replace")
    except LookupError:  # an unknown charset named by the sender
        return data.decode("utf-8", errors="replace")


class _Message:
    """What the blocks of one message may still inflate to: one running budget for all its text parts."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.left = min(MAX_MESSAGE_INFLATED, budget.left)


def _text_bundles(text: str, where: str, proof: Path, message: _Message) -> Iterator[Incoming]:
    blocks = find_blocks(text, where, message.left) if has_block(text) else []
    inflated = sum(len(b.bundle) for b in blocks if b.bundle is not None)
    message.left -= inflated
    message.budget.spend(inflated)
    for n, block in enumerate(blocks, start=1):
        path = proof if len(blocks) == 1 else proof.with_name(f"{proof.name}-{n}")
        yield Incoming(block.where, path, block.bundle, block.error, inflated=True)


def _email_bundles(data: bytes, where: str, proof: Path, message: _Message) -> Iterator[Incoming]:
    """Armoured blocks in an email's text parts, and exports attached to it."""
    import email
    import email.policy

    try:
        parsed = email.message_from_bytes(data, policy=email.policy.compat32)
    except Exception as exc:  # the parser is lenient; anything it still cannot take is the sender's
        yield Incoming(where, proof, None, VerificationFailed(f"not a readable email: {exc}", where=where))
        return
    texts: list[tuple[str, str]] = []  # (subtype, text)
    attachments: list[tuple[str, bytes]] = []
    try:
        for part in _leaves(parsed, 0, [0], where):
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes):
                continue
            name = part.get_filename() or ""
            if payload[:1] == b"{" and (name.endswith((".jsonl", ".json")) or b'"combatlog-export"' in payload[:4096]):
                attachments.append((name or "attachment", payload))
            elif part.get_content_maintype() == "text":
                texts.append((part.get_content_subtype(), _decode_text(payload, part.get_content_charset() or "utf-8")))
    except VerificationFailed as exc:
        yield Incoming(where, proof, None, exc)
        return
    found = [b for subtype, text in texts if subtype != "html" for b in _text_bundles(text, where, proof, message)]
    if not found:  # an HTML-only message: its text, tags removed
        found = [b for subtype, text in texts if subtype == "html"
                 for b in _text_bundles(_html_text(text), where, proof, message)]
    yield from found
    for name, payload in attachments:
        label = f"{where}, attachment {name}"
        yield Incoming(label, proof.with_name(f"{proof.name}-{_safe(name)}"), payload)


def _leaves(part, depth: int, count: list[int], where: str) -> Iterator:  # type: ignore[no-untyped-def]
    """The non-multipart parts of an email, bounded in number and depth."""
    count[0] += 1
    if count[0] > MAX_PARTS or depth > MAX_DEPTH:
        raise VerificationFailed(f"an email of more than {MAX_PARTS} parts or nested deeper than {MAX_DEPTH} levels",
                                 where=where)
    if part.is_multipart():
        for sub in part.get_payload():
            yield from _leaves(sub, depth + 1, count, where)
    else:
        yield part


_TAG = re.compile(r"<[^<>]{0,2000}>")
_BREAK = re.compile(r"<\s*(?:br|/p|/div|/pre|/blockquote|/li|/tr)\b[^<>]{0,200}>[ \t]*\r?\n?", re.IGNORECASE)


def _html_text(html: str) -> str:
    import html as html_lib

    return html_lib.unescape(_TAG.sub("", _BREAK.sub("\n", html)))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).name)[:60] or "attachment"
