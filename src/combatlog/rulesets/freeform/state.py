"""Freeform state: who is in the fight, their hit points and conditions, the round."""

from __future__ import annotations

import msgspec


class Participant(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    side: str
    hp: int | None = None
    max_hp: int | None = None
    conditions: tuple[str, ...] = ()
    present: bool = True
    player: str = ""  # who plays it (join --player); "" none
    acted: int = 0  # actions taken in the current round

    @property
    def down(self) -> bool:
        return self.hp is not None and self.hp <= 0


class FreeformState(msgspec.Struct, frozen=True, kw_only=True):
    round: int = 0
    in_round: bool = False
    ended: bool = False
    outcome: str = ""
    participants: dict[str, Participant] = {}
    # Labels of the dice drawn for this round or a later one, in order (combatlog.rulesets.drawn), so that
    # dice_uses knows the label next_label gave a die; complete from round ``dice_from`` on (-1: a state
    # decoded from a snapshot older than this field).
    dice_drawn: tuple[str, ...] = ()
    dice_from: int = -1
