"""Text that reaches a person's terminal: no control characters from the log.

A log's strings come from other players. A note holding a newline and ANSI
escapes could print a fake "bob concedes" line or hide the real signer, so:

- events may not carry control characters (C0, DEL, C1) nor the Unicode
  bidirectional overrides in any string, except newlines and tabs in the free
  text of notes and sealed orders; the write path and ``verify`` both refuse
  them (``control_problem``);
- every human view prints through ``printable`` (and row views through
  ``one_line``), which shows any such character as a visible escape;
- the views then isolate each right-to-left stretch with their own FSI ... PDI
  (``isolated``), so that a name in Hebrew or Arabic cannot reorder the words
  and numbers beside it (the pictures do the same).
"""

from __future__ import annotations

import functools
import re
from typing import Any

# Control characters and bidi overrides, as text...
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_BREAK = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# ...and as they appear in canonical JSON bytes: \n \r \t \b \f or \u00XX escapes (not after an
# escaped backslash), raw C1 bytes, raw bidi overrides.
CONTROL_BYTES = re.compile(
    rb"(?<!\\)(?:\\\\)*\\(?:[nrtbf]|u00[01][0-9a-f]|u007f)|\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


def may_hold_control(body: bytes) -> bool:
    """A cheap test before ``CONTROL_BYTES.search`` (about 70 µs an event): every match holds a backslash,
    a non-ASCII byte or DEL, and most events hold none of them."""
    return b"\\" in body or b"\x7f" in body or not body.isascii()


# Event types whose free text may hold line breaks and tabs, and under which field.
MULTILINE = {"core.noted": ("text",), "core.orders_revealed": ("orders",)}

# Right-to-left text (Hebrew, Arabic, Syriac, Thaana, N'Ko... and their presentation forms, Arabic digits)
_RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff"
FSI, PDI = "\u2068", "\u2069"  # FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE


@functools.cache
def _rtl_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(any right-to-left character, a stretch of them): compiled on first use, not at every command's start
    (the Unicode classes take ~3 ms to compile, and most commands never meet right-to-left text). A stretch
    runs from a right-to-left character to the last one before a left-to-right letter, the spaces, digits and
    punctuation between them included ("שלום עליכם" in "side שלום עליכם, 10 hp", not ", 10"); never across a
    line break (each line is laid out by itself)."""
    return re.compile(f"[{_RTL}]"), re.compile(f"[{_RTL}](?:[{_RTL}\\W\\d_]*[{_RTL}])?")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return {10: "\\n", 13: "\\r", 9: "\\t"}.get(code) or (f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")


def printable(text: str) -> str:
    """``text`` with every control character but newline and tab shown as an escape."""
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


def isolated(text: str) -> str:
    """``text`` with each right-to-left stretch in it isolated (FSI ... PDI, Unicode's bidi isolates, which
    a bidi terminal, HTML and SVG honour): a name or side written in Hebrew or Arabic cannot then pull the
    words and numbers around it into its run ("joins side 10 ,שלום עליכם hp"). Left-to-right text needs none
    and is returned as it is. Each line on its own: an isolate is closed on the line it opens. For text
    shown to a person, after ``printable`` (which shows any isolate the text itself held as an escape)."""
    if text.isascii():
        return text
    has_rtl, stretch = _rtl_patterns()
    if not has_rtl.search(text):
        return text
    if "\n" in text:
        return "\n".join(isolated(line) for line in text.split("\n"))
    return stretch.sub(lambda m: f"{FSI}{m.group(0)}{PDI}", text)


def one_line(text: str) -> str:
    """``text`` on one line: newlines and tabs escaped too (for rows of a table or timeline)."""
    return _CONTROL_OR_BREAK.sub(_escape, text) if _CONTROL_OR_BREAK.search(text) else text


def control_problem(envelope: dict[str, Any]) -> str:
    """The first string of a decoded envelope holding a character no event may hold ("" if none)."""
    allowed = MULTILINE.get(str(envelope.get("type", "")), ())
    stack: list[tuple[Any, str, bool]] = [(envelope, "", False)]
    while stack:
        value, path, multiline = stack.pop()
        if isinstance(value, str):
            bad = (_CONTROL if multiline else _CONTROL_OR_BREAK).search(value)
            if bad:
                return f"{path or 'a string'} holds the control character {_escape(bad)}"
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _CONTROL_OR_BREAK.search(key):
                    return f"{path}: a key holds a control character"
                sub = f"{path}.{key}" if path else str(key)
                stack.append((item, sub, multiline or (path == "data" and key in allowed)))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]", multiline) for i, item in enumerate(value))
    return ""


def wrap(text: str, width: int, indent: int = 4) -> str:
    """``text`` with every line longer than ``width`` columns folded at spaces (a word longer than
    the room is cut); continuation lines take the line's own indentation plus ``indent`` spaces, so
    they read as part of it. Lines that fit are left exactly as they are (table alignment kept)."""
    if width <= 0:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        body = line.lstrip(" ")
        lead = line[: len(line) - len(body)]
        if len(lead) >= width // 2:  # deeply indented: keep some room for the words
            lead = lead[: width // 2]
        more = lead + " " * min(indent, max(0, width - len(lead) - 10))
        out.extend(_fold(body, width, lead, more))
    return "\n".join(out)


def _fold(body: str, width: int, first: str, more: str) -> list[str]:
    lines: list[str] = []
    prefix = first
    rest = body
    while rest:
        room = width - len(prefix)
        if len(rest) <= room:
            lines.append(prefix + rest)
            break
        cut = rest.rfind(" ", 0, room + 1)
        if cut <= 0:  # no space to break at: cut the word
            cut, skip = room, 0
        else:
            skip = 1
        lines.append((prefix + rest[:cut]).rstrip())
        rest = rest[cut + skip:].lstrip(" ")
        prefix = more
    return lines


_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)


def non_ascii(text: str) -> str:
    """The first character of ``text`` outside ASCII, quoted and named ("'２' (U+FF12 FULLWIDTH DIGIT TWO)"),
    or '' when there is none. Numbers are read from ASCII only: Python's ``int`` and ``str.isdigit`` also
    take other scripts' digits ('２', '٣', '²'), which a reader of the log would not see as typed."""
    if text.isascii():  # (most text: no loop over its characters)
        return ""
    import unicodedata

    for ch in text:
        if not ch.isascii():
            name = unicodedata.name(ch, "")
            return f"{ch!r} (U+{ord(ch):04X}{' ' + name if name else ''})"
    return ""


def ascii_whole(text: str) -> bool:
    """Whether ``text`` is a whole number written with ASCII digits (an optional sign; no '_', no spaces)."""
    return _WHOLE.fullmatch(text) is not None
