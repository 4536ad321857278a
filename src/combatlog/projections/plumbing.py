"""Trust plumbing in human views: events that keep the dice and the log honest but decide nothing.

Nonce chains and their links, acknowledgements and referee seeds matter to ``verify``, not to a person
reading what happened. ``log``, ``explain``, mail bodies and the live page leave them out and say, in one
short line, what was left out (``--all`` lists them; ``--json`` always carries everything).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

PLUMBING_TYPES = frozenset({
    "core.chain_committed", "core.link_revealed", "core.chain_released",
    "core.acknowledged", "core.seed_committed", "core.seed_revealed",
})


def is_plumbing(event_type: str) -> bool:
    return event_type in PLUMBING_TYPES


def _names(names: list[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def folded_line(events: Iterable[Any]) -> str:
    """What a run of plumbing events did, in one line without any hash: ``nonces for r1/attention from
    alice, bob; acknowledgements from gm``. ``events`` are the decoded payloads, in log order."""
    chains: list[str] = []
    released: list[str] = []
    acks: list[str] = []
    links: dict[str, list[str]] = {}
    seeds = {"committed": 0, "revealed": 0}
    for ev in events:
        tag = type(ev).__name__
        if tag == "ChainCommitted":
            chains.append(ev.player)
        elif tag == "LinkRevealed":
            links.setdefault(ev.step, []).append(ev.player)
        elif tag == "ChainReleased":
            released.append(ev.player)
        elif tag == "Acknowledged":
            acks.append(ev.player)
        elif tag == "SeedCommitted":
            seeds["committed"] += 1
        elif tag == "SeedRevealed":
            seeds["revealed"] += 1
    parts = []
    if chains:
        parts.append(f"nonce chains of {_names(chains)}")
    parts += [f"nonces for {step} from {_names(who)}" for step, who in links.items()]
    if released:
        parts.append(f"chain released by {_names(released)}")
    if acks:
        parts.append(f"acknowledgements by {_names(acks)}")
    parts += [f"referee seed {what}" for what, n in seeds.items() if n]
    return "; ".join(parts)


def hidden_note(events: list[Any], command: str) -> str:
    """The one line that stands for the plumbing a view left out, with the command that lists it."""
    n = len(events)
    return f"(+{n} trust event{'s' if n != 1 else ''}: {folded_line(events)}; `{command}` lists them)"
