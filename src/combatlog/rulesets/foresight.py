"""No foreseeable dice: a choice's dice come from a seed completed after the choice (issue 37, items 5 and 7;
docs/trust.md, "Decision points").

With ``joint`` dice anyone who knows the newest seed can compute every die the rules will draw from it (the
rules fix every label). A player who chooses while the seed is known could read the dice of his choice first:
attack or wait, parry or evade, which Special Effect, which figure strikes. From the ruleset versions that
adopt this module (Classic Fantasy 2, OSRIC 3, Argad 3), in a combat whose dice are ``joint``:

- every *choice* (a command whose authority is a move of pieces, ``commands.authority.pieces``: a player's
  move for his pieces, not a step of the procedure nor a referee's ruling) records
  ``decision_point(actor, what)`` before anything else, so the seed known when it was made draws no further
  joint die in strict mode (the trust layer's rule: docs/trust.md, "Decision points");
- in strict mode a choice that would draw dice draws none: it is recorded as ``choice.deferred`` (the
  command itself, as its record), and nothing of the rules happens yet; once a fresh seed step completes
  (every pinned player's nonce or link, at least one of them revealed after the choice), ``resolve`` (any
  player: it chooses nothing) runs the recorded command with dice from that seed, after ``choice.resolved``.
  While a choice waits for its dice, every other command of the rules is refused;
- in friendly mode the choice draws its dice at once, after its decision point, and ``verify`` flags them.

Whether a choice draws dice is found by running the rules' ``decide`` on a probe port (faces from a fixed key
that no seed has): ``decide`` refuses what it refuses either way, so a choice the rules forbid is refused
when made, not at ``resolve``. Everything here is a function of the state and the command, so ``verify``
re-decides it to the same events.

Logs begun under an earlier revision of the ruleset (a rules digest in its ``earlier_digests``) keep their
behaviour: no decision points, no deferral (``Foresight.mode`` is empty).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from combatlog.commands.record import decode_record, encode_record
from combatlog.dice.port import DicePort, with_drawn
from combatlog.errors import IllegalCommand
from combatlog.events.base import Event, register
from combatlog.events.core import CombatStarted
from combatlog.rulesets.base import Pending
from combatlog.trust.api import decision_point

RULE = 'trust: joint dice, docs/trust.md "Decision points" (no foreseeable dice)'
# the key of the probe port: a fixed value that is no seed (a seed is a SHA-256 output mixing the genesis hash)
PROBE_KEY = b"combatlog-foresight-probe/v1\x00" + bytes(3)


class ChoiceDeferred(Event, frozen=True, kw_only=True, tag="choice.deferred"):
    """A player's choice whose dice wait for a fresh seed (strict joint dice); ``command``: its record, run by resolve."""

    player: str
    what: str
    command: dict[str, Any]


class ChoiceResolved(Event, frozen=True, kw_only=True, tag="choice.resolved"):
    """The deferred choice of ``player`` is run now, with dice from a seed completed after it."""

    player: str
    what: str


FORESIGHT_EVENTS: tuple[type[Event], ...] = (ChoiceDeferred, ChoiceResolved)
register(*FORESIGHT_EVENTS)


class Resolve(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Run the deferred choice with dice from the newest seed (``cfi resolve``, ``osric resolve``,
    ``argad resolve``)."""


class Deferred(msgspec.Struct, frozen=True, kw_only=True):
    player: str
    what: str
    command: dict[str, Any]


class Foresight(msgspec.Struct, frozen=True, kw_only=True):
    """What a ruleset's state keeps: the protection in force ('' none, 'strict', 'friendly') and the choice
    waiting for its dice."""

    mode: str = ""
    deferred: Deferred | None = None


def mode_of(genesis: CombatStarted, unprotected: Iterable[str]) -> str:
    """The protection for the combat begun by ``genesis``: none unless the combat's dice are joint between pinned
    players, nor for a log begun under a revision of the rules from before it (its rules digest is one of
    ``unprotected``, the ruleset's ``earlier_digests``: the digest, not the version the genesis states, which
    ``verify`` does not tie to it); else its ``joint_dice`` mode."""
    if genesis.dice != "joint" or not genesis.players or genesis.rules_digest in unprotected:
        return ""
    mode = genesis.options.get("joint_dice", "strict")
    return mode if mode in ("strict", "friendly") else ""


def evolve(fs: Foresight, event: Event) -> Foresight | None:
    """The foresight after ``event`` (None: not one of this module's events)."""
    if type(event) is ChoiceDeferred:
        return msgspec.structs.replace(fs, deferred=Deferred(player=event.player, what=event.what,
                                                             command=dict(event.command)))
    if type(event) is ChoiceResolved:
        return msgspec.structs.replace(fs, deferred=None)
    return None


class _Probe(DicePort):
    """A port that draws from a fixed key: whether (and which) dice a command draws, never a real face."""

    def __init__(self, real: DicePort) -> None:
        super().__init__(scheme="joint", actor=real.actor, labels_taken=real._taken,
                         key_source=lambda _label: (0, PROBE_KEY), owns_label=real.owns_label,
                         ruleset=real.ruleset)


def chooses(ruleset: Any, state: Any, command: Any) -> bool:
    """Whether ``command`` is a player's choice: the ruleset's ``chooses`` hook where it has one, else a command
    whose authority is a move of pieces (``commands.authority.pieces``)."""
    hook = getattr(ruleset, "chooses", None)
    if hook is not None:
        return bool(hook(state, command))
    return bool(ruleset.authority(state, command).kind == "pieces")


def what_of(ruleset_name: str, command: Any) -> str:
    """The command in words for a decision point: its record name and the arguments given."""
    args = {k: v for k, v in msgspec.structs.asdict(command).items() if v not in ((), {}, "", None, False)}
    name = type(command).__name__
    text = f"{ruleset_name} {name}" + (f" {json.dumps(args, sort_keys=True, ensure_ascii=False)}" if args else "")
    return text if len(text) <= 300 else text[:297] + "..."


def decide(ruleset: Any, state: Any, command: Any, dice: DicePort,
           rules: Callable[[Any, Any, DicePort], list[Event]]) -> list[Event]:
    """``rules(state, command, dice)`` (the ruleset's own ``decide``), with this module's protection."""
    fs: Foresight = state.foresight
    if isinstance(command, Resolve):
        return _resolve(ruleset, state, dice, rules)
    if not fs.mode:
        return rules(state, command, dice)
    name = ruleset.info.name
    if fs.deferred is not None:
        raise IllegalCommand(f"{fs.deferred.player}'s choice ({fs.deferred.what}) waits for its dice: a fresh seed "
                             f"step first (every player's link or nonce), then `{_prefix(name)} resolve`", rule=RULE)
    if not chooses(ruleset, state, command):
        return rules(state, command, dice)  # a step of the procedure or a ruling: no player's choice
    what = what_of(name, command)
    point = decision_point(dice.actor, what)
    if fs.mode == "strict" and dice.scheme == "joint":
        probe = _Probe(dice)
        rules(state, command, probe)  # refuses what the rules refuse, with any faces
        if probe.drawn:
            record = msgspec.json.decode(encode_record(name, command))
            return [point, ChoiceDeferred(player=dice.actor, what=what, command=record)]
    before = len(dice.drawn)
    events = rules(state, command, dice)
    return [point, *with_drawn(dice.drawn[before:], events)]


def _resolve(ruleset: Any, state: Any, dice: DicePort, rules: Callable[[Any, Any, DicePort], list[Event]]) -> list[Event]:
    fs: Foresight = state.foresight
    waiting = fs.deferred
    if waiting is None:
        raise IllegalCommand("no choice waits for its dice (only a choice made with the joint seed known, in strict "
                             "mode, waits for dice from a fresh seed)", rule=RULE)
    command = decode_record(ruleset.info.name, ruleset.command_types, msgspec.json.encode(waiting.command))
    clear = msgspec.structs.replace(state, foresight=msgspec.structs.replace(fs, deferred=None))
    actor, before = dice.actor, len(dice.drawn)
    dice.actor = waiting.player  # the dice are rolled for the chooser's move, as they would have been
    try:
        events = rules(clear, command, dice)
    finally:
        dice.actor = actor
    return [ChoiceResolved(player=waiting.player, what=waiting.what), *with_drawn(dice.drawn[before:], events)]


def _prefix(ruleset_name: str) -> str:
    return {"classic_fantasy": "cfi"}.get(ruleset_name, ruleset_name)


def pending(ruleset: Any, state: Any, original: list[Pending]) -> list[Pending]:
    """What the combat waits for: while a choice waits for its dice, a fresh seed step and its resolve only."""
    waiting = state.foresight.deferred
    if waiting is None:
        return original
    return [Pending(who="anyone", what=f"{waiting.player}'s choice ({waiting.what}) waits for its dice: a fresh "
                                       "seed step (every player's link or nonce), then "
                                       f"{_prefix(ruleset.info.name)} resolve", rule=RULE)]


def candidates(ruleset: Any, state: Any, stream: str, original: Any) -> Any:
    """The moves to propose (``Ruleset.candidates``): while a choice waits for its dice, its resolve alone."""
    from combatlog.rulesets.base import Candidate

    waiting = state.foresight.deferred
    if waiting is None:
        return original
    return [Candidate(command=Resolve(), argv=(_prefix(ruleset.info.name), "resolve", stream),
                      text=f"run the dice of {waiting.player}'s choice ({waiting.what})")]
