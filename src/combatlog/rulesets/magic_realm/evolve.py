"""``evolve``: fold one event into the state, deriving every consequence."""

from __future__ import annotations

import msgspec

from combatlog.events.base import Event, TypeSwitch
from combatlog.events.core import DiceRolled
from combatlog.events.core import (
    ChainCommitted, ChainReleased, DecisionMarked, LinkRevealed, OrdersCommitted, OrdersRevealed,
)
from combatlog.rulesets.magic_realm import events as e
from combatlog.rulesets.magic_realm import rehearsal
from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.bounty import treachery_loss
from combatlog.rulesets.magic_realm.fatigue import options, owed
from combatlog.rulesets.magic_realm.magic import break_by_naming
from combatlog.rulesets.magic_realm.rounds import (
    advance, apply_fatigue, assign_randomly, resolve, start_melee,
)
from combatlog.rulesets.magic_realm.sealed import fold_sealed, note_choice, record_plays
from combatlog.rulesets.magic_realm.state import Action, MRState, SpellCast
from combatlog.rulesets.magic_realm.work import Work

SEALED_EVENTS = (OrdersCommitted, OrdersRevealed, DecisionMarked, ChainCommitted, LinkRevealed, ChainReleased)

replace = msgspec.structs.replace
# Which branch of ``evolve`` an event takes: the class its isinstance tests below found first, in their order
# (a die, a sealed event, then the rules' events in the order of their cases), once per event class.
_KIND = TypeSwitch(DiceRolled, *SEALED_EVENTS, e.Lured, e.DenizensAssigned, e.Deployed, e.ActionDeclared,
                   e.MeleeStarted, e.TargetsChosen, e.PlaysMade, e.MeleeResolved, e.Conceded, e.FatiguePaid,
                   e.PassVoted)
# A character's decision, or the round's end: it ends the pass votes gathered before it (a vote is for the rest of
# the round as its voter saw it)
_ENDS_VOTES = (e.Lured, e.Deployed, e.ActionDeclared, e.TargetsChosen, e.PlaysMade, e.Conceded, e.FatiguePaid,
               e.MeleeResolved)


def evolve(state: MRState, event: Event, seq: int) -> MRState:
    kind = _KIND(event)
    if kind is DiceRolled:
        return replace(state, rolls={**state.rolls, event.label: tuple(event.faces)}, last_round=state.round)
    if kind in SEALED_EVENTS:  # sealed plays and joint dice seeds (sealed.py)
        w = Work(state, seq)
        if state.last_round != state.round:
            w.set(last_round=state.round)
        fold_sealed(w, event)
        advance(w)
        return w.freeze()
    if kind is None:  # other core events change nothing here
        return state if state.last_round == state.round else replace(state, last_round=state.round)
    w = Work(state, seq)
    if state.last_round != state.round:  # (a view before any change is the state itself: no copy)
        w.set(last_round=state.round)  # an event that ends a round still belongs to it
    if state.pass_votes and kind in _ENDS_VOTES:
        w.set(pass_votes=())
    match kind:  # (value patterns: the class _KIND found)
        case e.PassVoted:
            if event.all_in:
                w.set(pass_votes=(), passing=event.round)
                w.step("MR 001 A Round of Combat", f"with {', '.join(event.characters)}, every character in the "
                       f"fight passes the rest of round {event.round}: each step is recorded as passed")
            else:
                w.set(pass_votes=tuple(sorted({*state.pass_votes, *event.characters})))
                w.step("MR 001 A Round of Combat", f"{', '.join(event.characters)} would pass the rest of round "
                       f"{event.round}, if every other character in the fight does (until someone decides otherwise)")
        case e.Lured:
            break_by_naming(w, event.character, set(event.lures), "lures")
            assigned = dict(state.assigned)
            for did, lurer in sorted(event.lures.items()):
                assigned[did] = lurer
                w.step("MR 001 Luring", f"{event.character} lures {q.name(state, did)} onto {q.name(state, lurer)}")
            w.set(assigned=assigned, lured={**state.lured, **event.lures}, done=state.done + (event.character,))
            battle_rebels(w, event.character, set(event.lures))
            # The random assignment that follows depends on the lures (joint dice: sealed.py).
            note_choice(w, "lure", event.character, f"{event.character} lures "
                        + (", ".join(sorted(event.lures)) or "nothing") + f" in round {state.round}")
        case e.DenizensAssigned:
            rehearsal.fold(assign_randomly, w)
            w.set(seed_choices=tuple(x for x in state.seed_choices if x[0] != "lure"))
        case e.Deployed:
            _deploy(w, event)
        case e.ActionDeclared:
            _action(w, event)
        case e.MeleeStarted:
            rehearsal.fold(start_melee, w)
            w.set(seed_choices=tuple(x for x in state.seed_choices if x[0] != "run"))
        case e.TargetsChosen:
            _targets(w, event)
        case e.PlaysMade:
            record_plays(w, event.character, event, event.fight, event.move)
        case e.MeleeResolved:
            rehearsal.fold(resolve, w)
            return _frozen(w, state, event)
        case e.Conceded:
            concede(w, event)
        case e.FatiguePaid:
            c = state.characters[event.character]
            need, types = owed(c, state.used.get(c.id, ()))
            match = next((o for o in options(c, need, types)
                          if sorted(o.fatigue) == sorted(event.fatigue) and o.change == event.change), None)
            apply_fatigue(w, c.id, event.fatigue, event.change, event.wounds, match.shortfall if match else 0)
    advance(w)
    return _frozen(w, state, event)


def _frozen(w: Work, state: MRState, event: Event) -> MRState:
    """The state after ``event``; the dice its fold read are remembered for ``dice_uses``."""
    out = w.freeze()
    rehearsal.remember_reads(state, event, w.reads)
    return out


def _use(w: Work, cid: str, chit: str) -> None:
    if chit:
        used = dict(w.get("used"))
        used[cid] = used.get(cid, ()) + (chit,)
        w.set(used=used)


def _deploy(w: Work, ev: e.Deployed) -> None:
    st = w.view()
    deployed = dict(st.deployed)
    order = list(st.deploy_order)
    if ev.hirelings or ev.charge:
        break_by_naming(w, ev.character, set(ev.hirelings.values()) | ({ev.charge} if ev.charge else set()),
                        "assigns an attack on")
    battle_rebels(w, ev.character, set(ev.hirelings.values()))
    for hid, did in sorted(ev.hirelings.items()):
        deployed[hid] = did
        order.append(hid)
        w.step("MR 001 Deployment", f"{ev.character} deploys {q.name(st, hid)} to attack {q.name(st, did)}")
    charges = dict(st.charges)
    if ev.charge:
        charges[ev.character] = ev.charge
        _use(w, ev.character, ev.chit)
        w.step("MR 001 Deployment", f"{ev.character} charges {ev.charge} (Move chit {ev.chit}): no action this round, "
               "and he can only attack that character")
    w.set(deployed=deployed, deploy_order=tuple(order), charges=charges, done=st.done + (ev.character,))


def _action(w: Work, ev: e.ActionDeclared) -> None:
    st = w.view()
    cid = ev.character
    c = w.chars[cid]
    rule = "MR 001 Actions"
    _use(w, cid, ev.chit)
    if ev.kind == "alert":
        weapon = c.weapon
        w.char(cid, weapons=tuple(replace(x, alert=True) if x.active else x for x in c.weapons))
        chit = c.chit(ev.chit)
        gloves = chit is not None and chit.action == "GLOVES"  # MR 8.4.7: Gloves cards turn a weapon over
        w.step("MR 8.4.7" if gloves else rule, f"{c.name} plays {ev.chit}{' ' + chit.label if gloves else ''} "
               f"to alert his {weapon.name if weapon else 'weapon'}")
    elif ev.kind in ("run", "fly"):
        w.char(cid, present=False)
        assigned = {d: t for d, t in st.assigned.items() if t != cid}
        w.set(assigned=assigned)
        chit = c.chit(ev.chit) if ev.chit else None
        how = f"horse ({ev.horse})" if ev.horse else f"{chit.id} {chit.label}" if chit else ev.chit
        verb = "flies" if ev.kind == "fly" else "runs"
        w.step(rule, f"{c.name} {verb} away with his {how}: he leaves the clearing; denizens attacking him become "
               "unassigned")
    elif ev.kind == "cast":
        chit = c.chit(ev.chit) if ev.chit else None
        item = ev.items[0] if ev.items else ""
        # MR 8.4.3: the Magic chit's time; 0 for an alerted Magic chit or an Artifact / Spell Book.
        time = 0 if item or (chit is not None and chit.alerted) else (chit.time if chit else 0)
        why = (f"the {item}'s Spell card: time 0" if item else
               f"{ev.chit} {chit.label}" + (" alerted: time 0" if chit is not None and chit.alerted else "")
               if chit else "")
        w.set(spells=w.get("spells") + (SpellCast(caster=cid, spell=ev.spell, chit=ev.chit, time=time,
                                                  item=item),), active_round=True)
        w.step("MR 8.4.3" if time == 0 else rule, f"{c.name} casts {ev.spell} with {why} (completion time {time})")
    elif ev.kind in ("activate", "deactivate"):
        on = ev.kind == "activate"
        name = ev.items[0].lower()
        w.char(cid, weapons=tuple(replace(x, active=on) if x.name.lower() == name else x for x in c.weapons),
               armor=tuple(replace(x, active=on) if x.name.lower() == name else x for x in c.armor))
        w.step(rule, f"{c.name} {ev.kind}s his {ev.items[0]}")
    elif ev.kind == "abandon":
        names = {n.lower() for n in ev.items}
        w.char(cid, weapons=tuple(x for x in c.weapons if x.name.lower() not in names),
               armor=tuple(x for x in c.armor if x.name.lower() not in names))
        w.step(rule, f"{c.name} abandons {', '.join(ev.items)}")
    else:
        w.step(rule, f"{c.name} takes no action")
    w.set(actions={**st.actions, cid: Action(kind=ev.kind, chit=ev.chit, item=ev.items, spell=ev.spell)},
          done=w.get("done") + (cid,))
    if ev.kind in ("run", "fly"):  # the Attention chits drawn next depend on who is still in the fight
        note_choice(w, "run", cid, f"{cid} {'flies' if ev.kind == 'fly' else 'runs'} away in round {st.round}")


def _targets(w: Work, ev: e.TargetsChosen) -> None:
    """Target selection, unhiding and treachery (MR 8.4.2)."""
    st = w.view()
    cid = ev.character
    targets = dict(st.targets)
    named = []
    target = ev.target or (ev.spell_targets[0] if ev.spell_targets else "")
    if target:
        targets[cid] = target
        named.append(target)
        w.step("MR 8.4.2", f"{cid} puts the Attention chit on {q.name(st, target)}")
    elif st.characters[cid].present:
        w.step("MR 8.4.2", f"{cid} leaves the Attention chit unplayed: no attack this round")
    for hid, tid in sorted(ev.hirelings.items()):
        targets[hid] = tid
        named.append(tid)
        w.step("MR 8.4.2", f"{cid} has {hid} attack {q.name(st, tid)}")
    if named or ev.spell_targets:
        break_by_naming(w, cid, set(named) | set(ev.spell_targets), "names as a target")
        st = w.view()
    if ev.spell_targets:
        spells = tuple(replace(s, targets=ev.spell_targets) if s.caster == cid and s.status == "cast" else s
                       for s in st.spells)
        w.set(spells=spells)
        named.extend(ev.spell_targets)
        w.step("MR 8.4.2", f"{cid}'s spell is aimed at {', '.join(ev.spell_targets)}")
    if named and st.characters[cid].hidden:
        w.char(cid, hidden=False)
        w.step("MR 8.4.2", f"{cid} specifies a target and is unhidden")
    for t in named:
        if t in w.chars and w.chars[t].hidden:
            w.char(t, hidden=False)
            w.step("MR 8.4.2", f"{t} is named as a target and is unhidden")
    rebels = sorted({h for t in named if t in w.dens and w.dens[t].owner == cid and not w.dens[t].rebel
                     and w.dens[t].stats.kind == "native"
                     for h in q.hirelings_of(w.view(), cid) if w.dens[h].stats.group == w.dens[t].stats.group})
    if rebels:
        for h in rebels:
            w.den(h, owner="", rebel=True, foes=(cid,))
            if h in targets and h not in named:
                targets.pop(h, None)
        w.step("MR 8.4.2", f"treachery: {cid} targets his own hireling: {', '.join(rebels)} rebel and become "
               "unhired")
        treachery_loss(w, cid, rebels)
        assigned = {d: t for d, t in w.get("assigned").items() if t not in rebels}
        deployed = {h: d for h, d in w.get("deployed").items() if h not in rebels}
        w.set(assigned=assigned, deployed=deployed,
              deploy_order=tuple(h for h in w.get("deploy_order") if h not in rebels))
    battle_rebels(w, cid, named)
    w.set(targets=targets, positions={**st.positions, **ev.positions}, done=st.done + (cid,))


def battle_rebels(w: Work, cid: str, named) -> None:  # type: ignore[no-untyped-def]
    """Rebels are automatically battling all characters (and their hirelings) who attack them or
    whom they attack (MR 8.4.2 treachery)."""
    for t in sorted(set(named)):
        d = w.dens.get(t)
        if d is not None and d.rebel and cid not in d.foes:
            w.den(t, foes=d.foes + (cid,))
            w.step("MR 8.4.2", f"{t} is a rebel: it is now battling {cid}")


def concede(w: Work, ev: e.Conceded) -> None:
    """MR 8.4.7 Elusive Cloak: "If there is no chance for the Tremendous monster to be killed by either the
    character or anyone else in the clearing (or the other characters decline to help), then the character
    is killed." "When its target is killed, the Tremendous monster turns red side down again."

    Decision: this death is not a kill by an attack, so nobody is credited a bounty (monsters earn none).
    """
    st = w.view()
    cid = ev.character
    mon = q.red_on_sheet(st, cid)
    why = ("there is no chance for it to be killed" if ev.reason == "no_chance"
           else "the other characters decline to help")
    w.char(cid, alive=False, wounds=0, death=f"killed by {mon} in round {st.round}: held with the Elusive Cloak "
           f"and {why} (MR 8.4.7)")
    w.step("MR 8.4.7 Elusive Cloak", f"{st.characters[cid].name} is held by {q.name(st, mon)} and uses the Elusive "
           f"Cloak; the table rules that {why}: the character is killed (it is assumed that the character will "
           "tire before the monster does)")
    pinned = dict(st.pinned)
    for m, t in sorted(st.pinned.items()):
        if t == cid:
            del pinned[m]
            if m in w.dens and w.dens[m].alive:
                w.den(m, side="light")
                w.step("MR 8.4.7", f"{m}'s target is killed: it turns red side down")
    owed_now = {k: v for k, v in st.owed.items() if k != cid}
    w.set(pinned=pinned, owed=owed_now, active_round=True)
    if not q.participants(w.view()):
        w.set(ended=True, end_reason="no character takes part any more", step="over")
        w.step("MR 001 Disengagement / MR tables: End of combat", "combat ends: no character takes part any more")
