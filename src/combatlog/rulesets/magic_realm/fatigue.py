"""The Fatigue Step: asterisks owed, the legal ways to pay them, wounds and death
by wounds (MR 001 Fatigue Step; MR tables: Fatigue Step).
"""

from __future__ import annotations

from itertools import combinations

from combatlog.rulesets.magic_realm.state import Character, Chit

RULE = "MR 001 Fatigue Step / MR tables: Fatigue Step"
KIND = {"MOVE": "MOVE", "DUCK": "MOVE", "FIGHT": "FIGHT", "BERSERK": "FIGHT"}


def owed(c: Character, used: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """Asterisks owed: Move and Fight asterisks played this round minus one free asterisk."""
    played = [ch for ch in c.chits if ch.id in used and ch.action in KIND]
    total = sum(ch.asterisks for ch in played)
    types = tuple(sorted({KIND[ch.action] for ch in played if ch.asterisks}))
    return max(0, total - 1), types


class Option:
    __slots__ = ("fatigue", "change", "shortfall")

    def __init__(self, fatigue: tuple[str, ...], change: str = "", shortfall: int = 0) -> None:
        self.fatigue, self.change, self.shortfall = fatigue, change, shortfall

    def key(self) -> tuple[tuple[str, ...], str]:
        return (tuple(sorted(self.fatigue)), self.change)

    def text(self, c: Character) -> str:
        label = {ch.id: ch.label for ch in c.chits}
        parts = [" + ".join(f"{i} {label[i]}" for i in self.fatigue) or "nothing"]
        if self.change:
            parts.append(f"change: {self.change} {label[self.change]} back to active")
        if self.shortfall:
            parts.append(f"{self.shortfall} more asterisk(s) paid by wounds")
        return "fatigue " + "; ".join(parts)


def options(c: Character, need: int, types: tuple[str, ...]) -> list[Option]:
    """Every legal way to pay ``need`` asterisks with chits of the types played."""
    if need <= 0:
        return [Option(())]
    pool: list[Chit] = [ch for ch in c.chits if ch.status == "active" and ch.asterisks and KIND.get(ch.action) in types]
    exact: list[Option] = []
    change: list[Option] = []
    over: list[Option] = []
    seen: set[tuple[tuple[str, ...], str]] = set()

    def add(bucket: list[Option], opt: Option) -> None:
        labels = (tuple(sorted(_label(c, i) for i in opt.fatigue)), _label(c, opt.change))
        if labels not in seen:  # identical chits give identical choices
            seen.add(labels)
            bucket.append(opt)

    for n in range(1, len(pool) + 1):
        for combo in combinations(pool, n):
            total = sum(ch.asterisks for ch in combo)
            ids = tuple(ch.id for ch in combo)
            if total == need:
                add(exact, Option(ids))
            elif total == need + 1:
                kinds = {KIND[ch.action] for ch in combo}
                returnable = [ch for ch in c.chits if ch.status == "fatigued" and ch.asterisks == 1
                              and KIND.get(ch.action) in kinds]
                if any(ch.asterisks > 1 for ch in combo):  # change is made for a chit worth two
                    for r in returnable:
                        add(change, Option(ids, change=r.id))
                add(over, Option(ids))
    if exact or change:
        return exact + change
    if over:
        return over
    total = sum(ch.asterisks for ch in pool)
    return [Option(tuple(ch.id for ch in pool), shortfall=need - total)]


def _label(c: Character, cid: str) -> str:
    return next((ch.label for ch in c.chits if ch.id == cid), "")


def check_wounds(c: Character, after: tuple[Chit, ...], combat: int, shortfall: int,
                 chosen: tuple[str, ...]) -> str:
    """'' if ``chosen`` is a legal choice of wounded chits, else why not.

    Wounds from harm fall on active chits while any remain; asterisks that
    could not be paid wound fatigued chits first (MR tables: Fatigue Step).
    """
    active = [ch for ch in after if ch.status == "active"]
    tired = [ch for ch in after if ch.status == "fatigued"]
    total = combat + shortfall
    must = min(total, len(active) + len(tired))
    if len(set(chosen)) != len(chosen):
        return "a chit can be wounded only once"
    if len(chosen) != must:
        return f"choose {must} chit(s) to wound (wounds: {combat} from harm, {shortfall} from unpaid asterisks)"
    by_id = {ch.id: ch for ch in after}
    for i in chosen:
        if i not in by_id or by_id[i].status == "wounded":
            return f"{i} is not an unwounded chit of {c.name}"
    n_tired = sum(1 for i in chosen if by_id[i].status == "fatigued")
    n_active = len(chosen) - n_tired
    if n_tired < min(shortfall, len(tired)):
        return "unpaid asterisks wound fatigued chits first"
    if n_active < min(combat, len(active)):
        return "wounds fall on active chits while any remain"
    return ""


def dies_of_wounds(after: tuple[Chit, ...], total: int) -> bool:
    """More wounds than unwounded chits: the character is wounded to death."""
    return total > sum(1 for ch in after if ch.status != "wounded")
