"""Freeform events (tags ``ff.*``)."""

from __future__ import annotations

from combatlog.events.base import Event, register


class ParticipantJoined(Event, frozen=True, kw_only=True, tag="ff.participant_joined"):
    name: str
    side: str
    hp: int | None = None
    note: str = ""


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
    who: str
    delta: int
    reason: str = ""
    dice: tuple[str, ...] = ()


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
