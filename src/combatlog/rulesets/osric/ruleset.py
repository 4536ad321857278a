"""The OSRIC ruleset object: wires set-up, decide, evolve and the views to the contract."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any

import msgspec

from combatlog.dice.port import DicePort
from combatlog.events.base import Event
from combatlog.events.core import CORE_EVENTS, CombatStarted
from combatlog.rulesets import foresight
from combatlog.rulesets.base import Candidate, DiceUse, Pending, Ruleset, RulesetInfo, Step, without_revision
from combatlog.rulesets.osric import decide as d
from combatlog.rulesets.osric import declare as dc
from combatlog.rulesets.osric import dice_uses as du
from combatlog.rulesets.osric import evolve as ev
from combatlog.rulesets.osric import setup, tables, views
from combatlog.rulesets.osric.events import OSRIC_EVENTS
from combatlog.rulesets.osric.state import OsricState


from combatlog.commands.authority import Authority
from combatlog.commands.record import commands_in
from combatlog.rulesets.osric import commands as osric_commands


# The rules digests of the revisions from before choices were protected from foreseen joint dice
# (rulesets/foresight.py): their logs keep their behaviour. Frozen: a later revision listed in
# ``earlier_digests`` is protected.
BEFORE_FORESIGHT = frozenset({ev.VERSION_1_DIGESTS[0],
                              "05c94fbd56716741443b4cf64ecf2ccfa21d17aa555d44bbb938883c04ff6280"})

class Osric(Ruleset[OsricState]):
    rule_labels = du.RULE_LABELS
    info = RulesetInfo(
        name="osric", title="OSRIC", version="3", citation="OSRIC",
        sources=("seed 003_c1c23058a12565ee.txt (OSRIC combat chapter)", "reference/osric.md",
                 "OSRIC Chapter 1 weapon and armour tables (data/weapons.json)"),
    )
    event_types = CORE_EVENTS + OSRIC_EVENTS + foresight.FORESIGHT_EVENTS
    state_type = OsricState
    command_types = commands_in(osric_commands) + (foresight.Resolve,)
    # version 1 had no osric.actions_forgone: its logs hold only events this build reads, and re-decide
    # without it (OsricState.forgone_events)
    # version 2 did not protect choices from foreseen joint dice (rulesets/foresight.py): its logs keep its
    # behaviour (no decision points, no deferred choices)
    earlier_digests = MappingProxyType({
        ev.VERSION_1_DIGESTS[0]: "version 1, before osric.actions_forgone",
        "05c94fbd56716741443b4cf64ecf2ccfa21d17aa555d44bbb938883c04ff6280":
            "version 2, before choices were protected from foreseen joint dice",
    })
    # Version 1's rules that a fix since changed, kept for its logs (``OsricState.revision``): an action taken before
    # the other side's earlier segment (attacks.earlier_first) and a melee_target=random declaration naming a
    # target the attack will not strike (declare.drawn_target), both refused since 2026-11-28, so that such a log
    # replays as it was played (docs/rules.md, "Earlier revisions").
    kept_revisions = MappingProxyType({ev.VERSION_1_DIGESTS[0]: "1"})
    referee_by_default = True  # OSRIC is refereed: the creator, where no --referee is named
    # With pinned players a side's declarations are sealed by ``osric declare --seal`` (rN/declare): the
    # candidates propose those commits, the nonce and the reveal themselves (trust/offers.py).
    seals_orders = True

    def candidates(self, state: OsricState, stream: str) -> Iterable[Candidate]:
        from combatlog.rulesets.osric.candidates import candidates

        return foresight.candidates(self, state, stream, candidates(state, stream))

    def authority(self, state: OsricState, command: Any) -> Authority:
        from combatlog.rulesets.osric.authority import authority

        return authority(state, command)
    data_files = (tables.WEAPONS_FILE,)

    def validate_setup(self, setup_: dict[str, Any]) -> dict[str, Any]:
        return setup.validate_setup(setup_)

    def initial_state(self, genesis: CombatStarted) -> OsricState:
        return msgspec.structs.replace(ev.initial_state(genesis),
                                       foresight=foresight.Foresight(mode=foresight.mode_of(genesis, BEFORE_FORESIGHT)),
                                       revision=self.revision_of(genesis))

    def canonical_state(self, state: OsricState) -> Any:
        # ``revision`` names the rules read, not an outcome: a log's state is compared as played and today; so does
        # ``forgone_events`` in a log read under version 1's rules (today's reading records the actions forgone)
        out = without_revision(state)
        if state.revision:
            out["forgone_events"] = True
        return out

    def decide(self, state: OsricState, command: Any, dice: DicePort) -> list[Event]:
        """The rules' decision, with every choice protected from foreseen joint dice (rulesets/foresight.py)."""
        return foresight.decide(self, state, command, dice, d.decide)

    def evolve(self, state: OsricState, event: Event, seq: int) -> OsricState:
        fs = foresight.evolve(state.foresight, event)
        if fs is not None:
            return msgspec.structs.replace(state, foresight=fs)
        return ev.evolve(state, event, seq)

    def dice_uses(self, state: OsricState, event: Event) -> Sequence[DiceUse]:
        return du.dice_uses(state, event)

    def round_of(self, state: OsricState) -> int:
        return state.round

    def current_round(self, state: OsricState) -> int:
        # Between rounds the gm's next decision is to start the next round.
        return state.round + 1 if state.phase == "between" and not state.ended else state.round

    def finished(self, state: OsricState) -> bool:
        return state.ended

    def pending(self, state: OsricState) -> list[Pending]:
        return foresight.pending(self, state, views.pending(state))

    def check(self, state: OsricState) -> list[str]:
        problems = []
        for name, live in state.live.items():
            x = state.roster[name]
            if live.hp > x.max_hp:
                problems.append(f"{name} has {live.hp} hp, above its maximum {x.max_hp}")
            if live.hp <= -10 and not live.dead:
                problems.append(f"{name} is at {live.hp} hp but not dead")
            if live.restrained_by and live.restrained_by not in state.roster:
                problems.append(f"{name} is held by an unknown {live.restrained_by}")
            cast = live.casting
            if cast is not None and cast.complete < cast.start:
                problems.append(f"{name}'s {cast.spell} completes before it begins")
            if live.morale_checks > 2:
                problems.append(f"{name} made {live.morale_checks} morale checks (at most 2)")
        for a, b in state.engaged:
            if a not in state.roster or b not in state.roster or state.roster[a].side == state.roster[b].side:
                problems.append(f"bad engagement {a}-{b}")
        if state.initiative and set(state.initiative) != set(state.sides):
            problems.append("initiative is missing a side")
        if state.ended and state.phase != "ended":
            problems.append("ended combat in an open phase")
        for side, decls in state.declared.items():
            names = [x.who for x in decls]
            if len(names) != len(set(names)) or any(state.roster[n].side != side for n in names):
                problems.append(f"declarations of {side} are inconsistent")
        return problems

    def explain(self, before: OsricState, event: Event, after: OsricState, seq: int) -> Sequence[Step]:
        if before is None or after is None:
            return ()
        new = after.log[len(before.log):]
        return [Step(seq=seq, rule=x.rule, dice=x.dice, data=dict(x.data) if x.data else None,
                     text=(f"[r{x.round} seg {x.segment}{'+' if x.late else ''}] " if x.segment else "") + x.text)
                for x in new]

    def summarize(self, event: Event) -> str:
        return views.summarize(event) or super().summarize(event)

    def describe(self, state: OsricState, viewer: str | None = None) -> dict[str, Any]:
        return views.describe(state, viewer)

    def render(self, state: OsricState, viewer: str | None = None) -> str:
        return views.render(state, viewer)

    # -- secrecy: concealment at one table, sealed orders between pinned players (declare.py) --------
    def conceals(self, event: Event, state: OsricState, viewer: str | None) -> bool:
        """OSRIC Combat: Declare Spells and General Actions: a side's declarations stay hidden from the
        other side until every side has declared (monsters' actions are not tailored to the players')."""
        return dc.conceals(event, state, viewer)

    def sealed_required(self, state: OsricState, step: str) -> tuple[str, ...]:
        return dc.sealed_required(state, step)

    def check_orders(self, state: OsricState, step: str, player: str, orders: dict[str, Any]) -> None:
        dc.check_orders(state, step, player, orders)

    def players_of(self, state: OsricState, piece: str) -> tuple[str, ...] | None:
        """``pending`` names a combatant for its action and a side for its declarations: both are played
        by the side's players (the set-up's ``players``; authority.py), () for a side no player plays."""
        member = state.roster.get(piece)
        side = member.side if member is not None else piece if piece in state.sides else None
        return None if side is None else tuple(state.players.get(side, ()))
