"""The Classic Fantasy moves worth proposing now (``Ruleset.candidates``; commands/legal.py keeps the legal ones).

Proposing is not allowing: ``decide`` alone says what is legal, so this module proposes generously and
never checks a rule itself. What is proposed, by the state of the combat (CFI Ch.8 Running Combat):

* between Rounds (or before the first): the next Round (``cfi round``), with Initiative re-rolled
  (``--reroll``), and before round 1 each combatant surprised (a ruling, ``--surprised``); ending the combat
  (a ruling, ``cfi end --outcome``) with the outcome in words;
* on a combatant's Turn: an Attack with each weapon he has (bare hands too) at each opponent, standing,
  moving into contact (``--moving``), charging (``--charge``, with ``--pass-through``), sweeping on to one more
  opponent (``--sweep``), a Leaping Attack (``--leap``), a ranged shot at Close, Effective and Long Range; every
  other Proactive Action with its details filled in (move, into contact with each opponent, hustle at a run
  or a sprint, delay, dither, brace, ready each weapon in each mode, aim at each opponent, regain footing,
  struggle, outmaneuver all opponents (then withdraw, or engage each one alone), first aid to each wounded
  ally's injured location, take cover, change range, trip an entangled opponent); the Free Actions of the
  Turn's holder (assess the situation, drop an item, signal, speak, ward each location with each held weapon,
  two adjoining ones with a shield); and the Games Master's forced end of the Round (``cfi round --force``);
* a delaying combatant's Interrupt;
* a Reaction to the open attack: parry with each held weapon, evade (also from behind, ``--back``), counter a
  charge with each held weapon and each ``--longer`` (and ``--set``), Brawn against a leap, no defence;
* the Special Effects won: no effect, each offered effect alone with each value of its parameter (the
  location chosen or aimed for, worn or natural armour, the blinding method, the location entangled, the
  bystander, an obstacle behind), and, when more than one was won, each pair and triple of offered effects
  (a stackable one repeated) with the first value of each parameter: a representative, still uniform
  subset of the cross product, which can run to many thousands;
* Luck Points: on the open exchange's attack and defence rolls (re-rolled or, for one's own d100, swapped),
  on each roll of the blow just resolved and Mitigate Damage, Desperate Effort, a Heroic Last Action.

Not proposed: Situational Modifiers and Games Master grades on a roll (``--situation``, ``--grade``, ``--cap``),
firing into a crowd, striking blindly, a rider's mount Damage Modifier, mounting, magic (Cast Magic, Hold
Magic, Counter Spell): they depend on the scene (terrain, light, mounts, spells), which the log does not
model, and are the Games Master's words to add to a proposed move.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from combatlog.rulesets.base import Candidate
from combatlog.rulesets.classic_fantasy import commands as c
from combatlog.rulesets.classic_fantasy.actions import PROACTIVE
from combatlog.rulesets.classic_fantasy.effects import COUNTER_SUBSTITUTES, EFFECTS, offered, sides
from combatlog.rulesets.classic_fantasy.luck import D100
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant

# The words a blow just resolved may have rolled (CFI Ch.7 Cheat Fate: any roll one makes), besides
# the attack and defence rolls.
BLOW_ROLLS = ("damage", "location", "endurance", "bleed", "stun", "knockback", "trip", "disarm", "blind", "obstacle")


def _c(command: object, argv: tuple[str, ...], text: str, piece: str = "", group: str = "") -> Candidate:
    return Candidate(command=command, argv=argv, text=text, piece=piece, group=group)


def candidates(state: CFIState, stream: str) -> Iterator[Candidate]:
    if state.ended:
        return
    ex = state.exchange
    if ex is not None and ex.stage == "defence":
        yield from _reactions(state, stream)
    elif ex is not None and ex.stage == "effects":
        yield from _effects(state, stream)
    elif state.in_round and state.turn:
        yield from _turn(state, stream, state.combatants[state.turn])
        for d in state.combatants.values():
            if d.name != state.turn:
                yield _c(c.Act(who=d.name, action="interrupt"), ("cfi", "act", stream, d.name, "interrupt"),
                         f"{d.name} interrupts {state.turn}'s Turn", d.name)
        yield _c(c.StartRound(force=True), ("cfi", "round", stream, "--force"),
                 f"end round {state.round} now and start round {state.round + 1} (a ruling)")
    else:
        yield from _between_rounds(state, stream)
    yield from _luck(state, stream)


# -- the procedure and the Games Master's rulings -----------------------------------------------------

def _between_rounds(state: CFIState, stream: str) -> Iterator[Candidate]:
    nxt = state.round + 1
    yield _c(c.StartRound(), ("cfi", "round", stream),
             f"start round {nxt}" + (" (rolls Initiative)" if state.round == 0 else ""))
    if state.round:
        yield _c(c.StartRound(reroll=True), ("cfi", "round", stream, "--reroll"),
                 f"start round {nxt}, re-rolling Initiative")
    else:
        for m in state.combatants.values():
            yield _c(c.StartRound(surprised=(m.name,)), ("cfi", "round", stream, "--surprised", m.name),
                     f"start round 1 with {m.name} surprised (a ruling)")
    if state.round:
        able = sorted({m.side for m in state.combatants.values() if not m.fallen})
        outcome = f"{able[0]} win" if len(able) == 1 else ("nobody is left standing" if not able
                                                           else "the fight is broken off")
        yield _c(c.EndCombat(outcome=outcome), ("cfi", "end", stream, "--outcome", outcome),
                 f"end the combat: {outcome} (a ruling)")


# -- a Turn ---------------------------------------------------------------------------------------------

def _foes(state: CFIState, m: Combatant) -> list[Combatant]:
    return [o for o in state.combatants.values() if o.side != m.side and not o.dead]


def _turn(state: CFIState, stream: str, m: Combatant) -> Iterator[Candidate]:
    foes = _foes(state, m)
    yield from _attacks(state, stream, m, foes)
    yield from _actions(state, stream, m, foes)
    yield from _free(state, stream, m)


def _attacks(state: CFIState, stream: str, m: Combatant, foes: list[Combatant]) -> Iterator[Candidate]:
    name = m.name
    for wname, w in m.weapons.items():
        for o in foes:
            base = ("cfi", "attack", stream, name, o.name, "--weapon", wname)
            with_w = "bare-handed" if wname == "unarmed" else f"with the {wname}"
            text = f"{name} attacks {o.name} {with_w}"
            if w.ranged:
                for band in ("close", "effective", "long"):
                    yield _c(c.Attack(attacker=name, target=o.name, weapon=wname, range=band),
                             base + ("--range", band), f"{text} at {band.title()} Range", name)
                continue
            yield _c(c.Attack(attacker=name, target=o.name, weapon=wname), base, text, name)
            yield _c(c.Attack(attacker=name, target=o.name, weapon=wname, moving=True), base + ("--moving",),
                     f"{name} moves into contact with {o.name} and attacks {with_w}", name)
            yield _c(c.Attack(attacker=name, target=o.name, weapon=wname, charge=True), base + ("--charge",),
                     f"{name} charges {o.name} {with_w}", name)
            yield _c(c.Attack(attacker=name, target=o.name, weapon=wname, charge=True, pass_through=True),
                     base + ("--charge", "--pass-through"),
                     f"{name} charges {o.name} {with_w} and sweeps on past", name)
            for other in foes:
                if other.name != o.name:
                    yield _c(c.Attack(attacker=name, target=o.name, weapon=wname, sweep=(other.name,)),
                             base + ("--sweep", other.name),
                             f"{name} sweeps {with_w} through {o.name} and {other.name}", name)
    for o in foes:
        yield _c(c.Attack(attacker=name, target=o.name, leap=True), ("cfi", "attack", stream, name, o.name, "--leap"),
                 f"{name} leaps at {o.name}", name)


def _act(stream: str, m: Combatant, action: str, what: str, target: str = "",
         **detail: str) -> Candidate:
    argv: tuple[str, ...] = ("cfi", "act", stream, m.name, action) + ((target,) if target else ())
    for k, v in detail.items():
        argv += ("--detail", f"{k}={v}")
    return _c(c.Act(who=m.name, action=action, target=target, detail=dict(detail)), argv, what, m.name)


def _actions(state: CFIState, stream: str, m: Combatant, foes: list[Combatant]) -> Iterator[Candidate]:
    n = m.name
    assert set(PROACTIVE) >= {"move", "hustle", "ready", "outmaneuver"}
    yield _act(stream, m, "move", f"{n} moves")
    for o in foes:
        yield _act(stream, m, "move", f"{n} moves into contact with {o.name}", o.name)
        yield _act(stream, m, "change_range", f"{n} closes with {o.name}", o.name, direction="close")
        yield _act(stream, m, "change_range", f"{n} keeps away from {o.name}", o.name, direction="away")
        yield _act(stream, m, "aim", f"{n} aims at {o.name} for the rest of the Round", o.name)
        yield _act(stream, m, "trip_entangled", f"{n} yanks the entangling weapon to trip {o.name}", o.name)
    for gait in ("run", "sprint"):
        yield _act(stream, m, "hustle", f"{n} hustles at a {gait}", gait=gait)
    yield _act(stream, m, "delay", f"{n} delays, holding {m.ap} Action Point(s)")
    yield _act(stream, m, "dither", f"{n} dithers")
    yield _act(stream, m, "brace", f"{n} braces")
    yield _act(stream, m, "take_cover", f"{n} takes cover")
    yield _act(stream, m, "regain_footing", f"{n} regains footing")
    yield _act(stream, m, "struggle", f"{n} struggles free")
    for wname in m.weapons:
        if wname == "unarmed":
            continue
        for mode, words in (("draw", "readies"), ("sheathe", "puts away"), ("reload", "reloads"),
                            ("retrieve", "retrieves"), ("withdraw", "pulls free")):
            yield _act(stream, m, "ready", f"{n} {words} the {wname}", weapon=wname, mode=mode)
    if foes:
        against = ",".join(o.name for o in foes)
        yield _act(stream, m, "outmaneuver", f"{n} outmaneuvers {', '.join(o.name for o in foes)}", against=against)
        yield _act(stream, m, "outmaneuver", f"{n} outmaneuvers them all and withdraws", against=against,
                   then="withdraw")
        for o in foes:
            yield _act(stream, m, "outmaneuver", f"{n} outmaneuvers them all to engage {o.name} alone",
                       against=against, then=f"engage:{o.name}")
    for p in state.combatants.values():
        if p.side != m.side or p.dead:
            continue
        for loc in p.locations:
            if loc.wound or p.has("bleeding", loc.name):
                yield _act(stream, m, "first_aid", f"{n} gives First Aid to {p.name}'s {loc.name}", p.name,
                           location=loc.name)


def _free(state: CFIState, stream: str, m: Combatant) -> Iterator[Candidate]:
    n = m.name
    yield _act(stream, m, "assess_situation", f"{n} assesses the situation (a Free Action)")
    yield _act(stream, m, "signal", f"{n} signals to the others (a Free Action)", **{"text": "fall back"})
    yield _act(stream, m, "speak", f"{n} speaks (a Free Action)", **{"text": "Hold the line!"})
    for wname, w in m.weapons.items():
        if wname in m.held or w.stuck_in:
            yield _act(stream, m, "drop_item", f"{n} drops the {wname} (a Free Action)", weapon=wname)
        if wname not in m.held:
            continue
        names = [x.name for x in m.locations]
        for loc in names:
            yield _act(stream, m, "ward_location", f"{n} wards the {loc} with the {wname} (a Free Action)",
                       weapon=wname, locations=loc)
        if w.shield:
            for a, b in zip(names, names[1:]):
                yield _act(stream, m, "ward_location", f"{n} wards the {a} and {b} with the {wname} (a Free Action)",
                           weapon=wname, locations=f"{a},{b}")


# -- Reactions --------------------------------------------------------------------------------------------

def _reactions(state: CFIState, stream: str) -> Iterator[Candidate]:
    ex = state.exchange
    assert ex is not None
    d = state.combatants[ex.target]
    n = d.name
    for wname in d.held:
        yield _c(c.Defend(defender=n, kind="parry", weapon=wname), ("cfi", "parry", stream, n, "--weapon", wname),
                 f"{n} parries {ex.attacker}'s attack with the {wname}", n)
        for longer in ("recipient", "charger", "same"):
            yield _c(c.Defend(defender=n, kind="counter", weapon=wname, longer=longer),
                     ("cfi", "counter", stream, n, "--longer", longer, "--weapon", wname),
                     f"{n} counter-attacks the charge with the {wname} ({_longer(longer)})", n)
            if d.weapons[wname].can_set:
                yield _c(c.Defend(defender=n, kind="counter", weapon=wname, longer=longer, set_weapon=True),
                         ("cfi", "counter", stream, n, "--longer", longer, "--weapon", wname, "--set"),
                         f"{n} sets the {wname} against the charge ({_longer(longer)})", n)
    yield _c(c.Defend(defender=n, kind="evade"), ("cfi", "evade", stream, n), f"{n} evades {ex.attacker}'s attack", n)
    yield _c(c.Defend(defender=n, kind="evade", back=True), ("cfi", "evade", stream, n, "--back"),
             f"{n} evades an attack from behind (Perception first)", n)
    yield _c(c.Defend(defender=n, kind="brawn"), ("cfi", "brawn", stream, n), f"{n} resists the leap with Brawn", n)
    yield _c(c.Defend(defender=n, kind="none"), ("cfi", "no-defence", stream, n), f"{n} does not defend", n)


def _longer(longer: str) -> str:
    return {"recipient": "the longer weapon strikes first", "charger": "the charger's weapon is longer",
            "same": "equal reach, both land together"}[longer]


# -- Special Effects ---------------------------------------------------------------------------------------

def _variants(state: CFIState, key: str) -> list[dict[str, str]]:
    """Each value of an effect's parameter (the first is the representative one)."""
    ex = state.exchange
    assert ex is not None
    chooser, opponent, attacking = sides(state, ex)
    victim = state.combatants[ex.target]
    locs = [x.name for x in victim.locations]
    match key:
        case "choose_location":
            return [{"location": x} for x in locs]
        case "sharpshooter":
            return [{"sharpshooter": x} for x in locs]
        case "bypass_armor":
            return [{"bypass": "worn"}, {"bypass": "natural"}]
        case "blind_opponent":
            return [{"blind": "hard"}, {"blind": "formidable"}]
        case "bash":
            return [{}, {"obstacle": "yes"}]
        case "entangle" if not attacking:
            return [{"entangle": x.name} for x in opponent.locations] or [{}]
        case "select_target":
            return [{"bystander": o.name} for o in state.combatants.values()
                    if o.name not in (ex.attacker, ex.target) and not o.dead] or [{}]
        case "prepare_counter":
            return [{"counter": f"{e}>{s}"} for e, s in zip(
                ("trip_opponent", "disarm_opponent", "bleed", "impale", "stun_location", "choose_location"),
                sorted(COUNTER_SUBSTITUTES))]
        case "disarm_opponent":
            return [{}] + [{"disarm": w} for w in opponent.held if w != "unarmed"]
    return [{}]


def _effects(state: CFIState, stream: str) -> Iterator[Candidate]:
    ex = state.exchange
    assert ex is not None
    chooser = sides(state, ex)[0].name

    def make(keys: tuple[str, ...], params: dict[str, str]) -> Candidate:
        argv = ("cfi", "effects", stream, chooser, *keys)
        for k, v in params.items():
            argv += ("--param", f"{k}={v}")
        names = ", ".join(EFFECTS[k].title for k in keys) or "no Special Effect"
        return _c(c.ChooseEffects(who=chooser, effects=keys, params=params), argv,
                  f"{chooser} chooses {names}" + "".join(f"; {k} {v}" for k, v in params.items()), chooser)

    keys = offered(state, ex)
    yield make((), {})
    for k in keys:
        for params in _variants(state, k):
            yield make((k,), params)
    for size in range(2, min(ex.count, 3) + 1):
        pool = keys + [k for k in keys if EFFECTS[k].stack]  # a stackable effect may be taken twice
        seen: set[tuple[str, ...]] = set()
        for combo in combinations(sorted(pool), size):
            if combo in seen:
                continue
            seen.add(combo)
            params: dict[str, str] = {}
            for k in dict.fromkeys(combo):
                params.update(_variants(state, k)[0])
            yield make(combo, params)


# -- Luck Points ---------------------------------------------------------------------------------------------

def _luck(state: CFIState, stream: str) -> Iterator[Candidate]:
    def spend(m: Combatant, roll: str, text: str, swap: bool = False) -> Candidate:
        argv = ("cfi", "luck", stream, m.name, roll) + (("--swap",) if swap else ())
        return _c(c.UseLuck(who=m.name, roll=roll, swap=swap), argv, f"{m.name} spends a Luck Point: {text}", m.name)

    involved: list[str] = []
    for x in ([state.exchange] if state.exchange else []) + list(state.queue):
        involved += [x.attacker, x.target]
    if state.undo is not None:
        last = state.undo.before.exchange
        if last is not None:
            involved += [last.attacker, last.target]
    for name in dict.fromkeys(involved):
        m = state.combatants[name]
        for roll in ("attack", "defence"):
            yield spend(m, roll, f"re-roll the {roll}")
            yield spend(m, roll, f"swap the {roll} roll's digits", swap=True)
        if state.undo is not None:
            for roll in BLOW_ROLLS:
                yield spend(m, roll, f"re-roll the {roll} roll")
                if roll in D100:
                    yield spend(m, roll, f"swap the {roll} roll's digits", swap=True)
            yield spend(m, "mitigate", "a Major Wound becomes Serious")
    for m in state.combatants.values():
        if state.in_round and m.ap <= 0:
            yield spend(m, "action-point", "Desperate Effort, one more Action Point")
        if any(x.wound == "major" for x in m.locations):
            yield spend(m, "heroic", "a Heroic Last Action")
