"""Luck Points (CFI Ch.8 Use Luck Point, a Free Action; the uses are those of CFI Ch.7 Luck Points:
Cheat Fate, Desperate Effort, Mitigate Damage, and Heroic Last Actions).

* Cheat Fate: re-roll, or swap the digits of, any roll one makes (a 75 becomes a 57), or force an
  opponent to re-roll an attack or damage roll made against one. A roll of the open exchange is
  re-rolled in place; a roll of the blow just resolved (location, damage, Endurance, resistances)
  re-derives that blow from the state before it, with the same dice except the one changed.
* Desperate Effort: one more Action Point for someone who has none left.
* Mitigate Damage: a Major Wound just suffered becomes Serious (one HP short of Major).
* Heroic Last Action: a Major-wounded character takes one last Action, then collapses.

Decisions: one Luck Point per combatant per exchange ("only one Luck Point can be used in support
of a particular Action") and one re-roll per roll; a blow stays open to Luck only until the next
command; the attack and defence rolls may be changed after the blow only when they decided no
Special Effects (otherwise before the effects are chosen); a damage re-roll re-rolls every die of
the blow's damage (weapon, Impale's second roll, Damage Modifier); Endurance rolls already made
for a wound stand when Mitigate Damage downgrades it.
"""

from __future__ import annotations

import msgspec

from combatlog.dice.notation import parse_dice
from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.contest import contest
from combatlog.rulesets.classic_fantasy.events import ExchangeResolved, LuckSpent
from combatlog.rulesets.classic_fantasy.outcome import apply_resolved
from combatlog.rulesets.classic_fantasy.rounds import advance
from combatlog.rulesets.classic_fantasy.rules import Roller, Steps, cite, illegal, label, who
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, Condition, Exchange, add_condition, \
    with_combatant

replace = msgspec.structs.replace
CH7 = "CFI Ch.7 Luck Points"
# Rolls made on 1d100, whose digits may be swapped (CFI Ch.7 Cheat Fate).
D100 = {"attack", "defence", "endurance", "bleed", "stun", "knockback", "trip", "disarm", "blind", "obstacle"}


def swapped(value: int) -> int:
    """CFI Ch.7 Cheat Fate: swap the d100's digits (75 -> 57; 05 -> 50; 00 stays 00)."""
    tens, units = divmod(value % 100, 10)
    result = units * 10 + tens
    return 100 if result == 0 else result


def apply_luck(state: CFIState, ev: LuckSpent, roller: Roller, steps: Steps) -> CFIState:
    c = who(state, ev.who)
    kind = ev.roll.strip().lower().replace("_", "-")
    if kind == "heroic":
        return heroic(state, c, steps)
    if c.luck <= 0:
        raise illegal(f"{c.name} has no Luck Points left", "Use Luck Point")
    if ev.swap and kind not in D100:
        raise InvalidCommand(f"--swap swaps the digits of a d100 roll ({', '.join(sorted(D100))})")
    if kind in ("action-point", "desperate-effort"):
        return desperate_effort(state, c, steps)
    if kind == "mitigate":
        return after_blow(state, c, ev, kind, roller, steps)
    if kind in ("attack", "defence") and open_roll(state, c, kind) is not None:
        return in_exchange(state, c, ev, kind, roller, steps)
    return after_blow(state, c, ev, kind, roller, steps)


def spend(state: CFIState, c: Combatant, what: str, steps: Steps) -> CFIState:
    steps.add(cite("Use Luck Point"), f"{c.name} spends a Luck Point ({c.luck} -> {c.luck - 1}): {what}")
    return with_combatant(state, replace(state.combatants[c.name], luck=c.luck - 1))


# -- Cheat Fate in the open exchange ---------------------------------------------------------

def open_roll(state: CFIState, c: Combatant, kind: str) -> Exchange | None:
    """The open (or queued) exchange holding ``c``'s own roll, else the attack made against ``c``."""
    exchanges = ([state.exchange] if state.exchange else []) + list(state.queue)
    for ex in exchanges:
        if kind == "attack" and ex.attack_roll and c.name == ex.attacker:
            return ex
        if kind == "defence" and c.name == ex.target and ex.defence in ("parry", "evade", "brawn"):
            return ex
    for ex in exchanges:
        if kind == "attack" and ex.attack_roll and c.name == ex.target:
            return ex
    return None


def new_roll(state: CFIState, ex: Exchange, c: Combatant, kind: str, old: int, swap: bool, roller: Roller,
             steps: Steps, forced: bool) -> int:
    if swap:
        roll = swapped(old)
        steps.add("CFI Ch.7 Cheat Fate", f"{c.name} swaps the {kind} roll's digits: {old:02d} -> {roll:02d}")
        return roll
    lbl = label(state, ex.prefix + f"{kind}-luck", ex.n)
    _f, roll = roller.roll(lbl, "1d100", f"{c.name} spends a Luck Point to re-roll", c.name)
    whose = f"forces {ex.attacker} to re-roll the attack" if forced else f"re-rolls the {kind}"
    steps.add("CFI Ch.7 Cheat Fate", f"{c.name} {whose}: {old:02d} -> {roll:02d}", lbl)
    return roll


def in_exchange(state: CFIState, c: Combatant, ev: LuckSpent, kind: str, roller: Roller, steps: Steps) -> CFIState:
    """CFI Ch.7 Cheat Fate on the attack or defence roll of an exchange still open."""
    ex = open_roll(state, c, kind)
    assert ex is not None
    check_once(ex, c, kind)
    forced = kind == "attack" and c.name != ex.attacker
    if forced and ev.swap:
        raise InvalidCommand("an opponent's roll can be forced to a re-roll, not swapped (CFI Ch.7 Cheat Fate)")
    if kind == "attack" and ex.crowd:
        raise IllegalCommand("Decision: a shot into a crowd keeps its roll (the bystander rule hangs on it)",
                             rule=cite("Firing into a Crowd"))
    old = ex.attack_roll if kind == "attack" else ex.defence_roll
    state = spend(state, c, "Cheat Fate", steps)
    roll = new_roll(state, ex, c, kind, old, ev.swap, roller, steps, forced)

    def redo(x: Exchange) -> Exchange:
        x = replace(x, luck_used=x.luck_used + (kind,), luck_by=x.luck_by + (c.name,))
        if kind == "attack":
            x = replace(x, attack_roll=roll, att_level=t.success_level(roll, x.attack_skill))
        else:
            x = replace(x, defence_roll=roll)
        return contest(state, x, steps) if x.defence else x

    # One sweep roll serves every target (CFI Ch.8 Sweep Attacks): a re-roll changes it for all.
    same = (lambda x: x is ex or (kind == "attack" and ex.sweep and x.sweep and x.n == ex.n
                                  and x.attacker == ex.attacker))
    exchange = redo(state.exchange) if state.exchange is not None and same(state.exchange) else state.exchange
    queue = tuple(redo(x) if same(x) else x for x in state.queue)
    return replace(state, exchange=exchange, queue=queue)


def check_once(ex: Exchange, c: Combatant, kind: str) -> None:
    if c.name in ex.luck_by:
        raise illegal(f"{c.name} already spent a Luck Point on this exchange (only one per Action)", "Use Luck Point")
    if kind in ex.luck_used:
        raise illegal(f"the {kind} roll was already re-rolled", "Use Luck Point")


# -- after the blow: Cheat Fate and Mitigate Damage ------------------------------------------------

class Mixed:
    """Replays the blow's recorded dice, except the labels re-rolled (drawn anew as ``<label>-luck``)
    or swapped; labels the first derivation never needed are drawn as usual."""

    def __init__(self, inner: Roller, recorded: dict[str, tuple[int, ...]], reroll: dict[str, str],
                 swap: dict[str, int]) -> None:
        self.inner, self.recorded, self.reroll, self.swap = inner, recorded, reroll, swap
        self.labels = inner.labels

    def roll(self, label: str, notation: str, purpose: str = "", by: str = "") -> tuple[tuple[int, ...], int]:
        if label in self.reroll:
            return self.inner.roll(self.reroll[label], notation, purpose, by)
        if label in self.swap:
            return (self.swap[label],), self.swap[label]
        faces = self.recorded.get(label)
        if faces is not None and len(faces) == parse_dice(notation).count:
            return faces, parse_dice(notation).total(faces)
        return self.inner.roll(label, notation, purpose, by)

    def settle(self) -> None:
        self.inner.settle()


def after_blow(state: CFIState, c: Combatant, ev: LuckSpent, kind: str, roller: Roller, steps: Steps) -> CFIState:
    res = state.undo
    if res is None or res.before.exchange is None:
        raise illegal("Luck changes a roll of the open exchange, or of the blow just resolved before anything "
                      "else happens", "Use Luck Point")
    ex = res.before.exchange
    check_once(ex, c, kind)
    prefix = f"r{res.before.round}/a{ex.n}/{ex.prefix}"
    reroll: dict[str, str] = {}
    swap: dict[str, int] = {}
    rerolled = dict(res.rerolled)
    if kind == "mitigate":
        where = mitigated_location(state, res.before, c, ev.location)
        ex = replace(ex, mitigate=ex.mitigate + (f"{c.name}/{where}",))
        state = spend(state, c, f"Mitigate Damage on the {where}", steps)
    elif kind in ("attack", "defence"):
        if kind in ex.luck_used:
            raise illegal(f"the {kind} roll was already re-rolled", "Use Luck Point")
        if ex.count or ex.effects:
            raise illegal(f"the {kind} roll decided Special Effects: change it before they are chosen",
                          "Use Luck Point")
        mine = (kind == "attack" and c.name in (ex.attacker, ex.target) and ex.attack_roll) or \
               (kind == "defence" and c.name == ex.target and ex.defence in ("parry", "evade", "brawn"))
        if not mine:
            raise illegal(f"{c.name} made no {kind} roll here (nor was it made against them)", "Use Luck Point")
        if kind == "attack" and ex.crowd:
            raise IllegalCommand("Decision: a shot into a crowd keeps its roll", rule=cite("Firing into a Crowd"))
        if ev.swap and kind == "attack" and c.name != ex.attacker:
            raise InvalidCommand("an opponent's roll can be forced to a re-roll, not swapped (CFI Ch.7 Cheat Fate)")
        state = spend(state, c, "Cheat Fate", steps)
        old = ex.attack_roll if kind == "attack" else ex.defence_roll
        roll = new_roll(res.before, ex, c, kind, old, ev.swap, roller, steps, kind == "attack" and c.name != ex.attacker)
        if kind == "attack":
            ex = replace(ex, attack_roll=roll, att_level=t.success_level(roll, ex.attack_skill))
        else:
            ex = replace(ex, defence_roll=roll)
        ex = contest(res.before, replace(ex, luck_used=ex.luck_used + (kind,)), steps)
    else:
        labels = blow_labels(res.dice, prefix, kind)
        if not labels:
            known = sorted({lb[len(prefix):] for lb in res.dice if lb.startswith(prefix)})
            raise InvalidCommand(f"the blow just resolved has no {kind!r} roll (it has: {', '.join(known) or 'none'})")
        owner = {res.by.get(lb, "") for lb in labels}
        forced = kind.endswith("damage") and c.name in (ex.target, ex.params.get("bystander", "")) \
            and owner != {c.name}
        if forced and ev.swap:
            raise InvalidCommand("an opponent's roll can be forced to a re-roll, not swapped (CFI Ch.7 Cheat Fate)")
        if owner != {c.name} and not forced:
            raise illegal(f"{c.name} did not make the {kind} roll (and may only force an attack or damage roll "
                          "made against them)", "Use Luck Point")
        state = spend(state, c, "Cheat Fate", steps)
        for lb in labels:
            n = rerolled.get(lb, 0) + 1
            rerolled[lb] = n
            if ev.swap:
                swap[lb] = swapped(res.dice[lb][0])
                steps.add("CFI Ch.7 Cheat Fate", f"{c.name} swaps the {kind} roll: {res.dice[lb][0]:02d} -> {swap[lb]:02d}")
            else:
                reroll[lb] = f"{lb}-luck" + (str(n) if n > 1 else "")
                steps.add("CFI Ch.7 Cheat Fate", f"{c.name} has {lb[len(prefix):]} re-rolled ({reroll[lb]})", reroll[lb])
    ex = replace(ex, luck_by=ex.luck_by + (c.name,))
    luck = {n: x.luck for n, x in state.combatants.items()}
    base = replace(res.before, exchange=ex)
    if ex.stage != "resolve" and state.revision == "1":
        # version 1 (CFIState.revision): the exchange waits for the Special Effects with the blow's labels kept
        steps.add("CFI Ch.8 Special Effects", "the re-roll wins Special Effects: the exchange waits for them")
        redone = base
    elif ex.stage != "resolve":
        # The blow's dice were drawn when it first resolved, and a label is drawn once: once the Special
        # Effects are chosen, the blow rolls afresh under r<N>/a<K>/luck/... (Decision: the effects change
        # the blow, so its location and damage are rolled again).
        steps.add("CFI Ch.8 Special Effects", "the re-roll wins Special Effects: the exchange waits for them; the "
                  f"blow is then rolled afresh (dice r{res.before.round}/a{ex.n}/{ex.prefix}luck/...)")
        redone = replace(base, exchange=replace(ex, prefix=ex.prefix + "luck/"))
    else:
        steps.add("CFI Ch.7 Cheat Fate", "the blow is re-derived with the changed roll:")
        redone = apply_resolved(base, ExchangeResolved(), Mixed(roller, res.dice, reroll, swap), steps, rerolled)
    combatants = {n: replace(x, luck=luck[n]) for n, x in redone.combatants.items()}
    return replace(redone, combatants=combatants)


def blow_labels(dice: dict[str, tuple[int, ...]], prefix: str, kind: str) -> list[str]:
    """The labels of one named roll of the blow; "damage" is every damage die of the blow."""
    if kind.endswith("damage") and kind != "weapon-damage":
        head = prefix + kind[: -len("damage")]
        names = {head + "damage", head + "damage-2"}
        return sorted(lb for lb in dice if lb in names or (lb.startswith(head + "dm") and
                                                          lb[len(head) + 2:] in ("",) + tuple(f"-{i}" for i in range(2, 9))))
    return [prefix + kind] if prefix + kind in dice else []


def mitigated_location(state: CFIState, before: CFIState, c: Combatant, where: str) -> str:
    """CFI Ch.7 Mitigate Damage: the location must have just taken a Major Wound."""
    fresh = [loc.name for loc in c.locations if loc.wound == "major"
             and (before.combatants[c.name].loc(loc.name) or loc).wound != "major"]
    if where:
        if where not in fresh:
            raise illegal(f"{c.name}'s {where} did not just suffer a Major Wound", "Use Luck Point")
        return where
    if not fresh:
        raise illegal(f"{c.name} suffered no Major Wound in the blow just resolved", "Use Luck Point")
    return fresh[0]


# -- Desperate Effort and Heroic Last Action --------------------------------------------------

def desperate_effort(state: CFIState, c: Combatant, steps: Steps) -> CFIState:
    """CFI Ch.7 Desperate Effort: a character out of Action Points gains one. Decision: it is spent
    before the attack it should answer is declared (a target without AP gets no pause to decide)."""
    if not state.in_round:
        raise illegal("Desperate Effort is spent during a Combat Round", "Use Luck Point")
    if c.ap > 0 or c.out:
        raise illegal(f"{c.name} {'still has Action Points' if c.ap > 0 else 'cannot act'}", "Use Luck Point")
    state = spend(state, c, "Desperate Effort, one more Action Point", steps)
    state = with_combatant(state, replace(state.combatants[c.name], ap=1, delaying=False))
    if not state.turn and state.exchange is None:
        state = advance(state, "", steps)
    return state


def heroic(state: CFIState, c: Combatant, steps: Steps) -> CFIState:
    """CFI Ch.7 Heroic Last Actions: a key character with a Major Wound burns a Luck Point for a
    single last Action (working limbs permitting), then collapses unconscious. Decision: it is taken
    at once, halting the current Turn like an Interrupt, and needs no Action Point of its own."""
    if not state.in_round or state.exchange is not None:
        raise illegal("a Heroic Last Action is taken in a Round, between exchanges", "Use Luck Point")
    if c.dead or not any(loc.wound == "major" for loc in c.locations):
        raise IllegalCommand(f"{c.name} has no Major Wound (or is dead)", rule="CFI Ch.7 Heroic Last Actions")
    if state.interrupted:
        raise illegal("finish the Interrupt under way first", "Interrupt")
    if c.has("heroic"):
        raise IllegalCommand(f"{c.name} is already taking a last Action", rule="CFI Ch.7 Heroic Last Actions")
    if c.luck <= 0:
        raise illegal(f"{c.name} has no Luck Points left", "Use Luck Point")
    state = spend(state, c, "a Heroic Last Action", steps)
    c = add_condition(replace(state.combatants[c.name], ap=max(1, state.combatants[c.name].ap), delaying=False),
                      Condition(name="heroic", rule="CFI Ch.7 Heroic Last Actions",
                                note="one last Action, then collapse"))
    steps.add("CFI Ch.7 Heroic Last Actions", f"{c.name} rallies for one last Action before collapsing")
    state = with_combatant(state, c)
    if state.turn and state.turn != c.name:
        return replace(state, interrupted=state.interrupted or state.turn, turn=c.name)
    return replace(state, turn=c.name)
