"""ASCII armour: a bundle as a block of text that survives email bodies and forum posts.

::

    -----BEGIN COMBATLOG BUNDLE-----
    Version: 1
    Combat: duel
    Events: 12-18
    Size: 4711

    eNrtWMtu2zAQ/BVDZx9EiqLkfEWPRVEUhiJvYqGyJIiU0yDIv3eXpGTXcR9Ieyh6
    ...
    =q0ZC5Ga7Y0ILMj2Wfx4kRjk3p1KVZbYF0EXc6o7UfYI=
    -----END COMBATLOG BUNDLE-----

The body is the bundle (the JSON Lines export, byte for byte) compressed with
zlib and written in base64, 64 characters a line. ``Size`` is the bundle's
length before compression; the last line before END, after ``=``, is the
base64 SHA-256 of ``"combatlog-armour/v1\\n"``, the header lines and the
compressed bytes, so a block damaged or cut short in transit is named as such
before anything is decompressed. The checksum proves nothing about who wrote
the block (anyone can recompute it): the bundle inside is verified like any
file (hashes, chain, signatures).

Reading is bounded before any work: at most ``MAX_BLOCKS`` blocks a message,
``MAX_PACKED`` bytes of compressed data a block, and a declared ``Size`` of at
most ``MAX_BUNDLE_BYTES``. What all the blocks of one message inflate to is
counted against one running budget (``MAX_MESSAGE_INFLATED``): a block whose
declared size does not fit in what is left is refused before it is decoded, and
decompression is streamed in chunks that stop one byte past the declared size,
so neither a zip bomb nor many honest large blocks are ever held. Lines may carry email quote marks (``> ``, ``>> ``),
indentation, and the Markdown fence or BBCode tags a forum post wraps them in.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from dataclasses import dataclass

from combatlog.errors import VerificationFailed

BEGIN = "-----BEGIN COMBATLOG BUNDLE-----"
END = "-----END COMBATLOG BUNDLE-----"
VERSION = "1"
WIDTH = 64
DOMAIN = b"combatlog-armour/v1\n"
MAX_BUNDLE_BYTES = 64 << 20  # decompressed; a message carries a few rounds, not a campaign
MAX_MESSAGE_INFLATED = 64 << 20  # what all the blocks of one message inflate to, together
MAX_PACKED = 48 << 20  # compressed bytes in one block (a message is at most 64 MiB of base64)
CHUNK = 1 << 20  # decompressed a chunk at a time
MAX_BLOCKS = 64  # blocks in one message
MAX_HEADER_LINES = 16
_HEADER = re.compile(r"^([A-Z][A-Za-z-]{0,31}): ?(.{0,200})$")
_B64_LINE = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
# What may stand before a line of a block: quote marks and blanks (email), a list or fence marker.
_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)*[ \t]*")
# What may stand at either end of a line in a forum post: BBCode tags, a Markdown fence, inline code.
_WRAPPER = r"(?:\[/?(?:code|quote|pre|tt|noparse|mono)(?:=[^\]]{0,40})?\]|`{3,}[A-Za-z]{0,20}|`)"
_WRAPPERS = re.compile(rf"^{_WRAPPER}+|{_WRAPPER}+$", re.IGNORECASE)
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.:+#@-]")


def armour(bundle: bytes, *, combat: str, first: int, last: int) -> str:
    """The armoured block for ``bundle`` (a JSON Lines export), ending with a newline."""
    packed = zlib.compress(bundle, 9)
    shown = _SAFE_NAME.sub("?", combat)[:100]  # for people only: the bundle inside names the combat
    headers = [f"Version: {VERSION}", f"Combat: {shown}",
               f"Events: {first}-{last}" if last >= first else "Events: none", f"Size: {len(bundle)}"]
    body = base64.b64encode(packed).decode("ascii")
    lines = [BEGIN, *headers, "", *(body[i:i + WIDTH] for i in range(0, len(body), WIDTH)),
             "=" + base64.b64encode(_checksum(headers, packed)).decode("ascii"), END]
    return "\n".join(lines) + "\n"


def _checksum(headers: list[str], packed: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + "\n".join(headers).encode("utf-8") + b"\n\n" + packed).digest()


@dataclass(frozen=True)
class Block:
    """One armoured block found in a text: where it starts, and its bundle or why it cannot be read."""

    where: str  # "mail.eml, block 2 (line 40)"
    bundle: bytes | None
    error: VerificationFailed | None


def has_block(text: str) -> bool:
    return BEGIN in text


def find_blocks(text: str, where: str, budget: int = MAX_MESSAGE_INFLATED) -> list[Block]:
    """Every armoured block in ``text`` (a pasted message, an email body, a forum post), in order.

    ``budget``: the bytes all its blocks may inflate to together (at most ``MAX_MESSAGE_INFLATED``)."""
    lines = text.splitlines()
    blocks: list[Block] = []
    left = [min(budget, MAX_MESSAGE_INFLATED)]  # bytes the blocks still to come may inflate to
    i = 0
    while i < len(lines):
        if BEGIN not in lines[i]:
            i += 1
            continue
        if len(blocks) >= MAX_BLOCKS:
            raise VerificationFailed(f"more than {MAX_BLOCKS} armoured blocks in one message", where=where)
        label = f"{where}, block {len(blocks) + 1} (line {i + 1})"
        try:
            bundle, i = _read_block(lines, i, label, left)
            blocks.append(Block(label, bundle, None))
        except VerificationFailed as exc:
            blocks.append(Block(label, None, exc))
            i += 1
            while i < len(lines) and BEGIN not in lines[i] and END not in lines[i]:
                i += 1  # resume after the damaged block
    return blocks


def _strip(line: str) -> str:
    """A line of a block without quote marks, indentation, forum wrappers and trailing blanks."""
    return _WRAPPERS.sub("", _PREFIX.sub("", line, count=1).strip()).strip()


def _read_block(lines: list[str], start: int, where: str, budget: list[int]) -> tuple[bytes, int]:
    def bad(message: str) -> VerificationFailed:
        return VerificationFailed(message, where=where)

    headers: list[str] = []
    i = start + 1
    while True:  # the header lines, up to a blank line
        if i >= len(lines):
            raise bad("truncated: the block ends before its data (no END line)")
        line = _strip(lines[i])
        i += 1
        if not line:
            break
        if END in line or line.startswith("="):
            raise bad("truncated or altered: the block has no data")
        if not _HEADER.match(line) or len(headers) >= MAX_HEADER_LINES:
            raise bad(f"line {i}: {line[:40]!r} is not a header line of an armoured block (altered?)")
        headers.append(line)
    fields = dict(h.split(":", 1) for h in headers)
    fields = {k: v.strip() for k, v in fields.items()}
    if fields.get("Version") != VERSION:
        raise bad(f"armour version {fields.get('Version', '(none)')!r}: this combatlog reads version {VERSION}")
    size_text = fields.get("Size", "")
    if not (size_text.isascii() and size_text.isdigit()) or len(size_text) > 12:  # isdigit alone takes '²'
        raise bad(f"the Size header {size_text[:20]!r} is not a byte count")
    size = int(size_text)
    if size > MAX_BUNDLE_BYTES:
        raise bad(f"the bundle declares {size} bytes: a bundle in a message is at most {MAX_BUNDLE_BYTES} bytes "
                  "(send a file instead)")
    if size > budget[0]:
        raise bad(f"the bundle declares {size} bytes, more than the {budget[0]} left of this message's budget: "
                  f"the blocks of one message inflate to at most {MAX_MESSAGE_INFLATED} bytes together, and an "
                  "import reads at most 1 GiB of bundles (send the rest in another message, or a file)")
    data: list[str] = []
    packed_chars = 0
    checksum = None
    while True:
        if i >= len(lines):
            raise bad("truncated: the block has no END line (cut short in transit?)")
        line = _strip(lines[i])
        i += 1
        if not line:
            continue  # a blank line a mail client or forum inserted
        if END in line:
            break
        if BEGIN in line:
            raise bad(f"line {i}: truncated: another block begins before this one's END line")
        if checksum is not None:
            raise bad(f"line {i}: text after the checksum line (altered?)")
        if line.startswith("="):
            checksum = line[1:]
            continue
        if not _B64_LINE.match(line) or len(line) > 4 * WIDTH:
            raise bad(f"line {i}: {line[:40]!r} is not base64 (the block was altered or damaged)")
        packed_chars += len(line)
        if packed_chars > MAX_PACKED * 4 // 3 + 4:
            raise bad(f"more than {MAX_PACKED} compressed bytes in one block")
        data.append(line)
    if checksum is None:
        raise bad("truncated or altered: the block has no checksum line (=...) before its END line")
    try:
        packed = base64.b64decode("".join(data), validate=True)
        expected = base64.b64decode(checksum, validate=True)
    except ValueError:
        raise bad("the data is not valid base64 (lines lost or altered)") from None
    if expected != _checksum(headers, packed):
        raise bad("the checksum does not match: the block was altered or lines were lost (ask for it again)")
    del data
    bundle = _inflate(packed, size, bad)
    budget[0] -= len(bundle)
    return bundle, i


def _inflate(packed: bytes, size: int, bad) -> bytes:  # type: ignore[no-untyped-def]
    """Decompress at most ``size`` bytes (one more to see a lie), a chunk at a time: a zip bomb stops
    here, cheaply, and nothing beyond the declared size is ever held."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    held = 0
    pending = packed
    try:
        while not inflater.eof:
            before = len(pending)
            chunk = inflater.decompress(pending, min(CHUNK, size + 1 - held))
            pending = inflater.unconsumed_tail
            held += len(chunk)
            parts.append(chunk)
            if held > size:
                raise bad(f"the data decompresses to more than the {size} bytes its Size header declares "
                          "(refused before decompressing further)")
            if not chunk and len(pending) == before:
                break  # no progress: the input is used up before the end of the stream
    except zlib.error as exc:
        raise bad(f"the compressed data is damaged ({exc})") from None
    out = b"".join(parts)
    if not inflater.eof:
        raise bad("the compressed data is cut short")
    if inflater.unused_data:
        raise bad("data after the end of the compressed bundle")
    if len(out) != size:
        raise bad(f"the data decompresses to {len(out)} bytes, its Size header declares {size}")
    return out
