"""CFI Ch.8 Special Effects Table: which effects a winner may choose, and when.

Each effect names who may take it (offensive: the attacker; defensive: the
defender), the weapon type it needs, the roll it needs, whether it stacks, and
the extra conditions its description sets. ``offered`` lists what the winner of
the open exchange may choose; ``check_choice`` refuses anything else.
"""

from __future__ import annotations

from combatlog.errors import IllegalCommand, InvalidCommand
from combatlog.rulesets.classic_fantasy import tables as t
from combatlog.rulesets.classic_fantasy.state import CFIState, Combatant, Exchange


class Effect:
    __slots__ = ("key", "title", "off", "deff", "weapon", "roll", "stack")

    def __init__(self, key: str, title: str, off: bool, deff: bool, weapon: str = "", roll: str = "",
                 stack: bool = False) -> None:
        self.key, self.title, self.off, self.deff = key, title, off, deff
        self.weapon, self.roll, self.stack = weapon, roll, stack


# (key, title, offensive, defensive, special weapon type, specific roll, stackable)
EFFECTS: dict[str, Effect] = {e.key: e for e in (
    Effect("accidental_injury", "Accidental Injury", False, True, roll="attacker_fumbles"),
    Effect("arise", "Arise", False, True),
    Effect("bash", "Bash", True, False, weapon="shield|bludgeoning"),
    Effect("bleed", "Bleed", True, False, weapon="cutting"),
    Effect("blind_opponent", "Blind Opponent", False, True, roll="defender_criticals"),
    Effect("bypass_armor", "Bypass Armor", True, False, roll="attacker_criticals", stack=True),
    Effect("choose_location", "Choose Location", True, False, roll="see_description"),
    Effect("circumvent_parry", "Circumvent Parry", True, False, roll="attacker_criticals"),
    Effect("damage_weapon", "Damage Weapon", True, True),
    Effect("disarm_opponent", "Disarm Opponent", True, True),
    Effect("enhance_parry", "Enhance Parry", False, True, roll="defender_criticals"),
    Effect("entangle", "Entangle", True, True, weapon="entangling"),
    Effect("force_failure", "Force Failure", True, True, roll="opponent_fumbles"),
    Effect("grip", "Grip", True, False, weapon="unarmed"),
    Effect("impale", "Impale", True, False, weapon="impaling"),
    Effect("sharpshooter", "Sharpshooter", True, False, weapon="ranged"),
    Effect("maximize_damage", "Maximize Damage", True, False, roll="attacker_criticals", stack=True),
    Effect("prepare_counter", "Prepare Counter", False, True, stack=True),
    Effect("rapid_reload", "Rapid Reload", True, False, stack=True),
    Effect("scar_foe", "Scar Foe", True, True),
    Effect("select_target", "Select Target", False, True, roll="attacker_fumbles"),
    Effect("slip_free", "Slip Free", False, True, roll="defender_criticals"),
    Effect("stun_location", "Stun Location", True, False, weapon="bludgeoning"),
    Effect("sunder", "Sunder", True, False, weapon="two_handed"),
    Effect("trip_opponent", "Trip Opponent", True, True),
    Effect("withdraw", "Withdraw", False, True),
)}
# Effects that work through an Opposed Roll of the loser (CFI Ch.8 Force Failure).
OPPOSED = {"bleed", "blind_opponent", "disarm_opponent", "stun_location", "trip_opponent"}
# Decision (CFI Ch.8 Leaping Attacks: "suitable Special Effects"): a leap inflicts no damage, so only
# effects that need no blow are suitable.
LEAP_EFFECTS = {"accidental_injury", "arise", "blind_opponent", "disarm_opponent", "force_failure", "grip",
                "prepare_counter", "scar_foe", "slip_free", "trip_opponent", "withdraw"}
# Decision: a Prepare Counter substitute must be an effect that needs no blow of its own.
COUNTER_SUBSTITUTES = {"trip_opponent", "disarm_opponent", "withdraw", "arise", "scar_foe", "slip_free"}


def effect_key(name: str) -> str:
    key = name.strip().lower().replace("-", "_").replace(" ", "_").replace("armour", "armor")
    if key not in EFFECTS:
        raise InvalidCommand(f"unknown Special Effect {name!r}; known: {', '.join(EFFECTS)}")
    return key


def sides(state: CFIState, ex: Exchange) -> tuple[Combatant, Combatant, bool]:
    """(chooser, opponent, chooser is the attacker)."""
    att, dfn = state.combatants[ex.attacker], state.combatants[ex.target]
    return (att, dfn, True) if ex.winner == "attacker" else (dfn, att, False)


def why_not(state: CFIState, ex: Exchange, key: str) -> str:
    """Why the winner of ``ex`` may not take ``key`` now, or "" when it is offered."""
    e = EFFECTS[key]
    chooser, opponent, attacking = sides(state, ex)
    if attacking and not e.off:
        return "defensive only"
    if not attacking and not e.deff:
        return "offensive only"
    if ex.mode == "leap" and key not in LEAP_EFFECTS:
        return "a leap inflicts no damage: only effects that need no blow are suitable"
    my_level = ex.att_level if attacking else ex.def_level
    their_level = ex.def_level if attacking else ex.att_level
    if e.roll in ("attacker_criticals", "defender_criticals") and my_level != t.CRITICAL:
        return "needs a Critical"
    if e.roll in ("attacker_fumbles", "opponent_fumbles") and their_level != t.FUMBLE:
        return "needs the opponent to Fumble"
    if ex.defence == "none" and ex.defence_roll == 0 and e.roll == "opponent_fumbles":
        return "the opponent did not roll"
    my_weapon = chooser.weapons.get(ex.weapon if attacking else ex.defence_weapon)
    ranged = ex.mode == "ranged"
    if e.weapon:
        kinds = e.weapon.split("|")
        if my_weapon is None or not any(my_weapon.has(k) for k in kinds):
            return f"needs a {' or '.join(kinds)} weapon"
    # conditions from the descriptions
    if key == "arise" and not chooser.has("prone"):
        return "not prone"
    if key == "bash" and opponent.siz * (2 if opponent.has("braced") else 1) > 2 * chooser.siz:
        return "works only on creatures up to twice the attacker's SIZ"
    if key == "choose_location":
        if ex.blind_strike:
            return "not when striking blindly at a hidden target (CFI Ch.8 Cover)"
        if ranged and my_level != t.CRITICAL and not (ex.range == "close" and ex.stationary):
            return "ranged: a Critical only, unless at Close Range against a stationary or unaware target"
    if key == "circumvent_parry" and not (ex.defence == "parry" and ex.def_level >= t.SUCCESS):
        return "there is no successful Parry to bypass"
    if key == "damage_weapon":
        target_weapon = opponent.weapons.get(ex.defence_weapon if attacking else ex.weapon)
        if attacking and ex.defence != "parry":
            return "the defender did not parry with a weapon"
        if not attacking and (ex.defence != "parry" or my_weapon is None):
            return "needs a Parrying weapon"
        if target_weapon is None or target_weapon.max_hp <= 0 or target_weapon.has("unarmed"):
            return "the opponent's weapon has no Armor/Hit Points in the setup"
    if key == "disarm_opponent":
        _mine, theirs = disarm_weapons(state, ex, ex.params)
        if not theirs:
            return "the opponent holds no weapon to disarm"
        if opponent.chars.get("STR", 0) > 2 * chooser.chars.get("STR", 0):
            return "works only on creatures up to twice the disarmer's STR"
    if key == "enhance_parry" and ex.defence != "parry":
        return "needs a Parry"
    if key == "grip" and ranged:
        return "needs Unarmed reach"
    if key in ("sharpshooter", "rapid_reload") and not ranged:
        return "ranged weapons only"
    if key == "rapid_reload" and (my_weapon is None or my_weapon.load <= 0):
        return "the weapon needs no reloading"
    if key == "slip_free" and not (chooser.has("entangled") or chooser.has("gripped") or chooser.has("pinned")):
        return "not Entangled, Gripped or Pinned"
    if key == "withdraw" and opponent.name not in chooser.engaged and not ranged:
        return "not engaged with the opponent"
    grip = chooser.cond("gripped")
    if key == "withdraw" and grip is not None and grip.by == opponent.name and not opponent.out:
        return "gripped by the opponent, who prevents disengaging (CFI Ch.8 Grip)"
    if key == "select_target" and ex.redirected:
        return "the blow already struck a bystander"
    return ""


def disarm_weapons(state: CFIState, ex: Exchange, params: dict[str, str]) -> tuple[str, str]:
    """CFI Ch.8 Disarm Opponent: (the disarmer's weapon, the weapon knocked away), "" when there is none.

    The seed's text sets no parry condition: it takes "the opponent's weapon" out of his hand. The
    weapon knocked away is the one the opponent used in the exchange (the attacker's weapon, or the
    defender's parrying weapon), else one he holds: ``disarm=<weapon>`` names it, by default his
    first held weapon that is not a shield. The disarmer's weapon, whose Size sets the grade, is the
    one he used, or for a defender who did not parry his first held weapon that is not a shield
    (else his bare hands)."""
    chooser, opponent, attacking = sides(state, ex)

    def held_weapon(c: Combatant, shields: bool) -> list[str]:
        return [h for h in c.held if h in c.weapons and not c.weapons[h].broken and not c.weapons[h].dropped
                and not c.weapons[h].has("unarmed") and (shields or not c.weapons[h].shield)]

    if attacking:
        mine = ex.weapon
        used = ex.defence_weapon if ex.defence == "parry" else ""
    else:
        mine = ex.defence_weapon if ex.defence == "parry" else next(iter(held_weapon(chooser, False)), "unarmed")
        used = ex.weapon
    named = params.get("disarm", "")
    if named:
        theirs = named if named in held_weapon(opponent, True) or named == used else ""
    elif used:
        theirs = used
    else:
        theirs = next(iter(held_weapon(opponent, False)), "")
    w = opponent.weapons.get(theirs)
    if w is None or w.has("unarmed"):
        theirs = ""
    return mine, theirs


def offered(state: CFIState, ex: Exchange) -> list[str]:
    return [k for k in EFFECTS if not why_not(state, ex, k)]


def check_choice(state: CFIState, ex: Exchange, effects: tuple[str, ...], params: dict[str, str]) -> None:
    """CFI Ch.8 Special Effects: at most as many as won, each offered, only stackable ones repeated."""
    limit = ex.count
    if len(effects) > limit:
        raise IllegalCommand(f"{len(effects)} effects chosen but only {limit} won",
                             rule="CFI Ch.8 Special Effects")
    for key in effects:
        reason = why_not(state, ex, key)
        if reason:
            raise IllegalCommand(f"{EFFECTS[key].title} is not available: {reason}",
                                 rule=f"CFI Ch.8 {EFFECTS[key].title}")
        if effects.count(key) > 1 and not EFFECTS[key].stack:
            raise IllegalCommand(f"{EFFECTS[key].title} does not stack", rule="CFI Ch.8 Special Effects Table")
    if "force_failure" in effects and not any(k in OPPOSED for k in effects if k != "force_failure"):
        raise IllegalCommand("Force Failure must be combined with an effect that needs an Opposed Roll",
                             rule="CFI Ch.8 Force Failure")
    chooser, opponent, attacking = sides(state, ex)
    known = {"location", "sharpshooter", "bypass", "blind", "entangle", "counter", "bystander", "obstacle", "disarm"}
    unknown = set(params) - known
    if unknown:
        raise InvalidCommand(f"unknown effect parameters {sorted(unknown)}; known: {', '.join(sorted(known))}")
    victim = state.combatants[ex.target]
    if "choose_location" in effects:
        loc = params.get("location", "")
        if not victim.loc(loc):
            raise InvalidCommand(f"Choose Location: give location=<one of {', '.join(x.name for x in victim.locations)}>")
    if "sharpshooter" in effects and "choose_location" in effects:
        raise IllegalCommand("Sharpshooter moves a rolled location; with Choose Location there is none",
                             rule="CFI Ch.8 Sharpshooter")
    if "sharpshooter" in effects and not victim.loc(params.get("sharpshooter", "")):
        raise InvalidCommand("Sharpshooter: give sharpshooter=<the location aimed for>, named now, before the hit "
                             "location is rolled; the shot moves there if the rolled location adjoins it")
    if "disarm" in params and "disarm_opponent" not in effects:
        raise InvalidCommand("disarm= goes with Disarm Opponent")
    if "disarm_opponent" in effects and not disarm_weapons(state, ex, params)[1]:
        raise InvalidCommand(f"Disarm Opponent: disarm=<a weapon {opponent.name} holds>")
    if effects.count("bypass_armor") == 1 and params.get("bypass", "worn") not in ("worn", "natural"):
        raise InvalidCommand("Bypass Armor: bypass=worn or bypass=natural")
    if params.get("obstacle", "no") not in ("yes", "no"):
        raise InvalidCommand("Bash: obstacle=yes when the recipient is forced back into an obstacle (declared)")
    if "obstacle" in params and "bash" not in effects:
        raise InvalidCommand("obstacle= goes with Bash")
    if "blind_opponent" in effects and params.get("blind", "hard") not in ("hard", "formidable"):
        raise InvalidCommand("Blind Opponent: blind=hard or blind=formidable (the method of blinding)")
    if "entangle" in effects and not attacking:
        loc = params.get("entangle", "right arm")
        if not opponent.loc(loc):
            raise InvalidCommand(f"Entangle: entangle=<a location of {opponent.name}>")
    if "prepare_counter" in effects:
        spec = params.get("counter", "")
        eff, _, sub = spec.partition(">")
        if not eff or not sub:
            raise InvalidCommand("Prepare Counter: counter=<effect>><substitute>, e.g. counter=trip_opponent>withdraw")
        effect_key(eff)
        if effect_key(sub) not in COUNTER_SUBSTITUTES:
            raise InvalidCommand(f"Prepare Counter substitutes: {', '.join(sorted(COUNTER_SUBSTITUTES))}")
    if "select_target" in effects:
        other = state.combatants.get(params.get("bystander", ""))
        if other is None or other.name in (ex.attacker, ex.target) or other.dead:
            raise InvalidCommand("Select Target: bystander=<a combatant within the attacker's reach>")
