"""The contract every ruleset satisfies.

A ruleset is one object (``RULESET`` in its package) of a subclass of
``Ruleset``. The engine calls:

- ``initial_state(genesis)``: the state before any event after the genesis;
- ``decide(state, command, dice)``: legality checks and the events a command
  produces; raises ``InvalidCommand``/``IllegalCommand(rule=...)`` and nothing
  is appended. Randomness only through ``dice.roll(label, "2d6")``, whose
  ``core.dice_rolled`` events the engine appends before the returned events
  unless ``decide`` placed them itself;
- ``evolve(state, event, seq)``: pure; never rolls, never raises on an event
  ``decide`` produced; sees every event, core ones included;
- ``pending``, ``check``, ``round_of``, ``current_round``, ``explain``, ``summarize``,
  ``conceals``, ``describe`` and ``render`` for the views.

Defaults below suit a ruleset that does not need a hook.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

from combatlog.commands.authority import ANYONE, Authority
from combatlog.dice.port import DicePort
from combatlog.events.base import Event, tag_of
from combatlog.events.core import CombatStarted

S = TypeVar("S")


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One derived step, with the rule that produced it and the dice behind it.

    ``data``: what the step decided, as data, for scripts (``explain --json``), so that none parses
    ``text``; e.g. an attack roll's roll, bonus, need and result. None when the text says it all.
    """

    seq: int
    rule: str
    text: str
    dice: tuple[str, ...] = ()
    data: dict[str, Any] | None = None


class DiceUse(msgspec.Struct, frozen=True, kw_only=True):
    """A die an event depends on, as the rules fix it; ``verify`` checks every one.

    Declared by ``Ruleset.dice_uses`` for each event that names a die or whose
    fold reads one, so that no number that came from a die can be forged and no
    die can be swapped for a better one (docs/trust.md, threats):

    - the die ``label`` must have been drawn before the event, and (unless
      ``reuse``) no other event may depend on the same die;
    - ``expected_label``: the label the rules draw at this point (from the state
      before the event); a joint die under any other label was chosen by the
      roller, and is refused;
    - ``notation``: the dice the rules roll here (``1d20``); another is refused;
    - ``copied``: a number the event carries that must equal the die read by
      ``derive`` (``total``, ``-total``, ``max0``: max(0, total)).

    A use with no ``label`` says that no die was drawn for ``copied``: it must be 0
    (an OSRIC miss carries no damage).
    """

    label: str
    field: str  # where the event names or copies it, for messages: "roll", "rolls.red", "dice[0]"
    expected_label: str = ""
    notation: str = ""
    copied: int | None = None
    derive: str = "total"
    reuse: bool = False


def without_revision(state: Any) -> dict[str, Any]:
    """A state as the state digest covers it when it keeps a ``revision`` field (the kept earlier version its rules
    are read under, ``Ruleset.revision_of``): every other field, encoded as the state was before it had one (the
    canonical JSON sorts a struct's fields as a dict's keys). The version names the rules read, not an outcome:
    a log's state is compared as played and under today's rules."""
    return {k: v for k, v in msgspec.structs.asdict(state).items() if k != "revision"}


def derived_value(derive: str, total: int) -> int:
    """What an event copies from a die's total, by ``DiceUse.derive``."""
    if derive == "total":
        return total
    if derive == "-total":
        return -total
    if derive == "max0":
        return max(0, total)
    raise ValueError(f"unknown dice derivation {derive!r}")


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    """A decision the combat is waiting for: who, what, and (if few) the choices."""

    who: str
    what: str
    options: tuple[str, ...] = ()
    rule: str = ""


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """A move a ruleset proposes (``Ruleset.candidates``): the command, the words that make it on the
    command line, and what it means. Proposing is not allowing: ``commands/legal.py`` keeps a candidate
    only when the write path's own authority check and ``decide`` accept it, so legality lives in
    ``decide`` alone and a ruleset may propose generously (every target, every chit).

    ``argv``: the words after ``combatlog`` (the stream named, no ``--as``: added for the player), e.g.
    ``("argad", "strike", "skirmish", "gob", "--at", "bob")``. ``piece``: the piece it moves ("" for a
    step of the procedure or a ruling). ``group``: moves that are parts of one decision (a Magic Realm
    play's options), so that a sample can be drawn uniformly among whole decisions' parts.
    """

    command: Any
    argv: tuple[str, ...]
    text: str
    piece: str = ""
    group: str = ""


class RulesetInfo(msgspec.Struct, frozen=True, kw_only=True):
    name: str  # the stable id used in the genesis and on the CLI
    title: str
    version: str
    citation: str  # citation prefix, e.g. "MR", "CFI", "OSRIC", "Argad"
    sources: tuple[str, ...] = ()


class Ruleset(Generic[S]):
    info: ClassVar[RulesetInfo]
    event_types: ClassVar[tuple[type[Event], ...]]
    state_type: ClassVar[type[Any]]
    # Files whose bytes define the rules (data tables); hashed into the rules digest.
    data_files: ClassVar[tuple[Path, ...]] = ()
    # The command classes ``decide`` takes (``commands.record.commands_in``): what a log may record.
    command_types: ClassVar[tuple[type, ...]] = ()
    # A game refereed by nature (OSRIC): with roles enforced and no --referee, the creator referees.
    referee_by_default: ClassVar[bool] = False
    # The rules digests of earlier revisions of this ruleset whose logs this build still reads -> the revision
    # in words. Only a revision every event of whose logs this build decodes belongs here; verify re-decides those
    # logs' commands under the rules of the revision where this build keeps it (``kept_revisions``), else under
    # its own, so that what a fix since refuses is refused there too (docs/rules.md, "The rules digest").
    earlier_digests: ClassVar[Mapping[str, str]] = MappingProxyType({})
    # The earlier revisions whose rules this build keeps beside its own: the rules digest of each (one of
    # ``earlier_digests``) -> its version (``info.version`` then). A log whose genesis holds such a digest and names
    # that version is folded and re-decided under that revision's rules, as it was played (``revision_of``; the
    # state keeps the version read, and each rule a fix changed since asks it), and ``verify`` reads it under
    # today's rules beside it to say where they differ (docs/rules.md, "Earlier revisions"). The digest selects:
    # the genesis is signed, and a version claimed with another digest (today's) reads as today's rules.
    kept_revisions: ClassVar[Mapping[str, str]] = MappingProxyType({})
    # ``DiceRolled.by`` names the piece a die is rolled for, not who rolled it (Classic Fantasy: its rules
    # read it). The recorded events stay so; the dice views show the event's actor as who rolled it and
    # the piece as what it was rolled for (``projections.views.roll_row``).
    dice_by_piece: ClassVar[bool] = False
    # The labels the rules draw dice under (each ruleset's, written beside the code that builds them). A die a
    # player names (a free ``roll``, a command's ``--label``) may not take one: the rules' own draw would then
    # find its label taken, and a rule that draws a fixed label (Magic Realm's ``r1/reposition/bk``) would be
    # refused "already drawn" for ever: any player could freeze the combat. ``owns_label`` is asked on the
    # write path and by ``verify`` (a free roll in a log that records commands), whatever the dice scheme.
    rule_labels: ClassVar[re.Pattern[str] | None] = None

    # -- set-up ---------------------------------------------------------------
    def validate_setup(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Check and normalise the genesis ``setup``; raise ``InvalidCommand``."""
        return setup

    def rules_digest(self) -> str:
        """SHA-256 over the ruleset's name, version, event tags and data files."""
        h = hashlib.sha256()
        h.update(f"{self.info.name}\n{self.info.version}\n".encode())
        for tag in sorted(tag_of(cls) for cls in self.event_types):
            h.update(tag.encode() + b"\n")
        for path in sorted(self.data_files):
            h.update(path.name.encode() + b"\n" + path.read_bytes())
        return h.hexdigest()

    def revision_of(self, genesis: CombatStarted) -> str:
        """The kept earlier version whose rules the combat begun by ``genesis`` is read under ('' for today's): its
        rules digest must be that of a kept revision (``kept_revisions``) and its version that revision's."""
        version = self.kept_revisions.get(genesis.rules_digest)
        return version if version is not None and version == genesis.ruleset_version else ""

    # -- the fold -------------------------------------------------------------
    def canonical_state(self, state: S) -> Any:
        """What the state digest (``projections/digest.py``) covers: the state, minus what is only a cache or a
        view of the last event (which a later build may keep otherwise without any outcome changing). The
        default is the whole state; msgspec encodes it with its fields, keys and sets sorted."""
        return state

    def initial_state(self, genesis: CombatStarted) -> S:
        raise NotImplementedError

    def decide(self, state: S, command: Any, dice: DicePort) -> list[Event]:
        raise NotImplementedError

    def evolve(self, state: S, event: Event, seq: int) -> S:
        raise NotImplementedError

    # -- authority (commands/authority.py) -------------------------------------
    def authority(self, state: S, command: Any) -> Authority:
        """What ``command`` needs: ``ANYONE`` (a step the rules decide), ``pieces(...)`` (moves of those
        pieces: their players'), ``ruling(...)`` (the referee's). Checked on the write path and re-checked
        by ``verify`` for every recorded command."""
        return ANYONE

    def players_of(self, state: S, piece: str) -> tuple[str, ...] | None:
        """The players ``piece`` (a name ``pending`` may give as who decides) belongs to: () when no player plays
        it (the referee's, or anyone's without one); None when ``piece`` names no piece. ``status --mine`` and the
        mail name a piece's players with it (trust/mine.py)."""
        return None

    def owns_label(self, label: str) -> bool:
        """True when the rules draw (or may draw) a die under ``label``: no player may name a die so."""
        return self.rule_labels is not None and self.rule_labels.match(label) is not None

    def dice_uses(self, state: S, event: Event) -> Sequence[DiceUse]:
        """The dice ``event`` depends on, given the state before it (see ``DiceUse``).

        Every die the fold reads for this event, whether the event names its label
        or the rules' convention does, must be declared here.
        """
        return ()

    # -- legal moves (commands/legal.py) ----------------------------------------
    def candidates(self, state: S, stream: str) -> Iterable[Candidate]:
        """Every move worth proposing now, each with every argument filled in (targets, chits, boxes,
        rulings within their legal range): a superset of the legal ones. ``commands/legal.py`` keeps those
        that ``authority`` and ``decide`` accept, and who may make each. Nothing once ``finished``."""
        return ()

    # -- views ----------------------------------------------------------------
    def pending(self, state: S) -> list[Pending]:
        return []

    def check(self, state: S) -> list[str]:
        """Invariant violations (empty when the state is sound)."""
        return []

    def round_of(self, state: S) -> int:
        """The round the last folded event belongs to (0 before the first round).

        It places events in rounds (``--round N``, ``explain``, ``replay``). The event that
        ends a round still belongs to it, so right after a round ends this is that round.
        """
        return 0

    def current_round(self, state: S) -> int:
        """The round being decided: the round the pending decisions belong to (``status``, the
        top-level ``round`` of ``show --json``). It is ``round_of`` except between two rounds
        (a round has ended, the next has not begun), where it is the next round; 0 before the
        first round; the last round once the combat is over.
        """
        return self.round_of(state)

    def finished(self, state: S) -> bool:
        return False

    def explain(self, before: S, event: Event, after: S, seq: int) -> Sequence[Step]:
        """The derived steps this event caused, each with its rule citation."""
        return ()

    def summarize(self, event: Event) -> str:
        """One line for timelines and the text export (override for your events)."""
        return core_summary(event)

    def conceals(self, event: Event, state: S, viewer: str | None) -> bool:
        """True when ``viewer`` must not see this event's content yet (secret plays).

        ``viewer`` None means the omniscient local view (referee, hot seat).
        """
        return False

    def describe(self, state: S, viewer: str | None = None) -> dict[str, Any]:
        """The state as JSON-able data (``show --json``)."""
        return msgspec.to_builtins(state)  # type: ignore[no-any-return]

    def render(self, state: S, viewer: str | None = None) -> str:
        """The state as text for people (``show``)."""
        return msgspec.json.format(msgspec.json.encode(self.describe(state, viewer))).decode()


def core_summary(event: Event) -> str:
    """Readable lines for core events; a generic field listing for anything else."""
    from combatlog.events import core

    match event:
        case core.CombatStarted():
            players = f", players {', '.join(p.name for p in event.players)}" if event.players else ""
            return f"combat {event.name} begins ({event.ruleset} v{event.ruleset_version}, dice {event.dice}{players})"
        case core.Forked():
            return f"fork {event.name} of {event.parent_name} after seq {event.at_seq}"
        case core.DiceRolled():
            return dice_words(event)
        case core.SeedCommitted():
            return "the referee commits to a dice seed (kept secret until revealed, so no die can be chosen)"
        case core.SeedRevealed():
            return f"the referee reveals the dice seed committed at #{event.commit_seq} (every die can now be checked)"
        case core.ChainCommitted():
            return f"{event.player} commits to a chain of {event.length} nonces for the joint dice"
        case core.LinkRevealed():
            return f"{event.player} gives nonce {event.index} of their chain to the joint dice of {event.step}"
        case core.ChainReleased():
            return f"{event.player} releases their nonce chain: their later nonces count without a message"
        case core.Noted():
            about = f" [{', '.join(event.about)}]" if event.about else ""
            return f"note: {event.text}{about}"
        case core.OrdersCommitted():
            return f"{event.player} seals their orders for step {event.step} (secret until revealed)"
        case core.OrdersRevealed():
            if not event.orders:
                return f"{event.player} reveals step {event.step}: no orders, a nonce for the joint dice"
            return f"{event.player} reveals step {event.step}: {words(event.orders)}"
        case core.Acknowledged():
            return f"{event.player} acknowledges the log up to #{event.upto}"
        case core.DecisionMarked():
            return f"decision point: {event.player}: {event.what}"
    tag = tag_of(type(event))
    if tag == "choice.deferred":  # rulesets/foresight.py (imports this module)
        return f"{event.player}'s choice waits for dice from a fresh seed: {event.what}"  # type: ignore[attr-defined]
    if tag == "choice.resolved":
        return f"{event.player}'s choice is resolved with dice from a fresh seed: {event.what}"  # type: ignore[attr-defined]
    fields = {k: v for k, v in msgspec.structs.asdict(event).items() if v not in ((), {}, "", None)}
    return f"{tag_of(type(event))} " + " ".join(f"{k}={words(v, 1)}" for k, v in fields.items())


SCHEME_WORDS = {
    "joint": "drawn from the joint seed",
    "referee": "drawn from the referee's committed seed",
    "local": "rolled by the program on the roller's machine",
    "manual": "rolled at the table",
}


def dice_words(event: Any) -> str:
    """A roll for people: whose die, what it is for, what it showed and where it came from, e.g.
    ``bob's 1d6 for reposition amazon -> [5] = 5 (die r1/reposition/amazon, drawn from the joint seed ...)``."""
    whose = f"{event.by}'s {event.notation}" if event.by else event.notation
    purpose = f" for {event.purpose}" if event.purpose else ""
    origin = SCHEME_WORDS.get(event.scheme, event.scheme)
    return f"{whose}{purpose} -> {list(event.faces)} = {event.total} (die {event.label}, {origin})"


def words(value: Any, depth: int = 0) -> str:
    """Data (orders, event fields) as words for people, not JSON: ``bk: attack 3, fight F6; amazon:
    attack 1``. Keys and values are written as they are; entries of the outer level are separated by
    semicolons, inner ones by commas, deeper ones in parentheses."""
    if isinstance(value, msgspec.Struct):
        value = msgspec.to_builtins(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, dict):
        if not value:
            return "nothing"
        items = [f"{k}: {words(v, depth + 1)}" if isinstance(v, (dict, list, tuple)) else f"{k} {words(v, depth + 1)}"
                 for k, v in value.items()]
        text = ("; " if depth == 0 else ", ").join(items)
        return f"({text})" if depth >= 2 else text
    if isinstance(value, (list, tuple)):
        if not value:
            return "nothing"
        text = ", ".join(words(v, depth + 1) for v in value)
        return f"({text})" if depth >= 2 else text
    return str(value)
