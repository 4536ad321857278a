"""The round's derived transitions: random assignment, the start of the Melee
Step, the reveal of the plays, the resolution, the Fatigue Step and the end of
the round (disengagement and the end of combat). Called by ``evolve``.
"""

from __future__ import annotations

import msgspec

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.bounty import credit
from combatlog.rulesets.magic_realm.data import BOXES, DIRS, MANEUVERS
from combatlog.rulesets.magic_realm.fatigue import RULE as FATIGUE_RULE
from combatlog.rulesets.magic_realm.fatigue import dies_of_wounds, owed
from combatlog.rulesets.magic_realm.harm import flip_weapon, inflict
from combatlog.rulesets.magic_realm.magic import PACIFY_RULE, not_attacking
from combatlog.rulesets.magic_realm.melee import (
    build_attacks, decide_hits, initial_positions, record, reposition_and_tactics,
)
from combatlog.rulesets.magic_realm.sealed import reveal_early
from combatlog.rulesets.magic_realm.spells import attack_spells, energize
from combatlog.rulesets.magic_realm.spells import end_of_round as spells_end_of_round
from combatlog.rulesets.magic_realm.state import LastMelee, Melee, Plays, RoundAttacks
from combatlog.rulesets.magic_realm.turns import deciders, unassigned_denizens
from combatlog.rulesets.magic_realm.work import Work

replace = msgspec.structs.replace
END_RULE = "MR 001 Disengagement / MR tables: End of combat"


def advance(w: Work) -> None:
    """Move on to the next step when nobody owes a decision in this one."""
    for _ in range(8):
        st = w.view()
        step = st.step
        if st.ended:
            return
        who = deciders(st, step)
        if who:
            return
        if step == "lure":
            if unassigned_denizens(st):
                return  # waits for `mr assign` (dice)
            w.step("MR 001 Random assignment", "no unassigned denizens: nothing to assign")
            w.set(step="deploy", done=())
        elif step == "deploy":
            where = q.sheets(st)  # (once, not once per character as unassigned_hirelings would)
            idle = [h for c in q.participants(st) for h in q.hirelings_of(st, c)
                    if h not in where and not st.denizens[h].parent]
            if idle:
                # MR 001 Deployment: "Denizens who are unassigned after Deployment do not attack this round."
                w.step("MR 001 Deployment", "unassigned after Deployment, so they do not attack this round: "
                       + "; ".join(f"{q.name(st, h)}, hired by {st.denizens[h].owner}" for h in idle))
            w.set(step="actions", done=())
        elif step == "actions" and not q.participants(st):
            nobody_left(w)
        elif step in ("actions", "resolve"):
            return  # waits for `mr melee` / `mr resolve` (dice)
        elif step == "targets":
            energize(w)
            w.set(step="plays", done=())
            reveal_early(w)
        elif step == "plays":
            reveal(w)
            w.set(step="resolve", done=())
        elif step == "fatigue":
            end_round(w)  # ends the combat, or begins the next round and advances in it (asking who decides)
            return
        else:
            return


def nobody_left(w: Work) -> None:
    """Every character ran or flew away and none has hirelings in the clearing: there is no Melee Step.

    MR 001: "Only the characters, monsters, and natives in the clearing take part in combat";
    "Characters who run or fly away leave the clearing immediately, and denizens attacking them become
    unassigned"; MR 8.4.2: only "the characters in the clearing ... and the characters with hirelings in
    the clearing" draw Attention chits, and "Unhired natives and monsters cannot target each other": no
    one is left to attack or be attacked. The round goes on to the Fatigue Step (those who ran pay for
    the chits they played), and the combat then ends (MR tables: End of combat, "no characters ...
    remain in the battle").
    """
    st = w.view()
    w.step("MR 001 Actions / MR 8.4.2", "every character has left the clearing and none has hirelings there: "
           "nobody draws an Attention chit, there is no Melee Step")
    w.set(seed_choices=tuple(x for x in st.seed_choices if x[0] != "run"))  # no Attention draw depends on them
    fatigue_step(w)


# -- random assignment (MR 001) ------------------------------------------------------------


def assign_randomly(w: Work) -> None:
    st = w.view()
    targets = sorted([c for c in q.in_clearing(st) if not st.characters[c].hidden]
                     + [h for c in q.in_clearing(st) for h in q.hirelings_of(st, c)])
    assigned = dict(st.assigned)
    for did in unassigned_denizens(st):
        spared = not_attacking(st, did)
        eligible = [t for t in targets if t not in spared]  # pacified: not the caster and his hirelings
        d = st.denizens[did]
        if d.rebel:  # rebels battle only the characters (and their hirelings) they fight (MR 8.4.2)
            eligible = [t for t in eligible if t in d.foes or q.controller(st, t) in d.foes]
            w.step("MR 8.4.2", f"{did} is a rebel battling {', '.join(d.foes)}: it can be assigned only to them "
                   "and their hirelings")
        if spared:
            w.step(PACIFY_RULE, f"{q.name(st, did)} is pacified: it is not assigned to "
                   + ", ".join(sorted(spared)))
        if not eligible:
            w.step("MR 001 Random assignment", f"{did}: no unhidden character or minion to attack")
            continue
        if len(eligible) == 1:
            pick, dice = eligible[0], ()
        else:
            label = f"r{st.round}/assign/{did}"
            face = w.roll(label, f"1d{len(eligible)}", f"random assignment of {did}", "")[0]
            pick, dice = eligible[face - 1], (label,)
        assigned[did] = pick
        w.step("MR 001 Random assignment", f"{q.name(st, did)} is assigned to attack {q.name(st, pick)}"
               + (f" (one die over {', '.join(eligible)})" if dice else ""), dice)
    w.set(assigned=assigned, step="deploy", done=())


# -- the start of the Melee Step (MR 8.4.1, 8.4.2) -----------------------------------------------


def start_melee(w: Work) -> None:
    st = w.view()
    ridden = False
    for d in list(w.dens.values()):
        if d.horse is None or not d.alive or not d.horse.alive:
            continue
        ridden = True
        if q.is_hireling(d):
            side = "gallop" if d.horse.side == "trot" else "trot"
        else:
            side = "gallop"
        if side != d.horse.side:
            w.den(d.id, horse=replace(d.horse, side=side))
    if ridden:  # (no line for horses when no native rides one)
        w.step("MR 8.4.1", "native horses of unhired natives turn dark (galloping) side up; hired natives' horses "
               "turn over")
    where = q.sheets(w.view())
    for owner in sorted(set(where.values())):
        if owner in w.dens and not q.is_hireling(w.dens[owner]) and where.get(owner) == owner:
            top = q.stack_top(w.view(), owner, where)
            if top:
                w.step("MR 8.4.2", f"{owner} on its own sheet attacks {top}, the attacker most recently put there")
    pool = sorted(q.participants(st))
    order: list[str] = []
    dice: list[str] = []
    i = 0
    while pool:
        if len(pool) == 1:
            order.append(pool.pop())
            break
        i += 1
        label = f"r{st.round}/attention/{i}"
        face = w.roll(label, f"1d{len(pool)}", "Attention chit drawn", "")[0]
        order.append(pool.pop(face - 1))
        dice.append(label)
    w.step("MR 8.4.2", "Attention chits drawn: " + (", ".join(order) or "none"), tuple(dice))
    w.set(attention=tuple(order), step="targets", done=())


# -- the reveal (MR 8.4.5) ---------------------------------------------------------------


def reveal(w: Work) -> None:
    """All sides have played: show the plays and cancel the illegal ones (MR 8.4.5)."""
    st = w.view()
    used = {k: tuple(v) for k, v in st.used.items()}
    cancelled = dict(st.cancelled)
    for cid in q.participants(st):
        c = w.chars[cid]
        p = st.plays.get(cid, Plays())
        parts = []
        if c.form is not None:  # transmorphized: the monster's values (MR 8.4.7)
            if p.attack:
                parts.append(f"{DIRS[p.attack]} as {c.form.name}"
                             + (f", {c.form.parts[0].name} {DIRS[p.part_attack or p.attack]}" if c.form.parts else ""))
            if p.maneuver:
                parts.append(f"{MANEUVERS[p.maneuver]} as {c.form.name}")
        elif p.attack and p.fight:
            parts.append(f"{DIRS[p.attack]} with {p.fight} {c.chit(p.fight).label}")  # type: ignore[union-attr]
        elif p.fight:
            parts.append(f"Fight chit {p.fight} to {p.alert_only or 'alert'} the weapon")
        elif p.attack:  # no Fight chit: the attack of the Attack spell he cast (MR 8.4.4)
            from combatlog.rulesets.magic_realm.spells import working_spell

            s = working_spell(st, cid)
            by = "" if s is None else f" (cast with the {s.item})" if s.item else f" (cast with {s.chit})"
            parts.append(f"{DIRS[p.attack]} with " + (f"the {s.spell}{by}" if s is not None else "no Fight chit"))
        if p.maneuver and c.form is None:
            parts.append(f"{MANEUVERS[p.maneuver]} with " + (f"the horse ({p.horse})" if p.horse else
                                                           f"{p.move} {c.chit(p.move).label}"))  # type: ignore[union-attr]
        if p.shield:
            parts.append(f"shield in box {p.shield} ({BOXES[p.shield]})")
        if p.void:
            parts.append("void plays with " + ", ".join(f"{i} {c.chit(i).label}" for i in p.void))  # type: ignore[union-attr]
        w.step("MR 8.4.5", f"{c.name} reveals: " + ("; ".join(parts) or "no attack, no maneuver"))
        for chit_id in p.void:  # MR 8.4.5: illegal plays are cancelled, their chits still count (sealed.apply_revealed)
            used[cid] = used.get(cid, ()) + (chit_id,)
            w.step("MR 8.4.5", f"{c.name}'s void play with {c.chit(chit_id).label} is cancelled; the chit still "  # type: ignore[union-attr]
                   "counts toward his effort limit and fatigue")
        for kind, chit_id, why, _rule in q.cancellations(st, c, p.fight, p.move):
            used[cid] = used.get(cid, ()) + (chit_id,)
            if why:
                cancelled[f"{cid}/{kind}"] = why
                w.step("MR 8.4.5", f"{c.name}'s {kind} with {c.chit(chit_id).label} is cancelled: {why}; "  # type: ignore[union-attr]
                       "the chit still counts")
    w.set(used=used, cancelled=cancelled)


# -- resolution (MR 8.4.6-8.4.9) ---------------------------------------------------------------


def resolve(w: Work) -> None:
    where = q.sheets(w.view())
    pos = initial_positions(w, where)
    reposition_and_tactics(w, pos, where)
    attacks = build_attacks(w, pos, where) + attack_spells(w, pos)
    decide_hits(w, attacks, pos)
    results, tremendous, kills = inflict(w, attacks)
    credit(w, kills)
    melee = record(pos, attacks, results, tremendous)
    fatigue_step(w)  # (first: it reads none of the melee, and its view is the state itself if nothing changed yet)
    w.set(melee=melee, round_kills=tuple(kills),
          resolved=w.get("resolved") + (RoundAttacks(round=w.get("round"), attacks=melee.attacks),))
    advance(w)


def fatigue_step(w: Work) -> None:
    """MR 001 Fatigue Step: "Each character pays for his fatigue and wounds": those taking part, and
    those who ran or flew away this round (the chits they played count, MR 8.4.5 effort limit "per
    round of combat"; MR tables: Fatigue Step "running-away fatigue")."""
    st = w.view()
    due: dict[str, int] = {}
    for cid in sorted(set(q.participants(st)) | set(st.used) | {c for c in st.characters if st.characters[c].wounds}):
        c = w.chars[cid]
        if not c.alive:
            continue
        n, _types = owed(c, st.used.get(cid, ()))
        due[cid] = n
        if n or c.wounds:
            w.step(FATIGUE_RULE, f"{c.name} owes {n} asterisk(s) of fatigue and takes {c.wounds} wound(s)")
        if n:
            w.set(active_round=True)
    w.set(owed=due, step="fatigue", done=())


def apply_fatigue(w: Work, cid: str, fatigue: tuple[str, ...], change: str, wounds: tuple[str, ...],
                  shortfall: int) -> None:
    c = w.chars[cid]
    chits = {ch.id: ch for ch in c.chits}
    for i in fatigue:
        chits[i] = replace(chits[i], status="fatigued")
    if change:
        chits[change] = replace(chits[change], status="active")
    for i in wounds:
        chits[i] = replace(chits[i], status="wounded")
    after = tuple(chits[ch.id] for ch in c.chits)
    total = c.wounds + shortfall
    text = f"{c.name} fatigues {', '.join(fatigue) or 'nothing'}" + (f", makes change with {change}" if change else "")
    if wounds:
        text += f", wounds {', '.join(wounds)}"
    w.step(FATIGUE_RULE, text)
    if total and dies_of_wounds(c.chits, total):
        # MR tables: Fatigue Step: wounds exceeding the remaining chits kill ("wounded to death").
        # The round's wounds are spent in this very step, so none stay pending on the dead
        # character (wounds=0). Found by the property test, seeds 169 (two wounds, one unwounded
        # chit left) and 261 (one wound, every chit already wounded): both kept wounds on a corpse.
        w.char(cid, chits=tuple(replace(ch, status="wounded") for ch in after), alive=False, wounds=0,
               death=f"wounded to death in round {w.get('round')}")
        w.step(FATIGUE_RULE, f"{c.name} has more wounds than unwounded chits: wounded to death")
        killer = c.last_harmed_by
        if killer:
            credit(w, [(cid, killer, -1)])
    else:
        w.char(cid, chits=after, wounds=0)
    w.set(done=w.get("done") + (cid,))


def end_round(w: Work) -> None:
    """Fatigue Step end, Tremendous monsters, disengagement and the end-of-combat test."""
    st = w.view()
    pinned = dict(st.pinned)
    melee = st.melee or Melee()
    transmorphized_flips(w, melee)
    for mon, tgt in sorted(melee.hit_by_tremendous.items()):
        if mon in st.characters:
            continue
        if q.alive(st, mon) and q.alive(st, tgt) and mon not in pinned:
            pinned[mon] = tgt
            w.den(mon, side="dark")
            w.step("MR 8.4.7", f"{mon} hit {tgt}, who lives: it turns red side up and holds {tgt}")
    for mon, tgt in list(pinned.items()):
        if not q.alive(w.view(), mon) or not q.alive(w.view(), tgt):
            del pinned[mon]
            if q.alive(w.view(), mon):
                w.den(mon, side="light")
                w.step("MR 8.4.7", f"{mon}'s target is gone: it turns red side down")
    st = w.view()
    kept = {d: t for d, t in st.assigned.items()
            if q.alive(st, d) and t in st.characters and q.alive(st, t)}
    # A hired or controlled red-side-up Tremendous monster stays deployed against its victim (MR 8.4.7).
    held = {m: t for m, t in pinned.items() if m in w.dens and q.is_hireling(w.dens[m])}
    kept.update({m: t for m, t in pinned.items() if m not in held})
    dropped = sorted(d for d in st.assigned if d not in kept and q.alive(st, d))
    if dropped:
        w.step("MR 001 Disengagement", "become unassigned: " + ", ".join(dropped))
    for cid, how in st.weapon_flip.items():
        if cid in w.chars and w.chars[cid].weapon is not None:
            flip_weapon(w, cid, how == "alert", "Fight chit played without a target")
    for cid in list(w.chars):
        if w.chars[cid].wounds:
            w.char(cid, wounds=0)
    spells_end_of_round(w)
    st = w.view()
    if st.melee is not None:
        w.set(last_melee=LastMelee(round=st.round, melee=st.melee, plays=dict(st.plays), targets=dict(st.targets),
                                   cancelled=dict(st.cancelled)))
    active = st.active_round
    quiet = 0 if active else st.quiet_rounds + 1
    w.step(END_RULE, f"round {st.round} " + ("had harm, fatigue or spells" if active else
                                             f"had no harm, fatigue or spells ({quiet} in a row)"))
    fighting = q.participants(st)  # (asked before the reset below, which changes no piece: no view to make after it)
    w.set(pinned=pinned, assigned=kept, deployed=held, deploy_order=tuple(sorted(held)), charges={}, lured={}, actions={}, done=(),
          attention=(), targets={}, positions={}, plays={}, owed={}, used={}, cancelled={}, weapon_flip={},
          active_round=False, quiet_rounds=quiet, round_kills=())
    if not fighting:
        w.set(ended=True, end_reason="no character takes part any more", step="over")
    elif quiet >= 2 and not pinned and not any(c.holding for c in st.characters.values()):
        w.set(ended=True, end_reason="two consecutive rounds without harm, fatigue or spells", step="over")
    elif quiet >= 2:
        w.step(END_RULE, "combat cannot end while a Tremendous monster is red side up")
    if w.get("ended"):
        w.step(END_RULE, f"combat ends: {w.get('end_reason')}")
        return
    start_round(w, st.round + 1)


def transmorphized_flips(w: Work, melee: Melee) -> None:
    """MR 8.4.7: characters transmorphized into Tremendous monsters "must be played red-side-down initially,
    and flip red-side-up if their body, head, or club hit. Unless otherwise specified, while red-side up they
    stay assigned to their target until either they or their target are killed."

    Decision: as for Tremendous monsters (MR 8.4.7, MR 001 Fatigue Step), the flip happens at the end of the
    round and only if the target still lives; when the target is killed (or leaves) he turns red side down.
    """
    st = w.view()
    for cid, tgt in sorted(melee.hit_by_tremendous.items()):
        c = w.chars.get(cid)
        if c is None or c.form is None or c.holding or not q.alive(st, cid) or not q.alive(st, tgt):
            continue
        w.char(cid, form_side="dark", holding=tgt)
        w.step("MR 8.4.7", f"{c.name} (transmorphized into {c.form.name}) hit {q.name(st, tgt)}, who lives: he "
               f"turns red side up and stays assigned to {tgt} until he or it is killed")
    for cid, c in list(w.chars.items()):
        if c.holding and (not q.alive(w.view(), c.holding) or not c.alive):
            w.char(cid, form_side="light", holding="")
            if c.alive:
                w.step("MR 8.4.7", f"{c.name}'s target {c.holding} is gone: he turns red side down")


def start_round(w: Work, number: int) -> None:
    """Encounter Step: unhired native horses turn walking side up (MR 001)."""
    turned = []
    for d in list(w.dens.values()):
        if d.horse is not None and d.horse.alive and not q.is_hireling(d) and d.horse.side != "trot":
            w.den(d.id, horse=replace(d.horse, side="trot"))
            turned.append(d.id)
    w.set(round=number, step="lure", done=(), melee=None, rolls={})
    w.step("MR 001 Encounter Step", f"round {number} begins" + (
        f": unhired native horses turn walking side up ({', '.join(sorted(turned))})" if turned else ""))
    advance(w)
