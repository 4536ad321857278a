"""The Classic Fantasy Imperative ruleset object: decide, evolve, explain.

``decide`` and ``evolve`` share one apply function per event type; ``decide``
runs it with a roller that draws dice, ``evolve`` and ``explain`` with one that
reads the recorded faces, so a replay derives exactly what was decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from combatlog.commands.authority import Authority
from combatlog.commands.record import commands_in
from combatlog.dice.port import DicePort
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.events.base import Event
from combatlog.events.core import CORE_EVENTS, CombatStarted, DiceRolled
from combatlog.rulesets import foresight
from combatlog.rulesets.base import Candidate, DiceUse, Pending, Ruleset, RulesetInfo, Step, without_revision
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.rulesets.classic_fantasy import dice_uses as uses_mod
from combatlog.rulesets.classic_fantasy import setup as setup_mod
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.apply import APPLY, apply_event
from combatlog.rulesets.classic_fantasy.events import (
    CFI_EVENTS, ActionTaken, AttackDeclared, CombatEnded, DefenceDeclared, EffectsChosen, ExchangeResolved,
    LuckSpent, RoundStarted,
)
from combatlog.rulesets.classic_fantasy.exchange import DEFENCES, reaction_problem
from combatlog.rulesets.classic_fantasy.rules import RULE_LABELS, Drawing, Replaying, Steps, cite, who
from combatlog.rulesets.classic_fantasy.state import CFIState
from combatlog.rulesets.classic_fantasy import views

replace = msgspec.structs.replace
DATA = Path(__file__).parent / "data"

# The rules digests of the revisions from before choices were protected from foreseen joint dice
# (rulesets/foresight.py): their logs keep their behaviour. Frozen: a later revision listed in
# ``earlier_digests`` is protected.
BEFORE_FORESIGHT = frozenset({"1ffe7879a7805f2b103a0c13f3a4a0c333a0b0148e39d59538dae789688210d7"})

class ClassicFantasy(Ruleset[CFIState]):
    rule_labels = RULE_LABELS
    info = RulesetInfo(
        name="classic_fantasy", title="Classic Fantasy Imperative (Mythras)", version="2", citation="CFI",
        sources=("seed 002_6d17a5a910762645.txt: CFI Chapter 8 Combat",
                 "reference/classic_fantasy.md: skills, Differential Rolls, locations, DM, wounds, fatigue, weapons"),
    )
    event_types = CORE_EVENTS + CFI_EVENTS + foresight.FORESIGHT_EVENTS
    state_type = CFIState
    command_types = commands_in(c) + (foresight.Resolve,)
    # Version 2 protects every choice from foreseen joint dice (rulesets/foresight.py): version 1's logs hold only
    # events this build reads, and keep version 1's behaviour (no decision points, no deferred choices).
    earlier_digests = MappingProxyType({
        "1ffe7879a7805f2b103a0c13f3a4a0c333a0b0148e39d59538dae789688210d7":
            "version 1, before choices were protected from foreseen joint dice",
    })
    # Version 1's rules that a fix since changed, kept for its logs (``CFIState.revision``): a Luck re-roll that wins
    # Special Effects keeps the blow's labels (luck.py), so that such a log replays as it was played (docs/rules.md,
    # "Earlier revisions"). (Version 1's Interrupt with no Action Points left, and its interrupted Turn resuming
    # with none, were never recorded: its write path refused the state they left, a Turn without Action Points.)
    kept_revisions = MappingProxyType({"1ffe7879a7805f2b103a0c13f3a4a0c333a0b0148e39d59538dae789688210d7": "1"})
    # A die's ``by`` is the combatant who makes the roll (CFI Ch.7 Cheat Fate re-rolls only one's own:
    # outcome.py ``Recording``); the player who rolled it is the event's actor (dice views: ``roll_row``).
    dice_by_piece = True

    def authority(self, state: CFIState, command: Any) -> Authority:
        from combatlog.rulesets.classic_fantasy.authority import authority

        return authority(state, command)
    data_files = (DATA / "equipment.json", DATA / "locations.json")

    # -- set-up ------------------------------------------------------------------------------
    def validate_setup(self, setup: dict[str, Any]) -> dict[str, Any]:
        return setup_mod.validate(setup)

    def initial_state(self, genesis: CombatStarted) -> CFIState:
        setup = setup_mod.validate(dict(genesis.setup), {k: v for k, v in genesis.options.items()
                                                         if k in setup_mod.OPTIONS})
        combatants = {spec["name"]: setup_mod.build(spec) for spec in setup["combatants"]}
        return CFIState(options=setup["options"], combatants=combatants,
                        players={side: tuple(names) for side, names in setup.get("players", {}).items()},
                        own_players={spec["name"]: spec["player"] for spec in setup["combatants"] if "player" in spec},
                        foresight=foresight.Foresight(mode=foresight.mode_of(genesis, BEFORE_FORESIGHT)),
                        revision=self.revision_of(genesis))

    def canonical_state(self, state: CFIState) -> Any:
        # ``revision`` names the rules read, not an outcome: a log's state is compared as played and today (also in
        # the state before the blow open to Luck)
        out = without_revision(state)
        if state.undo is not None:
            out["undo"] = {**msgspec.structs.asdict(state.undo), "before": self.canonical_state(state.undo.before)}
        return out

    # -- decide ------------------------------------------------------------------------------
    def decide(self, state: CFIState, command: Any, dice: DicePort) -> list[Event]:
        """The rules' decision, with every choice protected from foreseen joint dice (rulesets/foresight.py)."""
        return foresight.decide(self, state, command, dice, self._decide)

    def chooses(self, state: CFIState, command: Any) -> bool:
        """A player's choice (rulesets/foresight.py): a move for his combatants, and a new Round that re-rolls
        Initiative (anyone may start a Round: whether to re-roll is chosen with the seed known)."""
        if isinstance(command, c.StartRound) and command.reroll:
            return True
        return self.authority(state, command).kind == "pieces"

    def _decide(self, state: CFIState, command: Any, dice: DicePort) -> list[Event]:
        out: list[Event] = []
        if state.ended and not isinstance(command, c.EndCombat):
            raise IllegalCommand("the combat has ended", rule=cite("Running Combat"))
        match command:
            case c.StartRound():
                if state.in_round and state.turn and not command.force:
                    raise IllegalCommand(f"{state.turn} still has a Turn; Action Points remain (use --force to "
                                         "end the Round anyway)", rule=cite("Running Combat"))
                self._emit(state, RoundStarted(round=state.round + 1, reroll=command.reroll,
                                               surprised=tuple(command.surprised)), dice, out)
            case c.Attack():
                ev = AttackDeclared(attacker=command.attacker, target=command.target, weapon=command.weapon.lower(),
                                    charge=command.charge, moving=command.moving, situations=command.situations,
                                    grade=command.grade, cap=command.cap, range=command.range, crowd=command.crowd,
                                    bystanders=command.bystanders, stationary=command.stationary,
                                    blind_strike=command.blind_strike, mount_dm=command.mount_dm,
                                    sweep=tuple(command.sweep), leap=command.leap,
                                    pass_through=command.pass_through)
                state = self._emit(state, ev, dice, out)
                self._close(state, dice, out)
            case c.Defend():
                if command.kind not in DEFENCES:
                    raise InvalidCommand(f"defend: {', '.join(DEFENCES)}")
                state = self._emit(state, DefenceDeclared(defender=command.defender, kind=command.kind,
                                                          weapon=command.weapon.lower(), situations=command.situations,
                                                          grade=command.grade, cap=command.cap, back=command.back,
                                                          longer=command.longer, set_weapon=command.set_weapon),
                                   dice, out)
                self._close(state, dice, out)
            case c.UseLuck():
                state = self._emit(state, LuckSpent(who=command.who, roll=command.roll, swap=command.swap,
                                                    location=command.location), dice, out)
                self._close(state, dice, out)
            case c.ChooseEffects():
                state = self._emit(state, EffectsChosen(by=command.who, effects=tuple(command.effects),
                                                        params=dict(command.params)), dice, out)
                self._close(state, dice, out)
            case c.Act():
                who(state, command.who)
                self._emit(state, ActionTaken(who=command.who, action=command.action, target=command.target,
                                              detail=dict(command.detail)), dice, out)
            case c.EndCombat():
                self._emit(state, CombatEnded(outcome=command.outcome), dice, out)
            case _:
                raise InvalidCommand(f"classic_fantasy does not know the command {type(command).__name__}")
        return out

    def _emit(self, state: CFIState, event: Event, port: DicePort, out: list[Event]) -> CFIState:
        """Apply ``event`` with live dice; append the dice it drew, then the event naming them."""
        before = len(port.drawn)
        roller = Drawing(port)
        new_state = apply_event(state, event, roller, Steps())
        if hasattr(event, "dice"):
            event = replace(event, dice=tuple(roller.labels))  # type: ignore[arg-type]
        out.extend(port.drawn[before:])
        out.append(event)
        return replace(new_state, dice={})

    def _close(self, state: CFIState, port: DicePort, out: list[Event]) -> None:
        """Run the exchange on as far as it goes without a decision: a target who cannot react
        gets an automatic Failure; a blow with no Special Effects to choose resolves at once; a
        queued exchange (sweep, counter-attack) opens after the one before it."""
        while state.exchange is not None:
            ex = state.exchange
            if ex.stage == "resolve":
                state = self._emit(state, ExchangeResolved(), port, out)
            elif ex.stage == "defence" and reaction_problem(state, state.combatants[ex.target]):
                state = self._emit(state, DefenceDeclared(defender=ex.target, kind="none", forced=True), port, out)
            else:
                break

    # -- evolve ------------------------------------------------------------------------------
    def evolve(self, state: CFIState, event: Event, seq: int) -> CFIState:
        if type(event) is DiceRolled:
            return replace(state, dice={**state.dice, event.label: tuple(event.faces)})
        fs = foresight.evolve(state.foresight, event)
        if fs is not None:
            return replace(state, foresight=fs)
        if type(event) not in APPLY:
            return state  # other core events change nothing here
        new_state = apply_event(state, event, Replaying(state.dice), Steps())
        return replace(new_state, dice={})

    def dice_uses(self, state: CFIState, event: Event) -> Sequence[DiceUse]:
        """The dice the fold reads for ``event``, bound for ``verify`` (see ``dice_uses.py``)."""
        return uses_mod.dice_uses(state, event)

    # -- views -------------------------------------------------------------------------------
    def explain(self, before: CFIState, event: Event, after: CFIState, seq: int) -> Sequence[Step]:
        if type(event) not in APPLY:
            return ()
        steps = Steps()
        try:
            apply_event(before, event, Replaying(before.dice), steps)
        except Exception as exc:  # an explain must never break a view
            return [Step(seq=seq, rule="CFI", text=f"cannot re-derive: {exc}")]
        return [Step(seq=seq, rule=rule, text=text, dice=dice) for rule, text, dice in steps.items]

    def round_of(self, state: CFIState) -> int:
        return state.round

    def current_round(self, state: CFIState) -> int:
        # Nobody holds the Turn and no exchange is open: the round is over, the gm starts the next.
        over = state.round > 0 and not state.ended and not state.turn and state.exchange is None
        return state.round + 1 if over else state.round

    def finished(self, state: CFIState) -> bool:
        return state.ended

    def pending(self, state: CFIState) -> list[Pending]:
        return foresight.pending(self, state, views.pending(state))

    def players_of(self, state: CFIState, piece: str) -> tuple[str, ...] | None:
        from combatlog.rulesets.classic_fantasy.state import players_for

        return None if piece not in state.combatants else players_for(state, piece)

    def candidates(self, state: CFIState, stream: str) -> Iterable[Candidate]:
        """Every move worth proposing now (classic_fantasy/candidates.py; commands/legal.py keeps the legal ones)."""
        from combatlog.rulesets.classic_fantasy.candidates import candidates

        return foresight.candidates(self, state, stream, candidates(state, stream))

    def check(self, state: CFIState) -> list[str]:
        return views.check(state)

    def describe(self, state: CFIState, viewer: str | None = None) -> dict[str, Any]:
        return views.describe(state, viewer)

    def render(self, state: CFIState, viewer: str | None = None) -> str:
        return views.render(state, viewer)

    def summarize(self, event: Event) -> str:
        return views.summarize(event) or super().summarize(event)

    def conceals(self, event: Event, state: CFIState, viewer: str | None) -> bool:
        """CFI Ch.8 Prepare Counter: the counter is noted down in secret."""
        if isinstance(event, EffectsChosen) and viewer is not None and viewer != event.by:
            return any("counter" in e.lower() for e in event.effects)
        return False


def grade_name(g: str) -> str:
    return t.GRADE_NAMES.get(g, g)
