"""The dice port handed to ``decide``: the only way randomness enters a combat.

A draw becomes a ``core.dice_rolled`` event carrying the scheme and, for the
verifiable schemes, the seq of the commitment its faces derive from.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Container, Mapping

import msgspec

from combatlog.dice.derive import derive_faces
from combatlog.dice.notation import Dice, parse_dice
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.core import DiceRolled

SCHEMES = ("manual", "local", "referee", "joint")
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#@+-]{0,199}$")

# A key source answers, for a scheme, the seq of the commitment to derive from and
# the secret key; it raises a clear error when the scheme cannot draw now.
KeySource = Callable[[str], tuple[int, bytes]]


class Roll(msgspec.Struct, frozen=True):
    label: str
    dice: Dice
    faces: tuple[int, ...]
    total: int
    event: DiceRolled


def check_label(label: str) -> str:
    if not LABEL_PATTERN.match(label):
        raise InvalidCommand(
            f"dice label {label!r} must be 1-200 characters of letters, digits and _.:/#@+- "
            "(e.g. r3/reposition/amazon-sheet)"
        )
    return label


class DicePort:
    def __init__(
        self,
        *,
        scheme: str,
        actor: str,
        labels_taken: Container[str],
        key_source: KeySource | None = None,
        manual_faces: Mapping[str, tuple[int, ...]] | None = None,
    ) -> None:
        if scheme not in SCHEMES:
            raise InvalidCommand(f"unknown dice scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
        self.scheme = scheme
        self.actor = actor
        self._taken = labels_taken
        self._key_source = key_source
        self._manual = dict(manual_faces or {})
        self.drawn: list[DiceRolled] = []
        self._drawn_labels: set[str] = set()

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
        if self.scheme == "manual":
            faces = self._manual_faces(label, dice)
        elif self.scheme == "local":
            faces = tuple(secrets.randbelow(dice.sides) + 1 for _ in range(dice.count))
        else:
            if self._key_source is None:
                raise InvalidCommand(f"the {self.scheme} dice scheme is not available here")
            seed_ref, key = self._key_source(self.scheme)
            faces = derive_faces(key, label, dice.count, dice.sides)
        total = dice.total(faces)
        event = DiceRolled(
            label=label, notation=str(dice), count=dice.count, sides=dice.sides,
            modifier=dice.modifier, faces=faces, total=total, scheme=self.scheme,
            seed_ref=seed_ref, by=by or self.actor, purpose=purpose,
        )
        self.drawn.append(event)
        self._drawn_labels.add(label)
        return Roll(label, dice, faces, total, event)

    def _manual_faces(self, label: str, dice: Dice) -> tuple[int, ...]:
        faces = self._manual.get(label)
        if faces is None:
            raise InvalidCommand(
                f"manual dice: no faces given for {label!r} ({dice}); add --face {label}=..."
            )
        if len(faces) != dice.count or any(not 1 <= f <= dice.sides for f in faces):
            raise InvalidCommand(
                f"manual dice {label!r}: {dice} needs {dice.count} face(s) from 1 to {dice.sides}, got {list(faces)}"
            )
        return tuple(faces)
