"""The « Argad ! » ruleset object: wiring of decide, evolve and the views."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any

import msgspec

from combatlog.commands.authority import Authority, roles_of, side_players
from combatlog.commands.record import commands_in
from combatlog.dice.port import DicePort
from combatlog.rulesets.argad import commands as argad_commands
from combatlog.errors import InvalidCommand
from combatlog.events.base import Event
from combatlog.events.core import CORE_EVENTS, TRUST_OPTIONS, CombatStarted
from combatlog.rulesets.argad import tables as t
from combatlog.rulesets.argad.labels import RULE_LABELS
from combatlog.rulesets.argad import views
from combatlog.rulesets.argad.decide import decide, may_still_strike, no_enemy_left, step_name, survival_due
from combatlog.rulesets.argad.dice_uses import dice_uses
from combatlog.rulesets.argad.events import (
    ARGAD_EVENTS, CombatEnded, FigureAdded, FigureRemoved, Held, Moved, PhaseStarted, RecoilPolicySet, ShotFired,
    Struck, TurnEnded, TurnStarted,
)
from combatlog.rulesets.argad.evolve import evolve
from combatlog.rulesets.argad.figures import build_figure
from combatlog.rulesets.argad.melee import tier_of
from combatlog.rulesets.argad.options import parse_options
from combatlog.rulesets.argad.state import ArgadState, Turn
from combatlog.rulesets import foresight
from combatlog.rulesets.base import Candidate, DiceUse, Pending, Ruleset, RulesetInfo, Step, without_revision

R_TURN = views.R_TURN


def strikers_pending(state: ArgadState, turn: Turn) -> list[Pending]:
    """Who may still strike, in strike order (Argad: Melee peculiarities; decide._check_order):
    a figure with a shorter weapon waits for enemies with longer ones it fights."""
    ready = sorted((tier_of(state, f)[0], f.name) for f in may_still_strike(state, turn))
    out = []
    for tier, name in ready:
        side = state.figures[name].side
        first = [n for k, n in ready if k < tier and state.figures[n].side != side]
        after = f"; longer weapons first: after {', '.join(first)}, if they fight" if first else ""
        out.append(Pending(who=name, what=f"may strike in melee ({step_name(tier)} step{after}), or hold its blow",
                           rule="Argad: Melee peculiarities"))
    return out


def end_turn_pending(state: ArgadState, turn: Turn) -> Pending:
    """The end of the turn: anyone's once no figure may still strike; before, it gives up their blows, which
    is their players' or the referee's to do where roles are enforced (argad/authority.py), so it says whom
    it waits for (in a hot seat, where one person types everything, nobody in particular)."""
    due = survival_due(turn)
    rolls = f" (survival rolls: {', '.join(due)})" if due else ""
    figures = may_still_strike(state, turn)
    open_ = [f.name for f in figures]
    one = len(open_) == 1
    # whether ending the turn over them is someone's in particular: a figure of a side with players, or one
    # no player plays where the combat has a referee (commands/authority.check_authority)
    bound = state.roles.enforced and any(state.players.get(f.side) or state.roles.referee for f in figures)
    referee = " or the referee" if state.roles.referee else ""  # (a combat with no referee: its players only)
    only = f" (before that, only {'its' if one else 'their'} players{referee} may end it)" if bound else ""
    wait = f" once {', '.join(open_)} {'has' if one else 'have'} struck or held{only}" if open_ else ""
    return Pending(who="gm", what=f"end game turn {turn.number}{wait}{rolls}", rule=R_TURN)



# The rules digests of the revisions from before choices were protected from foreseen joint dice
# (rulesets/foresight.py): their logs keep their behaviour. Frozen: a later revision listed in
# ``earlier_digests`` is protected.
BEFORE_FORESIGHT = frozenset({"33a7f0e2f2d0002bcda56d856f6a40186a74c0524ea6eae66ee451c1fee42491",
                              "3525e53e23e2c5ec1db35e55611b516e93aaff82bb79dbef46cc3eec3107cf7a"})

class Argad(Ruleset[ArgadState]):
    rule_labels = RULE_LABELS
    info = RulesetInfo(
        name="argad", title="« Argad ! » fantasy skirmish (humanoid creatures)", version="3", citation="Argad",
        sources=("seed 004_57ef412ef73b0d51.txt (Patrice Méallier, humanoid creatures supplement)",
                 "reference/argad.md (generic rules facts, inferred melee rule)"),
    )
    event_types = CORE_EVENTS + ARGAD_EVENTS + foresight.FORESIGHT_EVENTS
    state_type = ArgadState
    command_types = commands_in(argad_commands) + (foresight.Resolve,)

    def authority(self, state: ArgadState, command: Any) -> Authority:
        from combatlog.rulesets.argad.authority import authority

        return authority(state, command)
    data_files = t.DATA_FILES
    # version 1 had no argad.held (argad hold): its logs hold only events this build reads
    earlier_digests = MappingProxyType({
        "33a7f0e2f2d0002bcda56d856f6a40186a74c0524ea6eae66ee451c1fee42491": "version 1, before argad hold (2026-11-28)",
        # version 2 did not protect choices from foreseen joint dice (rulesets/foresight.py): its logs keep its
        # behaviour (no decision points, no deferred choices)
        "3525e53e23e2c5ec1db35e55611b516e93aaff82bb79dbef46cc3eec3107cf7a":
            "version 2, before choices were protected from foreseen joint dice",
    })
    # The rules of versions 1 and 2 that a fix since changed, kept for their logs (``ArgadState.revision``): a shot's
    # --need of any size and a game turn with one side left (both refused since 2026-12-06, version 3), and in
    # version 1 the strike order of the whole table (a blow before the target's longer weapon, refused since
    # 2026-11-28's order between opponents), so that such a log replays as it was played (docs/rules.md,
    # "Earlier revisions").
    kept_revisions = MappingProxyType({
        "33a7f0e2f2d0002bcda56d856f6a40186a74c0524ea6eae66ee451c1fee42491": "1",
        "3525e53e23e2c5ec1db35e55611b516e93aaff82bb79dbef46cc3eec3107cf7a": "2",
    })

    def validate_setup(self, setup: dict[str, Any]) -> dict[str, Any]:
        """``{"figures": [...], "options": {...}}``; every figure checked, names unique."""
        unknown = set(setup) - {"figures", "options", "title", "note", "players"}
        if unknown:
            raise InvalidCommand(f"argad set-up: unknown key(s) {', '.join(sorted(unknown))}; "
                                 "known: figures, options, title, note, players")
        figures = setup.get("figures", [])
        if not isinstance(figures, list):
            raise InvalidCommand("argad set-up: 'figures' is a list of figure objects")
        names: set[str] = set()
        for entry in figures:
            fig = build_figure(entry)
            if fig.name in names:
                raise InvalidCommand(f"argad set-up: two figures are named {fig.name}")
            names.add(fig.name)
        options = setup.get("options", {})
        if not isinstance(options, dict):
            raise InvalidCommand("argad set-up: 'options' is an object of name: value")
        parse_options(options)
        if "players" in setup:  # sides may also come with figures added later: any side name is taken
            raw = setup["players"]
            sides = {f.get("side") for f in figures if isinstance(f, dict)} | set(raw if isinstance(raw, dict) else ())
            side_players(raw, sorted(str(x) for x in sides))
        return setup

    def initial_state(self, genesis: CombatStarted) -> ArgadState:
        setup = genesis.setup or {}
        # the trust layer's genesis options (joint_dice, sequencer) are not Argad's
        ours = {k: v for k, v in genesis.options.items() if k not in TRUST_OPTIONS}
        options = parse_options(ours, setup.get("options", {}))
        figures = {}
        for entry in setup.get("figures", []):
            fig = build_figure(entry)
            figures[fig.name] = fig
        players = {side: tuple(names) for side, names in setup.get("players", {}).items()}
        # Argad names no referee by default, so the creator (unknown here) plays no part in the roles
        return ArgadState(options=options, figures=figures, players=players, roles=roles_of(self, genesis, ""),
                          foresight=foresight.Foresight(mode=foresight.mode_of(genesis, BEFORE_FORESIGHT)),
                          revision=self.revision_of(genesis))

    def canonical_state(self, state: ArgadState) -> Any:
        # ``revision`` names the rules read, not an outcome: a log's state is compared as played and today
        return without_revision(state)

    def decide(self, state: ArgadState, command: Any, dice: DicePort) -> list[Event]:
        """The rules' decision, with every choice protected from foreseen joint dice (rulesets/foresight.py)."""
        return foresight.decide(self, state, command, dice, decide)

    def evolve(self, state: ArgadState, event: Event, seq: int) -> ArgadState:
        fs = foresight.evolve(state.foresight, event)
        if fs is not None:
            return msgspec.structs.replace(state, foresight=fs)
        return evolve(state, event, seq)

    def dice_uses(self, state: ArgadState, event: Event) -> Sequence[DiceUse]:
        """Every die an Argad event reads, with the label and notation the rules give it."""
        return dice_uses(state, event)

    # -- views ---------------------------------------------------------------------------
    def round_of(self, state: ArgadState) -> int:
        return state.number

    def current_round(self, state: ArgadState) -> int:
        # Between game turns the gm's next decision is to start the next one (unless one side is left).
        between = state.turn is None and state.turns_done > 0 and not state.ended and not no_enemy_left(state)
        return state.turns_done + 1 if between else state.number

    def finished(self, state: ArgadState) -> bool:
        """Once the combat is ended (argad end). One side left alone after a game turn is not the end yet: the
        referee's ruling ends it with its outcome (``pending`` says so, ``candidates`` offer it), so that no
        view says both "finished" and "end the combat"."""
        return state.ended

    def candidates(self, state: ArgadState, stream: str) -> Iterable[Candidate]:
        """Every move worth proposing (argad/candidates.py); commands/legal.py keeps the legal ones."""
        from combatlog.rulesets.argad.candidates import candidates

        return foresight.candidates(self, state, stream, candidates(state, stream))

    def players_of(self, state: ArgadState, piece: str) -> tuple[str, ...] | None:
        fig = state.figures.get(piece)
        return None if fig is None else tuple(state.players.get(fig.side, ()))

    def seed_step_name(self, state: ArgadState) -> str:
        """A fresh seed step is named after the game turn whose dice it seeds ("t2"), as the dice labels begin
        (argad/labels.py) and as a die refused for want of a seed names it (trust/sealed.py ``joint_key``)."""
        return f"t{max(1, self.current_round(state))}"

    def pending(self, state: ArgadState) -> list[Pending]:
        return foresight.pending(self, state, self._pending(state))

    def _pending(self, state: ArgadState) -> list[Pending]:
        if state.ended:
            return []
        turn = state.turn
        if turn is None:
            if no_enemy_left(state):
                return [Pending(who="gm", what=f"{no_enemy_left(state)}: end the combat",
                                rule=R_TURN)]
            return [Pending(who="gm", what=f"start game turn {state.turns_done + 1}", rule=R_TURN)]
        out: list[Pending] = []
        if turn.phase in ("movement", "shooting", "melee"):
            out.extend(strikers_pending(state, turn))
        out.append(end_turn_pending(state, turn))
        return out

    def check(self, state: ArgadState) -> list[str]:
        problems = []
        for fig in state.figures.values():
            if not fig.dead and fig.wounds >= fig.wounds_die:
                problems.append(f"{fig.name} is standing with {fig.wounds} wound(s) for {fig.wounds_die} life points")
            if fig.dead and fig.dead_turn < 1:
                problems.append(f"{fig.name} died outside a game turn")
        turn = state.turn
        if turn is not None:
            if turn.phase not in ("movement", "shooting", "melee"):
                problems.append(f"open turn in phase {turn.phase}")
            seen: dict[str, int] = {}
            struck_at: dict[str, int] = {}
            for s in turn.strikes:
                if struck_at.get(s.target, -9) > s.tier:
                    problems.append(f"strike {s.seq} is out of the strike order ({s.target} struck before it)")
                for a in s.attackers:
                    struck_at.setdefault(a, s.tier)
                    if a in seen and not (s.split and seen[a] == s.seq - 1):
                        problems.append(f"{a} struck twice in turn {turn.number}")
                    seen[a] = s.seq
                    if state.figures[a].dead:
                        problems.append(f"{a} struck though dead before this turn")
            for s in turn.strikes:
                for a in s.attackers:
                    if turn.held.get(a, s.seq) < s.seq:
                        problems.append(f"{a} struck after its side held its blow in turn {turn.number}")
            shooters = {x for s in turn.shots for x in s.shooters}
            if shooters & set(seen):
                problems.append("a figure shot and struck in the same turn")
            if len(shooters) != sum(len(s.shooters) for s in turn.shots):
                problems.append("a figure shot twice in one turn")
        if state.turn and state.ended:
            problems.append("a game turn is open after the combat ended")
        return problems

    def explain(self, before: ArgadState, event: Event, after: ArgadState, seq: int) -> Sequence[Step]:
        return views.explain(before, event, after, seq)

    def summarize(self, event: Event) -> str:
        match event:
            case TurnStarted():
                return f"game turn {event.turn} begins"
            case PhaseStarted():
                return f"turn {event.turn}: {event.phase} phase"
            case Moved():
                return f"{event.figure} moves" + (" (charge)" if event.charge else "")
            case ShotFired():
                verb = "shoots" if len(event.shooters) == 1 else "shoot"
                return f"{', '.join(event.shooters)} {verb} at {' + '.join(event.targets)}"
            case Struck():
                verb = "strikes" if len(event.attackers) == 1 else "strike"
                return f"{', '.join(event.attackers)} {verb} {event.target}"
            case TurnEnded():
                return f"game turn {event.turn} ends"
            case FigureAdded():
                return f"{event.figure.get('name')} joins"
            case FigureRemoved():
                return f"{event.figure} leaves ({event.reason})"
            case Held():
                verb = "holds its blow" if len(event.figures) == 1 else "hold their blows"
                return f"{', '.join(event.figures)} {verb} this turn"
            case RecoilPolicySet():
                return f"{event.figure} {'refuses' if event.refuse else 'accepts'} recoils"
            case CombatEnded():
                return f"combat ends: {event.outcome}"
        return super().summarize(event)

    def describe(self, state: ArgadState, viewer: str | None = None) -> dict[str, Any]:
        out = views.describe(state)
        if state.turn is None and state.last_turn is not None:
            last = state.last_turn
            out["last_turn_summary"] = {
                "turn": last.number, "shots": [views.shot_json(s) for s in last.shots],
                "strikes": [views.strike_json(s) for s in last.strikes], "held": sorted(last.held),
                "survival": [views.survival_json(state, last, row) for row in last.survival],
                "locations": [{"figure": n, "label": lb, "d12": d} for n, lb, d in last.locations],
            }
        return out

    def render(self, state: ArgadState, viewer: str | None = None) -> str:
        return views.render(state)
