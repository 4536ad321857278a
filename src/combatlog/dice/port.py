"""The dice port handed to ``decide``: the only way randomness enters a combat.

A draw becomes a ``core.dice_rolled`` event carrying the scheme and, for the
verifiable schemes, the seq of the commitment its faces derive from.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

import msgspec

from combatlog.dice.derive import derive_faces
from combatlog.dice.notation import Dice, parse_dice
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.core import DiceRolled

SCHEMES = ("manual", "local", "referee", "joint")
RULE_NO_REROLL = "trust: a crossing never re-rolls a die"
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#@+-]{0,199}$")

# A key source answers, for the label of the die to draw, the seq of the commitment to
# derive from and the secret key; it raises a clear error when the scheme cannot draw now.
KeySource = Callable[[str], tuple[int, bytes]]

OWN_LABELS_RULE = "core: the rules own their labels"


def rules_label_error(label: str, ruleset: str, what: str) -> IllegalCommand:
    """The refusal of a die a player names under a label the rules draw (``Ruleset.owns_label``)."""
    return IllegalCommand(
        f"{what} {label!r} is a label the {ruleset} rules draw their own dice under: a die a player names "
        "there would take the rules' label, and the rules' own roll would then be refused for ever (\"already "
        "drawn\"); choose another label (one the rules never draw, e.g. without the round's r<N>/ or t<N>/), "
        "or leave it out",
        rule=OWN_LABELS_RULE,
    )


class Roll(msgspec.Struct, frozen=True):
    label: str
    dice: Dice
    faces: tuple[int, ...]
    total: int
    event: DiceRolled


def check_scheme(scheme: str) -> str:
    if scheme not in SCHEMES:
        raise InvalidCommand(f"unknown dice scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    return scheme


def check_label(label: str) -> str:
    if not LABEL_PATTERN.match(label):
        raise InvalidCommand(
            f"dice label {label!r} must be 1-200 characters of letters, digits and _.:/#@+- "
            "(e.g. r3/reposition/amazon-sheet)"
        )
    return label


def with_drawn(drawn: list[DiceRolled], events: list[Any]) -> list[Any]:
    """A command's batch: the dice it drew that ``decide`` did not place itself, then its events."""
    if not drawn:  # most commands draw nothing (verify re-decides every one)
        return list(events)
    included = {id(e) for e in events}
    return [d for d in drawn if id(d) not in included] + list(events)


# At most this many missing manual dice are listed in one error (a rule that re-rolls until a
# face comes up must not spin on placeholders).
MAX_MISSING = 100


class DicePort:
    """Draws dice for ``decide``.

    With ``collect_missing`` (the write path), a manual die whose faces were not given does not stop
    ``decide``: its label is recorded in ``missing`` and a placeholder face stands in, so that every
    missing label of the command can be named at once. A port that handed out a placeholder is
    *incomplete*: ``check_complete`` raises, listing the labels, and the write path calls it before
    anything ``decide`` returned is sealed, so no event built from a placeholder face is appended.
    """

    def __init__(
        self,
        *,
        scheme: str,
        actor: str,
        labels_taken: Container[str],
        key_source: KeySource | None = None,
        manual_faces: Mapping[str, tuple[int, ...]] | None = None,
        collect_missing: bool = False,
        owns_label: Callable[[str], bool] | None = None,
        ruleset: str = "",
        replay: Sequence[DiceRolled] | None = None,
    ) -> None:
        self.scheme = check_scheme(scheme)
        if owns_label is not None:
            self.owns_label, self.ruleset = owns_label, ruleset
        self.actor = actor
        self._taken = labels_taken
        self._key_source = key_source
        self._manual = dict(manual_faces or {})
        self._collect = collect_missing
        self.drawn: list[DiceRolled] = []
        self._drawn_labels: set[str] = set()
        self.missing: list[tuple[str, Dice]] = []  # manual dice drawn without faces, in the order rolled
        # A decision re-run after a merge (``exchange/merge.py``): the dice its first run drew, in order. Each die
        # drawn again shows the same faces (a die of its own scheme's choosing shows them; a derived one must
        # derive them again), or the re-run is refused: a crossing never re-rolls a die.
        self._replay = list(replay) if replay is not None else None

    # The rules' own labels (``Ruleset.owns_label``), which a label chosen by a player may not take.
    ruleset = ""

    @staticmethod
    def owns_label(label: str) -> bool:
        return False

    def next_label(self, base: str) -> str:
        """``base`` if it is free, else ``base#2``, ``base#3``... (for repeated rolls of one kind)."""
        label, n = base, 1
        while label in self._taken or label in self._drawn_labels:
            n += 1
            label = f"{base}#{n}"
        return label

    def rule_label(self, base: str, chosen: str = "") -> str:
        """The label of a die the rules draw: ``base`` (or ``base#n``), or the player's ``chosen`` one.

        With joint dice anyone who knows the seed can compute the faces of any label,
        so a roller free to name the label could try labels until one rolls well:
        there the rules name every die and a chosen label is refused.
        """
        if not chosen:
            return self.next_label(base)
        if self.owns_label(chosen):
            raise rules_label_error(chosen, self.ruleset, "label")
        if self.scheme == "joint":
            raise IllegalCommand(
                f"label {chosen!r}: with joint dice the rules name each die (here {self.next_label(base)!r}), "
                "so that nobody can try labels until one rolls well; leave the label out",
                rule="trust: joint dice have the rules' labels",
            )
        return chosen

    def roll(self, label: str, notation: str | Dice, *, purpose: str = "", by: str | None = None) -> Roll:
        check_label(label)
        dice = parse_dice(notation) if isinstance(notation, str) else notation
        if label in self._taken or label in self._drawn_labels:
            raise IllegalCommand(f"dice label {label!r} was already drawn", rule="core: a label is drawn once")
        seed_ref = 0
        first = self._first_roll(label, dice)
        if first is not None and self.scheme in ("manual", "local"):
            faces = first.faces
        elif self.scheme == "manual":
            faces = self._manual_faces(label, dice)
        elif self.scheme == "local":
            faces = tuple(secrets.randbelow(dice.sides) + 1 for _ in range(dice.count))
        else:
            if self._key_source is None:
                raise InvalidCommand(f"the {self.scheme} dice scheme is not available here")
            seed_ref, key = self._key_source(label)
            faces = derive_faces(key, label, dice.count, dice.sides)
            if first is not None and faces != first.faces:
                raise IllegalCommand(f"decided again, it would roll {label} {dice} = {list(faces)}, and its first roll "
                                     f"was {first.label} {first.notation} = {list(first.faces)}",
                                     rule=RULE_NO_REROLL)
        total = dice.total(faces)
        event = DiceRolled(
            label=label, notation=str(dice), count=dice.count, sides=dice.sides,
            modifier=dice.modifier, faces=faces, total=total, scheme=self.scheme,
            seed_ref=seed_ref, by=by or self.actor, purpose=purpose,
        )
        self.drawn.append(event)
        self._drawn_labels.add(label)
        return Roll(label, dice, faces, total, event)

    def _first_roll(self, label: str, dice: Dice) -> DiceRolled | None:
        """The die of the first run that this draw repeats (by order), when re-running a decision."""
        if self._replay is None:
            return None
        done = len(self.drawn)
        if done >= len(self._replay):
            raise IllegalCommand(f"decided again, it would roll {label} {dice}, a die its first run did not roll "
                                 f"({self._first_rolls()})", rule=RULE_NO_REROLL)
        first = self._replay[done]
        if first.notation != str(dice):
            raise IllegalCommand(f"decided again, it would roll {label} {dice} where its first run rolled "
                                 f"{first.label} {first.notation} = {list(first.faces)}", rule=RULE_NO_REROLL)
        return first

    def _first_rolls(self) -> str:
        rolls = self._replay or []
        return ("its first roll was " + ", ".join(f"{d.label} {d.notation} = {list(d.faces)}" for d in rolls)
                if rolls else "its first run rolled nothing")

    def _manual_faces(self, label: str, dice: Dice) -> tuple[int, ...]:
        faces = self._manual.get(label)
        if faces is None:
            self.missing.append((label, dice))
            if not self._collect or len(self.missing) >= MAX_MISSING:
                raise self.missing_error()
            return ((dice.sides + 1) // 2,) * dice.count  # a placeholder: see check_complete
        if len(faces) != dice.count or any(not 1 <= f <= dice.sides for f in faces):
            raise InvalidCommand(
                f"manual dice {label!r}: {dice} needs {dice.count} face(s) from 1 to {dice.sides}, got {list(faces)}"
            )
        return tuple(faces)

    def missing_error(self) -> InvalidCommand:
        """One error naming every manual die drawn without faces, in the order rolled."""
        listed = ", ".join(f"{label!r} ({dice})" for label, dice in self.missing)
        more = " and maybe more" if len(self.missing) >= MAX_MISSING else ""
        faces = " ".join(f"--face {label}=..." for label, _dice in self.missing)
        what = "" if len(self.missing) == 1 else f"{len(self.missing)} labels{more}, in the order rolled: "
        return InvalidCommand(f"manual dice: no faces given for {what}{listed}; add {faces} "
                              "(the faces rolled may call for further dice)")

    def check_complete(self) -> None:
        """Refuse what ``decide`` returned unless every die was really drawn and every manual face
        given was used: missing faces are listed together; a --face for a label this command did
        not roll (a typo, or a die the rules did not call for) is refused rather than ignored."""
        if self.missing:
            raise self.missing_error()
        if self._replay is not None and len(self.drawn) < len(self._replay):
            raise IllegalCommand(f"decided again, it would roll fewer dice than its first run ({self._first_rolls()})",
                                 rule=RULE_NO_REROLL)
        rolled = [d.label for d in self.drawn]
        unused = [label for label in self._manual if label not in self._drawn_labels or self.scheme != "manual"]
        if not unused:
            return
        if self.scheme != "manual":
            raise InvalidCommand(f"--face {unused[0]}: this command drew its dice with the {self.scheme} scheme; "
                                 "--face goes with manual dice")
        did = f"it rolled {', '.join(rolled)}" if rolled else "it rolled no dice"
        raise InvalidCommand(f"--face {', '.join(unused)}: this command does not roll "
                             f"{'that label' if len(unused) == 1 else 'those labels'} ({did})")
