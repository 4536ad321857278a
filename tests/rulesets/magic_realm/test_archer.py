"""The ARCHER advantage: a level-4 Elf or Woods Girl rolls one die on the Missile Table (issue 38, item 1).

Sources: MR 8.4.9 "Bowmen" (seed 000): "when a player rolls on the Missile Table for an Archer's attack, he
rolls only one die"; data/magic_realm/README.md: ARCHER, the Elf's and the Woods Girl's level-4 advantage
(characters.json), makes the character roll one die instead of two, as the native Archers do. The Missile
Table (data/tables.md): harm changes by 3 - result levels, the result being the higher die.

The case: an Elf with an alerted Light Bow (L**, length 14, time 1) shoots a Giant (light side H, time 5,
length 0, vulnerability T) in the first round of the day, and plays no maneuver. Her time 1 undercuts the
Giant's move time 5 (MR 8.4.8); the Giant and its club hit her (no maneuver). Longest first (MR 8.4.9): the
bow strikes first. With one die, a 2 raises the harm one level: L** -> M**, and unarmored M** = T >= T kills
the Giant; its and its club's attacks are cancelled; she earns the Giant's 8 fame and 8 notoriety. Before
the fix she rolled two dice: [2, 3] takes the 3, no change, L** = H < T, and the Giant's club (H >= her
vulnerability L) killed her.
"""

from __future__ import annotations

import pytest

from combatlog.errors import InvalidCommand
from combatlog.events.envelope import decode_recorded
from combatlog.projections.fold import state_at
from combatlog.rulesets.magic_realm import commands as c
from combatlog.rulesets.magic_realm.dice_uses import dice_uses
from combatlog.rulesets.magic_realm.evolve import evolve
from combatlog.rulesets.magic_realm.events import MeleeResolved
from combatlog.rulesets.magic_realm.ruleset import MagicRealm
from combatlog.wiring import verify_stream
from tests.rulesets.magic_realm.mr_helpers import Game, char

# repositioning die 4 keeps the Giant in box 1 and its club in box 2; the club's change-tactics dice (1, 1)
# have no 6 (the Giant, Tremendous, rolls none: MR tables, Change Tactics)
SHEET = {"r1/reposition/x": (4,), "r1/tactics/x/box2": (1, 1)}


def _shot(character: str, level: int, missile: tuple[int, ...]) -> Game:
    g = Game({"characters": [char("x", character, level=level, weapon="Light Bow", weapon_alerted=True)],
              "denizens": [{"id": "giant", "monster": "Giant"}]})
    g.do(c.Lure(character="x", denizens=("giant",)))
    g.encounter(["x"])
    g.do(c.Target(character="x", target="giant"))
    fight = next(ch.id for ch in g.state.characters["x"].chits if ch.action == "FIGHT")
    g.do(c.Play(character="x", attack=1, fight=fight))
    g.do(c.Resolve(), {**SHEET, "r1/missile/x": missile})
    return g


@pytest.mark.parametrize("character", ["Elf", "Woods Girl"])
def test_archer_rolls_one_die_and_the_giant_dies_first(character: str) -> None:
    g = _shot(character, 4, (2,))
    assert "ARCHER" in g.state.characters["x"].advantages
    assert "rolls [2] (one die: ARCHER advantage): harm changes +1 -> M**" in g.text()
    assert not g.state.denizens["giant"].alive and not g.state.denizens["giant-club"].alive
    x = g.state.characters["x"]
    assert x.alive and (x.fame, x.notoriety) == ((8, 1), (8, 1))
    # the die recorded, and the one the rules declare for the event that reads it, are 1d6
    store, meta = g.store, g.store.list_streams()[0]
    rows = [decode_recorded(r.body) for r in store.read_stream(meta.id, 1, 10**9)]
    [die] = [r.event for r in rows if getattr(r.event, "label", "") == "r1/missile/x"]
    assert die.notation == "1d6"
    state = MagicRealm().initial_state(rows[0].event)
    for rec in rows[1:]:
        if type(rec.event) is MeleeResolved:
            uses = {u.label: u.notation for u in dice_uses(state, rec.event)}
            assert uses["r1/missile/x"] == "1d6"
        state = evolve(state, rec.event, rec.seq)
    assert verify_stream(store, meta).ok


def test_two_faces_are_not_one_die() -> None:
    # the faces the old rule took (two dice) are refused: the rules roll 1d6 here
    with pytest.raises(InvalidCommand, match="1d6"):
        _shot("Elf", 4, (2, 3))


def test_without_archer_two_dice_and_the_elf_dies() -> None:
    # A level-3 Elf (Hunter) has no ARCHER yet (characters.json: it comes at level 4): two dice, [2, 3] ->
    # 3, no change, L** = H < T; the Giant's club (length 8 before the Giant's 0) then kills her: H >= L.
    g = _shot("Elf", 3, (2, 3))
    assert "ARCHER" not in g.state.characters["x"].advantages
    assert "rolls [2, 3]: harm changes +0 -> L**" in g.text()
    assert g.state.denizens["giant"].alive and not g.state.characters["x"].alive
    assert state_at(g.store, g.store.list_streams()[0]).state.characters["x"].death
