"""Classic Fantasy Imperative state: combatants, their locations, weapons and
conditions, the round, the Turn and the open exchange. Frozen msgspec Structs."""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.rulesets.foresight import Foresight

replace = msgspec.structs.replace


class Location(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    lo: int
    hi: int
    kind: str  # leg | arm | vital | other
    max_hp: int
    hp: int
    natural: int = 0  # natural Armor Points
    worn: int = 0  # worn Armor Points
    adjacent: tuple[str, ...] = ()
    wound: str = ""  # "" | minor | serious | major
    aided: bool = False  # First Aid already applied to this injury (CFI Ch.5 First Aid: once per injury)


class Weapon(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    damage: str
    size: str  # S M L H E (shields too)
    types: tuple[str, ...] = ()  # cutting impaling bludgeoning entangling unarmed shield ranged two_handed
    hands: int = 1
    covers: int = 0  # shields: locations covered by Passive Blocking
    force: str = ""  # ranged: the Size equivalent
    ranges: tuple[int, ...] = ()  # ranged: close / effective / long
    load: int = 0  # ranged: Turns to reload
    uses_dm: bool = True  # ranged weapons apply the Damage Modifier only when they say so
    thrown: bool = False
    impale_size: str = ""
    ap: int = 0
    max_hp: int = 0  # 0: unknown (Damage Weapon needs it)
    hp: int = 0
    broken: bool = False
    dropped: bool = False
    reload_left: int = 0  # Turns of loading still needed (0: loaded)
    rapid: int = 0  # Rapid Reload credits for the next reload
    stuck_in: str = ""  # "<name>/<location>" while impaled
    can_set: bool = False  # CFI Ch.6 trait Set: may be set to receive a charge (CFI Ch.8 Charging)
    barbed: bool = False  # CFI Ch.6 trait Barbed: full damage when yanked free (CFI Ch.8 Impale)

    def has(self, kind: str) -> bool:
        return kind in self.types

    @property
    def ranged(self) -> bool:
        return "ranged" in self.types

    @property
    def shield(self) -> bool:
        return "shield" in self.types


class Condition(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    turns: int = -1  # Turns of the bearer still to pass (-1: not counted in Turns)
    # Applied during the bearer's own Turn: that Turn is not one of the ``turns`` (seed 002, Blind
    # Opponent: "for the *next* 1d3 Turns"), so its end clears this instead of counting (rounds.tick_turns).
    own_turn: bool = False
    rounds: int = -1  # Combat Rounds still to pass (-1: not counted in Rounds)
    location: str = ""
    grade: str = ""
    by: str = ""
    note: str = ""
    rule: str = ""


class Combatant(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    side: str
    chars: dict[str, int]
    skills: dict[str, int]
    ap_max: int
    init_mod: int
    dm: str
    luck: int
    healing_rate: int
    movement: int = 20
    legs: int = 2
    abilities: tuple[str, ...] = ()
    locations: tuple[Location, ...] = ()
    weapons: dict[str, Weapon] = {}
    held: tuple[str, ...] = ()  # readied weapons/shields; the first is in the right hand
    # dynamic
    ap: int = 0
    initiative: int | None = None
    tiebreak: tuple[int, ...] = ()
    fatigue: int = 0
    conditions: tuple[Condition, ...] = ()
    engaged: tuple[str, ...] = ()
    delaying: bool = False
    surprised: bool = False  # this round
    flat_footed: bool = False
    surprise_bonus: bool = False  # the first attack on this combatant may gain a bonus SE
    blocked: tuple[str, ...] = ()  # opponents who cannot attack this one this round (Outmaneuver)
    ward: tuple[str, ...] = ()  # (weapon, location, location...) of Passive Blocking
    counters: tuple[str, ...] = ()  # Prepare Counter: "effect>substitute"
    aim: str = ""  # "<target>@<round>" after an Aim
    casting: int = 0  # Turns of casting done
    held_magic: bool = False
    turns_taken: int = 0
    scars: int = 0

    @property
    def siz(self) -> int:
        return self.chars.get("SIZ", 0)

    def cond(self, name: str, location: str | None = None) -> Condition | None:
        for c in self.conditions:
            if c.name == name and (location is None or c.location == location):
                return c
        return None

    def has(self, name: str, location: str | None = None) -> bool:
        return self.cond(name, location) is not None

    def loc(self, name: str) -> Location | None:
        for loc in self.locations:
            if loc.name == name:
                return loc
        return None

    @property
    def dead(self) -> bool:
        return self.has("dead")

    @property
    def fallen(self) -> bool:
        """Dead, unconscious, incapacitated or too fatigued for any activity (not merely stunned)."""
        from combatlog.rulesets.classic_fantasy.tables import FATIGUE

        return (self.has("dead") or self.has("unconscious") or self.has("incapacitated")
                or not FATIGUE[self.fatigue][4])

    @property
    def out(self) -> bool:
        """Cannot act at all (CFI Ch.7 wounds and fatigue; CFI Ch.8 Stun Location on the head), unless
        taking a Heroic Last Action (CFI Ch.7 Heroic Last Actions)."""
        from combatlog.rulesets.classic_fantasy.tables import FATIGUE

        if self.has("heroic") and not self.has("dead"):
            return False
        return (self.has("dead") or self.has("unconscious") or self.has("incapacitated")
                or not FATIGUE[self.fatigue][4] or any(c.name == "stunned" and c.location == "head"
                                                        for c in self.conditions))


class Exchange(msgspec.Struct, frozen=True, kw_only=True):
    n: int  # the action number in the round (labels r<R>/a<n>/...)
    attacker: str
    target: str
    original_target: str
    weapon: str
    mode: str  # melee | charge | ranged
    range: str = ""
    crowd: str = ""
    redirected: bool = False
    stationary: bool = False
    blind_strike: bool = False
    grade: str = "standard"
    attack_skill: int = 0
    attack_roll: int = 0  # 0: Automatic success, no roll
    attack_size: int = 0  # Size (or Force) index the parry is compared with
    dm: str = "+0"  # the Damage Modifier this blow uses
    defence: str = ""  # "" (awaited) | parry | evade | none
    defence_weapon: str = ""
    defence_grade: str = "standard"
    defence_skill: int = 0
    defence_roll: int = 0
    att_level: int = 0
    def_level: int = 1
    count: int = 0  # Special Effects won
    winner: str = ""  # attacker | defender | ""
    evade_winner: str = ""  # for an Evade: who won the Opposed Roll
    bonus: int = 0  # Surprise bonus Special Effect
    stage: str = "defence"  # defence | effects | resolve
    effects: tuple[str, ...] = ()
    params: dict[str, str] = {}
    luck_used: tuple[str, ...] = ()  # rolls already re-rolled (attack, defence)
    luck_by: tuple[str, ...] = ()  # who spent a Luck Point on this exchange (CFI Ch.7 Using Luck Points)
    prefix: str = ""  # dice label prefix of a follow-on exchange: "<name>/" (sweep), "counter/" (charge)
    follows: str = ""  # queued exchanges: "together" (lands regardless) | "strike" (only if its striker still can)
    sweep: bool = False  # one attack roll shared by several targets (CFI Ch.8 Sweep Attacks)
    pass_through: bool = False  # the charger sweeps past, breaking engagement (CFI Ch.8 Charging)
    mitigate: tuple[str, ...] = ()  # "<victim>/<location>": Luck downgrades a Major Wound (CFI Ch.7 Mitigate Damage)


class Resolution(msgspec.Struct, frozen=True, kw_only=True):
    """The last blow resolved, kept so that a Luck Point spent at once can re-derive it
    (CFI Ch.7 Cheat Fate, Mitigate Damage): the state before it, and the dice it used."""

    before: CFIState
    dice: dict[str, tuple[int, ...]] = {}
    by: dict[str, str] = {}  # who rolled each label
    rerolled: dict[str, int] = {}  # how often each label was re-rolled by Luck


class CFIState(msgspec.Struct, frozen=True, kw_only=True):
    options: dict[str, str] = {}
    round: int = 0
    in_round: bool = False
    ended: bool = False
    outcome: str = ""
    order: tuple[str, ...] = ()
    turn: str = ""
    interrupted: str = ""
    action_no: int = 0
    free_no: int = 0
    combatants: dict[str, Combatant] = {}
    players: dict[str, tuple[str, ...]] = {}  # side -> its players (set-up "players"; commands/authority.py)
    own_players: dict[str, str] = {}  # combatant -> the player who plays it alone (a combatant's "player")
    exchange: Exchange | None = None
    queue: tuple[Exchange, ...] = ()  # exchanges still to resolve this Turn (sweep, counter-attack)
    undo: Resolution | None = None  # the blow just resolved, open to Luck until the next command
    dice: dict[str, tuple[int, ...]] = {}  # dice drawn since the last cfi event (by label)
    last_exchange: dict[str, Any] = {}  # summary of the last resolved exchange (views)
    foresight: Foresight = Foresight()  # choices protected from foreseen joint dice (rulesets/foresight.py)
    # the kept earlier version whose rules a log of it is read under (``ClassicFantasy.kept_revisions``: "1"), so
    # that it replays as it was played; "" for the current version. Not in the state digest (``canonical_state``).
    revision: str = ""


def with_combatant(state: CFIState, c: Combatant) -> CFIState:
    return replace(state, combatants={**state.combatants, c.name: c})


def with_location(c: Combatant, loc: Location) -> Combatant:
    return replace(c, locations=tuple(loc if x.name == loc.name else x for x in c.locations))


def with_weapon(c: Combatant, w: Weapon) -> Combatant:
    return replace(c, weapons={**c.weapons, w.name: w})


def add_condition(c: Combatant, cond: Condition) -> Combatant:
    kept = tuple(x for x in c.conditions if not (x.name == cond.name and x.location == cond.location))
    return replace(c, conditions=kept + (cond,))


def counted_from_next_turn(state: CFIState, bearer: str, cond: Condition) -> Condition:
    """A condition counted in Turns covers the bearer's Turns *after* the one in progress. When the
    bearer is the one whose Turn is running, the end of this Turn must not count. An Interrupt's Turn
    is not counted at its end (rounds.end_turn), so nothing is skipped then."""
    if cond.turns > 0 and state.turn == bearer and not state.interrupted:
        return replace(cond, own_turn=True)
    return cond


def drop_condition(c: Combatant, name: str, location: str | None = None) -> Combatant:
    return replace(c, conditions=tuple(x for x in c.conditions
                                       if not (x.name == name and (location is None or x.location == location))))


def players_for(state: CFIState, name: str) -> tuple[str, ...]:
    """Who plays combatant ``name``: its own player where the set-up gives one, else its side's players
    (() when nobody plays it: the Games Master's, commands/authority.py)."""
    own = state.own_players.get(name)
    if own:
        return (own,)
    member = state.combatants.get(name)
    return tuple(state.players.get(member.side, ())) if member is not None else ()
