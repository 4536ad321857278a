"""Freeform events (tags ``ff.*``)."""

from __future__ import annotations

from typing import Any, ClassVar

from combatlog.events.base import Event, register, register_upcaster


class ParticipantJoined(Event, frozen=True, kw_only=True, tag="ff.participant_joined"):
    name: str
    side: str
    hp: int | None = None
    note: str = ""
    player: str = ""  # the player who plays it ("" none: the referee's, or anyone's without one)


class ParticipantLeft(Event, frozen=True, kw_only=True, tag="ff.participant_left"):
    name: str
    reason: str = ""


class RoundStarted(Event, frozen=True, kw_only=True, tag="ff.round_started"):
    round: int


class RoundEnded(Event, frozen=True, kw_only=True, tag="ff.round_ended"):
    round: int


class ActionTaken(Event, frozen=True, kw_only=True, tag="ff.action_taken"):
    who: str
    action: str
    dice: tuple[str, ...] = ()  # labels of the rolls that go with it


class HpChanged(Event, frozen=True, kw_only=True, tag="ff.hp_changed"):
    """Hit points gained (delta > 0) or lost (delta < 0).

    Schema 1 (combatlog 0.1.0 development logs) stored ``amount`` (never
    negative) and ``heal``; schema 2 stores one signed ``delta``.
    """

    schema_version: ClassVar[int] = 2

    who: str
    delta: int
    reason: str = ""
    dice: tuple[str, ...] = ()


def _hp_changed_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in ("amount", "heal")}
    out["delta"] = data["amount"] if data.get("heal") else -data["amount"]
    return out


register_upcaster("ff.hp_changed", 1, _hp_changed_v1_to_v2)


class ConditionChanged(Event, frozen=True, kw_only=True, tag="ff.condition_changed"):
    who: str
    condition: str
    present: bool
    reason: str = ""


class CombatEnded(Event, frozen=True, kw_only=True, tag="ff.combat_ended"):
    outcome: str = ""


FREEFORM_EVENTS = (
    ParticipantJoined, ParticipantLeft, RoundStarted, RoundEnded, ActionTaken, HpChanged,
    ConditionChanged, CombatEnded,
)
register(*FREEFORM_EVENTS)
