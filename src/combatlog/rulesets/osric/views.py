"""OSRIC views: the combatant table, the segment timeline, pending decisions, summaries."""

from __future__ import annotations

from typing import Any

from combatlog.errors import InvalidCommand
from combatlog.events.base import Event
from combatlog.events.core import OrdersRevealed
from combatlog.rulesets.base import Pending
from combatlog.rulesets.osric import events as e
from combatlog.rulesets.osric import attacks as atk
from combatlog.rulesets.osric import rules as r
from combatlog.rulesets.osric.declare import SEALED, caller, hidden, must_declare, sealed_required, step_name, step_round
from combatlog.rulesets.osric.entries import declares
from combatlog.rulesets.osric.evolve import DECLARE, ROUND, SURPRISE, describe_declaration
from combatlog.rulesets.osric.state import LATE, NORMAL, OsricState, segment_of, tick


def status_of(s: OsricState, name: str) -> str:
    live = s.live[name]
    if live.dead:
        return "dead"
    if live.out:
        return live.out
    if live.hp <= 0:
        return "unconscious" + ("" if live.aided else ", bleeding")
    if live.restrained_by:
        return f"grappled by {live.restrained_by}"
    if live.morale in ("withdraw", "flee"):
        return {"withdraw": "withdrawing", "flee": "routed"}[live.morale]
    return "ok"


def casting_of(s: OsricState, name: str) -> dict[str, Any] | None:
    cast = s.live[name].casting
    if cast is None:
        return None
    return {"spell": cast.spell, "segments": cast.casting, "status": cast.status, "round": cast.round,
            "begun_segment": segment_of(cast.start, cast.round) if cast.casting else 0,
            "goes_off": _when(cast.complete, cast.round) if cast.casting else ""}


def _when(t: int, round_no: int) -> str:
    seg = segment_of(t, round_no)
    rnd, seg = (round_no + (seg - 1) // 10, (seg - 1) % 10 + 1) if round_no else (0, seg)
    return f"round {rnd} segment {seg}" + (" (end)" if t % 4 == 2 else "")


def combatant_rows(s: OsricState, viewer: str | None = None) -> list[dict[str, Any]]:
    rows = []
    for name, x in s.roster.items():
        live = s.live[name]
        d = s.declaration(name) if s.round and s.phase == "round" and not hidden(s, x.side, s.round, viewer) else None
        rows.append({
            "name": name, "side": x.side, "kind": x.kind,
            "what": f"{x.cls} {x.level}" if x.kind == "character" else f"HD {x.hd}",
            "hp": live.hp, "max_hp": x.max_hp, "ac": x.ac, "status": status_of(s, name),
            "conditions": list(live.conditions), "engaged_with": s.opponents_engaged(name),
            "declared": describe_declaration(d) if d else "", "casting": casting_of(s, name),
            "morale": live.morale, "morale_checks": live.morale_checks, "scarred": live.scarred,
            "surprised_segments": s.surprised.get(name, 0),
        })
    return rows


def timeline(s: OsricState, round_no: int | None = None, viewer: str | None = None) -> list[dict[str, Any]]:
    """The segment timeline: per round, the derived entries grouped by segment (0 = before the segments).
    A side's declarations are left out for a viewer of the other side until every side has declared."""
    rounds: dict[int, dict[int, list[dict[str, Any]]]] = {}
    for entry in s.log:
        if round_no is not None and entry.round != round_no:
            continue
        if entry.side and hidden(s, entry.side, entry.round, viewer):
            continue
        seg = rounds.setdefault(entry.round, {}).setdefault(entry.segment, [])
        seg.append({"seq": entry.seq, "text": entry.text, "rule": entry.rule, "dice": list(entry.dice),
                    "late": entry.late} | ({"data": dict(entry.data)} if entry.data else {}))
    return [{"round": rnd, "segments": [{"segment": sg, "entries": ents} for sg, ents in sorted(segs.items())]}
            for rnd, segs in sorted(rounds.items())]


def attacks(s: OsricState, round_no: int | None = None) -> list[dict[str, Any]]:
    """Every attack roll of the combat (or of one round) as data: who, whom, with what, the d20 roll,
    the bonus, the total against the number needed (and the armour class), hit or miss, the damage,
    and the target's hit points before and after."""
    return [{"seq": x.seq, "round": x.round, "segment": x.segment, "late": x.late,
             **{k: v for k, v in x.data.items() if k != "type"}}
            for x in s.log if x.data.get("type") == "attack_roll" and (round_no is None or x.round == round_no)]


def schedule(s: OsricState) -> list[dict[str, Any]]:
    """Who acts in which segment this round (after initiative)."""
    if s.phase != "round" or not s.initiative:
        return []
    out = []
    for side in s.sides:
        for d in s.declared.get(side, ()):
            seg = segment_of(r.earliest_tick(s, d.who, 1), s.round)
            out.append({"who": d.who, "segment": seg, "action": describe_declaration(d),
                        "late": d.action == "hold"})
    return sorted(out, key=lambda x: (x["segment"], x["late"], x["who"]))


def describe(s: OsricState, viewer: str | None = None) -> dict[str, Any]:
    seg = segment_of(s.cursor, s.round) if s.cursor >= tick(s.round, 1) else 0
    out = {
        "ruleset": "osric", "title": s.title, "round": s.round, "phase": s.phase, "segment": seg,
        "ended": s.ended, "outcome": s.outcome, "options": dict(s.options), "sides": list(s.sides),
        "surprise": {"rolls": dict(s.surprise_rolls), "alert": list(s.surprise_alert), "segments": s.surprise_len},
        "initiative": dict(s.initiative), "schedule": schedule(s),
        "combatants": combatant_rows(s, viewer), "engaged": [list(p) for p in s.engaged],
        "timeline": timeline(s, None, viewer),
        "attacks": attacks(s),
    }
    if s.pinned:  # who plays which side, and the round's sealed declaration step
        step = s.sealed.get(step_name(s.round))
        out["players"] = {side: list(p) for side, p in s.players.items()}
        out["sealed"] = {"step": step_name(s.round), "required": list(step.required) if step else [],
                         "committed": list(step.committed) if step else [],
                         "revealed": sorted(step.orders) if step else []} if s.phase == "round" else None
    return out


def render(s: OsricState, viewer: str | None = None, *, rules: bool = False, round_no: int | None = None) -> str:
    """The table and the open round's timeline; ``rules``: only the timeline (of ``round_no``, else
    every round) with citations and dice (``osric timeline``)."""
    lines = [render_table(s, viewer)] if not rules else []
    for rnd in timeline(s, round_no if rules else s.round, viewer):
        lines.append(f"round {rnd['round']}" if rnd["round"] else "surprise segments")
        for seg in rnd["segments"]:
            tag = f"  seg {seg['segment']:>2}" if seg["segment"] else "  ------"
            for ent in seg["entries"]:
                dice = f"  [{', '.join(ent['dice'])}]" if ent["dice"] else ""
                extra = f"  ({ent['rule']}){dice}" if rules else ""
                lines.append(f"{tag}{'+' if ent['late'] else ' '} {ent['text']}{extra}")
                tag = " " * len(tag)
    return "\n".join(lines)


def render_table(s: OsricState, viewer: str | None = None) -> str:
    """The combatant table with a heading saying where the combat stands."""
    head = s.title or "OSRIC combat"
    if s.ended:
        head += " - ended" + (f": {s.outcome}" if s.outcome else "")
    elif s.phase == "surprise":
        head += f" - surprise segment {segment_of(s.cursor, 0)} of {s.surprise_len}"
    elif s.round:
        head += f" - round {s.round}"
        if s.initiative:
            a, b = s.sides
            seg = segment_of(s.cursor, s.round) if s.cursor >= tick(s.round, 1) else 0
            head += f", segment {seg} ({a} acts in {s.initiative[b]}, {b} in {s.initiative[a]})"
    lines = [head]
    rows = combatant_rows(s, viewer)
    w = max(len(x["name"]) for x in rows)
    lines.append(f"  {'name':<{w}}  {'side':<8} {'what':<14} {'hp':>7}  AC  status / notes")
    for x in rows:
        notes = [x["status"]] + x["conditions"]
        if x["engaged_with"]:
            notes.append("engaged: " + ", ".join(x["engaged_with"]))
        if x["casting"] and x["casting"]["status"] == "casting":
            notes.append(f"casting {x['casting']['spell']} (goes off {x['casting']['goes_off']})")
        if x["declared"] and not s.ended:
            notes.append("declared: " + x["declared"].split(" ", 1)[1])
        lines.append(f"  {x['name']:<{w}}  {x['side']:<8} {x['what']:<14} {x['hp']:>3}/{x['max_hp']:<3}  "
                     f"{x['ac']:>2}  {'; '.join(notes)}")
    return "\n".join(lines)


SIMULTANEOUS = "; struck down in this same segment, its simultaneous blow still lands"


def struck_down_at(s: OsricState, name: str, at: int) -> bool:
    """Struck down (slain, below 1 hp) at tick ``at`` while the timeline is still there: on a tie of
    initiative it still acts then ("damage lands even if one dies", OSRIC Combat: Determine Initiative)."""
    live = s.live[name]
    return not live.out and live.disabled_at == at and s.cursor <= at


def pending(s: OsricState) -> list[Pending]:
    if s.ended:
        return []
    if s.phase == "setup":
        return [Pending(who="gm", what="check surprise (osric surprise) or start round 1 (osric round)",
                        rule=SURPRISE)]
    if s.phase == "surprise":
        seg = segment_of(s.cursor, 0)
        who = [Pending(who=n, what=f"may act in surprise segment {seg} (next attack die "
                                   f"r0/{n}/atk{s.live[n].rolls + 1})" + SIMULTANEOUS * (not s.standing(n)),
                       rule=SURPRISE)
               for n in s.roster if s.surprised.get(n, 0) < seg
               and (s.live[n].routines == 0 or (s.standing(n) and atk.routines_left(s, n)))
               and (s.standing(n) or struck_down_at(s, n, s.cursor))]
        nxt = f"move to segment {seg + 1} (osric segment)" if seg < s.surprise_len else "start round 1 (osric round)"
        return who + [Pending(who="gm", what=nxt, rule=SURPRISE)]
    if s.phase == "between":
        return [Pending(who="gm", what=f"start round {s.round + 1} (osric round) or end the combat", rule=ROUND)]
    if s.pinned and any(must_declare(s, x) for x in s.sides):
        return sealed_pending(s)
    waiting = [x for x in s.sides if x not in s.declared]
    if waiting:
        return [Pending(who=x, what=f"declare spells and general actions for round {s.round} "
                                   f"(osric declare STREAM {x} WHO=ACTION ...)",
                        rule=DECLARE) for x in waiting]
    if not s.initiative:
        return [Pending(who="gm", what=f"roll initiative for round {s.round} (osric initiative; dice "
                                       + ", ".join(f"r{s.round}/initiative/{x}" for x in s.sides) + ")",
                        rule=r.INITIATIVE)]
    return round_pending(s) + [Pending(who="gm", what=f"end round {s.round} (osric end-round) when every action "
                                                      "is resolved", rule=ROUND)]


MELEE_WORDS = ("melee", "unarmed", "grapple")  # declared actions whose attack needs an opponent within reach


def out_of_reach(s: OsricState, n: str) -> str:
    """Why ``n`` has nobody to strike in melee (``attacks.within_reach`` is empty), and what is open to it."""
    barred = [o for o in s.opponents_engaged(n)]
    why = (f"{n} closed this round and may not attack until next round" if (n, "*") in s.no_attack else
           f"{', '.join(barred)} closed with {n} this round: no attack between them until next round" if barred else
           f"{n} is in melee range of no opponent (not within 10 ft)")
    return (f"{why}: it may close with or charge an opponent, or the referee rules the positions (osric engage); "
            "else its players or the referee move the timeline on")


_PASSIVE = ("parry", "set", "none", "continue")  # declared actions nobody is asked to record
_NO_DIE = ("spell", "close", "retreat", "flee", "other", "negotiate")  # declared actions without an attack die


def round_pending(s: OsricState) -> list[Pending]:
    """Who acts next in a round: the declared actions of the earliest segment still due (OSRIC Combat:
    First Party Acts, then Second Party Acts), held actions and extra routines once they may come,
    and negotiations (outside the timeline). A later segment's actions are left out until then."""
    first, _ = r.due_before(s, tick(s.round, 11))
    now = tick(s.round, first) if first else tick(s.round, 11)
    out = []
    for row in schedule(s):
        item = _declared_pending(s, row, now)
        if item is not None:
            out.append(item)
    return out + [x for n in s.roster if (x := _extra_pending(s, n, now)) is not None]


def _declared_pending(s: OsricState, row: dict[str, Any], now: int) -> Pending | None:
    n, action = row["who"], row["action"].split(" ", 1)[1]
    word = action.split(" ")[0]
    live = s.live[n]
    if word in _PASSIVE or live.acted_tick >= tick(s.round, 1):
        return None
    die = "" if word in _NO_DIE else f" (next attack die r{s.round}/{n}/atk{live.rolls + 1})"
    if word == "negotiate":
        return Pending(who=n, what=f"{action} in segment {row['segment']}", rule=r.INITIATIVE)
    if word == "hold":
        return _held_pending(s, n, action, die, now)
    own = tick(s.round, row["segment"])
    if own != now or not r.still_due(s, n):
        return None  # a later segment's action (its side acts second), or one it can no longer take
    simultaneous = not s.standing(n)  # struck down in its own segment: its blow still lands
    if word in MELEE_WORDS and not atk.within_reach(s, n):
        return Pending(who=n, what=f"{action} in segment {row['segment']}, but {out_of_reach(s, n)}", rule=r.MELEE)
    return Pending(who=n, what=f"{action} in segment {row['segment']}{die}" + SIMULTANEOUS * simultaneous,
                   rule=r.INITIATIVE)


def _when_late(s: OsricState, earliest: int) -> tuple[int, str]:
    """Where an action with no fixed moment falls (attacks.action_tick): its earliest tick, or the
    timeline's present (the next segment after an end of segment); (0, "") past the round's end."""
    at = earliest if earliest >= s.cursor else s.cursor if s.cursor % 4 in (NORMAL, LATE) else \
        tick(s.round, segment_of(s.cursor, s.round) + 1)
    if segment_of(at, s.round) > 10:
        return 0, ""
    return at, f"segment {segment_of(at, s.round)}" + ("+" if at % 4 == LATE else "")


def _held_pending(s: OsricState, n: str, action: str, die: str, now: int) -> Pending | None:
    """OSRIC Combat: Hold Initiative: listed once the other side's segment is resolved."""
    if not s.standing(n) or r.unresolved_segment(s, n)[1]:
        return None
    at, where = _when_late(s, r.earliest_tick(s, n, 1))
    if not at or at > now:
        return None
    return Pending(who=n, what=f"{action}: may act from {where}{die}", rule=r.HOLD)


def _extra_pending(s: OsricState, n: str, now: int) -> Pending | None:
    """OSRIC Combat: Determine Initiative (multiple attack routines): the routines a combatant still has
    this round (a fighter's 3/2 or his level against creatures below 1 HD, extra shots, haste), listed
    once the other side's segment is resolved."""
    left = atk.routines_left(s, n) if s.standing(n) else 0
    if not left or r.unresolved_segment(s, n)[1]:
        return None
    live = s.live[n]
    at, where = _when_late(s, r.earliest_tick(s, n, live.routines + 1))
    if not at or at > now:
        return None
    number = live.routines + 1
    return Pending(who=n, what=f"may attack again from {where}: routine {number} of {live.routines + left} "
                               f"(next attack die r{s.round}/{n}/atk{live.rolls + 1})", rule=r.ROUTINES)


def sealed_pending(s: OsricState) -> list[Pending]:
    """Who must commit or reveal the round's sealed declarations (OSRIC Combat: Declare Spells and
    General Actions, sealed by the trust layer)."""
    name = step_name(s.round)
    step = s.sealed.get(name)
    try:
        waiting = step.waiting() if step else [(p, "commit") for p in sealed_required(s, name)]
    except InvalidCommand as exc:
        return [Pending(who="gm", what=exc.message, rule=SEALED)]
    out = []
    for player, what in waiting:
        sides = [x for x in s.sides if caller(s, x) == player and must_declare(s, x)]
        if what == "commit":
            text = (f"seal the declarations of {sides[0]} for round {s.round} (osric declare STREAM {sides[0]} "
                    "WHO=ACTION ... --seal)" if sides else
                    f"commit a nonce to {name} for the round's dice (osric seed STREAM)")
        else:
            text = f"reveal {name} (osric reveal STREAM)"
        out.append(Pending(who=player, what=text, rule=SEALED))
    return out


def summarize(ev: Event) -> str | None:
    match ev:
        case OrdersRevealed() if step_round(ev.step) is not None and ev.orders:
            decls = ev.orders.get("declarations")
            body = "; ".join(f"{d.get('who')} {d.get('action')}" + (f" {d['spell']}" if d.get("spell") else "")
                             for d in decls if isinstance(d, dict)) if isinstance(decls, list) else "?"
            return f"{ev.player} reveals {ev.step} for {ev.orders.get('side')}: {body}"
        case e.SurpriseChecked():
            return "surprise: " + ", ".join([f"{k} {v}" for k, v in ev.rolls.items()] + [f"{a} alert" for a in ev.alert])
        case e.SegmentReached():
            return f"timeline to segment {ev.segment}"
        case e.RoundStarted():
            return f"round {ev.round} begins"
        case e.ActionsForgone():
            return "forgone: " + "; ".join(f"{f.who} {f.action} ({f.why})" for f in ev.forgone)
        case e.RoundEnded():
            return f"round {ev.round} ends"
        case e.ActionsDeclared():
            return f"{declares(ev.side)}: " + "; ".join(describe_declaration(d) for d in ev.declarations)
        case e.InitiativeRolled():
            return "initiative: " + ", ".join(f"{k} {v}" for k, v in ev.rolls.items())
        case e.AttackRolled():
            dmg = f", damage dice {ev.damage}" if ev.damage_label else ""
            return f"seg {ev.segment}: {ev.attacker} {ev.kind} {ev.form} at {ev.target}: d20 {ev.roll}{dmg}"
        case e.CastingBegun():
            return f"seg {ev.segment}: {ev.who} begins casting {ev.spell}"
        case e.SpellDeclined():
            return f"{ev.who} declines the spell"
        case e.Charged():
            return f"seg {ev.segment}: {ev.who} charges {ev.target}"
        case e.Closed():
            return f"seg {ev.segment}: {ev.who} closes with {ev.target}"
        case e.Retreated():
            return f"seg {ev.segment}: {ev.who} retreats"
        case e.Fled():
            return f"seg {ev.segment}: {ev.who} flees"
        case e.DamageApplied():
            return f"{ev.who} takes {ev.amount}" + (f" ({ev.source})" if ev.source else "")
        case e.MoraleChecked():
            return f"{ev.who} morale d100 {ev.roll}"
        case e.CombatEnded():
            return "combat ends" + (f": {ev.outcome}" if ev.outcome else "")
    return None


def weapon_rows() -> list[dict[str, Any]]:
    """The weapon table as data (OSRIC Master and Missile Weapon Tables)."""
    import msgspec

    from combatlog.rulesets.osric.tables import weapon, weapon_names

    return [msgspec.to_builtins(weapon(n)) for n in weapon_names()]


def weapons_text() -> str:
    lines = []
    for w in weapon_rows():
        parts = []
        if w.get("melee"):
            parts.append(f"melee {w['melee'][0]}/{w['melee'][1]}")
        for key in ("thrown", "missile"):
            if w.get(key):
                m = w[key]
                parts.append(f"{key} {m['damage'][0]}/{m['damage'][1]} rate {m['rate']} range {m['increment']} ft")
        if w.get("set"):
            parts.append("set vs charge")
        lines.append(f"  {w['name']:<20} " + "; ".join(parts))
    return "\n".join(lines)
