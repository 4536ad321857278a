"""Views: figure status, turn summary, pending decisions, explain steps with citations and dice;
a fork of an Argad combat replays its parent's prefix and goes its own way."""

from __future__ import annotations

from combatlog.wiring import execute, fork_stream
from combatlog.projections.fold import state_at
from combatlog.rulesets.argad import RULESET
from combatlog.rulesets.argad import commands as c
from tests.rulesets.argad.argad_helpers import Fight


def ogre_fight() -> Fight:
    f = Fight([{"name": "spear", "side": "men", "species": "human", "weapon": "spear"},
               {"name": "ogre", "side": "m", "species": "ogre"}], options={"wound_location": "on"})
    f.turn()
    return f


def test_explain_cites_rules_and_dice() -> None:
    # Human spear 1D6: a lone 6 against D 5 (Ogre, light clothing) already wounds; hand check 6 > 5.
    f = ogre_fight()
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 6})
    rules = [s.rule for s in f.steps]
    assert all(r.startswith("Argad") for r in rules)
    assert any(s.dice == ("t1/melee/ogre/spear",) for s in f.steps)
    assert any("ogre is wounded" in s.text for s in f.steps)
    f.run(c.EndTurn(), {"t1/survival/ogre": 3, "t1/location/ogre/1": 1})
    texts = [s.text for s in f.steps]
    assert any("survival 1D3 = 3 with 1 wound(s): survives" in t for t in texts)
    assert any("wound in the head" in t for t in texts)
    assert any(s.dice == ("t1/survival/ogre",) and s.rule == "Argad: Wounds" for s in f.steps)


def test_status_and_turn_summary() -> None:
    f = ogre_fight()
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 6})
    view = RULESET.describe(f.state)
    ogre = next(x for x in view["figures"] if x["name"] == "ogre")
    assert ogre["this_turn"]["new_wounds"] == 1 and ogre["life_points"] == "1D3"
    assert view["turn_summary"]["strikes"][0]["result"] == "wound"
    pending = RULESET.pending(f.state)
    # the Ogre (short weapon) was wounded by the spear (long) before it could strike: not pending
    assert {p.who for p in pending} == {"gm"}
    f.run(c.EndTurn(), {"t1/survival/ogre": 3, "t1/location/ogre/1": 1})
    view = RULESET.describe(f.state)
    ogre = next(x for x in view["figures"] if x["name"] == "ogre")
    assert ogre["wounds"] == 1 and ogre["status"] == "standing"
    assert ogre["effects"] == ["half-stunned till the end of turn 2"]
    assert view["last_turn_summary"]["survival"][0]["roll"] == 3
    assert "ogre" in RULESET.render(f.state)


def test_fork_goes_its_own_way() -> None:
    f = ogre_fight()
    f.strike("spear", "ogre", {"t1/melee/ogre/spear": 2})
    meta = f.store.list_streams()[0]
    fork_stream(f.store, meta.id, at_seq=2, name="whatif", actor="gm")
    execute(f.store, "whatif", c.Strike(attackers=("spear",), targets=("ogre",)), actor="gm",
            manual_faces={"t1/melee/ogre/spear": (6,)})
    fork = next(m for m in f.store.list_streams() if m.name == "whatif")
    state = state_at(f.store, fork).state
    assert state.turn.strikes[-1].result == "wound"
    assert f.state.turn.strikes[-1].result == "none"
