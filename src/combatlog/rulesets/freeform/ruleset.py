"""The freeform ruleset: participants and sides, rounds, notes, dice, hit points.

It models no game's rules: every consequence is a decision someone at the
table took and recorded. Its citations therefore name the table's decision
(``Freeform: table decision``) rather than a rulebook section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from combatlog.commands.authority import PLAYER_NAME, Authority
from combatlog.commands.record import commands_in
from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.events.core import CORE_EVENTS, CombatStarted, DiceRolled
from combatlog.names import check_text
from combatlog.rulesets import drawn
from combatlog.rulesets.base import Candidate, DiceUse, Pending, Ruleset, RulesetInfo, Step
from combatlog.rulesets.freeform import commands as c
from combatlog.rulesets.freeform.events import (
    FREEFORM_EVENTS, ActionTaken, CombatEnded, ConditionChanged, HpChanged, ParticipantJoined,
    ParticipantLeft, RoundEnded, RoundStarted,
)
from combatlog.rulesets.freeform.state import FreeformState, Participant

TABLE = "Freeform: table decision"
MAX_PARTICIPANT = 60
_NAME = re.compile(r"^[^\s].{0,59}$")
_WHOLE = re.compile(r"[+-]?[0-9]+")  # an amount typed as a number: ASCII digits only (int() reads others too)
MAX_AMOUNT = 2**53 - 1  # as every whole number in a log
# The labels ``decide`` draws (``r<round>/<label_part(who)>/act|damage|heal``, then ``#2``, ``#3``...): no player
# may name a die so (``Ruleset.owns_label``); a part never holds ``/`` (``drawn.label_part``).
RULE_LABELS = re.compile(r"r[0-9]+/[^/]+/(?:act|damage|heal)(?:#[0-9]+)?\Z")
replace = msgspec.structs.replace


class Freeform(Ruleset[FreeformState]):
    rule_labels = RULE_LABELS
    info = RulesetInfo(
        name="freeform", title="Freeform", version="1", citation="Freeform",
        sources=("no rulebook: every consequence is a recorded table decision",),
    )
    event_types = CORE_EVENTS + FREEFORM_EVENTS
    state_type = FreeformState
    command_types = commands_in(c)

    def authority(self, state: FreeformState, command: Any) -> Authority:
        from combatlog.rulesets.freeform.authority import authority

        return authority(state, command)

    def candidates(self, state: FreeformState, stream: str) -> Iterable[Candidate]:
        from combatlog.rulesets.freeform.moves import candidates

        return candidates(state, stream)

    def initial_state(self, genesis: CombatStarted) -> FreeformState:
        return FreeformState(dice_from=0)

    # -- decide ------------------------------------------------------------------
    def decide(self, state: FreeformState, command: Any, dice: DicePort) -> list[Event]:
        if state.ended and not isinstance(command, c.EndCombat):
            raise IllegalCommand("the combat has ended", rule=TABLE)
        match command:
            case c.Join(name=name, side=side, hp=hp, note=note, player=player):
                _check_participant(name, side)
                check_text("the note", note)
                if name in state.participants and state.participants[name].present:
                    raise InvalidCommand(f"{name} is already in the combat")
                if hp is not None and hp < 0:
                    raise InvalidCommand("hit points start at 0 or more")
                if player and not PLAYER_NAME.match(player):
                    raise InvalidCommand(f"player {player[:40]!r}: 1-64 letters, digits, _ . - (a pinned player's name)")
                return [ParticipantJoined(name=name, side=side, hp=hp, note=note, player=player)]
            case c.Leave(name=name, reason=reason):
                self._who(state, name)
                check_text("the reason", reason)
                return [ParticipantLeft(name=name, reason=reason)]
            case c.StartRound():
                out: list[Event] = []
                if state.in_round:
                    out.append(RoundEnded(round=state.round))
                if not any(p.present for p in state.participants.values()):
                    raise IllegalCommand("nobody is in the combat yet; add participants first", rule=TABLE)
                return out + [RoundStarted(round=state.round + 1)]
            case c.EndRound():
                if not state.in_round:
                    raise IllegalCommand("no round is open", rule=TABLE)
                return [RoundEnded(round=state.round)]
            case c.Act(who=who, action=action, roll=roll, label=label):
                p = self._who(state, who)
                check_text(f"{who}'s action", action, required=True)
                if not state.in_round:
                    raise IllegalCommand("actions happen inside a round; start one first", rule=TABLE)
                labels: tuple[str, ...] = ()
                if roll:
                    label = dice.rule_label(f"r{state.round}/{drawn.label_part(who)}/act", label)
                    dice.roll(label, roll, purpose=action, by=who)
                    labels = (label,)
                return [ActionTaken(who=who, action=action, dice=labels)]
            case c.ChangeHp(who=who, amount=amount, heal=heal, reason=reason, label=label):
                p = self._who(state, who)
                if p.hp is None:
                    raise IllegalCommand(f"{who} has no hit points recorded", rule=TABLE)
                check_text("the reason", reason)
                missing = max(0, (p.max_hp or 0) - p.hp)
                labels = ()
                if _WHOLE.fullmatch(amount.strip()):
                    value = int(amount)
                    if value < 0:
                        raise InvalidCommand("give a positive amount; use --heal to restore hit points")
                    if value > MAX_AMOUNT:
                        raise InvalidCommand(f"an amount of {amount.strip()} hp is too large (whole numbers up to 2**53)")
                    if heal and value > missing:
                        # a rolled heal cannot be refused after the roll: the fold caps it (_after_hp_change)
                        most = f"heal at most {missing}" if missing else "nothing to heal"
                        raise IllegalCommand(f"{who} is at {p.hp}/{p.max_hp} hp: {most} (healing never goes above "
                                             "the hit points a participant joined with)", rule=TABLE)
                else:
                    label = dice.rule_label(f"r{state.round}/{drawn.label_part(who)}/{'heal' if heal else 'damage'}", label)
                    value = dice.roll(label, amount, purpose=reason or ("healing" if heal else "damage")).total
                    value = max(value, 0)
                    labels = (label,)
                return [HpChanged(who=who, delta=value if heal else -value, reason=reason, dice=labels)]
            case c.SetCondition(who=who, condition=condition, present=present, reason=reason):
                p = self._who(state, who)
                if not condition.strip():
                    raise InvalidCommand("name the condition")
                check_text("the condition", condition)
                check_text("the reason", reason)
                if present == (condition in p.conditions):
                    raise InvalidCommand(f"{who} {'already has' if present else 'does not have'} {condition}")
                return [ConditionChanged(who=who, condition=condition, present=present, reason=reason)]
            case c.EndCombat(outcome=outcome):
                check_text("the outcome", outcome)
                if state.ended:
                    raise IllegalCommand("the combat has already ended", rule=TABLE)
                out = [RoundEnded(round=state.round)] if state.in_round else []
                return out + [CombatEnded(outcome=outcome)]
        raise InvalidCommand(f"freeform does not know the command {type(command).__name__}")

    @staticmethod
    def _who(state: FreeformState, name: str) -> Participant:
        p = state.participants.get(name)
        if p is None or not p.present:
            known = ", ".join(n for n, q in state.participants.items() if q.present) or "nobody yet"
            raise InvalidCommand(f"no participant {name!r} (present: {known})")
        return p

    # -- evolve ------------------------------------------------------------------
    def evolve(self, state: FreeformState, event: Event, seq: int) -> FreeformState:
        match event:
            case ParticipantJoined():
                p = Participant(name=event.name, side=event.side, hp=event.hp, max_hp=event.hp, player=event.player)
                return replace(state, participants={**state.participants, event.name: p})
            case ParticipantLeft():
                return _update(state, event.name, present=False)
            case RoundStarted():
                return replace(state, round=event.round, in_round=True, participants=_reset_acted(state),
                               dice_drawn=drawn.prune(state.dice_drawn, event.round), dice_from=event.round)
            case RoundEnded():
                return replace(state, in_round=False, participants=_reset_acted(state))
            case ActionTaken():
                return _update(state, event.who, acted=state.participants[event.who].acted + 1)
            case HpChanged():
                p = state.participants[event.who]
                return _update(state, event.who, hp=_after_hp_change(p, event.delta))
            case ConditionChanged():
                p = state.participants[event.who]
                conds = p.conditions + (event.condition,) if event.present else tuple(
                    x for x in p.conditions if x != event.condition)
                return _update(state, event.who, conditions=conds)
            case CombatEnded():
                return replace(state, ended=True, in_round=False, outcome=event.outcome,
                               participants=_reset_acted(state))
            case DiceRolled():
                labels = drawn.note_drawn(state.dice_drawn, event.label, state.round)
                return state if labels is state.dice_drawn else replace(state, dice_drawn=labels)
            case _:
                return state  # other core events change nothing here

    # -- the dice an event depends on (verify binds them) -------------------------------
    def dice_uses(self, state: FreeformState, event: Event) -> Sequence[DiceUse]:
        """``ff.action_taken.dice`` and ``ff.hp_changed.dice``: each die drawn before the event and used once.

        Freeform's labels are the player's to choose, except with joint dice, where the rules name
        each die (``expected_label``: the label ``decide`` gives when none is chosen). A hit point
        change rolled on a die is the die's total (never below 0): lost, or with ``--heal`` gained.
        """
        match event:
            case ActionTaken():
                rule = self._next(state, f"r{state.round}/{drawn.label_part(event.who)}/act")
                return [DiceUse(label=x, field=f"dice[{i}]", expected_label=rule) for i, x in enumerate(event.dice)]
            case HpChanged() if event.dice:
                base = f"r{state.round}/{drawn.label_part(event.who)}/"
                first = event.dice[0]
                # damage or healing: by the rules' label when the die has one, else by the sign
                heal = (drawn.in_sequence(first, base + "heal") or event.delta > 0) and not drawn.in_sequence(
                    first, base + "damage")
                rule = self._next(state, base + ("heal" if heal else "damage"))
                uses = [DiceUse(label=first, field="delta" if heal else "delta (hp lost)", expected_label=rule,
                                copied=event.delta if heal else -event.delta, derive="max0")]
                return uses + [DiceUse(label=x, field=f"dice[{i}]", expected_label=rule)
                               for i, x in enumerate(event.dice) if i]
        return ()

    @staticmethod
    def _next(state: FreeformState, base: str) -> str:
        """The label ``dice.next_label(base)`` gave; unknown ("") if the state lost track of the round's dice."""
        return drawn.rule_label(state.dice_drawn, base) if state.dice_from == state.round else ""

    # -- views -------------------------------------------------------------------
    def round_of(self, state: FreeformState) -> int:
        return state.round

    def current_round(self, state: FreeformState) -> int:
        # A round closed with `freeform end-round`: the next decision is to start the next round.
        closed = state.round > 0 and not state.in_round and not state.ended
        return state.round + 1 if closed else state.round

    def finished(self, state: FreeformState) -> bool:
        return state.ended

    def pending(self, state: FreeformState) -> list[Pending]:
        if state.ended:
            return []
        if state.round == 0:
            return [Pending(who="gm", what="add participants, then start round 1", rule=TABLE)]
        if not state.in_round:
            return [Pending(who="gm", what=f"start round {state.round + 1} or end the combat", rule=TABLE)]
        waiting = [Pending(who=p.name, what=f"act in round {state.round}", rule=TABLE)
                   for p in state.participants.values() if p.present and not p.down and p.acted == 0]
        return waiting + [Pending(who="gm", what=f"end round {state.round}", rule=TABLE)]

    def check(self, state: FreeformState) -> list[str]:
        problems = []
        for p in state.participants.values():
            if p.hp is None and p.max_hp is not None:
                problems.append(f"{p.name} lost track of hit points")
            if p.acted and not state.in_round:
                problems.append(f"{p.name} acted outside a round")
        if state.in_round and state.ended:
            problems.append("a round is open after the combat ended")
        return problems

    def explain(self, before: FreeformState, event: Event, after: FreeformState, seq: int) -> Sequence[Step]:
        match event:
            case HpChanged():
                old, new = before.participants[event.who].hp, after.participants[event.who].hp
                verb = "regains" if event.delta > 0 else "loses"
                capped = event.delta > 0 and new is not None and new < (old or 0) + event.delta
                steps = [Step(seq=seq, rule=TABLE, dice=event.dice,
                              text=f"{event.who} {verb} {abs(event.delta)} hp ({old} -> {new}"
                                   + (f", capped at the {new} joined with" if capped else "") + ")"
                                   + (f": {event.reason}" if event.reason else ""))]
                if new is not None and new <= 0 < (old or 0):
                    steps.append(Step(seq=seq, rule=TABLE, text=f"{event.who} is down"))
                return steps
            case ActionTaken():
                return [Step(seq=seq, rule=TABLE, text=f"{event.who}: {event.action}", dice=event.dice)]
            case ConditionChanged():
                verb = "gains" if event.present else "loses"
                return [Step(seq=seq, rule=TABLE, text=f"{event.who} {verb} {event.condition}")]
            case RoundStarted():
                return [Step(seq=seq, rule=TABLE, text=f"round {event.round} begins")]
            case RoundEnded():
                return [Step(seq=seq, rule=TABLE, text=f"round {event.round} ends")]
            case CombatEnded():
                return [Step(seq=seq, rule=TABLE, text=f"combat ends: {event.outcome or 'no outcome given'}")]
            case _:
                return ()

    def summarize(self, event: Event) -> str:
        match event:
            case ParticipantJoined():
                hp = f", {event.hp} hp" if event.hp is not None else ""
                return f"{event.name} joins side {event.side}{hp}"
            case ParticipantLeft():
                return f"{event.name} leaves" + (f" ({event.reason})" if event.reason else "")
            case RoundStarted():
                return f"round {event.round} begins"
            case RoundEnded():
                return f"round {event.round} ends"
            case ActionTaken():
                return f"{event.who}: {event.action}"
            case HpChanged():
                return f"{event.who} hp {event.delta:+d}" + (f" ({event.reason})" if event.reason else "")
            case ConditionChanged():
                return f"{event.who} {'+' if event.present else '-'}{event.condition}"
            case CombatEnded():
                return f"combat ends: {event.outcome}"
        return super().summarize(event)

    def describe(self, state: FreeformState, viewer: str | None = None) -> dict[str, Any]:
        return {
            "round": state.round, "in_round": state.in_round, "ended": state.ended, "outcome": state.outcome,
            "participants": [
                {"name": p.name, "side": p.side, "hp": p.hp, "max_hp": p.max_hp,
                 "conditions": list(p.conditions), "present": p.present, "down": p.down}
                for p in state.participants.values()
            ],
        }

    def render(self, state: FreeformState, viewer: str | None = None) -> str:
        head = "combat ended" + (f": {state.outcome}" if state.outcome else "") if state.ended else (
            f"round {state.round}" + (" (open)" if state.in_round else " (closed)") if state.round else "not started")
        lines = [head]
        width = max((len(p.name) for p in state.participants.values()), default=4)
        for p in state.participants.values():
            hp = "-" if p.hp is None else f"{p.hp}/{p.max_hp}"
            flags = ", ".join(p.conditions + (("down",) if p.down else ()) + (() if p.present else ("left",)))
            lines.append(f"  {p.name:<{width}}  side {p.side:<8} hp {hp:<7} {flags}".rstrip())
        return "\n".join(lines)


def _check_participant(name: str, side: str) -> None:
    if not name.strip():
        raise InvalidCommand("a participant needs a name")
    if len(name) > MAX_PARTICIPANT:
        raise InvalidCommand(f"a participant's name is at most {MAX_PARTICIPANT} characters ({len(name)} given)")
    if not _NAME.match(name) or not name.isprintable():
        raise InvalidCommand(f"participant name {name!r}: printable characters, not starting with a space")
    if not side.strip():
        raise InvalidCommand(f"{name} needs a side (--side)")
    if len(side) > MAX_PARTICIPANT:
        raise InvalidCommand(f"a side's name is at most {MAX_PARTICIPANT} characters ({len(side)} given)")


def _after_hp_change(p: Participant, delta: int) -> int:
    """Healing never raises hit points above those the participant joined with (a rolled heal is
    recorded as rolled and capped here; a number above the loss is refused in decide). A log from
    before this rule whose hit points are already higher keeps them."""
    hp = (p.hp or 0) + delta
    if delta > 0 and p.max_hp is not None:
        hp = min(hp, max(p.max_hp, p.hp or 0))
    return hp


def _reset_acted(state: FreeformState) -> dict[str, Participant]:
    return {n: replace(p, acted=0) if p.acted else p for n, p in state.participants.items()}


def _update(state: FreeformState, name: str, **changes: Any) -> FreeformState:
    return replace(state, participants={**state.participants, name: replace(state.participants[name], **changes)})

