"""The Fatigue Step: asterisks owed, the legal ways to pay them, wounds and death
by wounds (MR 001 Fatigue Step; MR tables: Fatigue Step).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from itertools import combinations

from combatlog.rulesets.magic_realm.state import Character, Chit

RULE = "MR 001 Fatigue Step / MR tables: Fatigue Step"
KIND = {"MOVE": "MOVE", "DUCK": "MOVE", "FIGHT": "FIGHT", "BERSERK": "FIGHT"}


def owed(c: Character, used: tuple[str, ...]) -> tuple[int, dict[str, int]]:
    """Asterisks owed (Move and Fight asterisks played this round minus one free asterisk) and the
    asterisks played of each type, which bound what that type pays (MR tables: Fatigue Step)."""
    played: dict[str, int] = {}
    for ch in c.chits:
        if ch.id in used and ch.action in KIND and ch.asterisks:
            played[KIND[ch.action]] = played.get(KIND[ch.action], 0) + ch.asterisks
    return max(0, sum(played.values()) - 1), played


def played_text(played: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(played.items())) or "none"


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


class _LastOptions(threading.local):
    # (character, need, played, options) of the last call: the fold of a fatigue payment and the decision that
    # made it ask the same question of the same character object (verify, the write path), and the answer
    # enumerates every combination of his chits. Held, so the character's id is not reused; a character
    # equal in content but another object is asked afresh.
    last: tuple[Character, int, dict[str, int], tuple[Option, ...]] | None = None


_last_options = _LastOptions()


def options(c: Character, need: int, played: Mapping[str, int]) -> list[Option]:
    """``legal_options``, the last answer given again when asked of the same character object (Options are
    never changed by their readers)."""
    last = _last_options.last
    if last is not None and last[0] is c and last[1] == need and last[2] == played:
        return list(last[3])
    found = legal_options(c, need, played)
    _last_options.last = (c, need, dict(played), tuple(found))
    return found


def legal_options(c: Character, need: int, played: Mapping[str, int]) -> list[Option]:
    """Every legal way to pay ``need`` asterisks, each type with its own chits.

    MR tables: Fatigue Step: "MOVE asterisks paid with MOVE chits, FIGHT with FIGHT chits". So the
    asterisks a type pays never exceed the asterisks of that type played this round (``played``);
    the free asterisk comes off either type. A chit's asterisks count fully: a payment may go one
    asterisk over (over the total owed, or over its type's share), and then change is made by
    returning a fatigued one-asterisk chit of the type that went over. Preference, as before:
    exact payments and payments with change; else one asterisk lost (no change to be had); else the
    payments leaving the fewest asterisks unpaid (paid by wounds), losing the fewest (change is made
    there too when it can be).

    Hand check (White Knight, MOVE H4** played, FIGHT T5* cancelled, MR 8.4.5: "their effort
    asterisks do count towards ... fatigue"): played MOVE 2, FIGHT 1, owed 3 - 1 = 2; FIGHT H4**
    pays at most 1 (its type's share), so it cannot pay both: MOVE H4**, or two one-asterisk MOVE
    chits, or one MOVE * and one FIGHT *.
    """
    if need <= 0:
        return [Option(())]
    caps = {k: n for k, n in played.items() if n > 0}
    pool: list[Chit] = [ch for ch in c.chits if ch.status == "active" and ch.asterisks and KIND.get(ch.action) in caps]
    tired = [ch for ch in c.chits if ch.status == "fatigued" and ch.asterisks == 1 and KIND.get(ch.action) in caps]
    found: dict[tuple[int, int], list[Option]] = {}  # (asterisks unpaid, asterisks lost) -> options
    seen: set[tuple[tuple[str, ...], str]] = set()
    # each chit's label, the first of an id as a scan would find it (asked for every chit of every combination)
    label = {ch.id: ch.label for ch in reversed(c.chits)}

    def paid(gross: Mapping[str, int]) -> tuple[int, int]:
        """(asterisks unpaid, asterisks fatigued that pay nothing) for gross asterisks per type."""
        useful = min(need, sum(min(n, caps[k]) for k, n in gross.items()))
        return need - useful, sum(gross.values()) - useful

    def add(grade: tuple[int, int], opt: Option) -> None:
        labels = (tuple(sorted(label.get(i, "") for i in opt.fatigue)), label.get(opt.change, ""))
        if labels not in seen:  # identical chits give identical choices
            seen.add(labels)
            found.setdefault(grade, []).append(opt)

    for n in range(len(pool) + 1):
        for combo in combinations(pool, n):
            gross: dict[str, int] = {}
            for ch in combo:
                gross[KIND[ch.action]] = gross.get(KIND[ch.action], 0) + ch.asterisks
            ids = tuple(ch.id for ch in combo)
            unpaid, lost = paid(gross)
            for r in tired if lost else ():  # change for a chit worth two, in the type that went over
                kind = KIND[r.action]
                if any(KIND[ch.action] == kind and ch.asterisks > 1 for ch in combo) \
                        and paid({**gross, kind: gross[kind] - 1}) == (unpaid, lost - 1):
                    add((unpaid, lost - 1), Option(ids, change=r.id, shortfall=unpaid))
            add((unpaid, lost), Option(ids, shortfall=unpaid))
    return found[min(found)]


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
