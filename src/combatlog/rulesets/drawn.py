"""The label ``DicePort.next_label`` gave a die, recomputed from a ruleset's state (for ``dice_uses``).

``decide`` names some dice ``dice.next_label(base)``: the first of ``base``, ``base#2``,
``base#3``... that no die has taken yet (a second damage roll against the same combatant in a
round is ``r2/damage/orc2#2``). ``verify`` must know that label from the state before the event,
so a ruleset that names dice this way keeps, in its state, the labels of the dice drawn for the
current round or a later one (every label ``r<N>/...`` with N at least the current round, in the
order drawn) with ``note_drawn`` and ``prune``.

The die an event reads was drawn just before it (the engine appends a command's dice before its
events), so it is the newest of its sequence; the rules' label is the first of the sequence that
was taken before it. Another label there was the roller's choice.
"""

from __future__ import annotations

import hashlib
import re

_ROUND = re.compile(r"^r([0-9]{1,9})/")
_LABEL_SAFE = re.compile(r"[A-Za-z0-9_.:#@-]")  # what a label holds but its separator ``/`` and the escape ``+``
_PART_MAX = 100  # a label is at most 200 characters: the rest is for the round and the die's own name


def label_part(name: str) -> str:
    """``name`` as a part of a die's label (``r1/<part>/act``): as it is when it holds only what a label may
    hold, else each other character written ``+<hex code point>+`` (a space is ``+20+``, ``+`` is ``+2b+``): a
    name with a space or a letter beyond ASCII names its dice too, and two names never give one part. A part
    longer than ``_PART_MAX`` is ``+h+`` and a digest of the name."""
    part = "".join(ch if _LABEL_SAFE.fullmatch(ch) else f"+{ord(ch):x}+" for ch in name)
    if len(part) > _PART_MAX:
        return "+h+" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return part


def label_round(label: str) -> int | None:
    """N for a label ``r<N>/...``, else None."""
    m = _ROUND.match(label)
    return int(m.group(1)) if m else None


def note_drawn(drawn: tuple[str, ...], label: str, round_no: int) -> tuple[str, ...]:
    """``drawn`` with ``label`` added if it names the current round or a later one."""
    n = label_round(label)
    return drawn + (label,) if n is not None and n >= round_no else drawn


def prune(drawn: tuple[str, ...], round_no: int) -> tuple[str, ...]:
    """The labels still needed once round ``round_no`` begins."""
    return tuple(x for x in drawn if (label_round(x) or 0) >= round_no)


def in_sequence(label: str, base: str) -> bool:
    """``label`` is ``base`` or ``base#n`` (n >= 2, as ``next_label`` writes it)."""
    if label == base:
        return True
    head, sep, n = label.rpartition("#")
    return bool(sep) and head == base and n.isascii() and n.isdigit() and not n.startswith("0") and int(n) >= 2


def rule_label(drawn: tuple[str, ...], base: str) -> str:
    """The label ``next_label(base)`` gave the newest die of ``base``'s sequence (``base`` if none)."""
    mine = [x for x in drawn if in_sequence(x, base)]
    before = set(mine[:-1])
    label, n = base, 1
    while label in before:
        n += 1
        label = f"{base}#{n}"
    return label
