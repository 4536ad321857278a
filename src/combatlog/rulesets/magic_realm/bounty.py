"""Fame, notoriety and gold bounties (MR tables: Fame, notoriety and gold bounties).

Kills by a character are ordered from the highest notoriety down and the n-th
kill of the combat is worth n times its fame and notoriety; hireling kills go
to the owner without the multiplier; a victim killed by simultaneous attacks
is shared equally (kept as exact fractions).
"""

from __future__ import annotations

from fractions import Fraction

from combatlog.rulesets.magic_realm import rules as q
from combatlog.rulesets.magic_realm.state import LedgerEntry, frac, pair, show_frac
from combatlog.rulesets.magic_realm.work import Work

RULE = "MR tables: Fame, notoriety and gold bounties"


def value_of(w: Work, victim: str) -> tuple[Fraction, Fraction, Fraction, str]:
    """(fame, notoriety, gold, what) a victim is worth."""
    if victim in w.chars:
        c = w.chars[victim]
        return Fraction(0), frac(c.notoriety), frac(c.gold), c.name
    d = w.dens.get(victim)
    if d is not None:
        return Fraction(d.stats.fame), Fraction(d.stats.notoriety), Fraction(d.stats.gold), d.stats.name
    for x in list(w.dens.values()) + [None]:
        if x is not None and x.horse is not None and x.horse.id == victim:
            return Fraction(0), Fraction(0), Fraction(x.horse.price), x.horse.name
    for c in w.chars.values():
        if c.horse is not None and c.horse.id == victim:
            return Fraction(0), Fraction(0), Fraction(c.horse.price), c.horse.name
    return Fraction(0), Fraction(0), Fraction(0), victim


def credit(w: Work, kills: list[tuple[str, str, int]]) -> None:
    """Pay the bounties for ``kills`` [(victim, killer, simultaneous group)]."""
    if not kills:  # nothing to pay, nor to count (setting the counts unchanged would make the next view a copy)
        return
    st = w.view()
    groups: dict[tuple[str, int], list[str]] = {}
    for victim, killer, g in kills:
        ks = groups.setdefault((victim, g), [])
        if killer not in ks:
            ks.append(killer)
    per_char: dict[str, list[tuple[str, int, str]]] = {}
    for (victim, _g), killers in groups.items():
        for killer in killers:
            if killer in w.chars:
                per_char.setdefault(killer, []).append((victim, len(killers), ""))
                continue
            owner = q.controller(st, killer)
            if owner:
                per_char.setdefault(owner, []).append((victim, len(killers), killer))
    counts = dict(w.get("kills"))
    for cid in sorted(per_char):
        entries = per_char[cid]
        own = sorted((e for e in entries if not e[2]), key=lambda e: -value_of(w, e[0])[1])
        for victim, shares, _ in own:
            fame, noto, gold, what = value_of(w, victim)
            if not _individual(w, victim):
                # Decision: a horse pays its gold only and is not counted as a kill for the multiplier.
                _pay(w, cid, Fraction(0), Fraction(0), gold / shares, f"killed {what} ({victim}): gold only"
                     + (f", shared by {shares}" if shares > 1 else ""))
                continue
            n = counts.get(cid, 0) + 1
            counts[cid] = n
            _pay(w, cid, fame * n / shares, noto * n / shares, gold / shares,
                 f"kill #{n} of the combat: {what} ({victim}) fame {fame} x{n}, notoriety {noto} x{n}, gold {gold}"
                 + (f", shared by {shares}" if shares > 1 else ""))
        for victim, shares, hireling in (e for e in entries if e[2]):
            fame, noto, gold, what = value_of(w, victim)
            _pay(w, cid, fame / shares, noto / shares, gold / shares,
                 f"{hireling} (hireling) killed {what} ({victim}): credited to the owner without multiplier"
                 + (f", shared by {shares}" if shares > 1 else ""))
    w.set(kills=counts)


def _pay(w: Work, cid: str, fame: Fraction, noto: Fraction, gold: Fraction, why: str, rule: str = RULE) -> None:
    c = w.chars[cid]
    w.char(cid, fame=pair(frac(c.fame) + fame), notoriety=pair(frac(c.notoriety) + noto),
           gold=pair(frac(c.gold) + gold))
    entry = LedgerEntry(round=w.get("round"), who=cid, fame=pair(fame), notoriety=pair(noto), gold=pair(gold),
                        why=why, rule=rule)
    w.ledger.append(entry)
    w.step(rule, f"{c.name}: fame {show_frac(entry.fame)}, notoriety {show_frac(entry.notoriety)}, "
           f"gold {show_frac(entry.gold)} ({why})")


def _individual(w: Work, pid: str) -> bool:
    return pid in w.chars or pid in w.dens


def treachery_loss(w: Work, cid: str, rebels: list[str]) -> None:
    """The character loses fame equal to each rebel's notoriety bounty (MR 8.4.2 treachery)."""
    loss = sum((Fraction(w.dens[r].stats.notoriety) for r in rebels), Fraction(0))
    _pay(w, cid, -loss, Fraction(0), Fraction(0), f"treachery: {', '.join(rebels)} rebel", "MR 8.4.2")
