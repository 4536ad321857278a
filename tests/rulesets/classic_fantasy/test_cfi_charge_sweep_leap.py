"""Charges met by a counter-attack (and a set weapon), Sweep Attacks, Leaping Attacks, the obstacle
behind a Bash and evading from a back square, played through the real write path with manual dice.

Default fighter (cfi_support.fighter): all characteristics 13, so Combat 60 unless given, Evade,
Endurance, Brawn, Athletics and Perception 26, DM +1d2 (STR+SIZ 26, notes 1.7), HP head 6, chest 8,
abdomen 7, arms 5, legs 6 (CON+SIZ 26, notes 1.6). INIT: A 9+13 = 22 acts before D 1+13 = 14."""

from __future__ import annotations

import pytest

from combatlog.errors import IllegalCommand
from combatlog.rulesets.classic_fantasy import commands as c
from tests.rulesets.classic_fantasy.cfi_support import Combat, fighter

INIT = {"r1/init/A": 9, "r1/init/D": 1}


def counter(fight: Combat, who: str, dice: dict, **kw: object) -> None:
    fight.run(c.Defend(defender=who, kind="counter", **kw), dice)  # type: ignore[arg-type]


def test_counter_attack_longer_set_weapon_strikes_first_and_stops_the_charge() -> None:
    # seed, Charging: "the recipient of a charge can simultaneously counterattack ... the wielder of the
    # longer weapon strikes first. If the weapon can be set to receive a charge (such as a spear), the
    # recipient may use the Damage Modifier of the charger". (CFI Ch.6: the longspear has the trait Set.)
    # By hand: A charges: Hard, 60 -> 40; roll 30 succeeds. The charge raises A's DM one step:
    # +1d2 -> +1d4 (notes 1.7). D counters with the longspear (declared longer): 20 <= 60 succeeds.
    # Neither blow is parried: each is Success vs automatic Failure = 1 Special Effect (notes 1.3).
    # D's blow first: Choose Location chest; 1d10+1 (5+1) + the charger's DM 1d4 (3) = 9;
    # A's chest 8 -> -1: a Serious Wound; 1d3 = 2 Turns without attacking; Endurance 90 fails
    # against 20: unconscious. So A's own blow, which strikes second, is lost.
    fight = Combat(fighter("A", "a"), fighter("D", "b", weapons=["longspear"]))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, charge=True)
    assert fight.state.exchange.attack_skill == 40 and fight.state.exchange.dm == "+1d4"
    counter(fight, "D", {"r1/a1/counter": 20}, weapon="longspear", longer="recipient", set_weapon=True)
    ex = fight.state.exchange
    assert ex.attacker == "D" and ex.prefix == "counter/" and ex.count == 1 and ex.dm == "+1d4"
    assert [q.attacker for q in fight.state.queue] == ["A"]
    assert any("strikes first" in s.text for s in fight.steps)
    fight.effects("D", ("choose_location",), {"r1/a1/counter/damage": 5, "r1/a1/counter/dm": 3,
                                              "r1/a1/counter/serious-turns": 2, "r1/a1/counter/endurance": 90},
                  location="chest")
    a, d = fight.who("A"), fight.who("D")
    assert a.loc("chest").hp == -1 and a.has("unconscious")
    assert d.loc("chest").hp == 8 and d.ap == 1  # the counter-attack cost D one Action Point
    assert fight.state.exchange is None and fight.state.queue == ()
    assert any("comes second and is lost" in s.text for s in fight.steps)


@pytest.mark.parametrize("longer,a_chest", [("same", 5), ("charger", 8)])
def test_counter_attack_order(longer: str, a_chest: int) -> None:
    # seed, Charging: with weapons of one length both blows land together (Decision); when the charger's
    # weapon is longer it strikes first, and a recipient it knocks out never strikes back.
    # A's charge (30 vs Hard 40) wins 1 effect (none chosen): chest, 1d8 = 8 + charged DM 1d4 = 4 -> 12;
    # D's chest 8 -> -4 Serious (not Major: -8); 12 <= SIZ 13, no knockback; 1 Turn; Endurance 90 fails
    # against 30: unconscious. D's counter (20 <= 60) without --set uses D's own DM +1d2:
    # 1d10+1 (1+1) + 1 = 3 -> A's chest 8 -> 5, but only when the blows land together.
    fight = Combat(fighter("A", "a"), fighter("D", "b", weapons=["longspear"]))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, charge=True)
    counter(fight, "D", {"r1/a1/counter": 20}, longer=longer)
    assert fight.state.exchange.attacker == "A"
    fight.effects("A", (), {"r1/a1/location": 11, "r1/a1/damage": 8, "r1/a1/dm": 4, "r1/a1/serious-turns": 1,
                            "r1/a1/endurance": 90})
    assert fight.who("D").has("unconscious")
    if longer == "same":
        assert fight.state.exchange.attacker == "D"  # the counter-attack still lands
        fight.effects("D", (), {"r1/a1/counter/location": 11, "r1/a1/counter/damage": 1, "r1/a1/counter/dm": 1})
    assert fight.state.exchange is None
    assert fight.who("A").loc("chest").hp == a_chest


def test_counter_attack_needs_a_charge_and_set_needs_the_trait() -> None:
    # seed, Charging: only "the recipient of a charge" may counter-attack; only a weapon that "can be set
    # to receive a charge" uses the charger's DM (the longsword has no trait Set, CFI Ch.6).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    with pytest.raises(IllegalCommand, match="charge"):
        counter(fight, "D", {"r1/a1/counter": 20}, longer="same")
    fight2 = Combat(fighter("A", "a"), fighter("D", "b"))
    fight2.round(INIT)
    fight2.attack("A", "D", {"r1/a1/attack": 30}, charge=True)
    with pytest.raises(IllegalCommand, match="Set"):
        counter(fight2, "D", {"r1/a1/counter": 20}, longer="same", set_weapon=True)


def test_charge_sweeping_past_breaks_engagement() -> None:
    # seed, Charging: the charger may "continue sweeping past, immediately breaking engagement".
    # 30 vs Hard 40 succeeds; D does not defend: 1 effect (none); right leg (1d20=2), 1d8 = 1 + 1d4 = 1 -> 2.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, charge=True, pass_through=True)
    fight.none("D")
    fight.effects("A", (), {"r1/a1/location": 2, "r1/a1/damage": 1, "r1/a1/dm": 1})
    assert fight.who("D").loc("right leg").hp == 4
    assert "D" not in fight.who("A").engaged and "A" not in fight.who("D").engaged


def test_sweep_attack_one_roll_each_defends_and_effects_are_concurrent() -> None:
    # seed, Sweep Attacks: "a single attack roll ... to all targets in its path. Each defender must resolve
    # the effects of the attack separately and any Special Effects imposed on the attacker are treated as
    # having occurred concurrently." A's great axe sweeps D and E with one roll of 30 (<= 60).
    # D parries with a critical 05 (crit range 6): Critical vs Success = 1 effect for D: Disarm Opponent.
    # A resists with Combat Skill, two grades easier (longsword M is two steps smaller than the great axe
    # H): Very Easy 120; 97 always fails; D's DM 1d2 = 1 -> flung 3 ft. The parry (M vs H) blocks
    # nothing: chest, 2d6+2 (1,1) + DM 1 = 5 -> D's chest 3. E does not defend: Success vs Failure, 1
    # effect (none chosen); the sweep is concurrent, so the axe still lands on E: chest 5 -> 3.
    fight = Combat(fighter("A", "a", weapons=["great axe"]), fighter("D", "b"), fighter("E", "b"))
    fight.round({**INIT, "r1/init/E": 1, "r1/init/D/tie": 5, "r1/init/E/tie": 3})
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True, sweep=("E",))
    assert fight.who("A").ap == 1 and {"D", "E"} <= set(fight.who("A").engaged)
    fight.parry("D", {"r1/a1/parry": 5})
    fight.effects("D", ("disarm_opponent",), {"r1/a1/disarm": 97, "r1/a1/disarm-distance": 1,
                                              "r1/a1/location": 11, "r1/a1/damage": (1, 1), "r1/a1/dm": 1})
    assert fight.who("D").loc("chest").hp == 3
    assert "great axe" not in fight.who("A").held
    ex = fight.state.exchange
    assert ex.target == "E" and ex.stage == "defence" and ex.attack_roll == 30 and ex.prefix == "E/"
    fight.none("E")
    fight.effects("A", (), {"r1/a1/E/location": 11, "r1/a1/E/damage": (1, 1), "r1/a1/E/dm": 1})
    assert fight.who("E").loc("chest").hp == 3
    assert fight.state.exchange is None and fight.who("A").ap == 1  # one Action Point for the whole sweep


def test_leaping_attack_knocks_prone_and_pins() -> None:
    # seed, Leaping Attacks: "an Opposed Roll of the leaper's Athletics versus the defender's Brawn or
    # Evade ... If the leaper wins then the defender is automatically knocked prone, with the attacker
    # astride them ... No damage ... cannot recover his footing until either his attacker leaves, or they
    # eventually win a Special Effect permitting them to Arise." Athletics 26: 10 succeeds; Brawn 26: 50
    # fails. Success vs Failure: 1 effect for A; only blow-free effects are offered (Decision).
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 10}, leap=True)
    assert fight.state.exchange.attack_skill == 26 and fight.state.exchange.mode == "leap"
    fight.run(c.Defend(defender="D", kind="brawn"), {"r1/a1/brawn": 50})
    from combatlog.rulesets.classic_fantasy.effects import offered

    opts = offered(fight.state, fight.state.exchange)
    assert "grip" in opts and "choose_location" not in opts and "bleed" not in opts
    fight.effects("A", (), {})  # no damage dice are needed
    d = fight.who("D")
    assert d.has("prone") and d.cond("pinned").by == "A" and d.loc("chest").hp == 8
    assert fight.state.turn == "D"
    with pytest.raises(IllegalCommand, match="astride"):
        fight.act("D", "regain_footing", "A", {"r1/a2/regain": 5, "r1/a2/regain-oppose": 90})


def test_leaping_attack_limits() -> None:
    # seed, Leaping Attacks: "only work against opponents of up to twice the attacker's SIZ";
    # "Quadruped targets make the attack roll one Difficulty Grade harder": Athletics 26 -> Hard 18
    # (26 x 2/3 = 17.3, rounded up, CFI Ch.5).
    big = Combat(fighter("A", "a"), fighter("D", "b", chars={"SIZ": 27}))
    big.round(INIT)
    with pytest.raises(IllegalCommand, match="twice"):
        big.attack("A", "D", {"r1/a1/attack": 10}, leap=True)
    horse = Combat(fighter("A", "a"), fighter("D", "b", legs=4))
    horse.round(INIT)
    horse.attack("A", "D", {"r1/a1/attack": 10}, leap=True)
    assert horse.state.exchange.attack_skill == 18 and horse.state.exchange.grade == "hard"


@pytest.mark.parametrize("roll,prone", [(50, True), (10, False)])
def test_bash_into_an_obstacle(roll: int, prone: bool) -> None:
    # seed, Bash: "If the recipient is forced backward into an obstacle, then they must make an Acrobatics
    # skill roll or Athletics roll at Hard difficulty to avoid falling or tripping over." Mace 1d8 = 8 +
    # DM 1d2 = 2 -> 10: bashed 10 ft (5 ft per 5 points). Athletics 26 at Hard = 18: 50 falls, 10 stands.
    # Armour 8 leaves 2 for the chest (8 -> 6); 10 <= SIZ 13, so no knockback.
    fight = Combat(fighter("A", "a", weapons=["mace"]), fighter("D", "b", worn=8))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    fight.none("D")
    fight.effects("A", ("bash",), {"r1/a1/location": 11, "r1/a1/damage": 8, "r1/a1/dm": 2,
                                   "r1/a1/obstacle": roll}, obstacle="yes")
    assert fight.who("D").has("prone") is prone
    assert fight.who("D").loc("chest").hp == 6
    assert any("bashed back 10 ft" in s.text for s in fight.steps)
    assert any("obstacle: athletics 18%" in s.text for s in fight.steps)


@pytest.mark.parametrize("perception,seen", [(90, False), (10, True)])
def test_evading_an_attack_from_a_back_square(perception: int, seen: bool) -> None:
    # seed, Facing: "Evading is always at Standard Difficulty against any attack except those from a back
    # square, which is Formidable and requires a successful Perception roll to even know the attack is
    # coming." Perception 26: 90 fails -> no reaction, an automatic Failure (no AP spent, not prone);
    # 10 succeeds -> Evade 26 at Formidable = 13; 12 succeeds.
    fight = Combat(fighter("A", "a"), fighter("D", "b"))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, moving=True)
    dice = {"r1/a1/perception": perception}
    if seen:  # unseen, the exchange waits for the winner's Special Effect: no damage is rolled yet
        dice.update({"r1/a1/evade": 12, "r1/a1/location": 2, "r1/a1/damage": 1, "r1/a1/dm": 1})
    fight.run(c.Defend(defender="D", kind="evade", back=True), dice)
    d = fight.who("D")
    if seen:
        assert d.ap == 1 and d.has("prone")
        assert fight.state.last_exchange["defence"] == "evade"
    else:
        assert d.ap == 2 and not d.has("prone")
        assert fight.state.exchange.winner == "attacker"  # Success vs automatic Failure


def test_luck_swaps_the_queued_counter_attack_roll() -> None:
    # CFI Ch.7 Cheat Fate ("re-roll or swap ... any dice roll they make") on the recipient's own counter
    # roll, while the charge's effects still wait: 91 fails against 60; swapped, 19 succeeds, so the
    # queued counter-attack now wins 1 Special Effect (Success vs automatic Failure, notes 1.3).
    fight = Combat(fighter("A", "a"), fighter("D", "b", weapons=["longspear"]))
    fight.round(INIT)
    fight.attack("A", "D", {"r1/a1/attack": 30}, charge=True)
    counter(fight, "D", {"r1/a1/counter": 91}, longer="same")
    assert fight.state.queue[0].count == 0
    fight.run(c.UseLuck(who="D", roll="attack", swap=True), {})
    assert fight.state.exchange.attacker == "A" and fight.state.exchange.attack_roll == 30
    q = fight.state.queue[0]
    assert q.attack_roll == 19 and q.count == 1 and q.winner == "attacker"
