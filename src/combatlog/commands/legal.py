"""Legal moves: the candidates a ruleset proposes, kept where the write path itself would accept them.

Legality lives in one place, the write path's own checks (``handler.execute`` steps 2: authority, then
``decide``). A ruleset proposes moves generously (``Ruleset.candidates``: every target, chit, box, ruling
within its range) and this module keeps a candidate only when ``check_authority`` and ``decide`` accept
it, run exactly as ``execute`` runs them, on the same state. So a move is offered exactly when the
command would be taken: nothing offered is refused, and nothing the ruleset proposes and allows is hidden.

Probing draws no die. ``decide`` gets a probe port that hands out placeholder faces and records the
labels it was asked for, so that listing moves neither spends a label nor computes a die from a seed:
a player reading the list learns nothing about the dice. Legality that hangs on a die's faces (a rule
that refuses a command after rolling) would escape the probe; no ruleset here decides legality after
a roll, and the random playouts (tests/rulesets/test_playouts.py) would show one that did.

Core commands a ruleset proposes (sealed orders: a Magic Realm play sealed with ``--seal``) are probed
through the wiring's core deciders against a store that keeps no secret, so listing moves writes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from combatlog.commands.authority import ANYONE, Roles, check_authority, roles_of
from combatlog.dice.notation import Dice, parse_dice
from combatlog.dice.port import DicePort, Roll, check_label
from combatlog.errors import CombatlogError
from combatlog.events.core import DiceRolled
from combatlog.ports import Wiring
from combatlog.projections.fold import Folded
from combatlog.rulesets.base import Candidate
from combatlog.store.base import EventStore

DEFAULT_LIMIT = 200
# A ruleset proposing more candidates than this is proposing blindly: list its moves by parts instead
MAX_CANDIDATES = 20_000


class Move(msgspec.Struct, frozen=True, kw_only=True):
    """A legal move: who may make it, the command line that makes it, and what it means.

    ``argv``: the words after ``combatlog``, ``--as PLAYER`` included where the combat pins players;
    ``dice``: the labels (with notation) of the dice its command draws, so a manual-dice table knows which
    faces to roll (``--face LABEL=...``); ``step``: a step of the procedure anyone may take, rather than a
    piece's move or a ruling."""

    player: str
    argv: tuple[str, ...]
    text: str
    piece: str = ""
    step: bool = False
    kind: str = "move"  # "move" (a piece's), "step" (of the procedure, anyone's), "ruling" (the referee's)
    dice: tuple[str, ...] = ()
    group: str = ""
    command: Any = None  # the command itself (for in-process callers; never serialised)

    def as_json(self) -> dict[str, Any]:
        return {"player": self.player, "argv": list(self.argv), "text": self.text, "piece": self.piece or None,
                "kind": self.kind}


class ProbePort(DicePort):
    """A dice port for probing ``decide``: every label checked as the real port checks it, no die drawn.

    The faces are placeholders (the middle face, as a manual die without faces gets), so ``decide`` runs to
    the end; ``unavailable`` keeps why the combat's scheme could not draw now (no joint seed yet), asked of the
    key source without deriving any face."""

    def __init__(self, *, scheme: str, actor: str, labels_taken: Any, key_source: Any = None) -> None:
        super().__init__(scheme=scheme, actor=actor, labels_taken=labels_taken)
        self._probe_source = key_source
        self.asked: list[str] = []
        self.unavailable = ""

    def roll(self, label: str, notation: str | Dice, *, purpose: str = "", by: str | None = None) -> Roll:
        check_label(label)
        dice = parse_dice(notation) if isinstance(notation, str) else notation
        if label in self._taken or label in self._drawn_labels:
            from combatlog.errors import IllegalCommand

            raise IllegalCommand(f"dice label {label!r} was already drawn", rule="core: a label is drawn once")
        if self._probe_source is not None and not self.unavailable and self.scheme in ("joint", "referee"):
            try:
                self._probe_source(label)
            except CombatlogError as exc:
                self.unavailable = str(exc)
        faces = ((dice.sides + 1) // 2,) * dice.count
        total = dice.total(faces)
        event = DiceRolled(label=label, notation=str(dice), count=dice.count, sides=dice.sides,
                           modifier=dice.modifier, faces=faces, total=total, scheme=self.scheme, seed_ref=0,
                           by=by or self.actor, purpose=purpose)
        self.drawn.append(event)
        self._drawn_labels.add(label)
        self.asked.append(f"{label} ({dice})")
        return Roll(label, dice, faces, total, event)


class _NoSecrets:
    """The store as ``decide`` reads it, with secret writes dropped (a probe of a sealed commit keeps nothing).

    A player's secret that is not in this log (his nonce chain, his sealed orders: they stay on his machine) reads
    as a placeholder, so that his moves are listed as his own machine would take them (``status`` and the mail
    list every player's moves). Nothing a placeholder gives leaves the probe: no face is derived from it."""

    def __init__(self, store: EventStore) -> None:
        self._store = store

    def put_secret(self, *_args: Any, **_kwargs: Any) -> None:
        return None

    def get_secret(self, name: str) -> bytes | None:
        found = self._store.get_secret(name)
        if found is not None:
            return found
        if name.startswith("chain:"):
            return b"0" * 64
        if name.startswith("orders:"):
            return msgspec.json.encode({"nonce": "0" * 64, "orders": {}})
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


class Probed(msgspec.Struct, frozen=True, kw_only=True):
    dice: tuple[str, ...] = ()
    unavailable: str = ""  # the command draws dice the scheme cannot draw now (why)


def probe(store: EventStore, folded: Folded, command: Any, actor: str, wiring: Wiring) -> Probed:
    """Run the write path's decision on ``command`` without drawing a die or appending: raises as
    ``execute`` would (``CombatlogError``), else returns the dice it would draw.

    A command whose CLI contributes its taker's part of a seed step first (the ruleset's ``contributed_first``:
    a Magic Realm referee's step reveals his closing link) is probed as it runs: the contribution through its
    core decider, then the command on the state the contribution's events leave (its dice drawn from the seed
    step it completes, so none waits)."""
    genesis = folded.core.genesis
    scheme = genesis.dice if genesis is not None else "local"
    source = wiring.key_sources.get(scheme)
    first = getattr(folded.ruleset, "contributed_first", None)
    before = tuple(first(folded.state, command, actor)) if first is not None and folded.state is not None else ()
    state = folded.state
    for n, contribution in enumerate(before):
        events = wiring.deciders[type(contribution)](_NoSecrets(store), folded, contribution,  # type: ignore[arg-type]
                                                     ProbePort(scheme=scheme, actor=actor, labels_taken=()), actor)
        for event in events:
            state = folded.ruleset.evolve(state, event, folded.core.head_seq + 1 + n)
    port = ProbePort(scheme=scheme, actor=actor, labels_taken=folded.core.labels,
                     key_source=(lambda label: source(store, folded.core, label)) if source and not before else None)
    decider = wiring.deciders.get(type(command))  # a core command a ruleset proposes: sealed orders
    if decider is not None:
        decider(_NoSecrets(store), folded, command, port, actor)  # type: ignore[arg-type]
    else:
        folded.ruleset.decide(state, command, port)
    return Probed(dice=tuple(port.asked), unavailable=port.unavailable)


def deciders(roles: Roles, referee: str, player: str | None) -> tuple[str, ...]:
    """Whose moves are listed: ``player``'s; else every pinned player and the referee (and, for a piece's
    move, its players, pinned or not); "" (anyone) where the combat enforces no roles."""
    if not roles.enforced:
        return ("",)
    if player:
        return (player,)
    people = list(roles.players)
    for other in (roles.referee, referee):
        if other and other not in people:
            people.append(other)
    return tuple(people)


def legal_moves(store: EventStore, folded: Folded, stream: str, *, wiring: Wiring, player: str | None = None,
                referee: str = "gm") -> list[Move]:
    """Every move ``player`` (or, with None, every decider) may make now in ``folded``'s combat.

    ``referee``: who takes the steps of the procedure anyone may take, when no ``player`` is asked
    (``trust.mine.referee_of``); asked for ``player``, they are his too. A candidate whose dice the combat's
    scheme cannot draw now (joint dice before their seed) is not a move yet: ``pending_dice`` lists those."""
    return _moves(store, folded, stream, wiring=wiring, player=player, referee=referee)[0]


def pending_dice(store: EventStore, folded: Folded, stream: str, *, wiring: Wiring, player: str | None = None,
                 referee: str = "gm") -> list[Move]:
    """The moves that are legal but wait for their dice (a joint seed step): offered once it completes."""
    return _moves(store, folded, stream, wiring=wiring, player=player, referee=referee)[1]


def _moves(store: EventStore, folded: Folded, stream: str, *, wiring: Wiring, player: str | None,
           referee: str) -> tuple[list[Move], list[Move]]:
    ruleset, state = folded.ruleset, folded.state
    if state is None or ruleset.finished(state):
        return [], []
    roles = roles_of(ruleset, folded.core.genesis, folded.core.creator)
    people = deciders(roles, referee, player)
    ready: list[Move] = []
    waiting: list[Move] = []
    for n, cand in enumerate(_bounded(ruleset.candidates(state, stream))):
        real = ruleset.authority(state, cand.command)  # what it is, whether or not roles are enforced
        need = real if roles.enforced else ANYONE
        asked = people if player or need.kind != "pieces" else \
            (*people, *(p for _piece, owners in need.owners for p in owners if p not in people))
        allowed = [p for p in asked if _may(ruleset, state, roles, cand.command, p)]
        if need.kind == "anyone" and roles.enforced and not player:
            allowed = [p for p in allowed if p == referee] or allowed[:1]  # a step of the procedure: its taker's
        if not allowed:
            continue
        # a core command (a sealed step's move) or one that contributes its taker's seed part first is decided
        # for each taker (the trust layer takes it from one player and not from another); the others once
        first = getattr(ruleset, "contributed_first", None)
        personal = type(cand.command) in wiring.deciders or (
            first is not None and any(first(state, cand.command, who) for who in allowed))
        probed_by: dict[str, Probed] = {}
        for who in (allowed if personal else allowed[:1]):
            try:
                probed_by[who] = probe(store, folded, cand.command, who or "gm", wiring)
            except CombatlogError:
                continue
        if not probed_by:
            continue
        if personal:
            allowed = [who for who in allowed if who in probed_by]
        for who in allowed:
            probed = probed_by.get(who) or next(iter(probed_by.values()))
            argv = (*cand.argv, "--as", who) if who else cand.argv
            kind = "step" if real.kind == "anyone" else "ruling" if real.kind == "referee" else "move"
            move = Move(player=who, argv=argv, text=cand.text, piece=cand.piece, step=kind == "step", kind=kind,
                        dice=probed.dice, group=cand.group or f"#{n}", command=cand.command)
            (waiting if probed.unavailable else ready).append(move)
    return ready, waiting


def _may(ruleset: Any, state: Any, roles: Roles, command: Any, person: str) -> bool:
    try:
        check_authority(ruleset, state, roles, command, person or "gm")
    except CombatlogError:
        return False
    return True


def _bounded(candidates: Iterable[Candidate]) -> Iterable[Candidate]:
    for n, cand in enumerate(candidates):
        if n >= MAX_CANDIDATES:
            raise RuntimeError(f"a ruleset proposed more than {MAX_CANDIDATES} candidates: list them by parts")
        yield cand


def sample(moves: Sequence[Move], limit: int, seed: int | str | None) -> tuple[list[Move], bool]:
    """At most ``limit`` moves, in their order: all of them (complete), or a uniform random sample of
    ``limit`` seeded by ``seed`` (the same seed gives the same sample)."""
    if limit < 0:
        raise ValueError("limit must be >= 0")
    if len(moves) <= limit:
        return list(moves), True
    rng = random.Random(str(seed) if seed is not None else None)
    keep = sorted(rng.sample(range(len(moves)), limit))
    return [moves[i] for i in keep], False

