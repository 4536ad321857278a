"""Magic Realm combat state: frozen structs, rebuilt from the log by ``evolve``.

Every piece carries its own combat values (copied from the data at set-up),
so a replay never depends on the data files of a later version.
"""

from __future__ import annotations

from fractions import Fraction

import msgspec

from combatlog.rulesets.magic_realm.data import DenizenDef, Face
from combatlog.trust.api import Chains, SealedStep

# The steps of a round (MR "A Round of Combat", seed 001; MR 8.4).
STEPS = ("lure", "deploy", "actions", "targets", "plays", "fatigue")


class Chit(msgspec.Struct, frozen=True, kw_only=True):
    id: str  # short and unique per character: M1, F2, X1 (magic), D1 (duck), B1 (berserk)
    label: str  # as printed: "MOVE H4**"
    action: str
    strength: int = 0
    magic_type: str = ""
    time: int
    asterisks: int
    status: str = "active"  # active | fatigued | wounded
    alerted: bool = False  # an alerted Magic chit casts with completion time 0 (MR 8.4.3)


class Artifact(msgspec.Struct, frozen=True, kw_only=True):
    """An Artifact or Spell Book: casts its Spell cards with completion time 0 (MR 8.4.3)."""

    name: str
    magic_type: str
    spells: tuple[str, ...] = ()
    active: bool = True


class Weapon(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    weight: int
    length: int
    missile: bool
    unalerted: Face
    alerted: Face
    alert: bool = False  # which side is up
    active: bool = True


class Armor(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    kind: str
    protects: tuple[int, ...]
    weight: int
    vulnerability: int
    layer: int
    gold_destroyed: int = 0
    condition: str = "intact"  # intact | damaged | destroyed
    active: bool = True


class Horse(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str
    kind: str
    vulnerability: int
    armored: bool
    trot_time: int
    trot_strength: int
    gallop_time: int
    gallop_strength: int
    price: int = 0
    side: str = "trot"  # trot (walking, light) | gallop (dark)
    alive: bool = True

    def move_time(self, side: str | None = None) -> int:
        return self.gallop_time if (side or self.side) == "gallop" else self.trot_time

    def strength(self, side: str | None = None) -> int:
        return self.gallop_strength if (side or self.side) == "gallop" else self.trot_strength


class Character(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    name: str  # which of the 16 characters
    player: str
    level: int
    vulnerability: int
    chits: tuple[Chit, ...]
    weapons: tuple[Weapon, ...] = ()
    armor: tuple[Armor, ...] = ()
    horse: Horse | None = None
    advantages: tuple[str, ...] = ()
    spells: tuple[str, ...] = ()
    artifacts: tuple[Artifact, ...] = ()
    fame: tuple[int, int] = (0, 1)  # a fraction: simultaneous kills split bounties (MR tables: bounties)
    notoriety: tuple[int, int] = (0, 1)
    gold: tuple[int, int] = (0, 1)
    alive: bool = True
    present: bool = True  # in the clearing (False after running away)
    hidden: bool = False
    found_hidden: bool = False
    wounds: int = 0  # wounds taken this round, assigned in the Fatigue Step
    last_harmed_by: str = ""
    death: str = ""
    # Boots cards (action BOOTS), Gloves cards (GLOVES) and Fly chits (FLY), supplied by the set-up with
    # their strength and time (MR 8.4.7, 8.4.8 name them; their values are not in the seeds or data).
    extras: tuple[Chit, ...] = ()
    items: tuple[str, ...] = ()  # other named items that matter to a rule: "Elusive Cloak" (MR 8.4.7)
    form: DenizenDef | None = None  # transmorphized into this Tremendous monster (MR 8.4.7)
    form_side: str = "light"  # light | dark (dark = red side up) while transmorphized
    holding: str = ""  # transmorphized and red side up: the target he stays assigned to (MR 8.4.7)

    def form_face(self) -> Face | None:
        """The side of his monster form in play (MR 8.4.7), or None when not transmorphized."""
        if self.form is None:
            return None
        return self.form.dark if self.form_side == "dark" else self.form.light

    def chit(self, ref: str) -> Chit | None:
        every = self.chits + self.extras
        for c in every:
            if c.id.lower() == ref.lower():
                return c
        same = [c for c in every if c.label.lower() == ref.lower()]
        return same[0] if len(same) == 1 else None

    @property
    def weapon(self) -> Weapon | None:
        return next((w for w in self.weapons if w.active), None)


class Denizen(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    stats: DenizenDef
    side: str = "light"  # light | dark (dark is the red side of a Tremendous monster)
    owner: str = ""  # the hiring character
    parent: str = ""  # parts (head, club): the monster they belong to
    horse: Horse | None = None
    alive: bool = True
    rebel: bool = False
    foes: tuple[str, ...] = ()  # rebels: the characters they battle (MR 8.4.2 treachery)

    @property
    def face(self) -> Face:
        return self.stats.dark if self.side == "dark" else self.stats.light


class Plays(msgspec.Struct, frozen=True, kw_only=True):
    """One side's secret Melee Step plays (MR 8.4.5)."""

    attack: int = 0  # attack circle 1 thrust, 2 swing, 3 smash; 0 = none
    fight: str = ""  # chit id
    alert_only: str = ""  # Fight chit played without a target: "alert" or "unalert" the weapon
    maneuver: int = 0  # maneuver square 1 charge, 2 dodge, 3 duck
    move: str = ""  # chit id
    horse: str = ""  # "trot" or "gallop" when the horse is played as the maneuver
    shield: int = 0  # the box the shield is played in
    place: dict[str, int] = {}  # counters on the character's own sheet -> red box
    hirelings: dict[str, int] = {}  # hireling (or "hireling/horse") defending its own sheet -> red box
    part_attack: int = 0  # transmorphized: the circle of his head's or club's attack (0: the body's circle)
    part_side: str = ""  # transmorphized: the side his head or club is played ("" = light)
    # Chits of a revealed sealed play the rules void (sealed.apply_revealed): cancelled at the reveal, they
    # go to Used This Round and count toward his effort limit and fatigue (MR 8.4.5 "Illegal plays").
    void: tuple[str, ...] = ()


class Action(msgspec.Struct, frozen=True, kw_only=True):
    kind: str  # none, alert, run, fly, cast, activate, deactivate, abandon
    chit: str = ""
    item: tuple[str, ...] = ()
    spell: str = ""
    outcome: str = ""  # derived: "ok" or why it failed


class SpellCast(msgspec.Struct, frozen=True, kw_only=True):
    caster: str
    spell: str
    chit: str  # the Magic chit played ("" when an Artifact or Spell Book casts it)
    time: int  # completion time (MR 8.4.3)
    targets: tuple[str, ...] = ()
    status: str = "cast"  # cast | working | cancelled | broken | expired
    why: str = ""
    item: str = ""  # the Artifact or Spell Book that cast it
    since: int = 0  # the round it came to life (0: never)


class StepRec(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    rule: str
    text: str
    dice: tuple[str, ...] = ()


class LedgerEntry(msgspec.Struct, frozen=True, kw_only=True):
    round: int
    who: str
    fame: tuple[int, int] = (0, 1)
    notoriety: tuple[int, int] = (0, 1)
    gold: tuple[int, int] = (0, 1)
    why: str
    rule: str


class AttackRec(msgspec.Struct, frozen=True, kw_only=True):
    """One attack of the Melee Step and what became of it (for views and explain)."""

    attacker: str
    target: str
    direction: int
    time: int
    length: int
    harm: str
    result: str  # hit (undercut) / hit (intercept) / miss / cancelled / harm text
    # Structured (the views never parse ``result``); empty in states folded before they existed.
    kind: str = ""  # weapon, dagger, denizen, form, spell, demon
    weapon: str = ""  # the weapon, monster form part or spell
    hit: str = ""  # undercut | intercept | "" (missed, MR 8.4.8)
    why: str = ""  # why it hit or missed
    order: int = 0  # place in the order of hits (MR 8.4.9), 1-based; 0 when it did not hit
    group: int = 0  # hits sharing a group number go into effect simultaneously
    cancelled: str = ""  # why a hit was cancelled before it went into effect (MR 8.4.9)
    applied: str = ""  # the harm that went into effect (a letter, or RED)
    armor: str = ""  # the armor piece it struck
    armor_effect: str = ""  # unharmed | damaged | destroyed
    kills: tuple[str, ...] = ()  # what it killed


class RoundAttacks(msgspec.Struct, frozen=True, kw_only=True):
    """The attacks of one resolved Melee Step, kept for the views of every later moment."""

    round: int
    attacks: tuple[AttackRec, ...] = ()


class Melee(msgspec.Struct, frozen=True, kw_only=True):
    """The resolved Melee Step of the current round (derived)."""

    positions: dict[str, tuple[str, str, int]] = {}  # piece -> (sheet, area, index) after repositioning
    attacks: tuple[AttackRec, ...] = ()
    hit_by_tremendous: dict[str, str] = {}  # tremendous monster -> target it hit this round


class LastMelee(msgspec.Struct, frozen=True, kw_only=True):
    """The sheets of the last resolved Melee Step, kept for the views after the round ends."""

    round: int
    melee: Melee
    plays: dict[str, Plays] = {}
    targets: dict[str, str] = {}
    cancelled: dict[str, str] = {}


class MRState(msgspec.Struct, frozen=True, kw_only=True):
    name: str = ""
    last_round: int = 1  # the round the last folded event belongs to
    options: dict[str, str] = {}
    clearing: dict[str, str] = {}
    round: int = 0
    step: str = "lure"
    first_round_of_day: bool = True
    characters: dict[str, Character] = {}
    denizens: dict[str, Denizen] = {}
    # who attacks whom (MR 8.2-8.4: assignment and deployment)
    assigned: dict[str, str] = {}  # uncontrolled denizen -> character or hireling it attacks
    deployed: dict[str, str] = {}  # hireling -> denizen it attacks
    deploy_order: tuple[str, ...] = ()  # hirelings in the order they were put on a sheet
    charges: dict[str, str] = {}
    lured: dict[str, str] = {}
    actions: dict[str, Action] = {}
    done: tuple[str, ...] = ()
    attention: tuple[str, ...] = ()
    targets: dict[str, str] = {}  # characters and hirelings -> their target this round
    positions: dict[str, int] = {}  # hirelings placed on denizens' sheets at target selection
    plays: dict[str, Plays] = {}
    spells: tuple[SpellCast, ...] = ()
    melee: Melee | None = None
    last_melee: LastMelee | None = None
    resolved: tuple[RoundAttacks, ...] = ()  # the attacks of every resolved round, in order
    owed: dict[str, int] = {}  # Fatigue Step: asterisks owed per character
    used: dict[str, tuple[str, ...]] = {}  # chits in the Used This Round box
    cancelled: dict[str, str] = {}  # chit id ("char/chit") -> why its play was cancelled
    weapon_flip: dict[str, str] = {}  # character -> "alert"/"unalert" at the end of the round
    active_round: bool = False  # harm, fatigue or spells this round (MR tables: end of combat)
    quiet_rounds: int = 0
    pinned: dict[str, str] = {}  # red-side-up Tremendous monster -> the target it holds
    kills: dict[str, int] = {}  # kills per character in this combat (bounty multiplier)
    round_kills: tuple[tuple[str, str, int], ...] = ()  # (victim, killer, group) this round
    ledger: tuple[LedgerEntry, ...] = ()
    rolls: dict[str, tuple[int, ...]] = {}
    steps: tuple[StepRec, ...] = ()  # the derived steps of the last event the rules folded (explain)
    ended: bool = False
    end_reason: str = ""
    # Play by email (sealed.py): pinned players seal their plays; joint dice come from seed steps.
    players: tuple[str, ...] = ()  # the players pinned in the genesis
    joint: str = ""  # "strict" or "friendly" when the combat's dice scheme is joint, else ""
    sealed: dict[str, SealedStep] = {}  # every sealed step of the combat (trust.api.track_sealed)
    seed: str = ""  # the newest completed seed step: the joint dice derive from its reveals
    seed_choices: tuple[tuple[str, str, str], ...] = ()  # (kind, player, what) chosen while ``seed`` was known
    chains: Chains = Chains()  # who has a nonce chain, whose is released (docs/trust.md, "Nonce chains")
    # (step, kind, player, what): chosen while every other contribution to the open chained seed step was
    # public, so the chooser could compute its seed (a decision point on it once it completes)
    foreknown: tuple[tuple[str, str, str, str], ...] = ()
    # The earlier version of these rules the combat was played under, where this build keeps that version's rules
    # (``MagicRealm.kept_revisions``: "1"), so its log replays as it was played; "" for the current version.
    revision: str = ""
    # Version 3, where players are pinned (``mr pass NAME CHARACTER...``): the characters whose players voted to pass
    # the rest of this round, until a decision of another kind; and the round every character agreed to pass
    # (its remaining steps are passes, whoever runs them). Left out of the state digest at their defaults.
    pass_votes: tuple[str, ...] = ()
    passing: int = 0

    @property
    def round_passed(self) -> bool:
        """Every character in the fight agreed to pass this round: its remaining steps are passes only."""
        return self.passing != 0 and self.passing == self.round


def frac(value: tuple[int, int]) -> Fraction:
    return Fraction(value[0], value[1])


def pair(value: Fraction) -> tuple[int, int]:
    return (value.numerator, value.denominator)


def show_frac(value: tuple[int, int]) -> str:
    f = frac(value)
    if f.denominator == 1:
        return str(f.numerator)
    whole, rest = divmod(f.numerator, f.denominator)
    return f"{whole} {rest}/{f.denominator}" if whole else f"{rest}/{f.denominator}"
