"""The Magic Realm ruleset object: the contract's hooks wired to the modules."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import Any

import msgspec

from combatlog.dice.port import DicePort
from combatlog.events.base import Event
from combatlog.events.core import CORE_EVENTS, CombatStarted, OrdersRevealed
from combatlog.trust.api import Chains
from combatlog.rulesets.base import Candidate, DiceUse, Pending, Ruleset, RulesetInfo, Step
from combatlog.rulesets.magic_realm import events as e
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.data import DATA_FILES
from combatlog.rulesets.magic_realm.state import MRState, frac


from combatlog.commands.authority import Authority
from combatlog.commands.record import commands_in
from combatlog.rulesets.magic_realm import commands as mr_commands

# Every label the rules draw (dice_uses.py lists them; built in rounds.py, melee.py, demons.py): no player may
# name a die so (``Ruleset.owns_label``), or the rules' own draw would be refused "already drawn" for ever.
RULE_LABELS = re.compile(r"r[0-9]+/(?:assign|attention|reposition|tactics|missile|pit|curse)/")


class MagicRealm(Ruleset[MRState]):
    rule_labels = RULE_LABELS
    info = RulesetInfo(
        name="magic_realm", title="Magic Realm (3rd edition) combat", version="3", citation="MR",
        sources=("seed 000: MR 8.4 Melee Step", "seed 001: A Round of Combat",
                 "data/tables.md and data/*.json (RealmSpeak-derived facts)"),
    )
    event_types = CORE_EVENTS + e.MR_EVENTS
    state_type = MRState
    command_types = commands_in(mr_commands)
    # with pinned players the plays are sealed by ``mr play --seal`` and revealed by ``mr reveal``: the
    # candidates propose those (trust/offers.py then adds no sealed step of its own)
    seals_orders = True

    def candidates(self, state: MRState, stream: str) -> Iterable[Candidate]:
        from combatlog.rulesets.magic_realm.candidates import candidates

        return candidates(state, stream)

    def contributed_first(self, state: MRState, command: Any, actor: str) -> tuple[Any, ...]:
        """What ``actor``'s referee's step contributes to its seed step first (``sealed.contributed_first``)."""
        from combatlog.rulesets.magic_realm.sealed import contributed_first

        return contributed_first(state, command, actor)

    def authority(self, state: MRState, command: Any) -> Authority:
        from combatlog.rulesets.magic_realm.authority import authority

        return authority(state, command)
    data_files = DATA_FILES
    # Version 2 changed no event, only what the fold derives (issue 38): version 1's logs hold only events this
    # build reads. Version 1's two rules that differ (armor results of one group, the ARCHER die: harm.py,
    # melee.py) are kept behind ``MRState.revision``, so such a log folds and re-decides as it was played, and
    # verify says where version 2 reads it differently (docs/rules.md, "The state digest").
    earlier_digests = MappingProxyType({
        "3774db10b2cd7b9cfea655f150f80cdeb4ba8c20af2f13007abbeeab7e0dbe2b":
            "version 1, before simultaneous hits on one armor piece added up, the ARCHER advantage rolled one die "
            "on the Missile Table and part_side was checked (2026-12-06)",
    })
    # Version 3 adds ``mr.pass_voted`` (pinned players pass a quiet round, each for his own characters); version 2
    # refused ``mr pass`` where players are pinned, and its logs keep that (``MRState.revision`` "2").
    earlier_digests = MappingProxyType({
        **earlier_digests,
        "32cee936077134200eba452cf9156f00a64ec4c7c5f7e834d5b2d0c75cb6301c":
            "version 2, before pinned players could pass a quiet round (mr pass NAME CHARACTER...)",
    })
    kept_revisions = MappingProxyType({"3774db10b2cd7b9cfea655f150f80cdeb4ba8c20af2f13007abbeeab7e0dbe2b": "1",
                                       "32cee936077134200eba452cf9156f00a64ec4c7c5f7e834d5b2d0c75cb6301c": "2"})

    def validate_setup(self, setup: dict[str, Any]) -> dict[str, Any]:
        from combatlog.rulesets.magic_realm.setup import validate

        return validate(setup)

    def canonical_state(self, state: MRState) -> Any:
        # ``steps`` explain the last event only (their wording may change freely); ``revision`` names the rules
        # read, not an outcome: today's reading of a version-1 log is compared with it as played.
        # Version 3's pass fields are left out at their defaults, so that a version-2 log's digests still match.
        plain = msgspec.structs.replace(state, steps=(), revision="")
        if plain.pass_votes or plain.passing:
            return plain
        return {f: getattr(plain, f) for f in plain.__struct_fields__ if f not in ("pass_votes", "passing")}

    def initial_state(self, genesis: CombatStarted) -> MRState:
        from combatlog.rulesets.magic_realm.rounds import advance
        from combatlog.rulesets.magic_realm.setup import build
        from combatlog.rulesets.magic_realm.work import Work

        from combatlog.rulesets.magic_realm.setup import DEFAULT_OPTIONS

        state = build(genesis.setup)
        opts = {**DEFAULT_OPTIONS, **state.options,
                **{k: v for k, v in genesis.options.items() if k in DEFAULT_OPTIONS}}
        state = msgspec.structs.replace(state, name=genesis.name, options=opts)
        assigned = dict(genesis.setup.get("assigned") or {})
        # Pinned players seal their plays; joint dice come from seed steps (sealed.py).
        joint = genesis.options.get("joint_dice", "strict") if genesis.dice == "joint" else ""
        players = tuple(p.name for p in genesis.players)
        revision = self.revision_of(genesis)
        state = msgspec.structs.replace(state, assigned=assigned, players=players, joint=joint,
                                        chains=Chains(players=players), revision=revision)
        w = Work(state, 1)
        w.step("MR 001 Encounter Step", "round 1 begins")
        advance(w)
        return w.freeze()

    # decide, evolve and dice_uses import their modules at the first call (status needs none of decide's), then
    # put the function itself on the instance: a fold calls evolve once per event, and the import statement and
    # the method's frame were a few per cent of a long verify.
    def decide(self, state: MRState, command: Any, dice: DicePort) -> list[Event]:
        from combatlog.rulesets.magic_realm.decide import decide

        self.decide = decide  # type: ignore[method-assign]
        return decide(state, command, dice)

    def evolve(self, state: MRState, event: Event, seq: int) -> MRState:
        from combatlog.rulesets.magic_realm.evolve import evolve

        self.evolve = evolve  # type: ignore[method-assign]
        return evolve(state, event, seq)

    def dice_uses(self, state: MRState, event: Event) -> Sequence[DiceUse]:
        from combatlog.rulesets.magic_realm.dice_uses import dice_uses

        self.dice_uses = dice_uses  # type: ignore[method-assign]
        return dice_uses(state, event)

    # -- the trust layer's hooks (docs/trust.md, "For ruleset authors") ---------------
    def sealed_required(self, state: MRState, step: str) -> tuple[str, ...]:
        from combatlog.rulesets.magic_realm.sealed import sealed_required

        return sealed_required(state, step)

    def check_orders(self, state: MRState, step: str, player: str, orders: dict[str, Any]) -> None:
        from combatlog.rulesets.magic_realm.sealed import check_orders

        check_orders(state, step, player, orders)

    # -- views ---------------------------------------------------------------------
    def round_of(self, state: MRState) -> int:
        return state.last_round

    def current_round(self, state: MRState) -> int:
        # The event that ends a round (the last fatigue paid, or a resolution without fatigue) starts
        # the next one at once: ``round`` is already the round being decided, ``last_round`` lags.
        return state.round

    def finished(self, state: MRState) -> bool:
        return state.ended

    def pending(self, state: MRState) -> list[Pending]:
        from combatlog.rulesets.magic_realm.decide import STEP_RULES
        from combatlog.rulesets.magic_realm.fatigue import options, owed, played_text
        from combatlog.rulesets.magic_realm.rounds import deciders

        if state.ended:
            return []
        rule = STEP_RULES.get(state.step, "MR 001")
        who = deciders(state, state.step)
        from combatlog.rulesets.magic_realm.authority import player_of

        # a character whose set-up names no player is the referee's, or anyone's: never a player named like him
        player = lambda cid: f"{player_of(state, cid)} ({cid})" if player_of(state, cid) else f"{cid} (no player)"  # noqa: E731
        from combatlog.rulesets.magic_realm.turns import STEP_ASKS as what

        if state.step == "fatigue":
            out = []
            for cid in who:
                c = state.characters[cid]
                need, types = owed(c, state.used.get(cid, ()))
                opts = tuple(o.text(c) for o in options(c, need, types))[:20]
                out.append(Pending(who=player(cid), rule=rule, options=opts,
                                   what=f"pay {need} asterisk(s) of fatigue (played: {played_text(types)}; each type "
                                        f"is paid with its own chits) and take {c.wounds} wound(s): mr fatigue"))
            return out
        if state.round_passed and who:  # every character agreed to pass: their steps are passes
            return [Pending(who="gm", rule="MR 001 A Round of Combat",
                            what=f"every character passes round {state.round}: its next steps: mr pass")]
        votes = self._pass_votes_pending(state, player)
        if state.step == "plays" and state.players:
            from combatlog.rulesets.magic_realm.sealed import plays_pending

            return [*plays_pending(state, [cid for cid in who if state.characters[cid].player not in state.players]),
                    *votes.values()]
        if who:  # (a character who owes this step and may also pass: one line)
            return [*(Pending(who=player(cid), what=what[state.step] + (
                f"; or {votes[cid].what}" if cid in votes else ""), rule=rule) for cid in who),
                *(p for cid, p in votes.items() if cid not in who)]
        if votes:
            return list(votes.values())
        from combatlog.rulesets.magic_realm.sealed import seed_hint

        referee_steps = {"lure": ("random assignment: mr assign" + seed_hint(state, "lure", "assign"),
                           "MR 001 Random assignment"),
                  "actions": ("start the Melee Step (Attention chits): mr melee" + seed_hint(state, "run", "attention"),
                              "MR 8.4.2"),
                  "resolve": ("reposition, change tactics and resolve: mr resolve", "MR 8.4.6")}
        if state.step in referee_steps:
            # Nobody's character decides these steps: the referee takes them (gm; in a combat that pins
            # players but no gm, the player who created it: docs/trust.md, "Whose move").
            text, r = referee_steps[state.step]
            from combatlog.rulesets.magic_realm.sealed import SEED_RULE

            # A seed step still open: who owes his part of it (with chains, the last link of a player with no
            # character in the fight, the referee's, is revealed by his command: ``seed_waiting`` says "closes";
            # docs/trust.md, "Nonce chains").
            info = next((i for i in state.sealed.values() if not i.complete and state.players
                         and set(state.players) <= set(i.required)), None)
            from combatlog.rulesets.magic_realm.sealed import SEED_MOVES, seed_waiting

            waiting = seed_waiting(state, info.step) if info is not None else []
            seeds = [Pending(who=p, what=f"joint dice seed {info.step}: {SEED_MOVES[what]}", rule=SEED_RULE)
                     for p, what in waiting if what in SEED_MOVES] if info is not None else []
            return [Pending(who="gm", what=text, rule=r), *seeds]
        return []

    @staticmethod
    def _pass_votes_pending(state: MRState, player: Any) -> dict[str, Pending]:
        """Once a pinned player voted to pass the round: every other character in the fight may vote too."""
        if not state.pass_votes or state.round_passed:
            return {}
        from combatlog.rulesets.magic_realm.rules import participants

        voted = ", ".join(state.pass_votes)
        return {cid: Pending(who=player(cid), rule="MR 001 A Round of Combat",
                             what=f"pass the rest of round {state.round}, as {voted} would: mr pass")
                for cid in participants(state) if cid not in state.pass_votes}

    def out_of_the_fight(self, state: MRState, player: str) -> str:
        """'' while one of ``player``'s characters fights on; else how they are out ("bk is dead")."""
        from combatlog.rulesets.magic_realm.views import out_of_the_fight

        return out_of_the_fight(state, player)

    def check(self, state: MRState) -> list[str]:
        problems = []
        for c in state.characters.values():
            ids = [ch.id for ch in c.chits]
            if len(set(ids)) != len(ids):
                problems.append(f"{c.id}: duplicate chit ids")
            for ch in c.chits:
                if ch.status not in ("active", "fatigued", "wounded"):
                    problems.append(f"{c.id}: chit {ch.id} has status {ch.status}")
            for v in (c.fame, c.notoriety, c.gold):
                if v[1] <= 0:
                    problems.append(f"{c.id}: bad fraction {v}")
            if frac(c.gold) < 0:
                problems.append(f"{c.id}: negative gold")
            if sum(1 for w in c.weapons if w.active) > 1:
                problems.append(f"{c.id}: more than one active weapon (MR 8.4.5)")
            if c.holding and (c.form is None or c.form_side != "dark"):
                problems.append(f"{c.id}: holds {c.holding} but is not transmorphized red side up (MR 8.4.7)")
            if not c.alive and c.wounds:
                problems.append(f"{c.id}: dead with wounds pending")
            plays = state.plays.get(c.id)
            void = set()
            if plays is not None and state.cancelled.get(f"{c.id}/attack"):
                void.add(plays.fight)
            if plays is not None and state.cancelled.get(f"{c.id}/maneuver"):
                void.add(plays.move)
            used = state.used.get(c.id, ())
            effective = sum(ch.asterisks for ch in c.chits + c.extras if ch.id in used and ch.id not in void)
            if effective > 2:
                problems.append(f"{c.id}: {effective} effort asterisks in effect this round (MR 8.4.5 limit 2)")
            if len(set(used)) != len(used):
                problems.append(f"{c.id}: a chit was played twice this round (MR 8.4.5 one use)")
        for did, tid in state.assigned.items():
            d = state.denizens.get(did)
            if d is None:
                problems.append(f"assigned unknown denizen {did}")
            elif q.is_hireling(d):
                problems.append(f"hireling {did} is assigned like an uncontrolled denizen")
        for mon, tgt in state.pinned.items():
            d = state.denizens.get(mon)
            if d is None or not d.stats.tremendous or d.side != "dark":
                problems.append(f"{mon} pins {tgt} but is not a red-side-up Tremendous monster")
        if state.ended != (state.step == "over"):
            problems.append("ended and step disagree")
        if state.step not in ("lure", "deploy", "actions", "targets", "plays", "resolve", "fatigue", "over"):
            problems.append(f"unknown step {state.step}")
        for pid in q.sheets(state):
            if not q.alive(state, pid):
                problems.append(f"{pid} is on a sheet but not in the fight")
        return problems

    def explain(self, before: MRState, event: Event, after: MRState, seq: int) -> Sequence[Step]:
        if before is None:
            return ()
        # the state keeps the steps of the last event folded by the rules (work.py); a core event leaves them
        return [Step(seq=seq, rule=s.rule, text=s.text, dice=s.dice) for s in after.steps if s.seq == seq]

    def summarize(self, event: Event) -> str:
        match event:
            case e.Lured():
                return f"{event.character} lures " + (", ".join(f"{d}->{t}" for d, t in event.lures.items()) or
                                                      "nothing")
            case e.DenizensAssigned():
                return f"random assignment, round {event.round}"
            case e.Deployed():
                parts = [f"{h}->{d}" for h, d in event.hirelings.items()]
                if event.charge:
                    parts.append(f"charges {event.charge}")
                return f"{event.character} deploys: " + (", ".join(parts) or "nothing")
            case e.ActionDeclared():
                extra = " ".join(x for x in (event.spell, event.chit, " ".join(event.items), event.horse) if x)
                return f"{event.character} action: {event.kind} {extra}".rstrip()
            case e.MeleeStarted():
                return f"Melee Step of round {event.round} begins"
            case e.TargetsChosen():
                return f"{event.character} targets {event.target or 'nobody'}" + (
                    ", hirelings " + ", ".join(f"{h}->{t}" for h, t in event.hirelings.items())
                    if event.hirelings else "")
            case OrdersRevealed() if isinstance(event.orders.get("plays"), dict):
                from combatlog.rulesets.magic_realm.views import plays_words

                return f"{event.player} reveals step {event.step}: {plays_words(event.orders['plays'])}"
            case e.PlaysMade():
                return f"{event.character} plays (round {event.round})"
            case e.MeleeResolved():
                return f"Melee Step of round {event.round} resolved"
            case e.FatiguePaid():
                return f"{event.character} fatigues {', '.join(event.fatigue) or '-'}" + (
                    f", change {event.change}" if event.change else "") + (
                    f", wounds {', '.join(event.wounds)}" if event.wounds else "")
            case e.PassVoted():
                who = ", ".join(event.characters)
                return (f"{who} {'pass' if len(event.characters) > 1 else 'passes'} round {event.round}: "
                        + ("every character in the fight has, so the round is passed" if event.all_in
                           else "once every character in the fight does"))
            case e.Conceded():
                why = "no chance to kill the monster" if event.reason == "no_chance" else "the others decline to help"
                return f"Elusive Cloak ruling: {event.character} is killed ({why})"
        return super().summarize(event)

    def conceals(self, event: Event, state: MRState, viewer: str | None) -> bool:
        """A side's plays are secret from the other players until every side has played (MR 8.4.5)."""
        if viewer is None or not isinstance(event, e.PlaysMade):
            return False
        c = state.characters.get(event.character)
        if c is None or c.player == viewer:
            return False
        return state.step == "plays" and event.round == state.round

    def _pending_json(self, state: MRState) -> list[dict[str, Any]]:
        return [{"who": p.who, "what": p.what, "rule": p.rule, "options": list(p.options)}
                for p in self.pending(state)]

    def describe(self, state: MRState, viewer: str | None = None) -> dict[str, Any]:
        from combatlog.rulesets.magic_realm.views import describe

        return describe(state, viewer, self._pending_json(state))

    def render(self, state: MRState, viewer: str | None = None) -> str:
        from combatlog.rulesets.magic_realm.views import render

        return render(state, viewer, self._pending_json(state))
