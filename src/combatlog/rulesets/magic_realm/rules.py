"""Queries over the state: who takes part, who is on which Melee Section, who attacks whom.

Sheets (MR 8.4.2): every character owns his Melee Section; a hireling being
attacked by denizens owns one (he is its defender); an uncontrolled denizen
attacked by hirelings owns one. A hireling deployed against a denizen that is
already on a section joins that section.
"""

from __future__ import annotations

from combatlog.rulesets.magic_realm.data import letter
from combatlog.rulesets.magic_realm.state import Character, Denizen, MRState

SHEET_RULE = "MR 8.4.2"


def alive_char(state: MRState, cid: str) -> bool:
    c = state.characters.get(cid)
    return c is not None and c.alive


def in_clearing(state: MRState) -> list[str]:
    """Characters alive in the clearing (MR 001: only they take part in person)."""
    return sorted([c.id for c in state.characters.values() if c.alive and c.present])  # (a list: faster to sort)


def hirelings_of(state: MRState, cid: str) -> list[str]:
    return sorted([d.id for d in state.denizens.values() if d.owner == cid and d.alive and not d.rebel])


def participants(state: MRState) -> list[str]:
    """Characters in the clearing and characters with hirelings there (MR 8.4.2)."""
    return sorted([c.id for c in state.characters.values()
                   if c.alive and (c.present or hirelings_of(state, c.id))])


def is_hireling(d: Denizen) -> bool:
    return bool(d.owner) and not d.rebel


def alive(state: MRState, pid: str) -> bool:
    if pid in state.characters:
        return state.characters[pid].alive and state.characters[pid].present
    d = state.denizens.get(pid)
    return d is not None and d.alive


def controller(state: MRState, pid: str) -> str:
    """The character who plays for a piece ('' for uncontrolled denizens)."""
    if pid in state.characters:
        return pid
    d = state.denizens.get(pid)
    if d is None:
        return ""
    if d.parent:
        return controller(state, d.parent)
    return d.owner if is_hireling(d) else ""


def player_of(state: MRState, pid: str) -> str:
    cid = controller(state, pid)
    return state.characters[cid].player if cid else ""


def name(state: MRState, pid: str) -> str:
    if pid in state.characters:
        return f"{state.characters[pid].name} ({pid})" if state.characters[pid].name.lower() != pid else \
            state.characters[pid].name
    d = state.denizens.get(pid)
    if d is not None:
        return f"{pid} ({d.stats.name})"
    for d in state.denizens.values():
        if d.horse is not None and d.horse.id == pid:
            return f"{pid} ({d.horse.name})"
    return pid


def sheets(state: MRState) -> dict[str, str]:
    """Piece -> the owner of the Melee Section it is on (MR 8.4.2)."""
    out: dict[str, str] = {}
    for did, tid in state.assigned.items():
        if alive(state, did) and alive(state, tid):
            out[did] = tid
            if tid in state.denizens:
                out[tid] = tid  # a hireling attacked by denizens defends his own section
    for hid in state.deploy_order:
        did = state.deployed.get(hid)
        if did is None or not alive(state, hid) or not alive(state, did):
            continue
        if did not in out:
            out[did] = did  # the denizen defends its own section
        out[hid] = out[did]
    for d in state.denizens.values():
        if d.parent and d.parent in out and d.alive:
            out[d.id] = out[d.parent]  # heads and clubs go with their monster
    return out


def on_sheet(state: MRState, owner: str, where: dict[str, str] | None = None) -> list[str]:
    where = where if where is not None else sheets(state)
    return sorted(p for p, s in where.items() if s == owner and p != owner)


def sheet_kind(state: MRState, owner: str) -> str:
    if owner in state.characters:
        return "character"
    return "hireling" if is_hireling(state.denizens[owner]) else "denizen"


def stack_top(state: MRState, owner: str, where: dict[str, str]) -> str:
    """The attacker most recently put on an uncontrolled denizen's own section (MR 8.4.2)."""
    for hid in reversed(state.deploy_order):
        if where.get(hid) == owner and alive(state, hid) and hid in state.deployed:
            return hid
    return ""


def target_of(state: MRState, pid: str, where: dict[str, str] | None = None) -> str:
    """Whom a piece attacks this round ('' for nobody)."""
    where = where if where is not None else sheets(state)
    if pid in state.characters:
        return state.targets.get(pid, "")
    d = state.denizens.get(pid)
    if d is None or not d.alive:
        return ""
    if d.parent:
        return target_of(state, d.parent, where)
    if d.id in state.pinned:
        return state.pinned[d.id]
    sheet = where.get(pid)
    if sheet is None:
        return ""
    if is_hireling(d):
        return state.targets.get(pid, "") if sheet == pid else state.deployed.get(pid, "")
    if sheet == pid:
        return stack_top(state, pid, where)
    return sheet


def items_weight(c: Character) -> int:
    """The heaviest item carried, active or not (MR 8.4.5 strength restrictions)."""
    weights = [w.weight for w in c.weapons] + [a.weight for a in c.armor if a.condition != "destroyed"]
    return max(weights, default=0)


def red_on_sheet(state: MRState, cid: str) -> str:
    """A red-side-up Tremendous monster holding this character, if any (MR 8.4.7)."""
    for mid, tid in state.pinned.items():
        if tid == cid and alive(state, mid):
            return mid
    return ""


def effort_used(state: MRState, cid: str) -> int:
    c = state.characters[cid]
    used = set(state.used.get(cid, ()))
    # Boots/Gloves cards and Fly chits count toward the effort limit with the asterisks the set-up gives
    # them (MR 8.4.5 effort limit applies to every chit played).
    return sum(ch.asterisks for ch in c.chits + c.extras if ch.id in used)


def unassigned_hirelings(state: MRState, cid: str) -> list[str]:
    where = sheets(state)
    return [h for h in hirelings_of(state, cid) if h not in where]


STRENGTH = "MR 8.4.5 strength restrictions"
EFFORT = "MR 8.4.5 effort limit"


def cancellations(state: MRState, c: Character, fight: str, move: str) -> list[tuple[str, str, str, str]]:
    """The plays the rules cancel when the plays are revealed (MR 8.4.5: "Illegal plays are cancelled
    and have no effect"): ``(kind, chit id, why, rule)`` for each chit played, in the order the effort
    limit counts them (option ``effort_order``), ``why`` empty when the play stands.

    One function for the reveal (``rounds.reveal``) and for the check before sealing (``sealed.check_orders``),
    so a player is warned of exactly what the reveal would cancel. A Fight chit must be at least as strong
    as the active weapon is heavy, a Move chit (or Boots card) at least as strong as the heaviest item
    carried; every chit played, a cancelled one included, counts toward the effort limit of two asterisks."""
    order = [("maneuver", move), ("attack", fight)]
    if state.options.get("effort_order", "maneuver_first") != "maneuver_first":
        order.reverse()
    effort = effort_used(state, c.id)
    out: list[tuple[str, str, str, str]] = []
    for kind, ref in order:
        chit = c.chit(ref) if ref else None
        if chit is None:
            continue
        why, rule = "", ""
        weapon = c.weapon
        if kind == "attack" and weapon is not None and chit.strength < weapon.weight:
            why, rule = f"{chit.label} is weaker than the {weapon.name} ({letter(weapon.weight)})", STRENGTH
        if kind == "maneuver" and chit.strength < items_weight(c):
            why, rule = f"{chit.label} is weaker than the heaviest item carried ({letter(items_weight(c))})", STRENGTH
        effort += chit.asterisks
        if not why and effort > 2:
            why, rule = f"effort limit: {effort} asterisks this round (more than two)", EFFORT
        out.append((kind, chit.id, why, rule))
    return out
