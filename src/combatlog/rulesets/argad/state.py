"""Argad state: figures (profile and lasting condition) and the open game turn.

Everything here is derived by ``evolve`` from events; the per-turn records keep
the derivation (dice, modifiers, outcome, citations) so ``explain`` can show it.
"""

from __future__ import annotations

import msgspec

from combatlog.commands.authority import Roles
from combatlog.rulesets.argad.options import Options
from combatlog.rulesets.foresight import Foresight


class Figure(msgspec.Struct, frozen=True, kw_only=True):
    """A figure's profile (fixed at set-up) and its lasting condition."""

    name: str
    side: str
    species: str = ""
    strength: str = "=H"
    klass: int = 3
    armour: int = 3  # melee protection, hide included (Argad: Armour 6 & armour 7)
    shooting_armour: int = 3
    wounds_die: int = 1  # 1, or the N of 1DN life points
    melee_die: int = 6
    shooting_die: int = 6  # 0: cannot shoot
    thrown_die: int = 0
    base_mm: int = 20
    mounted: bool = False
    rider: str = "good"  # good | mounted_infantry
    mount_charge: bool = True
    weapon: str = "short"
    missile: str = ""
    abilities: tuple[str, ...] = ()
    metal: str = "iron"
    short_staff: bool = False  # Dwarves and -H: staff weapons semi-long
    mineral_species: bool = False  # Dwarves may ignore recoil on mineral ground
    longbow_immobile: bool = False
    idle_target_malus: bool = False
    refuse_recoil: bool = True  # standing choice when a recoil may be refused
    note: str = ""
    # lasting condition
    wounds: int = 0
    dead: bool = False
    dead_turn: int = 0
    removed: str = ""  # left the table (fled...), with the reason
    ground: str = ""  # "mineral" while standing on solid mineral ground
    stunned_until: int = 0  # head wound: half-stunned till the end of this turn
    strength_loss: int = 0  # trunk/arm wounds
    move_loss_cm: int = 0  # stomach/leg wounds
    locations: tuple[int, ...] = ()

    def has(self, ability: str) -> bool:
        return ability in self.abilities

    @property
    def active(self) -> bool:
        return not self.dead and not self.removed


class Move(msgspec.Struct, frozen=True, kw_only=True):
    charge: bool = False
    crossing: bool = False
    stationary: bool = False
    out_of_command: bool = False
    note: str = ""


class Mod(msgspec.Struct, frozen=True, kw_only=True):
    value: int
    why: str
    rule: str


class DieRead(msgspec.Struct, frozen=True, kw_only=True):
    """One die of a pool as read: who rolled it, the faces, the half-points value."""

    who: str
    label: str
    sides: int
    faces: tuple[int, ...]
    natural2: int  # natural value x2 (after maxima), so +1/2 stays whole
    mods: int
    total2: int


class Strike(msgspec.Struct, frozen=True, kw_only=True):
    """A melee strike as derived: one pool of attackers against one target."""

    seq: int
    attackers: tuple[str, ...]
    target: str
    tier: int
    dice: tuple[DieRead, ...]
    rerolls: tuple[str, ...]
    mods: dict[str, tuple[Mod, ...]]  # per attacker
    maxima_before: int
    maxima: int  # natural maxima in this strike (re-rolls included)
    best2: int  # best total x2
    defence: int
    low: int  # lower bound of the recoil band
    auto_hit: bool
    result: str  # kill | wound | recoil | none
    split: bool = False
    charging_cavalry: bool = False
    solo: bool = True
    cancelled_by: int = 0  # seq of the strike that won priority over this one
    priority_note: str = ""
    recoil_refused: str = ""  # why the recoil did not move the target
    ranks: tuple[int, ...] = ()

    def rank_of(self, who: str) -> int:
        return self.ranks[self.attackers.index(who)] if self.ranks else 1


class Shot(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    shooters: tuple[str, ...]
    targets: tuple[str, ...]
    need: int
    need_source: str
    dice: tuple[DieRead, ...]
    rerolls: tuple[str, ...]
    mods: dict[str, tuple[Mod, ...]]
    maxima_before: int
    hits: tuple[str, ...]  # target hit by each successful die, in order
    hit_labels: tuple[str, ...] = ()
    into_melee: bool = False
    friend_hits: tuple[str, ...] = ()
    ones: int = 0
    one_reroll: str = ""


class Effect(msgspec.Struct, frozen=True, kw_only=True):
    """What happened to a figure in the open turn (recomputed from the records)."""

    killed_at: int = -9  # tier (-1: shooting), -9: not killed
    wounds: tuple[int, ...] = ()  # tier of each wound (-1: shooting)
    recoiled_at: int = -9
    recoil_refused: bool = False
    struck_at: int = -9
    shot: bool = False


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    number: int
    phase: str = "movement"  # movement | shooting | melee | ended
    moves: dict[str, Move] = {}
    shots: tuple[Shot, ...] = ()
    strikes: tuple[Strike, ...] = ()
    tier: int = -1
    melee_maxima: dict[str, int] = {}
    shoot_maxima: dict[str, int] = {}
    melee_rerolls: dict[str, int] = {}
    shoot_rerolls: dict[str, int] = {}
    faces: dict[str, tuple[int, ...]] = {}
    effects: dict[str, Effect] = {}
    held: dict[str, int] = {}  # figure -> seq of the event by which its side held its blow (it strikes no more)
    survival: tuple[tuple[str, str, int, int, bool], ...] = ()  # (figure, label, roll, wounds, died)
    locations: tuple[tuple[str, str, int], ...] = ()  # (figure, label, d12)


class ArgadState(msgspec.Struct, frozen=True, kw_only=True):
    options: Options = Options()
    figures: dict[str, Figure] = {}
    players: dict[str, tuple[str, ...]] = {}  # side -> its players (set-up "players"; commands/authority.py)
    roles: Roles = Roles()  # the genesis's roles: whether they are enforced, and the referee (commands/authority.py)
    turn: Turn | None = None
    last_turn: Turn | None = None  # the game turn just finished (for the summary and explain)
    turns_done: int = 0
    ended: bool = False
    outcome: str = ""
    history: tuple[str, ...] = ()  # one summary line per finished game turn
    foresight: Foresight = Foresight()  # choices protected from foreseen joint dice (rulesets/foresight.py)
    # the kept earlier version whose rules a log of it is read under (``Argad.kept_revisions``: "1", "2"), so that it
    # replays as it was played; "" for the current version. Not in the state digest (``Argad.canonical_state``).
    revision: str = ""

    @property
    def number(self) -> int:
        return self.turn.number if self.turn else self.turns_done
